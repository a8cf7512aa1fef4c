// Cluster (include/nodeplan/cluster.h): an object store keyed by kind,
// namespace and name, turned into a request per call without copying the
// objects (the request lives on an arena and points at the stored objects).

#include "nodeplan/cluster.h"

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/strings/str_cat.h"
#include "canonical/canonical_order.h"
#include "disruption/cluster_view.h"
#include "disruption/compiled_state.h"
#include "google/protobuf/arena.h"
#include "nodeplan/digest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/limits.h"
#include "nodeplan/schedule.h"
#include "optimize/packing.h"
#include "scheduling/cluster_model.h"
#include "scheduling/deleting_nodes.h"
#include "scheduling/gated_schedule.h"
#include "validation/workload_checks.h"

namespace nodeplan {
namespace {

using google::protobuf::RepeatedPtrField;

template <typename T>
using Store = absl::btree_map<std::string, std::unique_ptr<T>>;

// Every kind the cluster holds, with its field in a ManifestSet and in the
// requests (ScheduleRequest and DisruptRequest name them alike).
struct Objects {
  Store<v1::NodePool> node_pools;
  Store<v1::NodeClass> node_classes;
  Store<v1::NodeOverlay> node_overlays;
  Store<v1::Node> nodes;
  Store<v1::NodeClaim> node_claims;
  Store<v1::Pod> pods;
  Store<v1::DaemonSet> daemon_sets;
  Store<v1::Deployment> deployments;
  Store<v1::PodDisruptionBudget> pod_disruption_budgets;
  Store<v1::PersistentVolumeClaim> persistent_volume_claims;
  Store<v1::PersistentVolume> persistent_volumes;
  Store<v1::StorageClass> storage_classes;
  Store<v1::CSINode> csi_nodes;
  Store<v1::Namespace> namespaces;
};

template <typename T, typename Set, typename Request>
struct Kind {
  const char* name;
  bool namespaced;
  Store<T> Objects::*store;
  const RepeatedPtrField<T>& (Set::*upserts)() const;
  RepeatedPtrField<T>* (Set::*mutable_upserts)();
  RepeatedPtrField<T>* (Request::*field)();
};

// Calls f(kind) for every kind, with `Request` the request type the kind's
// field is taken from (ScheduleRequest lacks PDBs: DisruptRequest only).
template <typename F>
void ForEachKind(F&& f) {
  using M = v1::ManifestSet;
  using D = v1::DisruptRequest;
  f(Kind<v1::NodePool, M, D>{"NodePool", false, &Objects::node_pools,
                             &M::node_pools, &M::mutable_node_pools,
                             &D::mutable_node_pools});
  f(Kind<v1::NodeClass, M, D>{"NodeClass", false, &Objects::node_classes,
                              &M::node_classes, &M::mutable_node_classes,
                              &D::mutable_node_classes});
  f(Kind<v1::NodeOverlay, M, D>{"NodeOverlay", false, &Objects::node_overlays,
                                &M::node_overlays, &M::mutable_node_overlays,
                                &D::mutable_node_overlays});
  f(Kind<v1::Node, M, D>{"Node", false, &Objects::nodes, &M::nodes,
                         &M::mutable_nodes, &D::mutable_nodes});
  f(Kind<v1::NodeClaim, M, D>{"NodeClaim", false, &Objects::node_claims,
                              &M::node_claims, &M::mutable_node_claims,
                              &D::mutable_node_claims});
  f(Kind<v1::Pod, M, D>{"Pod", true, &Objects::pods, &M::pods, &M::mutable_pods,
                        &D::mutable_pods});
  f(Kind<v1::DaemonSet, M, D>{"DaemonSet", true, &Objects::daemon_sets,
                              &M::daemon_sets, &M::mutable_daemon_sets,
                              &D::mutable_daemon_sets});
  f(Kind<v1::Deployment, M, D>{"Deployment", true, &Objects::deployments,
                               &M::deployments, &M::mutable_deployments,
                               &D::mutable_deployments});
  f(Kind<v1::PodDisruptionBudget, M, D>{
      "PodDisruptionBudget", true, &Objects::pod_disruption_budgets,
      &M::pod_disruption_budgets, &M::mutable_pod_disruption_budgets,
      &D::mutable_pod_disruption_budgets});
  f(Kind<v1::PersistentVolumeClaim, M, D>{
      "PersistentVolumeClaim", true, &Objects::persistent_volume_claims,
      &M::persistent_volume_claims, &M::mutable_persistent_volume_claims,
      &D::mutable_persistent_volume_claims});
  f(Kind<v1::PersistentVolume, M, D>{
      "PersistentVolume", false, &Objects::persistent_volumes,
      &M::persistent_volumes, &M::mutable_persistent_volumes,
      &D::mutable_persistent_volumes});
  f(Kind<v1::StorageClass, M, D>{
      "StorageClass", false, &Objects::storage_classes, &M::storage_classes,
      &M::mutable_storage_classes, &D::mutable_storage_classes});
  f(Kind<v1::CSINode, M, D>{"CSINode", false, &Objects::csi_nodes,
                            &M::csi_nodes, &M::mutable_csi_nodes,
                            &D::mutable_csi_nodes});
  f(Kind<v1::Namespace, M, D>{"Namespace", false, &Objects::namespaces,
                              &M::namespaces, &M::mutable_namespaces,
                              &D::mutable_namespaces});
}

std::string ObjectKey(bool namespaced, const std::string& ns,
                      const std::string& name) {
  if (!namespaced) return name;
  return absl::StrCat(ns.empty() ? "default" : ns, "/", name);
}

// The stored objects of `kind` appended to `field` without copies: the
// request is on an arena (which never deletes what it does not own) and the
// objects outlive it (the caller holds the cluster's lock).
template <typename T>
void Point(const Store<T>& store, RepeatedPtrField<T>* field) {
  field->Reserve(static_cast<int>(store.size()));
  for (const auto& [key, object] : store) {
    field->UnsafeArenaAddAllocated(object.get());
  }
}

class ClusterImpl : public Cluster {
 public:
  absl::StatusOr<v1::ClusterUpdateResponse> Update(
      const v1::ClusterUpdate& update) override {
    if (absl::Status s = Check(update); !s.ok()) return s;
    v1::ClusterUpdate copy = update;
    return Apply(copy);
  }

