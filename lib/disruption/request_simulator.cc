#include "disruption/request_simulator.h"

#include <algorithm>
#include <deque>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "disruption/arena_view.h"
#include "disruption/pod_rules.h"
#include "google/protobuf/arena.h"
#include "nodeplan/schedule.h"
#include "scheduling/gated_schedule.h"

namespace nodeplan::disruption {

absl::flat_hash_set<std::string> ConsolidateAfterGate(
    const ClusterView& view, const std::vector<char>& existing) {
  absl::flat_hash_set<std::string> out;
  for (size_t i = 0; i < view.nodes().size(); ++i) {
    if (existing[i] && UnderConsolidateAfter(view, static_cast<int>(i))) {
      out.insert(view.nodes()[i].name);
    }
  }
  return out;
}

bool IsCurrentlyReschedulable(const ClusterView& view, int pod) {
  const PodView& p = view.pods()[pod];
  return p.facts.reschedulable() && p.facts.disruptable(view.now()) &&
         !view.pdbs().FullyBlocked(*p.pod, p.labels, view.now());
}

std::string SchedulingErrors(
    const std::vector<std::pair<std::string, std::string>>& errors) {
  if (errors.empty()) return "No Pod Scheduling Errors";
  std::vector<std::pair<std::string, std::string>> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  std::string out = "not all pods would schedule, ";
  int n = 0;
  for (const auto& [pod, why] : sorted) {
    absl::StrAppend(&out, pod, " => ", why, " ");
    if (++n >= 5) {
      absl::StrAppend(&out, " and ", sorted.size() - 5, " other(s)");
      break;
    }
  }
  return out;
}

RequestSimulator::RequestSimulator(ClusterView& view,
                                   const ConditionsResult& conditions)
    : view_(view), conditions_(conditions) {
  const v1::DisruptRequest& r = view.request();
  *base_.mutable_node_pools() = r.node_pools();
  *base_.mutable_node_classes() = r.node_classes();
  if (r.has_catalog()) *base_.mutable_catalog() = r.catalog();
  base_.set_catalog_ref(r.catalog_ref());
  *base_.mutable_node_overlays() = r.node_overlays();
  *base_.mutable_unavailable_offerings() = r.unavailable_offerings();
  *state_.mutable_daemon_sets() = r.daemon_sets();
  *state_.mutable_persistent_volume_claims() = r.persistent_volume_claims();
  *state_.mutable_persistent_volumes() = r.persistent_volumes();
  *state_.mutable_storage_classes() = r.storage_classes();
  *state_.mutable_csi_nodes() = r.csi_nodes();
  *state_.mutable_deployments() = r.deployments();
  *state_.mutable_namespaces() = r.namespaces();
  v1::ScheduleOptions* o = state_.mutable_options();
  o->set_preference_policy(r.options().preference_policy());
  o->set_min_values_policy(r.options().min_values_policy());
  o->set_max_instance_types(r.options().max_instance_types());
  if (r.options().has_reserved_capacity()) {
    o->set_reserved_capacity(r.options().reserved_capacity());
  }
  o->set_spread_bookkeeping(r.options().spread_bookkeeping());
  // The scheduler pairs a NodeClaim with its Node by status.nodeName.
  const std::vector<NodeView>& nodes = view.nodes();
  claims_.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView& n = nodes[i];
    if (n.claim == nullptr) continue;
    claims_[i] = *n.claim;
    if (n.node != nullptr) {
      claims_[i].mutable_status()->set_node_name(n.node->metadata().name());
    } else {
      claims_[i].mutable_status()->clear_node_name();
    }
  }
}

void RequestSimulator::UsePacking(const std::string& packing, int32_t budget) {
  state_.mutable_options()->set_packing(packing);
  state_.mutable_options()->set_packing_budget(budget);
}

