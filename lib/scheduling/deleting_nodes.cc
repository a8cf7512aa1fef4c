#include "scheduling/deleting_nodes.h"

#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "scheduling/pods.h"

namespace nodeplan::scheduling {

bool NodeClaimDeleting(const v1::NodeClaim& c) {
  if (!c.metadata().deletion_timestamp().empty()) return true;
  for (const auto& cond : c.status().conditions())
    if (cond.type() == "InstanceTerminating" && cond.status() == "True")
      return true;
  return false;
}

bool NodeDeleting(const v1::Node& node, const v1::NodeClaim* claim) {
  return claim != nullptr ? NodeClaimDeleting(*claim)
                          : !node.metadata().deletion_timestamp().empty();
}

namespace {

// The names of the Nodes Karpenter's state takes as being deleted. Most
// requests mark nothing: they pay one pass over nodes and NodeClaims, no
// allocation.
absl::flat_hash_set<std::string> DeletingNodes(const v1::ScheduleRequest& r) {
  const bool any = absl::c_any_of(r.node_claims(), NodeClaimDeleting) ||
                   absl::c_any_of(r.nodes(), [](const v1::Node& n) {
                     return !n.metadata().deletion_timestamp().empty();
                   });
  if (!any) return {};
  absl::flat_hash_map<std::string, const v1::NodeClaim*> claim_of;
  for (const v1::NodeClaim& c : r.node_claims())
    if (!c.status().node_name().empty())
      claim_of.emplace(c.status().node_name(), &c);
  absl::flat_hash_set<std::string> out;
  for (const v1::Node& n : r.nodes()) {
    auto it = claim_of.find(n.metadata().name());
    if (NodeDeleting(n, it != claim_of.end() ? it->second : nullptr))
      out.insert(n.metadata().name());
  }
  return out;
}

// karpenter.sh/do-not-disrupt protects an active pod: "true", or a positive
// duration (no clock here: taken as still running); other values, "Never"
// among them, are ignored, as Karpenter ignores them.
bool DoNotDisruptActive(const v1::Pod& p) {
  auto it = p.metadata().annotations().find(labels::kDoNotDisrupt);
  if (it == p.metadata().annotations().end()) return false;
  return it->second == "true" || DoNotDisruptDuration(it->second).ok();
}

// IsReschedulable and IsDisruptable of Karpenter's pod utilities.
bool GivesUp(const v1::Pod& p) {
  const bool terminating = !p.metadata().deletion_timestamp().empty();
  const bool active = !IsTerminal(p) && !terminating;
  const bool reschedulable =
      (active || (IsOwnedByStatefulSet(p) && terminating && !IsTerminal(p))) &&
      !IsOwnedByDaemonSet(p) && !IsOwnedByNode(p);
  return reschedulable && (!active || !DoNotDisruptActive(p));
}

// The request's pods that the `deleting` nodes give up, by index.
std::vector<int> LeavingPods(const v1::ScheduleRequest& request,
                             const absl::flat_hash_set<std::string>& deleting) {
  std::vector<int> out;
  if (deleting.empty()) return out;
  for (int i = 0; i < request.pods_size(); ++i) {
    const v1::Pod& p = request.pods(i);
    if (!p.spec().node_name().empty() &&
        deleting.contains(p.spec().node_name()) && GivesUp(p))
      out.push_back(i);
  }
  return out;
}

}  // namespace

bool HasDeletingNodePods(const v1::ScheduleRequest& request) {
  return !LeavingPods(request, DeletingNodes(request)).empty();
}

std::optional<v1::ScheduleRequest> WithDeletingNodesPodsPending(
    const v1::ScheduleRequest& request) {
  const absl::flat_hash_set<std::string> deleting = DeletingNodes(request);
  const std::vector<int> moving = LeavingPods(request, deleting);
  if (moving.empty()) return std::nullopt;
  v1::ScheduleRequest out = request;
  for (int i : moving) {
    v1::Pod* p = out.mutable_pods(i);
    p->mutable_spec()->clear_node_name();
    p->mutable_metadata()->clear_deletion_timestamp();
    // Karpenter appends these pods to the ones it schedules as they are:
    // the pending pods' filters (nominated, gated) do not apply to them.
    p->mutable_status()->clear_nominated_node_name();
    p->mutable_spec()->clear_scheduling_gates();
  }
  return out;
}

}  // namespace nodeplan::scheduling