  absl::StatusOr<v1::ClusterUpdateResponse> Update(
      v1::ClusterUpdate&& update) override {
    if (absl::Status s = Check(update); !s.ok()) return s;
    return Apply(update);
  }

  absl::StatusOr<v1::ScheduleResponse> Schedule(
      const v1::ScheduleRequest& request) const override {
    if (request.node_pools_size() || request.node_classes_size() ||
        request.has_catalog() || !request.catalog_ref().empty() ||
        request.node_overlays_size() || request.nodes_size() ||
        request.node_claims_size() || request.daemon_sets_size() ||
        request.persistent_volume_claims_size() ||
        request.persistent_volumes_size() || request.storage_classes_size() ||
        request.csi_nodes_size() || request.unavailable_offerings_size() ||
        request.namespaces_size()) {
      return absl::InvalidArgumentError(
          "Cluster::Schedule: only pods, deployments and options may be "
          "given; the cluster holds the rest");
    }
    std::shared_lock lock(mu_);
    absl::StatusOr<std::shared_ptr<const Snapshot>> snapshot = CompiledBase();
    if (!snapshot.ok()) return snapshot.status();
    if (std::optional<v1::ScheduleResponse> fast =
            ScheduleOnModel(*snapshot, request)) {
      return *std::move(fast);
    }
    google::protobuf::Arena arena;
    auto* state =
        google::protobuf::Arena::CreateMessage<v1::ScheduleRequest>(&arena);
    Point(objects_.nodes, state->mutable_nodes());
    Point(objects_.node_claims, state->mutable_node_claims());
    Point(objects_.pods, state->mutable_pods());
    Point(objects_.daemon_sets, state->mutable_daemon_sets());
    Point(objects_.deployments, state->mutable_deployments());
    Point(objects_.persistent_volume_claims,
          state->mutable_persistent_volume_claims());
    Point(objects_.persistent_volumes, state->mutable_persistent_volumes());
    Point(objects_.storage_classes, state->mutable_storage_classes());
    Point(objects_.csi_nodes, state->mutable_csi_nodes());
    Point(objects_.namespaces, state->mutable_namespaces());
    // The caller's what-if pods and Deployments after the cluster's.
    for (const v1::Pod& p : request.pods()) *state->add_pods() = p;
    for (const v1::Deployment& d : request.deployments()) {
      *state->add_deployments() = d;
    }
    *state->mutable_options() = request.options();
    return (*snapshot)->Schedule(*state);
  }

