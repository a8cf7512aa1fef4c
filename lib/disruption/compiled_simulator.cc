#include "disruption/compiled_simulator.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "catalog/shared_lru.h"
#include "disruption/arena_view.h"
#include "disruption/pod_rules.h"
#include "nodeplan/digest.h"
#include "scheduling/pods.h"
#include "scheduling/round.h"

namespace nodeplan::disruption {
namespace {

const std::string& EmptyString() {
  static const std::string* empty = new std::string();
  return *empty;
}

// Snapshot::Compile(base), memoized per process for requests on the
// embedded catalog: a one-shot pass compiles the same NodePools on every
// call (about 5% of a 1,000-node pass, the catalog's types copied and the
// domain universe built), and a snapshot is immutable and shared. Keyed by
// every byte Compile reads; an explicit catalog (possibly megabytes) is
// compiled each time.
absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotOf(
    const v1::ScheduleRequest& base) {
  if (base.has_catalog()) return Snapshot::Compile(base);
  static auto* const cache = new catalog::SharedLru<Snapshot>(8);
  std::string key = DeterministicBytes(base);
  if (std::shared_ptr<const Snapshot> hit = cache->Find(key)) return hit;
  absl::StatusOr<std::shared_ptr<const Snapshot>> snap =
      Snapshot::Compile(base);
  if (snap.ok()) cache->Put(std::move(key), *snap);
  return snap;
}

}  // namespace

CompiledSimulator::CompiledSimulator(ClusterView& view,
                                     const ConditionsResult& conditions,
                                     HeldCluster held)
    : view_(view), conditions_(conditions), held_(held) {}

std::string CompiledSimulator::CacheKey() const {
  if (held_.cache == nullptr) return "";
  const v1::DisruptRequest& r = view_.request();
  // Unbound pods do not enter the compiled state, so they may differ.
  std::string key =
      absl::StrCat(held_.generation, "|", view_.nodes().size(), "|");
  for (size_t i = 0; i < view_.nodes().size(); ++i) {
    if (view_.nodes()[i].marked_for_deletion) absl::StrAppend(&key, i, ",");
  }
  const v1::DisruptOptions& o = r.options();
  absl::StrAppend(
      &key, "|", o.preference_policy(), "|", o.min_values_policy(), "|",
      o.max_instance_types(), "|",
      o.has_reserved_capacity() ? (o.reserved_capacity() ? 1 : 0) : -1, "|",
      o.spread_bookkeeping(), "|",
      bound_labels_ == scheduling::BoundPodLabels::kSkip ? "skip" : "labels");
  return key;
}

scheduling::BoundPodLabels CompiledSimulator::BoundLabels() const {
  for (const PodView& pv : view_.pods())
    if (pv.topology_terms) return scheduling::BoundPodLabels::kIntern;
  for (const v1::Deployment& d : view_.request().deployments())
    if (scheduling::HasPodTopologyTerms(d.spec().template_().spec()))
      return scheduling::BoundPodLabels::kIntern;
  return scheduling::BoundPodLabels::kSkip;
}

absl::Status CompiledSimulator::Build() {
  bound_labels_ = BoundLabels();  // one walk over the pods, read twice below
  const std::string key = CacheKey();
  if (!key.empty()) compiled_ = held_.cache->Find(key);
  if (compiled_ == nullptr) {
    absl::StatusOr<std::shared_ptr<const CompiledState>> compiled = Compile();
    if (!compiled.ok()) return compiled.status();
    compiled_ = *std::move(compiled);
    if (!key.empty()) held_.cache->Put(key, compiled_);
  }
  const std::vector<NodeView>& nodes = view_.nodes();
  signatures_.resize(view_.pods().size());
  reschedulable_.assign(view_.pods().size(), -1);
  for (size_t p = 0; p < view_.pods().size(); ++p) {
    const PodView& pv = view_.pods()[p];
    if (!pv.bound && IsProvisionable(*pv.pod))
      pending_.push_back(static_cast<int>(p));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].marked_for_deletion) {
      deleting_.push_back(static_cast<int>(i));
    } else if (UnderConsolidateAfter(view_, static_cast<int>(i))) {
      under_consolidate_after_.push_back(static_cast<int>(i));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const CompiledState>>
CompiledSimulator::Compile() const {
  auto out = std::make_shared<CompiledState>();
  const v1::DisruptRequest& r = view_.request();
  v1::ScheduleRequest base;
  *base.mutable_node_pools() = r.node_pools();
  *base.mutable_node_classes() = r.node_classes();
  if (r.has_catalog()) *base.mutable_catalog() = r.catalog();
  base.set_catalog_ref(r.catalog_ref());
  *base.mutable_node_overlays() = r.node_overlays();
  *base.mutable_unavailable_offerings() = r.unavailable_offerings();
  absl::StatusOr<std::shared_ptr<const Snapshot>> snap = SnapshotOf(base);
  if (!snap.ok()) return snap.status();
  out->snapshot = *std::move(snap);

  out->state =
      google::protobuf::Arena::CreateMessage<v1::ScheduleRequest>(&out->arena);
  v1::ScheduleRequest& s = *out->state;
  v1::ScheduleOptions* o = s.mutable_options();
  o->set_preference_policy(r.options().preference_policy());
  o->set_min_values_policy(r.options().min_values_policy());
  o->set_max_instance_types(r.options().max_instance_types());
  if (r.options().has_reserved_capacity())
    o->set_reserved_capacity(r.options().reserved_capacity());
  o->set_spread_bookkeeping(r.options().spread_bookkeeping());
  PointAll(r.daemon_sets(), s.mutable_daemon_sets());
  PointAll(r.persistent_volume_claims(), s.mutable_persistent_volume_claims());
  PointAll(r.persistent_volumes(), s.mutable_persistent_volumes());
  PointAll(r.storage_classes(), s.mutable_storage_classes());
  PointAll(r.csi_nodes(), s.mutable_csi_nodes());
  PointAll(r.deployments(), s.mutable_deployments());
  PointAll(r.namespaces(), s.mutable_namespaces());
  const std::vector<NodeView>& nodes = view_.nodes();
  out->state_node.assign(nodes.size(), -1);
  out->state_claim.assign(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView& n = nodes[i];
    if (n.marked_for_deletion) continue;
    if (n.node != nullptr) {
      out->state_node[i] = s.nodes_size();
      Point(*n.node, s.mutable_nodes());
    }
    if (n.claim != nullptr) {
      // The scheduler pairs a NodeClaim with its Node by status.nodeName.
      // Most NodeClaims already name their Node and are used as they are;
      // only the others are copied (on the arena) to name it.
      const std::string& node_name =
          n.node != nullptr ? n.node->metadata().name() : EmptyString();
      const v1::NodeClaim* claim = n.claim;
      if (claim->status().node_name() != node_name) {
        v1::NodeClaim* copy =
            google::protobuf::Arena::CreateMessage<v1::NodeClaim>(&out->arena);
        *copy = *n.claim;
        if (n.node != nullptr) {
          copy->mutable_status()->set_node_name(node_name);
        } else {
          copy->mutable_status()->clear_node_name();
        }
        claim = copy;
      }
      out->state_claim[i] = s.node_claims_size();
      Point(*claim, s.mutable_node_claims());
    }
  }
  // The requests the view parsed are the model's too (no second parse).
  std::vector<scheduling::KnownPod> known;
  known.reserve(view_.pods().size());
  for (const PodView& pv : view_.pods()) {
    if (!pv.bound) continue;
    if (pv.node >= 0 && nodes[pv.node].marked_for_deletion) continue;
    Point(*pv.pod, s.mutable_pods());
    scheduling::KnownPod& k = known.emplace_back();
    k.requests = pv.requests;
    k.host_ports = pv.host_ports;
    k.daemon_set_owner = pv.daemon_set_owner;
    k.topology_terms = pv.topology_terms;
    // Pods bind to Nodes by name, in the view as in the model, and the
    // state holds every Node of the view that is not marked.
    k.placed = true;
    k.node = pv.node >= 0 ? out->state_node[pv.node] : -1;
    k.ns = pv.key.substr(0, pv.key.find('/'));
    k.terminal = pv.facts.terminal;
    k.terminating = pv.facts.terminating;
  }
  absl::StatusOr<std::unique_ptr<scheduling::ClusterModel>> model =
      scheduling::ClusterModel::Build(out->snapshot, s, known, bound_labels_);
  if (!model.ok()) return model.status();
  out->model = *std::move(model);
  return std::shared_ptr<const CompiledState>(std::move(out));
}

absl::StatusOr<SimulationResult> CompiledSimulator::Simulate(
    absl::Span<const int> candidates, bool consolidation) {
  if (!built_) {
    built_ = true;
    build_status_ = Build();
  }
  if (!build_status_.ok()) return build_status_;
  const std::vector<NodeView>& nodes = view_.nodes();
  std::vector<char> removed(nodes.size(), 0);
  scheduling::Simulation sim;
  for (int c : candidates) {
    removed[c] = 1;
    if (compiled_->state_node[c] >= 0)
      sim.removed_nodes.push_back(compiled_->state_node[c]);
    if (compiled_->state_claim[c] >= 0)
      sim.removed_claims.push_back(compiled_->state_claim[c]);
  }
  // As RequestSimulator::Simulate: the consolidateAfter gate, then the pods
  // in view order (pending provisionable ones, and the currently
  // reschedulable pods of candidates and deleting nodes, moved).
  scheduling::DestinationGate gate;
  if (consolidation) {
    for (int i : under_consolidate_after_)
      if (!removed[i]) gate.nodes.insert(view_.nodes()[i].name);
  }
  // The bound pods that move (candidates' and deleting nodes'), merged with
  // the pending ones in view order.
  std::vector<int> moved;
  for (int c : candidates) {
    if (!nodes[c].marked_for_deletion)
      moved.insert(moved.end(), nodes[c].pods.begin(), nodes[c].pods.end());
  }
  for (int d : deleting_)
    moved.insert(moved.end(), nodes[d].pods.begin(), nodes[d].pods.end());
  std::sort(moved.begin(), moved.end());
  std::vector<int> order;
  order.reserve(pending_.size() + moved.size());
  std::merge(pending_.begin(), pending_.end(), moved.begin(), moved.end(),
             std::back_inserter(order));
  OriginMap origin;
  std::deque<std::string> replica_keys;
  for (int p : order) {
    const PodView& pv = view_.pods()[p];
    const v1::Pod& pod = *pv.pod;
    if (!pv.bound) {
      sim.pods.push_back({&pod, false, nullptr});
      origin[pv.key] = Origin::kPending;
      continue;
    }
    if (pv.node < 0) continue;
    const bool from_candidate = removed[pv.node] != 0;
    if (reschedulable_[p] < 0)
      reschedulable_[p] = IsCurrentlyReschedulable(view_, p) ? 1 : 0;
    if (reschedulable_[p] == 0) continue;
    std::string& sig = signatures_[p];
    if (sig.empty()) {
      sig = scheduling::ClassSignature(pod,
                                       pod.metadata().namespace_().empty()
                                           ? "default"
                                           : pod.metadata().namespace_(),
                                       true);
    }
    sim.pods.push_back({&pod, true, &sig});
    origin[pv.key] = from_candidate ? Origin::kCandidate : Origin::kDeleting;
    if (from_candidate && !pv.facts.pending) gate.pods.insert(pv.key);
  }
  AddDeploymentOrigins(compiled_->state->deployments(), &replica_keys, &origin);
  v1::ScheduleResponse resp;
  absl::Status s = compiled_->model->Simulate(sim, &gate, &resp);
  if (absl::IsUnavailable(s)) {
    ++fallbacks_;
    if (fallback_ == nullptr) {
      fallback_ = std::make_unique<RequestSimulator>(view_, conditions_);
    }
    return fallback_->Simulate(candidates, consolidation);
  }
  if (!s.ok()) return s;
  return ToSimulationResult(view_, resp, origin);
}

}  // namespace nodeplan::disruption
