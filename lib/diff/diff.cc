#include "nodeplan/diff.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/labels.h"
#include "nodeplan/library_version.h"
#include "nodeplan/schedule.h"

namespace nodeplan {
namespace {

// The planning half of a DisruptRequest (the fields both requests share).
v1::ScheduleRequest ScheduleHalf(const v1::DisruptRequest& d) {
  v1::ScheduleRequest s;
  *s.mutable_node_pools() = d.node_pools();
  *s.mutable_node_classes() = d.node_classes();
  if (d.has_catalog()) *s.mutable_catalog() = d.catalog();
  s.set_catalog_ref(d.catalog_ref());
  *s.mutable_node_overlays() = d.node_overlays();
  *s.mutable_nodes() = d.nodes();
  *s.mutable_node_claims() = d.node_claims();
  *s.mutable_pods() = d.pods();
  *s.mutable_daemon_sets() = d.daemon_sets();
  *s.mutable_persistent_volume_claims() = d.persistent_volume_claims();
  *s.mutable_persistent_volumes() = d.persistent_volumes();
  *s.mutable_storage_classes() = d.storage_classes();
  *s.mutable_csi_nodes() = d.csi_nodes();
  *s.mutable_unavailable_offerings() = d.unavailable_offerings();
  *s.mutable_deployments() = d.deployments();
  *s.mutable_namespaces() = d.namespaces();
  const v1::DisruptOptions& o = d.options();
  v1::ScheduleOptions* so = s.mutable_options();
  so->set_preference_policy(o.preference_policy());
  so->set_min_values_policy(o.min_values_policy());
  so->set_max_instance_types(o.max_instance_types());
  if (o.has_reserved_capacity()) {
    so->set_reserved_capacity(o.reserved_capacity());
  }
  so->set_spread_bookkeeping(o.spread_bookkeeping());
  so->set_instance_type_encoding(o.instance_type_encoding());
  return s;
}

using Shape = std::tuple<std::string, std::string, std::string, std::string>;

std::map<Shape, v1::NodeClaimShape> Shapes(const v1::ScheduleResponse& r) {
  std::map<Shape, v1::NodeClaimShape> out;
  for (const v1::NewNodeClaim& nc : r.new_node_claims()) {
    const Shape key{nc.node_pool(), nc.launch().instance_type(),
                    nc.launch().zone(), nc.launch().capacity_type()};
    v1::NodeClaimShape& s = out[key];
    s.set_node_pool(nc.node_pool());
    s.set_instance_type(nc.launch().instance_type());
    s.set_zone(nc.launch().zone());
    s.set_capacity_type(nc.launch().capacity_type());
    s.set_price(nc.launch().price());
    s.set_count(s.count() + 1);
  }
  return out;
}

// Shapes `a` has more of than `b`, counted by the difference.
void More(const std::map<Shape, v1::NodeClaimShape>& a,
          const std::map<Shape, v1::NodeClaimShape>& b,
          google::protobuf::RepeatedPtrField<v1::NodeClaimShape>* out) {
  for (const auto& [key, shape] : a) {
    auto it = b.find(key);
    const int extra = shape.count() - (it == b.end() ? 0 : it->second.count());
    if (extra <= 0) continue;
    v1::NodeClaimShape* s = out->Add();
    *s = shape;
    s->set_count(extra);
  }
}

// Pod -> where the plan puts it, or its unschedulable reason.
struct Placements {
  std::map<std::string, std::string> unschedulable;
  absl::flat_hash_map<std::string, std::string> placed;
};

Placements Read(const v1::ScheduleResponse& r) {
  Placements p;
  for (const v1::UnschedulablePod& u : r.unschedulable()) {
    p.unschedulable[u.pod()] = u.reason();
  }
  for (const v1::NewNodeClaim& nc : r.new_node_claims()) {
    for (const std::string& pod : nc.pods()) {
      p.placed[pod] = absl::StrCat("new NodeClaim of NodePool ", nc.node_pool(),
                                   " (", nc.launch().instance_type(), ")");
    }
  }
  for (const v1::ExistingNodePlacement& e : r.existing_nodes()) {
    for (const std::string& pod : e.pods()) {
      p.placed[pod] =
          absl::StrCat(e.kind().empty() ? "Node" : e.kind(), " ", e.name());
    }
  }
  return p;
}

std::set<std::string> Drifted(const v1::DisruptResponse& r) {
  std::set<std::string> out;
  for (const v1::NodeClaimConditions& c : r.conditions()) {
    if (c.drifted().status() == "True") out.insert(c.node_claim());
  }
  return out;
}

}  // namespace

absl::StatusOr<v1::DiffResponse> Diff(const v1::DiffRequest& request) {
  if (request.after().now().empty()) {
    return absl::InvalidArgumentError(
        "DiffRequest.after.now: required (the time drift and budgets are "
        "judged at, RFC 3339)");
  }
  v1::DisruptRequest before = request.before();
  if (before.now().empty()) before.set_now(request.after().now());
  const v1::DisruptRequest& after = request.after();

  v1::DiffResponse out;
  out.set_library_version(LibraryVersion());
  absl::StatusOr<v1::ScheduleResponse> plan_before =
      Schedule(ScheduleHalf(before));
  if (!plan_before.ok()) return plan_before.status();
  absl::StatusOr<v1::ScheduleResponse> plan_after =
      Schedule(ScheduleHalf(after));
  if (!plan_after.ok()) return plan_after.status();
  out.set_cost_before(plan_before->cost());
  out.set_cost_after(plan_after->cost());

  const auto shapes_before = Shapes(*plan_before);
  const auto shapes_after = Shapes(*plan_after);
  More(shapes_after, shapes_before, out.mutable_added());
  More(shapes_before, shapes_after, out.mutable_removed());

  const Placements pb = Read(*plan_before);
  const Placements pa = Read(*plan_after);
  for (const auto& [pod, reason] : pa.unschedulable) {
    if (pb.unschedulable.contains(pod)) continue;
    v1::PodChange* c = out.add_became_unschedulable();
    c->set_pod(pod);
    c->set_detail(reason);
  }
  for (const auto& [pod, reason] : pb.unschedulable) {
    if (pa.unschedulable.contains(pod)) continue;
    v1::PodChange* c = out.add_became_schedulable();
    c->set_pod(pod);
    auto it = pa.placed.find(pod);
    c->set_detail(it == pa.placed.end() ? "no longer pending" : it->second);
  }

  absl::StatusOr<v1::DisruptResponse> d_before = Disrupt(before);
  if (!d_before.ok()) return d_before.status();
  absl::StatusOr<v1::DisruptResponse> d_after = Disrupt(after);
  if (!d_after.ok()) return d_after.status();
  const std::set<std::string> drifted_before = Drifted(*d_before);
  absl::flat_hash_map<std::string, const v1::NodeClaim*> claims;
  for (const v1::NodeClaim& nc : after.node_claims()) {
    claims.try_emplace(nc.metadata().name(), &nc);
  }
  std::set<std::string> pools;
  for (const v1::NodeClaimConditions& c : d_after->conditions()) {
    if (c.drifted().status() != "True" ||
        drifted_before.contains(c.node_claim())) {
      continue;
    }
    v1::DriftedNodeClaim* d = out.add_drifted();
    d->set_node_claim(c.node_claim());
    d->set_reason(c.drifted().reason());
    if (auto it = claims.find(c.node_claim()); it != claims.end()) {
      d->set_node(it->second->status().node_name());
      auto np = it->second->metadata().labels().find(labels::kNodePool);
      if (np != it->second->metadata().labels().end()) {
        d->set_node_pool(np->second);
        pools.insert(np->second);
      }
    }
  }
  for (const v1::BudgetAllowance& b : d_after->budgets()) {
    if (b.reason() == "Drifted" && pools.contains(b.node_pool())) {
      *out.add_drift_budgets() = b;
    }
  }
  *out.mutable_before() = *std::move(plan_before);
  *out.mutable_after() = *std::move(plan_after);
  return out;
}

}  // namespace nodeplan