  absl::StatusOr<v1::DisruptResponse> Disrupt(
      const v1::DisruptRequest& request) const override {
    if (request.node_pools_size() || request.node_classes_size() ||
        request.has_catalog() || !request.catalog_ref().empty() ||
        request.node_overlays_size() || request.nodes_size() ||
        request.node_claims_size() || request.pods_size() ||
        request.daemon_sets_size() || request.persistent_volume_claims_size() ||
        request.persistent_volumes_size() || request.storage_classes_size() ||
        request.csi_nodes_size() || request.unavailable_offerings_size() ||
        request.namespaces_size() || request.pod_disruption_budgets_size()) {
      return absl::InvalidArgumentError(
          "Cluster::Disrupt: only now, options, markedForDeletion, "
          "providerDrifted, nominated and deployments may be given; the "
          "cluster holds the rest");
    }
    std::shared_lock lock(mu_);
    google::protobuf::Arena arena;
    auto* full =
        google::protobuf::Arena::CreateMessage<v1::DisruptRequest>(&arena);
    Fill(full);
    full->set_now(request.now());
    *full->mutable_options() = request.options();
    *full->mutable_marked_for_deletion() = request.marked_for_deletion();
    *full->mutable_provider_drifted() = request.provider_drifted();
    *full->mutable_nominated() = request.nominated();
    for (const v1::Deployment& d : request.deployments()) {
      *full->add_deployments() = d;
    }
    // The compiled state is kept across passes while the objects stand; a
    // pass with Deployments of its own computes its own.
    if (request.deployments_size() > 0) return nodeplan::Disrupt(*full);
    // Stored pods were checked one by one when upserted (invalid_pods_);
    // with none refused, the pass need not check 30,000 pods again.
    return disruption::DisruptHeld(
        *full, {&disruption_cache_, state_generation_, invalid_pods_.empty(),
                static_cast<int64_t>(pending_pods_.size()), &precompiled_});
  }

  v1::DisruptRequest Contents() const override {
    std::shared_lock lock(mu_);
    v1::DisruptRequest out;
    ForEachKind([&](const auto& kind) {
      auto* field = (out.*kind.field)();
      for (const auto& [key, object] : objects_.*kind.store) {
        *field->Add() = *object;
      }
    });
    if (catalog_.instance_types_size() > 0) *out.mutable_catalog() = catalog_;
    out.set_catalog_ref(catalog_ref_);
    for (const v1::UnavailableOffering& u : unavailable_) {
      *out.add_unavailable_offerings() = u;
    }
    return out;
  }

 private:
  // Update's body, once the update is checked: the upserted objects are
  // moved out of `update` into the store.
  absl::StatusOr<v1::ClusterUpdateResponse> Apply(v1::ClusterUpdate& update) {
    std::unique_lock lock(mu_);
    v1::ClusterUpdateResponse out;
    bool compiled_inputs_changed = false;
    // Anything but unbound pods coming and going (what the compiled state
    // holds) invalidates the compiled state.
    bool state_changed = false;
    for (const v1::ObjectRef& ref : update.deletes()) {
      ForEachKind([&](const auto& kind) {
        if (ref.kind() != kind.name) return;
        auto& store = objects_.*kind.store;
        const std::string key =
            ObjectKey(kind.namespaced, ref.namespace_(), ref.name());
        auto it = store.find(key);
        if (it != store.end()) {
          using T =
              typename std::decay_t<decltype(store)>::mapped_type::element_type;
          if (!OnlyPending(it->second.get())) state_changed = true;
          if constexpr (std::is_same_v<T, v1::Pod>) {
            pending_pods_.erase(key);
            invalid_pods_.erase(key);
            precompiled_.pods.erase(it->second.get());
          }
          store.erase(it);
          out.set_deleted(out.deleted() + 1);
          if (IsCompiledInput(kind.name)) compiled_inputs_changed = true;
        } else {
          out.set_not_found(out.not_found() + 1);
        }
      });
    }
    ForEachKind([&](const auto& kind) {
      auto& store = objects_.*kind.store;
      for (auto& object :
           *(update.mutable_upserts()->*kind.mutable_upserts)()) {
        using T = std::decay_t<decltype(object)>;
        const std::string key =
            ObjectKey(kind.namespaced, object.metadata().namespace_(),
                      object.metadata().name());
        std::unique_ptr<T>& slot = store[key];
        if (slot != nullptr && !OnlyPending(slot.get())) state_changed = true;
        if (!OnlyPending(&object)) state_changed = true;
        if constexpr (std::is_same_v<T, v1::Pod>) {
          if (slot != nullptr) precompiled_.pods.erase(slot.get());
        }
        slot = std::make_unique<T>(std::move(object));
        if constexpr (std::is_same_v<T, v1::Pod>) {
          precompiled_.pods.emplace(
              slot.get(), disruption::PrecompilePod(*slot, precompiled_.names));
          if (slot->spec().node_name().empty()) {
            pending_pods_[key] = slot.get();
          } else {
            pending_pods_.erase(key);
          }
          if (ValidAlone(*slot)) {
            invalid_pods_.erase(key);
          } else {
            invalid_pods_.insert(key);
          }
        }
        out.set_upserted(out.upserted() + 1);
        if (IsCompiledInput(kind.name)) compiled_inputs_changed = true;
      }
    });
    if (update.has_catalog() || !update.catalog_ref().empty()) {
      catalog_ = update.catalog();
      catalog_ref_ = update.catalog_ref();
      compiled_inputs_changed = true;
    }
    if (update.set_unavailable_offerings()) {
      unavailable_.assign(update.unavailable_offerings().begin(),
                          update.unavailable_offerings().end());
      compiled_inputs_changed = true;
    }
    if (compiled_inputs_changed) {
      std::lock_guard cache(cache_mu_);
      snapshot_.reset();
    }
    if (state_changed || compiled_inputs_changed) {
      ++state_generation_;
      // It points at objects this update may have replaced.
      disruption_cache_.Clear();
    }
    out.set_generation(++generation_);
    int objects = 0;
    ForEachKind([&](const auto& kind) {
      objects += static_cast<int>((objects_.*kind.store).size());
    });
    out.set_objects(objects);
    return out;
  }

