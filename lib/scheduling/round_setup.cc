// Round setup: pending pods into classes, DaemonSet overhead, existing nodes
// and in-flight NodeClaims, NodePool state, the topology domain universe.

#include <algorithm>
#include <initializer_list>
#include <map>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "nodeplan/digest.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/quantity.h"
#include "nodeplan/taints.h"
#include "nodeplan/workload.h"
#include "scheduling/daemonset_pod.h"
#include "scheduling/deleting_nodes.h"
#include "scheduling/round.h"

namespace nodeplan::scheduling {

namespace {

const google::protobuf::RepeatedPtrField<v1::PodAffinityTerm>&
RequiredAntiAffinity(const v1::Pod& pod) {
  return pod.spec()
      .affinity()
      .pod_anti_affinity()
      .required_during_scheduling_ignored_during_execution();
}

// Appends `bytes` (a message's deterministic serialization) without its
// top-level fields numbered in `drop`: the bytes of a copy of the message
// with those fields cleared, since the serialization writes each field
// whole, in number order, and the copy is not made.
void AppendFieldsExcept(const std::string& bytes,
                        std::initializer_list<int> drop, std::string* out) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  while (true) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    if (!WireFormatLite::SkipField(&in, tag)) {
      out->append(bytes, start);  // not our serializer's output: keep it all
      return;
    }
    if (absl::c_linear_search(drop, WireFormatLite::GetTagFieldNumber(tag)))
      continue;
    out->append(bytes, start, in.CurrentPosition() - start);
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Setup

void AppendClassSignature(
    const v1::Pod& p, absl::string_view ns, bool moved, std::string* sig,
    std::vector<std::pair<absl::string_view, absl::string_view>>* labels) {
  // Namespace, labels (sorted) and the spec without its priority (and, for
  // a moved pod, its nodeName). The spec is copied only when a field must
  // be cleared.
  absl::StrAppend(sig, ns.size(), ":", ns, "|");
  labels->assign(p.metadata().labels().begin(), p.metadata().labels().end());
  std::sort(labels->begin(), labels->end());
  for (const auto& [k, v] : *labels)
    absl::StrAppend(sig, k.size(), ":", k, v.size(), ":", v);
  sig->push_back('|');
  if (moved || p.spec().has_priority() ||
      !p.spec().priority_class_name().empty()) {
    AppendFieldsExcept(DeterministicBytes(p.spec()),
                       {v1::PodSpec::kPriorityFieldNumber,
                        v1::PodSpec::kPriorityClassNameFieldNumber,
                        v1::PodSpec::kNodeNameFieldNumber},
                       sig);
  } else {
    *sig += DeterministicBytes(p.spec());
  }
}

void SignReplicas(
    const v1::ScheduleRequest& state, absl::Span<const v1::Pod* const> replicas,
    std::vector<std::string>* storage,
    std::vector<const std::string*>* per_replica,
    std::vector<std::pair<absl::string_view, absl::string_view>>* labels) {
  // A replica is its template under a name of its own, and the signature
  // leaves the name out: every replica of a Deployment signs alike.
  storage->clear();
  storage->reserve(state.deployments_size());  // the pointers stay valid
  per_replica->assign(replicas.size(), nullptr);
  size_t at = 0;
  for (const auto& d : state.deployments()) {
    const int n = d.spec().has_replicas() ? d.spec().replicas() : 1;
    if (n <= 0 || at >= replicas.size()) continue;
    const v1::Pod& first = *replicas[at];
    storage->emplace_back();
    if (first.spec().node_name().empty())
      AppendClassSignature(first, NamespaceOf(first.metadata()),
                           /*moved=*/false, &storage->back(), labels);
    const std::string* sig =
        storage->back().empty() ? nullptr : &storage->back();
    for (int r = 0; r < n && at < replicas.size(); ++r, ++at)
      (*per_replica)[at] = sig;
  }
}

std::string ClassSignature(const v1::Pod& p, absl::string_view ns, bool moved) {
  std::string sig;
  std::vector<std::pair<absl::string_view, absl::string_view>> labels;
  AppendClassSignature(p, ns, moved, &sig, &labels);
  return sig;
}

void Round::SetupCommon() {
  trial_host_ = in_.InternValue("hostname-placeholder-trial");
  nodes_dim_ = dims_.Find("nodes");
  for (int d = 0; d < dims_.size(); ++d)
    for (const auto& t : c_.types)
      if (t.allocatable[d] != c_.types[0].allocatable[d]) {
        varying_dims_.push_back(d);
        break;
      }
  for (const auto& p : c_.pools)
    for (const auto& t : p.taints)
      if (t.effect() == "PreferNoSchedule") any_pns_taint_ = true;
  // Capacity per reservation: the smallest among offerings carrying it.
  for (const auto& t : c_.types)
    for (const auto& o : t.offerings)
      if (o.reservation.id != kNoId) {
        auto& r = reservations_[o.reservation.id];
        r.capacity = std::min(r.capacity, o.reservation_capacity);
      }
}

absl::Status Round::Setup() {
  SetupCommon();
  if (auto s = CompilePods(); !s.ok()) return s;
  if (auto s = SetupClusterState(); !s.ok()) return s;
  FinishSetup();
  return absl::OkStatus();
}

absl::Status Round::SetupClusterState() {
  if (auto s = CompileDaemons(); !s.ok()) return s;
  if (auto s = CompileExisting(); !s.ok()) return s;
  CompilePoolStates();
  BuildDomainUniverse();
  return absl::OkStatus();
}

void Round::FinishSetup() {
  BuildInverseFromBound();
  // Every class's unrelaxed topology groups exist before the first placement,
  // as Karpenter builds them all in NewTopology.
  for (size_t i = 0; i < classes_.size(); ++i)
    if (classes_[i].cls.invalid.empty()) GetView(static_cast<int>(i), 0);
}

absl::Status Round::SetupCluster(absl::Span<const KnownPod> known,
                                 BoundPodLabels labels) {
  cluster_base_ = true;
  bound_labels_skipped_ = labels == BoundPodLabels::kSkip;
  known_ = known;
  SetupCommon();
  if (auto s = CompilePods(); !s.ok()) return s;
  absl::Status state = SetupClusterState();
  known_ = {};
  if (!state.ok()) return state;
  // What simulations read but cannot build in a shared base.
  TopologyNodes();
  for (size_t j = 0; j < bound_.size(); ++j)
    if (bound_[j].node >= 0 && bound_[j].required_anti_affinity)
      anti_affinity_bound_.push_back(static_cast<int>(j));
  for (size_t d = 0; d < daemon_set_pods_.size(); ++d) {
    auto& list = daemon_pods_.emplace_back();
    for (int i : daemon_set_pods_[d])
      list.emplace_back(&req_.pods(i), pod_node_[i]);
  }
  return absl::OkStatus();
}

absl::Status Round::SetupSimulation() {
  const Round& b = *base_;
  // What SetupCommon derives from the snapshot alone, as the base derived
  // it (reservations are pristine in the base: it never places).
  trial_host_ = b.trial_host_;
  nodes_dim_ = b.nodes_dim_;
  varying_dims_ = b.varying_dims_;
  any_pns_taint_ = b.any_pns_taint_;
  reservations_ = b.reservations_;
  node_removed_.assign(req_.nodes_size(), 0);
  for (int i : sim_->removed_nodes) node_removed_[i] = 1;
  std::vector<char> claim_removed(req_.node_claims_size(), 0);
  for (int i : sim_->removed_claims) claim_removed[i] = 1;
  ignored_ = 0;
  for (size_t i = 0; i < b.pods_on_node_.size(); ++i)
    if (i >= node_removed_.size() || !node_removed_[i])
      ignored_ += b.pods_on_node_[i];
  if (auto s = CompilePods(); !s.ok()) return s;
  if (auto s = CompileSimulationDaemons(); !s.ok()) return s;
  pools_ = b.pools_;
  existing_.reserve(b.existing_nodes_.size());
  for (const ExistingNode& e : b.existing_nodes_) {
    const bool removed =
        (e.request_node >= 0 && node_removed_[e.request_node]) ||
        (e.request_claim >= 0 && claim_removed[e.request_claim]);
    if (!removed) {
      existing_.push_back({&e, e.remaining, e.ports, {}});
      continue;
    }
    GiveBackLimits(e);
  }
  for (const ExistingNode& e : b.limit_only_claims_)
    if (claim_removed[e.request_claim]) GiveBackLimits(e);
  InitExistingVolumes();
  FinishSetup();
  if (needed_skipped_labels_)
    return absl::UnavailableError(
        "a pod's topology terms count bound pods whose labels the compiled "
        "cluster skipped");
  return absl::OkStatus();
}

absl::Status Round::CompileSimulationDaemons() {
  // The DaemonSets' pods are the compiled cluster's unless a removed node
  // held a DaemonSet's newest pod (or a simulation pod is newer) and the
  // pod that takes its place compiles differently.
  const Round& b = *base_;
  daemons_ = b.daemons_;
  for (int d = 0; d < req_.daemon_sets_size(); ++d) {
    const v1::DaemonSet& ds = req_.daemon_sets(d);
    const v1::Pod* newest = nullptr;
    for (const auto& [pod, node] : b.daemon_pods_[d]) {
      if (node >= 0 && node_removed_[node]) continue;
      if (newest == nullptr || pod->metadata().creation_timestamp() >
                                   newest->metadata().creation_timestamp())
        newest = pod;
    }
    for (const SimPod& sp : sim_->pods) {
      if (!ControlledBy(ds, *sp.pod)) continue;
      const std::string& t = sp.pod->metadata().creation_timestamp();
      if (newest != nullptr && t == newest->metadata().creation_timestamp())
        return absl::UnavailableError("a DaemonSet pod tie in request order");
      if (newest == nullptr || t > newest->metadata().creation_timestamp())
        newest = sp.pod;
    }
    if (newest == b.daemon_newest_[d]) continue;
    absl::StatusOr<DaemonPod> dp = CompileDaemon(ds, newest);
    if (!dp.ok()) return dp.status();
    if (!(*dp == daemons_[d]))
      return absl::UnavailableError("a DaemonSet's newest pod changed");
  }
  return absl::OkStatus();
}

const KnownNamespaces& Round::Namespaces() {
  if (!namespaces_) {
    std::vector<std::string> of_pods;
    auto add = [&](const v1::Pod& p) {
      of_pods.emplace_back(NamespaceOf(p.metadata()));
    };
    if (sim_ != nullptr) {
      // The cluster's pods that are still bound, then the simulation's.
      for (int i = 0; i < req_.pods_size(); ++i) {
        const int node = base_->pod_node_[i];
        if (req_.pods(i).spec().node_name().empty()) continue;
        if (node >= 0 && node_removed_[node]) continue;
        add(req_.pods(i));
      }
      for (const SimPod& sp : sim_->pods) add(*sp.pod);
    } else {
      for (int i = 0; i < req_.pods_size(); ++i)
        if (!LeftOut(i)) add(req_.pods(i));
    }
    if (opt_.prepared != nullptr) {
      const auto& expanded = opt_.prepared->expanded;
      for (size_t r = 0; r < expanded.size(); ++r)
        if (!LeftOut(req_.pods_size() + r))
          of_pods.push_back(expanded[r]->metadata().namespace_());
    } else {
      for (const auto& p : expanded_)
        of_pods.push_back(p.metadata().namespace_());
    }
    namespaces_.emplace(req_.namespaces(), of_pods, in_);
  }
  return *namespaces_;
}

void Round::ExpandDeployments(std::vector<const v1::Pod*>* all) {
  // Deployments expand into `replicas` pods (the contract in
  // nodeplan/workload.h, shared with the verifier), unless the caller
  // prepared them (PreparePods).
  if (opt_.prepared != nullptr) {
    for (const v1::Pod* p : opt_.prepared->expanded) all->push_back(p);
    return;
  }
  for (const auto& d : req_.deployments()) {
    int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    for (int i = 0; i < replicas; ++i)
      expanded_.push_back(workload::DeploymentReplica(d, i));
  }
  for (const auto& p : expanded_) all->push_back(&p);
}

absl::Status Round::CompilePods() {
  std::vector<const v1::Pod*> all;
  std::vector<char> moved;
  std::vector<const std::string*> sigs;
  if (sim_ != nullptr) {
    for (const SimPod& sp : sim_->pods) {
      all.push_back(sp.pod);
      moved.push_back(sp.moved);
      sigs.push_back(sp.signature);
    }
  } else {
    for (const auto& p : req_.pods()) all.push_back(&p);
    // Each pod's node and DaemonSet, found in this one pass over the pods
    // rather than once per later use.
    for (int i = 0; i < req_.nodes_size(); ++i)
      node_index_[req_.nodes(i).metadata().name()] = i;
    pod_node_.assign(req_.pods_size(), -1);
    pods_on_node_.assign(req_.nodes_size() + 1, 0);
    daemon_set_pods_ = PodsByDaemonSet(req_.daemon_sets(), req_.pods());
    if (opt_.pending_subset != nullptr)
      for (auto& pods : daemon_set_pods_)
        pods.erase(std::remove_if(pods.begin(), pods.end(),
                                  [&](int i) { return LeftOut(i); }),
                   pods.end());
  }
  // A compiled cluster's pending pods and Deployments belong to its
  // simulations, not to it.
  if (!cluster_base_) ExpandDeployments(&all);
  if (sim_ == nullptr && !cluster_base_ && opt_.prepared != nullptr) {
    // PreparePods' signatures, one per pod of the request (empty: none).
    const auto& prepared = opt_.prepared->signatures;
    sigs.assign(all.size(), nullptr);
    for (size_t i = 0; i < all.size() && i < prepared.size(); ++i)
      if (!prepared[i].empty()) sigs[i] = &prepared[i];
    // A Deployment's replicas share one signature (SignReplicas).
    const auto& replicas = opt_.prepared->replica_signatures;
    for (size_t r = 0; r < replicas.size(); ++r)
      if (req_.pods_size() + r < all.size())
        sigs[req_.pods_size() + r] = replicas[r];
  } else if (sim_ == nullptr && !cluster_base_ && !expanded_.empty()) {
    std::vector<const std::string*> per_replica;
    SignReplicas(req_, absl::MakeConstSpan(all).subspan(req_.pods_size()),
                 &replica_sigs_, &per_replica, &label_scratch_);
    sigs.assign(all.size(), nullptr);
    for (size_t r = 0; r < per_replica.size(); ++r)
      sigs[req_.pods_size() + r] = per_replica[r];
  }
  // A caller's KnownPods spare the pods' messages; without them each pod
  // is a chain of separately allocated messages, first touched here: fetch
  // the next ones' ahead, in two stages (a submessage's address is read
  // from its pod).
  const bool prefetch = known_.empty() && opt_.pending_subset == nullptr;
  for (size_t i = 0; i < all.size(); ++i) {
    if (LeftOut(i)) continue;
    constexpr size_t kAhead = 4;
    if (prefetch && i + 2 * kAhead < all.size())
      __builtin_prefetch(all[i + 2 * kAhead]);
    if (prefetch && i + kAhead < all.size()) {
      __builtin_prefetch(&all[i + kAhead]->metadata());
      __builtin_prefetch(&all[i + kAhead]->spec());
      __builtin_prefetch(&all[i + kAhead]->status());
    }
    const bool m = i < moved.size() && moved[i];
    if (auto s = CompilePod(*all[i], static_cast<int>(i), m,
                            i < sigs.size() ? sigs[i] : nullptr);
        !s.ok())
      return s;
  }
  return absl::OkStatus();
}

absl::Status Round::CompilePod(const v1::Pod& p, int i, bool moved,
                               const std::string* signature) {
  // What the caller already read of a bound pod of the compiled cluster.
  const KnownPod* known =
      sim_ == nullptr && i < static_cast<int>(known_.size()) && known_[i].placed
          ? &known_[i]
          : nullptr;
  if (!moved && (known != nullptr || !p.spec().node_name().empty())) {
    // A simulation's pods are its own (never bound to a request node).
    int node = -1;
    if (sim_ == nullptr) {
      if (known != nullptr) {
        node = known->node;
      } else if (auto it = node_index_.find(p.spec().node_name());
                 it != node_index_.end()) {
        node = it->second;
      }
      if (i < static_cast<int>(pod_node_.size())) {
        pod_node_[i] = node;
        ++pods_on_node_[node < 0 ? req_.nodes_size() : node];
      }
    }
    if (!(known != nullptr ? known->terminal : IsTerminal(p))) {
      const absl::string_view ns =
          known != nullptr ? known->ns : NamespaceOf(p.metadata());
      bound_.push_back({&p, in_.InternValue(ns).id,
                        bound_labels_skipped_
                            ? LabelSet()
                            : LabelSet::FromMap(p.metadata().labels(), in_),
                        node,
                        known != nullptr
                            ? known->terminating
                            : !p.metadata().deletion_timestamp().empty(),
                        (known == nullptr || known->topology_terms) &&
                            !RequiredAntiAffinity(p).empty(),
                        sim_ == nullptr ? i : -1});
    }
    ++ignored_;
    return absl::OkStatus();
  }
  const absl::string_view ns = NamespaceOf(p.metadata());
  if (cluster_base_) return absl::OkStatus();
  // Not provisionable (Karpenter's IsProvisionable): terminal, being
  // deleted, gated (kube-scheduler never marks it Unschedulable), being
  // preempted for (nominated), or a DaemonSet's or a Node's own.
  if ((!moved && (IsTerminal(p) || !p.metadata().deletion_timestamp().empty() ||
                  !p.spec().scheduling_gates().empty() ||
                  !p.status().nominated_node_name().empty())) ||
      IsOwnedByDaemonSet(p) || IsOwnedByNode(p)) {
    ++ignored_;
    return absl::OkStatus();
  }
  if (signature == nullptr) {
    // Scratch kept by the round: no allocation per pod once warm.
    sig_scratch_.clear();
    AppendClassSignature(p, ns, moved, &sig_scratch_, &label_scratch_);
    signature = &sig_scratch_;
  }
  auto [it, inserted] =
      class_index_.emplace(*signature, static_cast<int>(classes_.size()));
  if (inserted) {
    classes_.emplace_back();
    PodClass& cls = classes_.back().cls;
    cls.ns = std::string(ns);
    cls.example = &p;
    std::string path = absl::StrCat("pods[", ns, "/", p.metadata().name(), "]");
    if (auto s = CompileClass(p, cls, path, moved); !s.ok()) return s;
  }
  pending_.push_back(
      {&p, absl::StrCat(ns, "/", p.metadata().name()), it->second, i});
  // Volume limits exist only on nodes with a CSINode: without any, a pod's
  // claims are never counted.
  if (req_.csi_nodes_size() > 0) {
    pod_volumes_.resize(pending_.size());
    if (classes_[it->second].cls.invalid.empty() && !p.spec().volumes().empty())
      PodVolumes(p, ns, &pod_volumes_.back());
  }
  return absl::OkStatus();
}

absl::Status Round::CompileClass(const v1::Pod& pod, PodClass& cls,
                                 const std::string& path, bool moved) {
  const v1::PodSpec& spec = pod.spec();
  cls.ns_id = in_.InternValue(cls.ns).id;
  cls.labels = LabelSet::FromMap(pod.metadata().labels(), in_);
  auto rq = PodRequests(spec, in_, dims_, path + ".spec");
  if (!rq.ok()) return rq.status();
  cls.requests = *rq;
  cls.invalid = ValidatePod(pod);
  if (!spec.resource_claims().empty() && cls.invalid.empty())
    cls.invalid =
        "pod has Dynamic Resource Allocation requirements that are not yet "
        "supported by Karpenter";
  std::vector<std::pair<std::string, std::string>> sel(
      spec.node_selector().begin(), spec.node_selector().end());
  std::sort(sel.begin(), sel.end());
  for (const auto& [key, value] : sel)
    cls.node_selector.Add(Requirement::In(
        in_.InternKey(labels::NormalizeLabelKey(key)), in_.InternValue(value)));
  // A pod's node selector terms are core NodeSelectorRequirements: no
  // minValues.
  auto term_reqs = [&](const v1::NodeSelectorTerm& t, absl::string_view field) {
    return RequirementsFromNodeSelector(
        t.match_expressions(), in_, /*use_min_values=*/false,
        absl::StrCat(path, ".spec.affinity.nodeAffinity.", field,
                     ".matchExpressions"));
  };
  const auto& na = spec.affinity().node_affinity();
  for (const auto& t : na.required_during_scheduling_ignored_during_execution()
                           .node_selector_terms()) {
    auto r = term_reqs(t, "requiredDuringSchedulingIgnoredDuringExecution");
    if (!r.ok()) return r.status();
    cls.required_terms.push_back(*std::move(r));
  }
  for (const auto& t :
       na.preferred_during_scheduling_ignored_during_execution()) {
    auto r = term_reqs(t.preference(),
                       "preferredDuringSchedulingIgnoredDuringExecution");
    if (!r.ok()) return r.status();
    cls.preferred_node.emplace_back(t.weight(), *std::move(r));
  }
  std::stable_sort(
      cls.preferred_node.begin(), cls.preferred_node.end(),
      [](const auto& a, const auto& b) { return a.first > b.first; });
  cls.tolerations = CompileTolerations(spec.tolerations());
  for (const auto& t : spec.topology_spread_constraints()) {
    cls.spreads.push_back(t);
    if (t.when_unsatisfiable() == "ScheduleAnyway") ++cls.anyway_spreads;
  }
  const auto& pa = spec.affinity().pod_affinity();
  for (const auto& t : pa.required_during_scheduling_ignored_during_execution())
    cls.req_affinity.push_back(t);
  for (const auto& t :
       pa.preferred_during_scheduling_ignored_during_execution())
    cls.pref_affinity.emplace_back(t.weight(), t.pod_affinity_term());
  const auto& paa = spec.affinity().pod_anti_affinity();
  for (const auto& t :
       paa.required_during_scheduling_ignored_during_execution())
    cls.req_anti.push_back(t);
  for (const auto& t :
       paa.preferred_during_scheduling_ignored_during_execution())
    cls.pref_anti.emplace_back(t.weight(), t.pod_affinity_term());
  auto by_weight = [](const auto& a, const auto& b) {
    return a.first > b.first;
  };
  std::stable_sort(cls.pref_affinity.begin(), cls.pref_affinity.end(),
                   by_weight);
  std::stable_sort(cls.pref_anti.begin(), cls.pref_anti.end(), by_weight);
  cls.ports = CompileHostPorts(spec);
  if (cls.invalid.empty()) return CompileVolumes(pod, cls, moved);
  return absl::OkStatus();
}

namespace {

// Karpenter's structured errors (serrors) end in "(Key=value, ...)", keys
// sorted; a namespaced reference prints as "namespace/name".
std::string PvcRef(const v1::PersistentVolumeClaim& pvc, absl::string_view ns) {
  return absl::StrCat(ns, "/", pvc.metadata().name());
}

// Karpenter's ValidatePersistentVolumeClaims for one claim: why kube-scheduler
// (and so Karpenter) would not place the pod, or "" when the claim is usable.
// `pv` and `sc` are the claim's volume and class when the request holds them.
std::string ValidateClaim(const v1::PersistentVolumeClaim& pvc,
                          absl::string_view ns, const v1::PersistentVolume* pv,
                          const v1::StorageClass* sc) {
  const std::string ref = PvcRef(pvc, ns);
  if (!pvc.metadata().deletion_timestamp().empty())
    return absl::StrCat(
        "persistentvolumeclaim is being deleted (PersistentVolumeClaim=", ref,
        ")");
  if (pvc.status().phase() == "Lost")
    return absl::StrCat(
        "persistentvolumeclaim bound to non-existent persistentvolume "
        "(PersistentVolume=",
        pvc.spec().volume_name(), ", PersistentVolumeClaim=", ref, ")");
  const std::string& sc_name = pvc.spec().storage_class_name();
  if (!pvc.spec().volume_name().empty()) {
    const std::string& pv_name = pvc.spec().volume_name();
    if (pv == nullptr)
      return absl::StrCat("persistentvolume \"", pv_name, "\" not found");
    if (!pv->metadata().deletion_timestamp().empty())
      return absl::StrCat(
          "failed to validate pvc, persistentvolume is being deleted "
          "(PersistentVolume=",
          pv_name, ", PersistentVolumeClaim=", ref, ", StorageClass=", sc_name,
          ")");
    // kube-scheduler takes a claim with a volumeName as bound only once the
    // PV controller has marked the binding complete.
    if (!pvc.metadata().annotations().contains(
            "pv.kubernetes.io/bind-completed"))
      return absl::StrCat(
          "pvc is considered unbound because it does not contain annotation "
          "(PersistentVolume=",
          pv_name, ", PersistentVolumeClaim=", pvc.metadata().name(),
          ", annotation=pv.kubernetes.io/bind-completed)");
    return "";
  }
  if (sc_name.empty())
    return absl::StrCat(
        "unbound pvc must define a storage class (PersistentVolumeClaim=", ref,
        ", StorageClass=)");
  if (sc == nullptr)
    return absl::StrCat("storageclass \"", sc_name, "\" not found");
  if (sc->volume_binding_mode() == "Immediate")
    return absl::StrCat(
        "failed to validate pvc, pvc with immediate volume binding mode must "
        "be bound (PersistentVolumeClaim=",
        ref, ", StorageClass=", sc_name, ")");
  return "";
}

}  // namespace

const Round::VolumeObjects& Round::VolumeIndex() {
  if (volume_objects_ == nullptr) {
    volume_objects_ = std::make_unique<VolumeObjects>();
    for (const auto& x : req_.persistent_volume_claims())
      volume_objects_->claims.emplace(
          absl::StrCat(x.metadata().namespace_().empty()
                           ? "default"
                           : x.metadata().namespace_(),
                       "/", x.metadata().name()),
          &x);
    for (const auto& x : req_.persistent_volumes())
      volume_objects_->pvs.emplace(x.metadata().name(), &x);
    for (const auto& x : req_.storage_classes())
      volume_objects_->classes.emplace(x.metadata().name(), &x);
  }
  return *volume_objects_;
}

absl::Status Round::CompileVolumes(const v1::Pod& pod, PodClass& cls,
                                   bool moved) {
  std::vector<std::vector<Requirements>> per_volume;
  for (const auto& vol : pod.spec().volumes()) {
    std::string claim;
    if (!vol.persistent_volume_claim().claim_name().empty()) {
      claim = vol.persistent_volume_claim().claim_name();
    } else if (vol.has_ephemeral()) {
      // The ephemeral volume controller names the claim "<pod>-<volume>";
      // until it exists Karpenter cannot read it and leaves the pod.
      claim = absl::StrCat(pod.metadata().name(), "-", vol.name());
    } else {
      continue;
    }
    const VolumeObjects& objs = VolumeIndex();
    auto found = objs.claims.find(absl::StrCat(cls.ns, "/", claim));
    const v1::PersistentVolumeClaim* pvc =
        found == objs.claims.end() ? nullptr : found->second;
    if (pvc == nullptr) {
      cls.invalid =
          absl::StrCat("persistentvolumeclaim \"", claim, "\" not found");
      return absl::OkStatus();
    }
    // Karpenter validates claims of pending pods only (GetPendingPods); a
    // pod a simulation moves keeps what its volume says.
    const v1::PersistentVolume* pv = nullptr;
    if (auto v = objs.pvs.find(pvc->spec().volume_name()); v != objs.pvs.end())
      pv = v->second;
    const v1::StorageClass* sc = nullptr;
    if (auto c = objs.classes.find(pvc->spec().storage_class_name());
        c != objs.classes.end())
      sc = c->second;
    if (!moved) {
      cls.invalid = ValidateClaim(*pvc, cls.ns, pv, sc);
      if (!cls.invalid.empty()) return absl::OkStatus();
    }
    std::vector<Requirements> alts;
    if (!pvc->spec().volume_name().empty()) {
      if (pv == nullptr) {  // only a moved pod gets here unvalidated
        cls.invalid = absl::StrCat("persistentvolume \"",
                                   pvc->spec().volume_name(), "\" not found");
        return absl::OkStatus();
      }
      // A node-local volume's hostname is dropped (a term of hostnames only
      // leaves an unconstrained alternative); any other PV keeps it, so only
      // the node of that name can take the pod. Empty terms add nothing.
      const bool node_local =
          pv->spec().has_local() || pv->spec().has_host_path();
      for (const auto& t :
           pv->spec().node_affinity().required().node_selector_terms()) {
        Requirements r;
        int kept = 0;
        for (const auto& e : t.match_expressions()) {
          if (node_local && e.key() == labels::kHostname) continue;
          absl::Status s = AddNodeSelectorRequirement(
              e, in_, /*use_min_values=*/false,
              absl::StrCat("persistentVolumes[", pv->metadata().name(),
                           "].spec.nodeAffinity.required"),
              r);
          if (!s.ok()) return s;
          ++kept;
        }
        if (kept > 0 || (node_local && t.match_expressions_size() > 0))
          alts.push_back(std::move(r));
      }
    } else if (!pvc->spec().storage_class_name().empty()) {
      if (sc == nullptr) {  // only a moved pod gets here unvalidated
        cls.invalid =
            absl::StrCat("storageclass \"", pvc->spec().storage_class_name(),
                         "\" not found");
        return absl::OkStatus();
      }
      for (const auto& t : sc->allowed_topologies()) {
        if (t.match_label_expressions().empty()) continue;
        Requirements r;
        for (const auto& e : t.match_label_expressions()) {
          absl::InlinedVector<LabelValue, 4> vals;
          for (const auto& v : e.values()) vals.push_back(in_.InternValue(v));
          r.Add(Requirement::In(in_.InternKey(e.key()), vals));
        }
        alts.push_back(std::move(r));
      }
    }
    if (!alts.empty()) per_volume.push_back(std::move(alts));
  }
  // Pairwise combination keeping compatible combinations (all if none is).
  std::vector<Requirements> combined;
  for (auto& alts : per_volume) {
    if (combined.empty()) {
      combined = alts;
      continue;
    }
    std::vector<Requirements> ok, all;
    for (const Requirements& a : combined)
      for (const Requirements& b : alts) {
        Requirements m = a;
        bool compatible = Compatible(a, b, &wk_, in_, nullptr);
        m.Add(b);
        (compatible ? ok : all).push_back(m);
      }
    if (ok.empty()) {
      combined = std::move(all);
    } else {
      combined = std::move(ok);
    }
  }
  cls.volume_alts = std::move(combined);
  return absl::OkStatus();
}

namespace {

// The CSI driver that took over an in-tree volume plugin (CSI migration),
// or the name unchanged.
absl::string_view MigratedDriver(absl::string_view provisioner) {
  static constexpr std::pair<absl::string_view, absl::string_view> kInTree[] = {
      {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
      {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
      {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
      {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
      {"kubernetes.io/azure-file", "file.csi.azure.com"},
      {"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
      {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
  };
  for (const auto& [in_tree, csi] : kInTree)
    if (provisioner == in_tree) return csi;
  return provisioner;
}

}  // namespace

void Round::PodVolumes(const v1::Pod& pod, absl::string_view ns,
                       std::vector<VolumeUse>* out) {
  const VolumeObjects& objs = VolumeIndex();
  const size_t first = out->size();
  std::string key;
  for (const auto& vol : pod.spec().volumes()) {
    key.clear();
    if (vol.has_persistent_volume_claim()) {
      absl::StrAppend(&key, ns, "/",
                      vol.persistent_volume_claim().claim_name());
    } else if (vol.has_ephemeral()) {
      absl::StrAppend(&key, ns, "/", pod.metadata().name(), "-", vol.name());
    } else {
      continue;
    }
    auto c = objs.claims.find(key);
    if (c == objs.claims.end()) continue;
    const v1::PersistentVolumeClaim& pvc = *c->second;
    absl::string_view driver;
    if (!pvc.spec().volume_name().empty()) {
      // Bound: the volume's CSI driver, or EBS's for an in-tree EBS volume.
      auto v = objs.pvs.find(pvc.spec().volume_name());
      if (v == objs.pvs.end()) continue;
      const v1::PersistentVolumeSpec& spec = v->second->spec();
      if (spec.has_csi()) {
        driver = spec.csi().driver();
      } else if (spec.has_aws_elastic_block_store()) {
        driver = "ebs.csi.aws.com";
      }
    } else if (!pvc.spec().storage_class_name().empty()) {
      // Unbound: the class's provisioner, in-tree names migrated.
      auto s = objs.classes.find(pvc.spec().storage_class_name());
      if (s == objs.classes.end()) continue;
      driver = MigratedDriver(s->second->provisioner());
    }
    if (driver.empty()) continue;
    out->push_back({in_.InternValue(driver).id, in_.InternValue(key).id});
  }
  std::sort(out->begin() + first, out->end());
  out->erase(std::unique(out->begin() + first, out->end()), out->end());
}

int Round::CompileNodeVolumes(const std::string& node_name,
                              const std::vector<int>& bound) {
  const v1::CSINode* csi = nullptr;
  for (const v1::CSINode& x : req_.csi_nodes())
    if (x.metadata().name() == node_name) {
      csi = &x;
      break;
    }
  if (csi == nullptr) return -1;
  NodeVolumes nv;
  for (const v1::CSINodeDriver& d : csi->spec().drivers())
    if (d.has_allocatable())
      nv.limits.emplace_back(in_.InternValue(d.name()).id,
                             d.allocatable().count());
  if (nv.limits.empty()) return -1;
  std::sort(nv.limits.begin(), nv.limits.end());
  std::string ns;
  for (int j : bound) {
    const BoundPod& b = bound_[j];
    if (b.pod->spec().volumes().empty()) continue;
    ns = std::string(in_.ValueText(b.ns));
    PodVolumes(*b.pod, ns, &nv.used);
  }
  std::sort(nv.used.begin(), nv.used.end());
  nv.used.erase(std::unique(nv.used.begin(), nv.used.end()), nv.used.end());
  for (const auto& [driver, limit] : nv.limits) {
    auto [lo, hi] = std::equal_range(
        nv.used.begin(), nv.used.end(), VolumeUse{driver, kNoId},
        [](const VolumeUse& a, const VolumeUse& b) {
          return a.driver < b.driver;
        });
    if (hi - lo > limit) nv.over = true;
  }
  node_volumes_.push_back(std::move(nv));
  return static_cast<int>(node_volumes_.size() - 1);
}

void Round::InitExistingVolumes() {
  const Round& owner = base_ != nullptr ? *base_ : *this;
  if (owner.node_volumes_.empty()) return;
  existing_volumes_.resize(existing_.size());
  for (size_t i = 0; i < existing_.size(); ++i)
    if (existing_[i].node->volumes >= 0)
      existing_volumes_[i] =
          owner.node_volumes_[existing_[i].node->volumes].used;
}

bool Round::ExceedsVolumeLimits(size_t e,
                                const std::vector<VolumeUse>& pod) const {
  const Round& owner = base_ != nullptr ? *base_ : *this;
  const NodeVolumes& nv = owner.node_volumes_[existing_[e].node->volumes];
  const std::vector<VolumeUse>& used = existing_volumes_[e];
  auto by_driver = [](const VolumeUse& a, const VolumeUse& b) {
    return a.driver < b.driver;
  };
  for (const auto& [driver, limit] : nv.limits) {
    auto [plo, phi] = std::equal_range(pod.begin(), pod.end(),
                                       VolumeUse{driver, kNoId}, by_driver);
    if (plo == phi && !nv.over) continue;  // no claim of this driver added
    auto [lo, hi] = std::equal_range(used.begin(), used.end(),
                                     VolumeUse{driver, kNoId}, by_driver);
    int64_t count = hi - lo;
    for (auto p = plo; p != phi; ++p)
      if (!std::binary_search(lo, hi, *p)) ++count;
    if (count > limit) return true;
  }
  return false;
}

absl::StatusOr<DaemonPod> Round::CompileDaemon(const v1::DaemonSet& ds,
                                               const v1::Pod* newest) {
  DaemonPod d;
  d.name = ds.metadata().name();
  const v1::PodSpec spec = DaemonSetPodSpec(ds, newest);
  auto rq = PodRequests(
      spec, in_, dims_,
      newest == nullptr
          ? absl::StrCat("daemonSets[", d.name, "].spec.template.spec")
          : absl::StrCat("pods[", newest->metadata().namespace_(), "/",
                         newest->metadata().name(), "].spec"));
  if (!rq.ok()) return rq.status();
  d.requests = *rq;
  d.tols = CompileTolerations(spec.tolerations());
  std::vector<std::pair<std::string, std::string>> sel(
      spec.node_selector().begin(), spec.node_selector().end());
  std::sort(sel.begin(), sel.end());
  for (const auto& [key, value] : sel)
    d.node_selector.Add(Requirement::In(
        in_.InternKey(labels::NormalizeLabelKey(key)), in_.InternValue(value)));
  for (const auto& t :
       spec.affinity()
           .node_affinity()
           .required_during_scheduling_ignored_during_execution()
           .node_selector_terms()) {
    auto r = RequirementsFromNodeSelector(
        t.match_expressions(), in_, /*use_min_values=*/false,
        absl::StrCat("daemonSets[", d.name,
                     "].spec.template.spec.affinity.nodeAffinity"));
    if (!r.ok()) return r.status();
    d.terms.push_back(*std::move(r));
  }
  d.ports = CompileHostPorts(spec);
  return d;
}

absl::Status Round::CompileDaemons() {
  for (int i = 0; i < req_.daemon_sets_size(); ++i) {
    const v1::DaemonSet& ds = req_.daemon_sets(i);
    const v1::Pod* newest = NewestPod(req_.pods(), daemon_set_pods_[i]);
    absl::StatusOr<DaemonPod> d = CompileDaemon(ds, newest);
    if (!d.ok()) return d.status();
    daemons_.push_back(*std::move(d));
    daemon_newest_.push_back(newest);
  }
  return absl::OkStatus();
}

namespace {

// Every entry of `v` that is zero takes the NodeClaim's value from `list`
// (its status.<field>), as Karpenter reads an uninitialized node.
absl::Status FillZerosFromClaim(
    const google::protobuf::Map<std::string, std::string>& list,
    const v1::NodeClaim& claim, absl::string_view field, Interner& names,
    ResourceDims& dims, DenseResources& v) {
  absl::StatusOr<DenseResources> claimed = dims.ParseList(list, names, [&] {
    return absl::StrCat("nodeClaims[", claim.metadata().name(), "].status.",
                        field);
  });
  if (!claimed.ok()) return claimed.status();
  for (int x = 0; x < kMaxResourceDims; ++x)
    if (v[x] == 0) v[x] = (*claimed)[x];
  return absl::OkStatus();
}

// A NodeClaim's labels as a node it becomes would carry them: its own, and
// the value of each single-valued In requirement (instance type, zone,
// capacity type, ... as the launch sets them).
std::map<std::string, std::string> ClaimLabels(const v1::NodeClaim& nc) {
  std::map<std::string, std::string> labels(nc.metadata().labels().begin(),
                                            nc.metadata().labels().end());
  for (const auto& r : nc.spec().requirements())
    if (r.operator_() == "In" && r.values_size() == 1 &&
        !labels.contains(r.key()))
      labels[r.key()] = r.values(0);
  return labels;
}

// The catalog entry of an in-flight NodeClaim's instance type (-1: none):
// the one in its NodePool's catalog when there is one, else the first.
template <typename PoolIndex>
int InFlightType(
    const std::map<std::string, std::string>& labels,
    const absl::flat_hash_map<std::string, std::vector<int>>& types_by_name,
    const std::vector<Pool>& pools, PoolIndex&& pool_index) {
  auto type = labels.find(labels::kInstanceType);
  if (type == labels.end()) return -1;
  auto entries = types_by_name.find(type->second);
  if (entries == types_by_name.end()) return -1;
  if (auto pool = labels.find(labels::kNodePool); pool != labels.end()) {
    if (int p = pool_index(pool->second); p >= 0) {
      for (int t : entries->second)
        if (pools[p].catalog.Test(t)) return t;
    }
  }
  return entries->second.front();
}

}  // namespace

void Round::ChargeLimits(ExistingNode& e, int pool, DenseResources use) {
  if (nodes_dim_ >= 0) use[nodes_dim_] = 1;
  for (int x = 0; x < kMaxResourceDims; ++x)
    if (c_.pools[pool].limit_mask & (1u << x))
      pools_[pool].remaining[x] =
          SaturatingSub(pools_[pool].remaining[x], use[x]);
  e.limit_pool = pool;
  e.limit_use = use;
}

void Round::GiveBackLimits(const ExistingNode& e) {
  if (e.limit_pool < 0) return;
  for (int x = 0; x < kMaxResourceDims; ++x)
    if (c_.pools[e.limit_pool].limit_mask & (1u << x))
      pools_[e.limit_pool].remaining[x] =
          SaturatingAdd(pools_[e.limit_pool].remaining[x], e.limit_use[x]);
}

absl::Status Round::CompileExisting() {
  // Catalog lookup by instance-type name for in-flight NodeClaims. With one
  // AWS catalog per NodeClass a name appears once per catalog (their
  // allocatable differs: EKS max pods, ephemeral storage): a NodeClaim's own
  // NodePool's catalog answers first, else the first catalog that has it.
  // Built for the first NodeClaim that needs it: most rounds have none, and
  // the map costs a hash of every catalog type.
  std::optional<absl::flat_hash_map<std::string, std::vector<int>>> by_name;
  auto types_by_name = [&]() -> const auto& {
    if (!by_name.has_value()) {
      by_name.emplace();
      for (size_t i = 0; i < c_.types.size(); ++i)
        (*by_name)[c_.types[i].name].push_back(static_cast<int>(i));
    }
    return *by_name;
  };
  absl::flat_hash_map<std::string, int> claim_by_node;
  for (int i = 0; i < req_.node_claims_size(); ++i) {
    const v1::NodeClaim& nc = req_.node_claims(i);
    if (!nc.status().node_name().empty())
      claim_by_node[nc.status().node_name()] = i;
  }
  // Bound pods per node, in input order (one pass, not nodes x pods).
  std::vector<std::vector<int>> bound_on(req_.nodes_size());
  for (size_t j = 0; j < bound_.size(); ++j)
    if (bound_[j].node >= 0)
      bound_on[bound_[j].node].push_back(static_cast<int>(j));
  auto pool_index = [&](const std::string& name) -> int {
    for (size_t i = 0; i < c_.pools.size(); ++i)
      if (c_.pools[i].name == name) return static_cast<int>(i);
    return -1;
  };
  pools_.resize(c_.pools.size());
  for (size_t i = 0; i < c_.pools.size(); ++i)
    pools_[i].remaining = c_.pools[i].limits;

  // Karpenter computes its NodeClaim templates' daemon overhead before its
  // existing nodes', and that check (isDaemonPodCompatible) adds a
  // PreferNoSchedule toleration to the shared daemon pods in place. So on
  // existing nodes and in-flight NodeClaims daemons tolerate PreferNoSchedule
  // taints whenever some NodePool keeps an instance type (a template
  // survives), and only then. (Found by benchmarks/karpenter, workload.Varied
  // seed 245: a daemon counted on a PreferNoSchedule in-flight NodeClaim.)
  bool daemons_tolerate_pns = false;
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    const Pool& pool = c_.pools[p];
    const TypeSet& types = PoolTypes(p);
    if (types.None()) continue;
    Requirements r = pool.reqs;
    if (!pool.reqs.HasMinValues() || opt_.best_effort_min_values ||
        MinValuesOk(types, r, false, nullptr))
      daemons_tolerate_pns = true;
  }
  std::vector<std::vector<v1::Toleration>> daemon_tols;
  for (const auto& d : daemons_) {
    daemon_tols.push_back(d.tols);
    if (daemons_tolerate_pns)
      daemon_tols.back().push_back(PreferNoScheduleToleration());
  }
  auto add_daemon_overhead = [&](ExistingNode& e,
                                 const std::vector<std::string>& present) {
    DenseResources oh;
    for (size_t di = 0; di < daemons_.size(); ++di) {
      const auto& d = daemons_[di];
      if (std::find(present.begin(), present.end(), d.name) != present.end())
        continue;
      if (!Tolerates(e.taints, daemon_tols[di], nullptr)) continue;
      Requirements strict = d.node_selector;
      if (!d.terms.empty()) strict.Add(d.terms[0]);
      if (!Compatible(e.reqs, strict, nullptr, in_, nullptr)) continue;
      oh += d.requests;
    }
    for (int x = 0; x < kMaxResourceDims; ++x)
      e.remaining[x] = SaturatingSub(e.remaining[x], oh[x]);
  };

  for (int i = 0; i < req_.nodes_size(); ++i) {
    const v1::Node& node = req_.nodes(i);
    std::string path = absl::StrCat("nodes[", node.metadata().name(), "]");
    const v1::NodeClaim* nc = nullptr;
    int claim_index = -1;
    if (auto it = claim_by_node.find(node.metadata().name());
        it != claim_by_node.end()) {
      claim_index = it->second;
      nc = &req_.node_claims(claim_index);
    }
    // Karpenter schedules onto nodes.Active() only, and charges only those
    // to the limits: not a node whose NodeClaim is deleting or terminating
    // (nor an unmanaged Node being deleted). A managed Node's own
    // deletionTimestamp does not make it inactive (StateNode.Deleted). A
    // cordoned node stays, tainted (StateNodeTaints).
    if (NodeDeleting(node, nc)) continue;
    ExistingNode e;
    e.name = node.metadata().name();
    e.request_node = i;
    e.request_claim = claim_index;
    const auto& labels = node.metadata().labels();
    bool in_pool = labels.contains(labels::kNodePool);
    // Karpenter's StateNode: managed with a NodeClaim, and only then
    // possibly uninitialized or unregistered (nodeplan/taints.h). Until it
    // registers, the node goes by its NodeClaim's name and labels (Name(),
    // Labels(), HostName()), and a placement on it names the NodeClaim.
    e.initialized = StateNodeInitialized(&node, nc);
    for (v1::Taint& t : StateNodeTaints(&node, nc))
      e.taints.push_back(std::move(t));
    // The state node's labels in key order, viewed rather than copied
    // (a registered node's are its Node's).
    std::map<std::string, std::string> claim_labels;
    std::vector<std::pair<absl::string_view, absl::string_view>> state_labels;
    if (!StateNodeRegistered(&node, nc)) {
      e.name = nc->metadata().name();
      e.is_claim = true;
      claim_labels = ClaimLabels(*nc);
      state_labels.assign(claim_labels.begin(), claim_labels.end());
    } else {
      state_labels.assign(labels.begin(), labels.end());
      std::sort(state_labels.begin(), state_labels.end());
    }
    absl::string_view hostname = e.name;
    for (const auto& [key, value] : state_labels) {
      e.reqs.Add(Requirement::In(in_.InternKey(key), in_.InternValue(value)));
      if (key == labels::kHostname) hostname = value;
    }
    e.hostname = in_.InternValue(hostname);
    e.reqs.Add(Requirement::In(k_.hostname, e.hostname));
    auto alloc = dims_.ParseList(node.status().allocatable(), in_,
                                 path + ".status.allocatable");
    if (!alloc.ok()) return alloc.status();
    e.remaining = *alloc;
    // Until it is initialized, a resource the Node reports as zero or not
    // at all (an extended resource whose device plugin has not started) is
    // taken from its NodeClaim (StateNode.Allocatable and Capacity).
    if (!e.initialized) {
      absl::Status s =
          FillZerosFromClaim(nc->status().allocatable(), *nc, "allocatable",
                             in_, dims_, e.remaining);
      if (!s.ok()) return s;
    }
    std::vector<std::string> present;
    for (int j : bound_on[i]) {
      const BoundPod& b = bound_[j];
      auto path = [&] {
        return absl::StrCat("pods[", b.pod->metadata().name(), "].spec");
      };
      static const KnownPod kUnknown;
      const KnownPod& known =
          b.request_index >= 0 &&
                  b.request_index < static_cast<int>(known_.size())
              ? known_[b.request_index]
              : kUnknown;
      auto rq = known.requests != nullptr && known.requests->extended().empty()
                    ? KnownPodRequests(*known.requests, in_, dims_, path)
                    : PodRequests(b.pod->spec(), in_, dims_, path);
      if (!rq.ok()) return rq.status();
      for (int x = 0; x < kMaxResourceDims; ++x)
        e.remaining[x] = SaturatingSub(e.remaining[x], (*rq)[x]);
      if (known.host_ports) {
        auto ports = CompileHostPorts(b.pod->spec());
        e.ports.insert(e.ports.end(), ports.begin(), ports.end());
      }
      if (known.daemon_set_owner)
        for (const auto& o : b.pod->metadata().owner_references())
          if (o.kind() == "DaemonSet") present.push_back(o.name());
    }
    add_daemon_overhead(e, present);
    // Karpenter reads a node's volume limits from the CSINode of the Node's
    // name, registered or not.
    if (req_.csi_nodes_size() > 0)
      e.volumes = CompileNodeVolumes(node.metadata().name(), bound_on[i]);
    // Capacity counts only against NodePool limits, but a malformed or
    // negative quantity is an error whatever it is used for (found by
    // tests/fuzz). Checked without registering resource dimensions; the
    // error reported is the first in name order, not in the map's
    // (per-instance) iteration order (found by tests/fuzz).
    auto bad = [](const std::string& name, const std::string& text) {
      auto q =
          name == "cpu" ? ParseQuantityMilli(text) : ParseQuantityValue(text);
      return !q.ok() || *q < 0;
    };
    if (absl::c_any_of(node.status().capacity(),
                       [&](const auto& e) { return bad(e.first, e.second); })) {
      std::map<std::string, std::string> sorted(
          node.status().capacity().begin(), node.status().capacity().end());
      for (const auto& [name, text] : sorted) {
        auto q =
            name == "cpu" ? ParseQuantityMilli(text) : ParseQuantityValue(text);
        if (!q.ok())
          return absl::InvalidArgumentError(absl::StrCat(
              path, ".status.capacity[", name, "]: ", q.status().message()));
        if (*q < 0)
          return absl::InvalidArgumentError(absl::StrCat(
              path, ".status.capacity[", name, "]: Invalid value: \"", text,
              "\": must be greater than or equal to 0"));
      }
    }
    if (in_pool) {  // counts against its NodePool's limits
      int p = pool_index(labels.at(labels::kNodePool));
      if (p >= 0 && c_.pools[p].has_limits) {
        auto cap = dims_.ParseList(node.status().capacity(), in_,
                                   path + ".status.capacity");
        if (!cap.ok()) return cap.status();
        if (!e.initialized) {
          absl::Status s = FillZerosFromClaim(nc->status().capacity(), *nc,
                                              "capacity", in_, dims_, *cap);
          if (!s.ok()) return s;
        }
        ChargeLimits(e, p, *cap);
      }
    }
    existing_nodes_.push_back(std::move(e));
  }
  // In-flight NodeClaims: launched or launching, no Node yet.
  for (int ci = 0; ci < req_.node_claims_size(); ++ci) {
    const v1::NodeClaim& nc = req_.node_claims(ci);
    if (!nc.status().node_name().empty() &&
        node_index_.contains(nc.status().node_name()))
      continue;
    if (NodeClaimDeleting(nc)) continue;
    std::string path = absl::StrCat("nodeClaims[", nc.metadata().name(), "]");
    ExistingNode e;
    e.name = nc.metadata().name();
    e.is_claim = true;
    e.request_claim = ci;
    for (v1::Taint& t : StateNodeTaints(nullptr, &nc))
      e.taints.push_back(std::move(t));
    const std::map<std::string, std::string> labels = ClaimLabels(nc);
    for (const auto& [key, value] : labels)
      e.reqs.Add(Requirement::In(in_.InternKey(key), in_.InternValue(value)));
    e.hostname = in_.InternValue(e.name);
    e.reqs.Add(Requirement::In(k_.hostname, e.hostname));
    DenseResources capacity;
    bool sized = true;
    if (!nc.status().allocatable().empty()) {
      auto alloc = dims_.ParseList(nc.status().allocatable(), in_,
                                   path + ".status.allocatable");
      if (!alloc.ok()) return alloc.status();
      e.remaining = *alloc;
      auto cap = dims_.ParseList(nc.status().capacity(), in_,
                                 path + ".status.capacity");
      if (!cap.ok()) return cap.status();
      capacity = *cap;
    } else if (int t =
                   InFlightType(labels, types_by_name(), c_.pools, pool_index);
               t >= 0) {
      e.remaining = c_.types[t].allocatable;
      capacity = c_.types[t].capacity;
    } else {
      sized = false;  // it cannot hold pods
    }
    if (sized) add_daemon_overhead(e, {});
    int p = -1;
    if (auto it = labels.find(labels::kNodePool); it != labels.end())
      p = pool_index(it->second);
    if (!sized) {
      // Karpenter still sums its status.capacity against the limits.
      if (p < 0 || !c_.pools[p].has_limits) continue;
      auto cap = dims_.ParseList(nc.status().capacity(), in_,
                                 path + ".status.capacity");
      if (!cap.ok()) return cap.status();
      capacity = *cap;
    }
    if (p >= 0 && c_.pools[p].has_limits) ChargeLimits(e, p, capacity);
    (sized ? existing_nodes_ : limit_only_claims_).push_back(std::move(e));
  }
  std::stable_sort(existing_nodes_.begin(), existing_nodes_.end(),
                   [](const ExistingNode& a, const ExistingNode& b) {
                     if (a.initialized != b.initialized) return a.initialized;
                     return a.name < b.name;
                   });
  existing_.reserve(existing_nodes_.size());
  for (const ExistingNode& e : existing_nodes_)
    existing_.push_back({&e, e.remaining, e.ports, {}});
  InitExistingVolumes();
  return absl::OkStatus();
}

void Round::CompilePoolStates() {
  std::vector<v1::Toleration> pns = {PreferNoScheduleToleration()};
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    const Pool& pool = c_.pools[p];
    PoolState& ps = pools_[p];
    // Template-level overhead (for messages) and per-type daemon groups.
    std::vector<std::vector<bool>> tolerated(daemons_.size());
    std::vector<bool> daemon_ok(daemons_.size(), false);
    std::vector<std::vector<Requirements>> strict_alts(daemons_.size());
    for (size_t d = 0; d < daemons_.size(); ++d) {
      const DaemonPod& dp = daemons_[d];
      std::vector<v1::Toleration> tols = dp.tols;
      tols.insert(tols.end(), pns.begin(), pns.end());
      if (!Tolerates(pool.taints, tols, nullptr)) continue;
      // Required terms are dropped one at a time (first term first).
      size_t nterms = std::max<size_t>(1, dp.terms.size());
      for (size_t t = 0; t < nterms; ++t) {
        Requirements strict = dp.node_selector;
        if (!dp.terms.empty()) strict.Add(dp.terms[t]);
        if (Compatible(pool.reqs, strict, &wk_, in_, nullptr))
          strict_alts[d].push_back(std::move(strict));
      }
      if (!strict_alts[d].empty()) {
        daemon_ok[d] = true;
        ps.template_overhead += dp.requests;
      }
    }
    std::map<std::vector<bool>, int> group_of;
    PoolTypes(p).ForEach([&](size_t i) {
      std::vector<bool> mask(daemons_.size(), false);
      for (size_t d = 0; d < daemons_.size(); ++d) {
        if (!daemon_ok[d]) continue;
        for (const Requirements& s : strict_alts[d])
          if (c_.types[i].reqs.Intersects(s)) {
            mask[d] = true;
            break;
          }
      }
      auto [it, inserted] =
          group_of.emplace(mask, static_cast<int>(ps.groups.size()));
      if (inserted) {
        DaemonGroup g;
        g.types = TypeSet(n_);
        for (size_t d = 0; d < daemons_.size(); ++d)
          if (mask[d]) {
            g.overhead += daemons_[d].requests;
            g.has_overhead = true;
            g.ports.insert(g.ports.end(), daemons_[d].ports.begin(),
                           daemons_[d].ports.end());
          }
        ps.groups.push_back(std::move(g));
      }
      ps.groups[it->second].types.Set(i);
    });
    for (int d = 0; d < kMaxResourceDims; ++d)
      if (pool.has_limits && (pool.limit_mask & (1u << d)))
        ps.limited.push_back(d);
    PoolTypes(p).ForEach([&](size_t i) {
      for (int d : ps.limited)
        ps.max_capacity[d] =
            std::max(ps.max_capacity[d], c_.types[i].capacity[d]);
    });
    ps.reserved_types = TypeSet(n_);
    PoolTypes(p).ForEach([&](size_t i) {
      const auto& offs = c_.types[i].offerings;
      for (size_t j = 0; j < offs.size() && j < 64; ++j)
        if (offs[j].capacity_type == k_.v_reserved &&
            (pool.offering_mask[i] >> j & 1))
          ps.reserved_types.Set(i);
    });
    // Strict minValues with no pod: a NodePool that cannot meet its own
    // minValues is dropped, as Karpenter drops the template.
    if (PoolTypes(p).None()) {
      ps.dropped = true;
    } else if (pool.reqs.HasMinValues() && !opt_.best_effort_min_values) {
      Requirements r = pool.reqs;
      if (!MinValuesOk(PoolTypes(p), r, false, nullptr)) ps.dropped = true;
    }
  }
}

DomainUniverse BuildDomainUniverse(const Compiled& c) {
  // Karpenter's buildDomainGroups (topology.go): for every NodePool and every
  // instance type the cloud provider returns for it (compatible or not, and
  // also for NodePools that can launch nothing), the template requirements,
  // the template labels and the type's requirements are intersected, and
  // every value of every resulting requirement is a domain (a NotIn's
  // excluded values too: Requirement.Values lists them). Then every value of
  // the template's own In requirements. (benchmarks/karpenter, class B.)
  DomainUniverse universe;
  absl::flat_hash_map<LabelKeyId, absl::flat_hash_map<LabelValueId, size_t>>
      index;
  auto insert = [&](LabelKeyId key, LabelValueId domain, int pool) {
    auto& list = universe[key];
    auto [it, inserted] = index[key].emplace(domain, list.size());
    if (inserted) list.emplace_back(domain, std::vector<int>{});
    auto& pools = list[it->second].second;
    if (std::find(pools.begin(), pools.end(), pool) == pools.end())
      pools.push_back(pool);
  };
  const Keys& k = c.keys;
  for (size_t p = 0; p < c.pools.size(); ++p) {
    const Pool& pool = c.pools[p];
    pool.catalog.ForEach([&](size_t i) {
      const InstanceType& type = c.types[i];
      // The type's zones and capacity types are those of its listed
      // offerings (Offering::listed) in the NodeClass zones.
      absl::InlinedVector<LabelValue, 8> zones, cts;
      for (size_t j = 0; j < type.offerings.size() && j < 64; ++j)
        if (pool.catalog_offering_mask[i] >> j & 1) {
          zones.push_back(type.offerings[j].zone);
          cts.push_back(type.offerings[j].capacity_type);
        }
      Requirements r = pool.template_reqs;
      for (const Requirement& q : type.reqs)
        if (q.key() != k.zone && q.key() != k.capacity_type) r.Add(q);
      r.Add(Requirement::In(k.zone, zones));
      r.Add(Requirement::In(k.capacity_type, cts));
      for (const Requirement& q : r)
        for (const LabelValue& v : q.values())
          insert(q.key(), v.id, static_cast<int>(p));
    });
    for (const Requirement& q : pool.template_reqs)
      if (!q.complement())
        for (const LabelValue& v : q.values())
          insert(q.key(), v.id, static_cast<int>(p));
  }
  return universe;
}

void Round::BuildDomainUniverse() {
  universe_ = c_.universe != nullptr ? c_.universe
                                     : std::make_shared<const DomainUniverse>(
                                           scheduling::BuildDomainUniverse(c_));
}

void Round::BuildInverseFromBound() {
  auto add = [&](const BoundPod& b) {
    if (!b.required_anti_affinity || b.node < 0) return;
    const auto& terms = RequiredAntiAffinity(*b.pod);
    PodClass tmp;
    tmp.ns = b.pod->metadata().namespace_().empty()
                 ? "default"
                 : b.pod->metadata().namespace_();
    tmp.ns_id = b.ns;
    tmp.example = b.pod;  // the owner of the terms (matchLabelKeys)
    tmp.tolerations = CompileTolerations(b.pod->spec().tolerations());
    TopologyNodes();  // interns the nodes' label keys
    for (const auto& t : terms) {
      int g = GroupFor(GroupType::kAntiAffinity, t.topology_key(), b.ns, &t,
                       nullptr, tmp, true);
      const LabelKeyId key = in_.FindKey(t.topology_key());
      if (LabelValueId d = NodeDomain(b.node, key, false); d != kNoId)
        groups_[g].RecordDomain(d);
    }
  };
  if (base_ == nullptr) {
    ForEachBound(add);
    return;
  }
  // A simulation visits only the compiled cluster's bound pods with
  // required anti-affinity, not every bound pod.
  for (int j : base_->anti_affinity_bound_) {
    const BoundPod& b = base_->bound_[j];
    if (!node_removed_[b.node]) add(b);
  }
}

}  // namespace nodeplan::scheduling