absl::StatusOr<SimulationResult> RequestSimulator::Simulate(
    absl::Span<const int> candidates, bool consolidation) {
  (void)conditions_;
  const std::vector<NodeView>& nodes = view_.nodes();
  std::vector<char> removed(nodes.size(), 0);
  for (int c : candidates) removed[c] = 1;
  if (snapshot_ == nullptr) {
    absl::StatusOr<std::shared_ptr<const Snapshot>> snap =
        Snapshot::Compile(base_);
    if (!snap.ok()) return snap.status();
    snapshot_ = *std::move(snap);
  }
  // The request points at the view's messages (and the adjusted NodeClaims
  // kept by the constructor) instead of copying them: only the candidates'
  // pods, rewritten as pending, are new. An arena request never deletes its
  // elements, so the pointed-at messages stay owned where they are.
  google::protobuf::Arena arena;
  auto* req_ptr =
      google::protobuf::Arena::CreateMessage<v1::ScheduleRequest>(&arena);
  v1::ScheduleRequest& req = *req_ptr;
  *req.mutable_options() = state_.options();
  PointAll(state_.daemon_sets(), req.mutable_daemon_sets());
  PointAll(state_.persistent_volume_claims(),
           req.mutable_persistent_volume_claims());
  PointAll(state_.persistent_volumes(), req.mutable_persistent_volumes());
  PointAll(state_.storage_classes(), req.mutable_storage_classes());
  PointAll(state_.csi_nodes(), req.mutable_csi_nodes());
  PointAll(state_.deployments(), req.mutable_deployments());
  PointAll(state_.namespaces(), req.mutable_namespaces());
  // Existing capacity: active state nodes minus the candidates.
  std::vector<char> existing(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView& n = nodes[i];
    if (removed[i] || n.marked_for_deletion) continue;
    existing[i] = 1;
    if (n.node != nullptr) Point(*n.node, req.mutable_nodes());
    if (n.claim != nullptr) Point(claims_[i], req.mutable_node_claims());
  }
  // Consolidation: candidates' pods that are not pending may not land on an
  // existing node inside its consolidateAfter window.
  scheduling::DestinationGate gate;
  if (consolidation) gate.nodes = ConsolidateAfterGate(view_, existing);
  OriginMap origin;
  std::deque<std::string> replica_keys;
  for (size_t p = 0; p < view_.pods().size(); ++p) {
    const PodView& pv = view_.pods()[p];
    const v1::Pod& pod = *pv.pod;
    if (pod.spec().node_name().empty()) {
      if (!IsProvisionable(pod)) continue;
      Point(pod, req.mutable_pods());
      origin[pv.key] = Origin::kPending;
      continue;
    }
    if (pv.node < 0 || existing[pv.node]) {
      Point(pod, req.mutable_pods());
      continue;
    }
    const bool from_candidate = removed[pv.node] != 0;
    const bool from_deleting = nodes[pv.node].marked_for_deletion;
    if (!from_candidate && !from_deleting) continue;
    if (!IsCurrentlyReschedulable(view_, static_cast<int>(p))) continue;
    v1::Pod* copy = google::protobuf::Arena::CreateMessage<v1::Pod>(&arena);
    *copy = pod;
    req.mutable_pods()->UnsafeArenaAddAllocated(copy);
    copy->mutable_spec()->clear_node_name();
    copy->mutable_metadata()->clear_deletion_timestamp();
    copy->mutable_status()->set_phase("Pending");
    origin[pv.key] = from_candidate ? Origin::kCandidate : Origin::kDeleting;
    if (from_candidate && !pv.facts.pending) gate.pods.insert(pv.key);
  }
  AddDeploymentOrigins(req.deployments(), &replica_keys, &origin);
  // Always gated (an empty gate restricts nothing): the request's objects
  // were validated once by Disrupt.
  absl::StatusOr<v1::ScheduleResponse> resp =
      scheduling::ScheduleGated(*snapshot_, req, gate);
  if (!resp.ok()) return resp.status();
  return ToSimulationResult(view_, *resp, origin);
}

void AddDeploymentOrigins(
    const google::protobuf::RepeatedPtrField<v1::Deployment>& deployments,
    std::deque<std::string>* keys, OriginMap* origin) {
  for (const v1::Deployment& d : deployments) {
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    const std::string ns = d.metadata().namespace_().empty()
                               ? "default"
                               : d.metadata().namespace_();
    for (int i = 0; i < replicas; ++i) {
      keys->push_back(absl::StrCat(ns, "/", d.metadata().name(), "-", i));
      (*origin)[keys->back()] = Origin::kPending;
    }
  }
}

absl::StatusOr<SimulationResult> ToSimulationResult(
    ClusterView& view, const v1::ScheduleResponse& resp,
    const OriginMap& origin) {
  const std::vector<NodeView>& nodes = view.nodes();
  auto origin_of = [&](absl::string_view key) {
    auto it = origin.find(key);
    return it == origin.end() ? Origin::kPending : it->second;
  };
  std::vector<std::pair<std::string, std::string>> errors;
  for (const v1::UnschedulablePod& u : resp.unschedulable()) {
    if (origin_of(u.pod()) == Origin::kPending) continue;
    errors.emplace_back(u.pod(), u.reason());
  }
  SimulationResult out;
  for (const v1::ExistingNodePlacement& e : resp.existing_nodes()) {
    v1::ExistingNodePlacement moved;
    moved.set_name(e.name());
    moved.set_kind(e.kind());
    for (const std::string& pod : e.pods()) {
      if (origin_of(pod) != Origin::kPending) moved.add_pods(pod);
    }
    if (moved.pods_size() > 0) out.existing.push_back(std::move(moved));
    const int i = view.NodeIndex(e.name());
    const bool initialized =
        i >= 0 && nodes[i].node != nullptr && nodes[i].initialized;
    if (initialized) continue;
    std::string where;
    if (i >= 0 && nodes[i].claim != nullptr) {
      where = absl::StrCat("nodeclaim/", nodes[i].claim->metadata().name());
    }
    if (i >= 0 && nodes[i].node != nullptr) {
      absl::StrAppend(&where, where.empty() ? "" : ", ", "node/",
                      nodes[i].node->metadata().name());
    }
    for (const std::string& pod : e.pods()) {
      if (origin_of(pod) == Origin::kDeleting) continue;
      errors.emplace_back(
          pod, absl::StrCat("would schedule against uninitialized ", where));
      // A pending pod's error is ignored, as for unschedulable ones.
      if (origin_of(pod) == Origin::kPending) errors.pop_back();
    }
  }
  out.all_non_pending_scheduled = errors.empty();
  out.errors = SchedulingErrors(errors);
  for (const v1::NewNodeClaim& c : resp.new_node_claims()) {
    SimulatedNodeClaim s;
    s.claim = c;
    s.pool = view.PoolIndex(c.node_pool());
    if (s.pool >= 0) {
      const CompiledCatalog& cat = *view.pools()[s.pool].catalog;
      for (const std::string& name : c.instance_types()) {
        const int t = cat.Find(name);
        if (t >= 0) s.options.push_back(t);
      }
    }
    absl::StatusOr<Requirements> reqs = RequirementsFromNodeSelector(
        c.node_claim().spec().requirements(), view.interner(), true,
        "replacement.spec.requirements");
    if (!reqs.ok()) return reqs.status();
    s.requirements = *std::move(reqs);
    out.new_claims.push_back(std::move(s));
  }
  return out;
}

}  // namespace nodeplan::disruption