  // Whether the API server's rules (validation::CheckWorkload) accept
  // `pod` on its own.
  static bool ValidAlone(const v1::Pod& pod) {
    google::protobuf::RepeatedPtrField<v1::Pod> one;
    one.UnsafeArenaAddAllocated(const_cast<v1::Pod*>(&pod));
    validation::Workload workload;
    workload.pods = &one;
    const bool ok = validation::CheckWorkload(workload).ok();
    one.UnsafeArenaReleaseLast();
    return ok;
  }

  // An unbound pod: the compiled state does not hold it (Schedule takes the
  // cluster's pending pods per call), so it may come and go without a
  // rebuild. Every other object is part of the compiled state.
  template <typename T>
  static bool OnlyPending(const T* object) {
    if constexpr (std::is_same_v<T, v1::Pod>) {
      return object->spec().node_name().empty();
    } else {
      return false;
    }
  }

  static bool IsCompiledInput(absl::string_view kind) {
    return kind == "NodePool" || kind == "NodeClass" || kind == "NodeOverlay";
  }

  static absl::Status Check(const v1::ClusterUpdate& update) {
    if (update.upserts().catalogs_size() > 0 ||
        update.upserts().findings_size() > 0) {
      return absl::InvalidArgumentError(
          "upserts: catalogs and findings are not cluster objects (set "
          "ClusterUpdate.catalog for the catalog)");
    }
    absl::Status st;
    ForEachKind([&](const auto& kind) {
      const auto& list = (update.upserts().*kind.upserts)();
      for (int i = 0; i < list.size() && st.ok(); ++i) {
        if (list[i].metadata().name().empty()) {
          st = absl::InvalidArgumentError(
              absl::StrCat("upserts: ", kind.name, "[", i,
                           "]: metadata.name: Required value"));
        }
      }
    });
    for (const v1::ObjectRef& ref : update.deletes()) {
      bool known = false;
      ForEachKind([&](const auto& kind) { known |= ref.kind() == kind.name; });
      if (!known && st.ok()) {
        st = absl::InvalidArgumentError(absl::StrCat(
            "deletes: kind \"", ref.kind(), "\" is not one the cluster holds"));
      }
    }
    return st;
  }

  // Every object (pointed at), the catalog and the unavailable offerings.
  void Fill(v1::DisruptRequest* out) const {
    ForEachKind([&](const auto& kind) {
      Point(objects_.*kind.store, (out->*kind.field)());
    });
    if (catalog_.instance_types_size() > 0) *out->mutable_catalog() = catalog_;
    out->set_catalog_ref(catalog_ref_);
    for (const v1::UnavailableOffering& u : unavailable_) {
      *out->add_unavailable_offerings() = u;
    }
  }

  // The NodePools, NodeClasses, overlays and catalog, compiled once per
  // change of any of them. Called with mu_ held (shared or exclusive).
  absl::StatusOr<std::shared_ptr<const Snapshot>> CompiledBase() const {
    std::lock_guard cache(cache_mu_);
    if (snapshot_ != nullptr) return snapshot_;
    v1::ScheduleRequest base;
    for (const auto& [k, o] : objects_.node_pools) *base.add_node_pools() = *o;
    for (const auto& [k, o] : objects_.node_classes) {
      *base.add_node_classes() = *o;
    }
    for (const auto& [k, o] : objects_.node_overlays) {
      *base.add_node_overlays() = *o;
    }
    if (catalog_.instance_types_size() > 0) *base.mutable_catalog() = catalog_;
    base.set_catalog_ref(catalog_ref_);
    for (const v1::UnavailableOffering& u : unavailable_) {
      *base.add_unavailable_offerings() = u;
    }
    absl::StatusOr<std::shared_ptr<const Snapshot>> compiled =
        Snapshot::Compile(base);
    if (!compiled.ok()) return compiled.status();
    snapshot_ = *std::move(compiled);
    return snapshot_;
  }

  mutable std::shared_mutex mu_;
  Objects objects_;
  v1::Catalog catalog_;
  std::string catalog_ref_;
  std::vector<v1::UnavailableOffering> unavailable_;
  int64_t generation_ = 0;
  // Bumped by every Update that changes more than unbound pods: the
  // compiled state is kept per state generation.
  int64_t state_generation_ = 0;
  // Disrupt's compiled state for the current state generation.
  mutable disruption::DisruptionCache disruption_cache_;
  // What a Disrupt pass reads of each stored pod on its own (key, facts,
  // requests), computed when the pod is upserted.
  disruption::PrecompiledPods precompiled_;
  // The stored unbound pods, in key order (what ScheduleOnModel places).
  absl::btree_map<std::string, const v1::Pod*> pending_pods_;
  // The stored pods the API server's rules refuse (validation::CheckWorkload
  // on the pod alone), checked once when upserted: with none, the stored
  // pods pass CheckWorkload together too (the store holds one pod per name,
  // and the per-pod rules are all there is besides the pending-pod limit),
  // so the compiled state need not validate 30,000 pods per rebuild.
  absl::btree_set<std::string> invalid_pods_;
  // The cluster's state compiled for Schedule (scheduling/cluster_model.h):
  // nodes, NodeClaims, bound pods, DaemonSets and volumes in canonical
  // order, for one state generation, snapshot and set of options.
  struct StateModel {
    int64_t generation = -1;
    std::string options;
    google::protobuf::Arena arena;
    v1::ScheduleRequest* state = nullptr;
    std::unique_ptr<canonical::CanonicalRequest<v1::ScheduleRequest>> view;
    std::unique_ptr<scheduling::ClusterModel> model;
    // The snapshot the model was compiled over.
    std::shared_ptr<const Snapshot> snapshot;
  };

  // Schedule as a simulation on the compiled state, when that gives the
  // whole-request answer for certain: no Deployments, what-if pods unbound
  // and not named like a stored pod, the Karpenter packing without the cost
  // bound, and every pod valid (an invalid one takes the whole-request path,
  // which names it as it always has). nullopt: take that path.
  std::optional<v1::ScheduleResponse> ScheduleOnModel(
      const std::shared_ptr<const Snapshot>& snapshot,
      const v1::ScheduleRequest& request) const {
    const v1::ScheduleOptions& o = request.options();
    if (!objects_.deployments.empty() || request.deployments_size() > 0 ||
        o.packing() == "Optimized" || o.cost_bound() == "Compute" ||
        (!o.packing().empty() && o.packing() != "Karpenter") ||
        (!o.cost_bound().empty() && o.cost_bound() != "Skip") ||
        o.packing_budget() < 0)
      return std::nullopt;
    for (const v1::Pod& p : request.pods()) {
      if (!p.spec().node_name().empty() ||
          objects_.pods.contains(
              ObjectKey(true, p.metadata().namespace_(), p.metadata().name())))
        return std::nullopt;
    }
    std::shared_ptr<StateModel> m = Model(snapshot, o);
    if (m == nullptr) return std::nullopt;
    // Validated as the whole request would validate them: every stored pod
    // passed alone (Model checks), so the caller's pods alone, the pending
    // total, and no caller's pod named like a stored one (above).
    if (static_cast<int64_t>(pending_pods_.size()) + request.pods_size() >
        limits::kMaxPendingPods)
      return std::nullopt;
    validation::Workload what_if;
    what_if.pods = &request.pods();
    if (!validation::CheckWorkload(what_if).ok()) return std::nullopt;
    // The pending pods (the cluster's and the caller's) in canonical order.
    google::protobuf::Arena arena;
    auto* pending =
        google::protobuf::Arena::CreateMessage<v1::ScheduleRequest>(&arena);
    for (const auto& [key, p] : pending_pods_)
      pending->mutable_pods()->UnsafeArenaAddAllocated(const_cast<v1::Pod*>(p));
    for (const v1::Pod& p : request.pods())
      pending->mutable_pods()->UnsafeArenaAddAllocated(
          const_cast<v1::Pod*>(&p));
    canonical::CanonicalRequest<v1::ScheduleRequest> sorted(*pending);
    scheduling::Simulation sim;
    sim.pods.reserve(sorted.get().pods_size());
    for (const v1::Pod& p : sorted.get().pods())
      sim.pods.push_back({&p, false, nullptr});
    v1::ScheduleResponse out;
    if (!m->model->Simulate(sim, nullptr, &out).ok()) return std::nullopt;
    const scheduling::Compiled* c = scheduling::CompiledOf(*snapshot);
    if (c == nullptr ||
        !optimize::Finish(*c, m->view->get(), nullptr, &out).ok())
      return std::nullopt;
    return out;
  }

  // The compiled state for `options` at this generation (built on first
  // use), or nullptr when it cannot be built (then the whole-request path
  // reports why). Called with mu_ held.
  std::shared_ptr<StateModel> Model(
      const std::shared_ptr<const Snapshot>& snapshot,
      const v1::ScheduleOptions& options) const {
    // A stored pod the API server would refuse: the whole-request path
    // names it.
    if (!invalid_pods_.empty()) return nullptr;
    std::string key = DeterministicBytes(options);
    std::lock_guard cache(cache_mu_);
    if (model_ != nullptr && model_->generation == state_generation_ &&
        model_->options == key && model_->snapshot == snapshot)
      return model_;
    auto m = std::make_shared<StateModel>();
    m->generation = state_generation_;
    m->options = key;
    m->snapshot = snapshot;
    m->state =
        google::protobuf::Arena::CreateMessage<v1::ScheduleRequest>(&m->arena);
    v1::ScheduleRequest& st = *m->state;
    Point(objects_.nodes, st.mutable_nodes());
    Point(objects_.node_claims, st.mutable_node_claims());
    for (const auto& [key, pod] : objects_.pods) {
      if (!pod->spec().node_name().empty())
        st.mutable_pods()->UnsafeArenaAddAllocated(pod.get());
    }
    Point(objects_.daemon_sets, st.mutable_daemon_sets());
    Point(objects_.persistent_volume_claims,
          st.mutable_persistent_volume_claims());
    Point(objects_.persistent_volumes, st.mutable_persistent_volumes());
    Point(objects_.storage_classes, st.mutable_storage_classes());
    Point(objects_.csi_nodes, st.mutable_csi_nodes());
    Point(objects_.namespaces, st.mutable_namespaces());
    *st.mutable_options() = options;
    // Pods a deleting node gives up are scheduled with the pending ones on
    // the whole-request path (scheduling/deleting_nodes.h).
    if (scheduling::HasDeletingNodePods(st)) return nullptr;
    m->view =
        std::make_unique<canonical::CanonicalRequest<v1::ScheduleRequest>>(st);
    absl::StatusOr<std::unique_ptr<scheduling::ClusterModel>> model =
        scheduling::ClusterModel::Build(snapshot, m->view->get());
    if (!model.ok()) return nullptr;
    m->model = *std::move(model);
    model_ = m;
    return m;
  }

  mutable std::mutex cache_mu_;
  mutable std::shared_ptr<const Snapshot> snapshot_;
  mutable std::shared_ptr<StateModel> model_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Create(
    const v1::ClusterUpdate& initial) {
  auto cluster = std::make_unique<ClusterImpl>();
  absl::StatusOr<v1::ClusterUpdateResponse> r = cluster->Update(initial);
  if (!r.ok()) return r.status();
  return std::unique_ptr<Cluster>(std::move(cluster));
}

}  // namespace nodeplan
