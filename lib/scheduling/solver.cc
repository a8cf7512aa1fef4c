// One scheduling round: Karpenter's Scheduler.Solve over the compiled model.
//
// Deterministic rules where Karpenter relies on unstable sorts, hash-map
// order or randomness (see also topology.h):
//  - in-flight NodeClaims are tried in (pod count ascending, creation order);
//  - preferred terms of equal weight keep declaration order;
//  - pods of equal CPU, memory, creation time and uid keep input order;
//  - instance-type options of equal price keep catalog order;
//  - a custom requirement label without a single value resolves to its
//    smallest allowed value (In) or smallest allowed integer >= 0 (Exists,
//    NotIn, Gt...), where Karpenter picks at random.

#include "scheduling/solver.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/hash.h"
#include "nodeplan/library_version.h"
#include "scheduling/daemonset_pod.h"
#include "scheduling/namespaces.h"
#include "scheduling/option_table.h"

namespace nodeplan::scheduling {

absl::StatusOr<Options> ParseOptions(const v1::ScheduleOptions& o) {
  Options out;
  if (o.preference_policy() == "Ignore") {
    out.ignore_preferences = true;
  } else if (!o.preference_policy().empty() &&
             o.preference_policy() != "Respect") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.preferencePolicy: \"", o.preference_policy(),
                     "\" is not one of Respect, Ignore"));
  }
  if (o.min_values_policy() == "BestEffort") {
    out.best_effort_min_values = true;
  } else if (!o.min_values_policy().empty() &&
             o.min_values_policy() != "Strict") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.minValuesPolicy: \"", o.min_values_policy(),
                     "\" is not one of Strict, BestEffort"));
  }
  if (o.max_instance_types() < 0)
    return absl::InvalidArgumentError(
        "options.maxInstanceTypes: must not be negative");
  if (o.max_instance_types() > 0)
    out.max_instance_types = o.max_instance_types();
  out.reserved_capacity = !o.has_reserved_capacity() || o.reserved_capacity();
  if (o.spread_bookkeeping() == "Karpenter") {
    out.karpenter_spread_groups = true;
  } else if (!o.spread_bookkeeping().empty() &&
             o.spread_bookkeeping() != "Consistent") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.spreadBookkeeping: \"", o.spread_bookkeeping(),
                     "\" is not one of Consistent, Karpenter"));
  }
  if (o.instance_type_encoding() == "Indexed") {
    out.indexed_instance_types = true;
  } else if (!o.instance_type_encoding().empty() &&
             o.instance_type_encoding() != "Names") {
    return absl::InvalidArgumentError(absl::StrCat(
        "options.instanceTypeEncoding: \"", o.instance_type_encoding(),
        "\" is not one of Names, Indexed"));
  }
  return out;
}

namespace {

struct DaemonPod {
  std::string name;
  ResVec requests;
  std::vector<Toleration> tols;
  Reqs node_selector;
  std::vector<Reqs> terms;
  std::vector<HostPort> ports;
};

struct DaemonGroup {
  Bits types;
  ResVec overhead;
  bool has_overhead = false;
  std::vector<HostPort> ports;
};

struct PoolState {
  std::vector<DaemonGroup> groups;
  ResVec template_overhead;
  ResVec remaining;
  Bits limit_ok;
  bool limit_dirty = true;
  bool dropped = false;
  // Types with a reserved offering this NodePool can use.
  Bits reserved_types;
  // The dimensions the NodePool limits, and the largest capacity of its
  // types in each (while it is within `remaining`, no type exceeds it).
  std::vector<int> limited;
  ResVec max_capacity;
};

struct Existing {
  std::string name;
  bool is_claim = false;
  bool initialized = false;
  Reqs reqs;
  std::vector<v1::Taint> taints;
  ResVec remaining;
  std::vector<HostPort> ports;
  std::vector<int> pods;
  Id hostname = kNoId;
};

struct Claim {
  int pool = 0;
  Reqs reqs;
  Id hostname = kNoId;
  Bits options;
  ResVec requests;
  std::vector<int> pods;
  std::vector<HostPort> ports;
  std::vector<std::pair<int, int>> reserved;  // (type, offering)
  bool min_values_relaxed = false;
  // Per-resource maximum allocatable over the options: requests beyond it
  // cannot fit any option (a cheap first check).
  ResVec max_alloc;
  // With the pod count, this NodeClaim's place in claim_order_ (Reposition).
  int64_t seq = 0;
};

struct RelaxState {
  int req_dropped = 0, aff_dropped = 0, anti_dropped = 0, node_dropped = 0,
      anyway_dropped = 0;
  bool pns = false;
};

struct View {
  Reqs reqs, strict;
  std::vector<Toleration> tols;
  std::vector<int> groups;   // owned groups
  std::vector<int> inverse;  // owned inverse groups
  // Whether an instance-type filter failure can never turn into success for
  // this view (no owned spread or affinity group can widen later).
  bool monotone_filter = true;
  // NodeClaims this view can never join again (a monotone failure: taints,
  // conflicting requirements, anti-affinity, resources, host ports). Pods of
  // one class share it, so identical pods skip known dead ends.
  mutable std::vector<char> dead;
  // Per NodePool: 0 unknown, 1 tolerates its taints, 2 does not.
  mutable std::vector<char> tolerates_pool;
  // Round::SharedSlots, computed when inverse_groups_ had `slots_inverse`
  // entries (-1: not yet).
  mutable std::vector<int> slots;
  mutable int slots_inverse = -1;
  // Every NodeClaim below this index is in `dead`.
  mutable size_t scan_from = 0;
};

struct ClassState {
  PodClass cls;
  std::vector<RelaxState> levels;
  std::vector<std::unique_ptr<View>> views;
};

struct PendingPod {
  const v1::Pod* pod;
  std::string key;
  int cls = -1;
  int input = 0;
};

struct BoundPod {
  const v1::Pod* pod;
  Id ns;
  Labels labels;
  int node = -1;  // index into request nodes
};

struct Candidate {
  Reqs reqs;
  Bits options;
  std::vector<std::pair<int, int>> reserve;
  bool min_values_relaxed = false;
};

enum class Fail { kNone, kOther, kReserved };

std::string Deterministic(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::io::StringOutputStream s(&out);
  google::protobuf::io::CodedOutputStream c(&s);
  c.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&c);
  c.Trim();
  return out;
}

bool IsTerminal(const v1::Pod& p) {
  return p.status().phase() == "Succeeded" || p.status().phase() == "Failed";
}

bool OwnedBy(const v1::Pod& p, absl::string_view kind) {
  for (const auto& o : p.metadata().owner_references())
    if (o.kind() == kind) return true;
  return false;
}

// The entries of `v` that occur an odd number of times, sorted: what is left
// of a list hashed as a set by XOR, where equal entries cancel in pairs.
std::vector<std::string> OddOnes(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    if ((j - i) % 2 == 1) out.push_back(v[i]);
    i = j;
  }
  return out;
}

class Round {
 public:
  Round(const Compiled& c, const v1::ScheduleRequest& req, Options opt)
      : c_(c),
        req_(req),
        opt_(opt),
        in_(c.in),
        wk_(c.wk),
        dims_(c.dims),
        k_(c.keys),
        n_(c.types.size()) {}

  absl::Status Setup();
  void Run();
  void Render(v1::ScheduleResponse* out);
  // Frees what only placement needs (per-view dead ends, caches), so the
  // response is built with less memory held.
  void ReleasePlacementState();

 private:
  // Setup helpers.
  absl::Status CompilePods();
  absl::Status CompileClass(const v1::Pod& pod, PodClass& cls,
                            const std::string& path);
  absl::Status CompileVolumes(const v1::Pod& pod, PodClass& cls);
  absl::Status CompileDaemons();
  absl::Status CompileExisting();
  void CompilePoolStates();
  void BuildDomainUniverse();
  void BuildInverseFromBound();

  // Views and relaxation.
  bool Relax(const PodClass& cls, RelaxState& s) const;
  const View* GetView(int cls, int level);
  // For spreads under spreadBookkeeping "Karpenter", `first_term` and
  // `tols` are the pod's required terms and tolerations at its relaxation
  // level (they shape the node filter and the group's identity).
  int GroupFor(GroupType type, const std::string& key, Id ns_default,
               const v1::PodAffinityTerm* term,
               const v1::TopologySpreadConstraint* tsc, const PodClass& cls,
               bool inverse, size_t first_term = 0,
               const std::vector<Toleration>* tols = nullptr);
  void CountDomains(TopologyGroup& g);
  // Built on first use: only namespaceSelector terms need it.
  const KnownNamespaces& Namespaces();

  // Placement.
  Fail Add(int pod, int level, std::string* err);
  // `extra`, when given, is intersected into node_reqs key by key (so a
  // NodeClaim can be checked before its requirements are copied and merged).
  bool AddTopology(const PodClass& cls, const View& v,
                   const std::vector<v1::Taint>& taints, const Reqs& node_reqs,
                   const WellKnown* allow, Reqs* out, std::string* err,
                   const Reqs* extra = nullptr);
  void Record(const PodClass& cls, const View& v,
              const std::vector<v1::Taint>& taints, const Reqs& reqs,
              const WellKnown* allow);
  bool CanAddExisting(Existing& e, const PodClass& cls, const View& v,
                      Reqs* merged);
  Fail CanAddClaim(const Claim& claim, const PodClass& cls, const View& v,
                   bool relax_min, Candidate* out, std::string* err);
  Fail FilterTypes(const Claim& claim, const PodClass& cls, Reqs& reqs,
                   bool relax_min, Candidate* out, std::string* err);
  // The shared dead-end slot of group `gi` for pods of `cls`: spread skew
  // counts the pod itself when the group selects it, anti-affinity does not.
  int SharedDeadSlot(int gi, const PodClass& cls) const {
    const TopologyGroup& g = groups_[gi];
    return gi * 2 +
           (g.type == GroupType::kSpread && g.Selects(cls.ns_id, cls.labels)
                ? 1
                : 0);
  }
  // The shared slots view `v` of `cls` checks (its hostname spread and
  // anti-affinity groups, and the inverse ones that select it).
  const std::vector<int>& SharedSlots(const PodClass& cls, const View& v);
  const Bits& KeyCompat(const Req& r);
  Bits OfferCompat(int pool, const Reqs& reqs);
  void CommitClaim(int ci, int pod, const View& v, Candidate& cand,
                   bool is_new);
  void Reposition(int ci, bool is_new);
  const Bits& LimitOk(int pool);
  bool MinValuesOk(const Bits& types, Reqs& reqs, bool relax, std::string* err,
                   bool* relaxed = nullptr) const;

  // Rendering.
  void Finalize(int ci, v1::NewNodeClaim* out, std::vector<int>* failed_pods,
                std::string* fail_reason);

  const Compiled& c_;
  const v1::ScheduleRequest& req_;
  Options opt_;
  Interner in_;
  WellKnown wk_;
  ResourceDims dims_;
  const Keys& k_;
  size_t n_;

  std::vector<PendingPod> pending_;
  std::vector<v1::Pod> expanded_;  // pods expanded from Deployments
  std::vector<ClassState> classes_;
  absl::flat_hash_map<std::string, int> class_index_;
  std::vector<BoundPod> bound_;
  int ignored_ = 0;

  std::vector<DaemonPod> daemons_;
  std::vector<Existing> existing_;
  std::vector<PoolState> pools_;
  bool any_pns_taint_ = false;

  std::vector<Claim> claims_;
  std::vector<int> claim_order_;
  // Reposition's order key within a pod count: promoted NodeClaims take
  // --front_seq_ (ahead of the group), new ones ++back_seq_ (behind it).
  int64_t front_seq_ = 0, back_seq_ = 0;
  // Scratch of Add, kept to reuse capacity.
  std::vector<Id> memo_keys_;
  std::vector<const Req*> memo_reqs_, memo_probe_;
  std::vector<char> memo_ok_;
  std::vector<int> gather_;
  // Distinct zone requirements of NodeClaims (Claim::zone_sig; entry 0: no
  // zone requirement) and, during one Add, the topology verdict of each.
  std::vector<Req> zone_sigs_ = std::vector<Req>(1);
  std::vector<int> zone_sig_of_;  // per NodeClaim (compact for the walk)
  std::vector<char> zone_verdict_;
  int ZoneSig(const Reqs& reqs) {
    const Req* z = reqs.Get(k_.zone);
    if (z == nullptr) return 0;
    for (size_t i = 1; i < zone_sigs_.size(); ++i)
      if (zone_sigs_[i] == *z) return static_cast<int>(i);
    if (zone_sigs_.size() >= 256) return -1;  // then no shortcut
    zone_sigs_.push_back(*z);
    return static_cast<int>(zone_sigs_.size() - 1);
  }
  bool last_monotone_ = false;
  bool last_group_anti_ = false;
  // Dead ends shared by every view owning a hostname group: slot (see
  // SharedDeadSlot) -> per NodeClaim, 1 when the group can never accept a
  // pod on it again (spread past its skew, anti-affinity already present).
  std::vector<std::vector<char>> shared_dead_;
  int last_shared_dead_ = -1;

  std::vector<TopologyGroup> groups_;
  absl::flat_hash_map<std::string, int> group_index_;
  std::vector<int> inverse_groups_;
  std::optional<KnownNamespaces> namespaces_;
  // key -> (domain -> pools producing it; empty vector: untainted)
  absl::flat_hash_map<Id, std::vector<std::pair<Id, std::vector<int>>>>
      universe_;

  absl::flat_hash_map<std::string, Bits> key_compat_;
  absl::flat_hash_map<std::string, Bits> offer_compat_;
  // Per (NodePool, zone/capacity-type/reservation requirements): each
  // type's cheapest compatible offering price and compatible offering mask.
  struct PriceEntry {
    std::vector<double> price;
    std::vector<uint64_t> offers;
    // The NodePool's types by (price, index): a NodeClaim's options in
    // order are this list filtered, no sort per NodeClaim.
    std::vector<int> order;
    // Per type, the capacity types (bits over ct_ids_) of its compatible
    // offerings; exact unless more than 64 capacity types exist.
    std::vector<uint64_t> ct_mask;
    bool ct_exact = true;
  };
  std::vector<Id> ct_ids_;
  absl::flat_hash_map<std::string, PriceEntry> price_cache_;
  std::string sig_;

  // Reservations: id -> (capacity, holders).
  struct Reservation {
    int32_t capacity = std::numeric_limits<int32_t>::max();
    std::set<Id> holders;
  };
  absl::flat_hash_map<Id, Reservation> reservations_;

  std::vector<std::string> errors_;
  std::vector<int> name_order_;
  // Finalize on an arena: the response's option names, one per type
  // (name_slot_: type -> index in name_block_, -1 not yet), on name_arena_.
  google::protobuf::Arena* name_arena_ = nullptr;
  std::vector<std::string>* name_block_ = nullptr;
  std::vector<int> name_slot_;
  // instanceTypeEncoding "Indexed": the response's name table, built while
  // rendering.
  std::optional<OptionTable> option_table_;
  std::vector<int> placed_claim_;     // pod -> claim or -1
  std::vector<int> placed_existing_;  // pod -> existing or -1
  int placeholder_ = 0;
  // Resource dimensions in which instance types' allocatable differ.
  std::vector<int> varying_dims_;
  Id trial_host_ = kNoId;
  int nodes_dim_ = -1;
};

// ---------------------------------------------------------------------------
// Setup

absl::Status Round::Setup() {
  trial_host_ = in_.Intern("hostname-placeholder-trial");
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
      if (o.reservation != kNoId) {
        auto& r = reservations_[o.reservation];
        r.capacity = std::min(r.capacity, o.reservation_capacity);
      }
  if (auto s = CompilePods(); !s.ok()) return s;
  if (auto s = CompileDaemons(); !s.ok()) return s;
  if (auto s = CompileExisting(); !s.ok()) return s;
  CompilePoolStates();
  BuildDomainUniverse();
  BuildInverseFromBound();
  // Every class's unrelaxed topology groups exist before the first placement,
  // as Karpenter builds them all in NewTopology.
  for (size_t i = 0; i < classes_.size(); ++i)
    if (classes_[i].cls.invalid.empty()) GetView(static_cast<int>(i), 0);
  return absl::OkStatus();
}

const KnownNamespaces& Round::Namespaces() {
  if (!namespaces_) {
    std::vector<std::string> of_pods;
    for (const auto& p : req_.pods())
      of_pods.push_back(p.metadata().namespace_().empty()
                            ? "default"
                            : p.metadata().namespace_());
    for (const auto& p : expanded_)
      of_pods.push_back(p.metadata().namespace_());
    namespaces_.emplace(req_.namespaces(), of_pods, in_);
  }
  return *namespaces_;
}

absl::Status Round::CompilePods() {
  // Deployments expand into replicas pending pods named <name>-<i>.
  for (const auto& d : req_.deployments()) {
    int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    for (int i = 0; i < replicas; ++i) {
      v1::Pod p;
      *p.mutable_metadata() = d.spec().template_().metadata();
      p.mutable_metadata()->set_name(absl::StrCat(d.metadata().name(), "-", i));
      p.mutable_metadata()->set_namespace_(d.metadata().namespace_().empty()
                                               ? "default"
                                               : d.metadata().namespace_());
      p.mutable_metadata()->set_uid(
          absl::StrCat(d.metadata().uid(), d.metadata().name(), "-", i));
      *p.mutable_spec() = d.spec().template_().spec();
      expanded_.push_back(std::move(p));
    }
  }
  std::vector<const v1::Pod*> all;
  for (const auto& p : req_.pods()) all.push_back(&p);
  for (const auto& p : expanded_) all.push_back(&p);
  std::string sig;
  std::vector<std::pair<absl::string_view, absl::string_view>> label_scratch;
  for (size_t i = 0; i < all.size(); ++i) {
    const v1::Pod& p = *all[i];
    std::string ns = p.metadata().namespace_().empty()
                         ? "default"
                         : p.metadata().namespace_();
    if (!p.spec().node_name().empty()) {
      if (!IsTerminal(p) && p.metadata().deletion_timestamp().empty())
        bound_.push_back({&p, in_.Intern(ns),
                          CompileLabels(p.metadata().labels(), in_), -1});
      ++ignored_;
      continue;
    }
    if (IsTerminal(p) || !p.metadata().deletion_timestamp().empty() ||
        OwnedBy(p, "DaemonSet") || OwnedBy(p, "Node")) {
      ++ignored_;
      continue;
    }
    // The class signature: everything scheduling reads, minus identity:
    // namespace, labels (sorted) and the spec without its priority. The
    // spec is copied only when it has a priority to clear.
    sig.clear();
    absl::StrAppend(&sig, ns.size(), ":", ns, "|");
    label_scratch.assign(p.metadata().labels().begin(),
                         p.metadata().labels().end());
    std::sort(label_scratch.begin(), label_scratch.end());
    for (const auto& [k, v] : label_scratch)
      absl::StrAppend(&sig, k.size(), ":", k, v.size(), ":", v);
    sig.push_back('|');
    if (p.spec().has_priority() || !p.spec().priority_class_name().empty()) {
      v1::PodSpec spec = p.spec();
      spec.clear_priority();
      spec.clear_priority_class_name();
      sig += Deterministic(spec);
    } else {
      sig += Deterministic(p.spec());
    }
    auto [it, inserted] =
        class_index_.emplace(sig, static_cast<int>(classes_.size()));
    if (inserted) {
      classes_.emplace_back();
      PodClass& cls = classes_.back().cls;
      cls.ns = ns;
      cls.example = &p;
      std::string path =
          absl::StrCat("pods[", ns, "/", p.metadata().name(), "]");
      if (auto s = CompileClass(p, cls, path); !s.ok()) return s;
    }
    pending_.push_back({&p, absl::StrCat(ns, "/", p.metadata().name()),
                        it->second, static_cast<int>(i)});
  }
  return absl::OkStatus();
}

absl::Status Round::CompileClass(const v1::Pod& pod, PodClass& cls,
                                 const std::string& path) {
  const v1::PodSpec& spec = pod.spec();
  cls.ns_id = in_.Intern(cls.ns);
  cls.labels = CompileLabels(pod.metadata().labels(), in_);
  auto rq = PodRequests(spec, dims_, path + ".spec");
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
    cls.node_selector.Add(InReq(in_.Intern(key), in_.Intern(value)), in_);
  auto term_reqs = [&](const v1::NodeSelectorTerm& t) {
    Reqs r;
    for (const auto& e : t.match_expressions()) {
      Req q = NodeSelectorReq(in_, e);
      q.min_values = 0;
      r.Add(q, in_);
    }
    return r;
  };
  const auto& na = spec.affinity().node_affinity();
  for (const auto& t : na.required_during_scheduling_ignored_during_execution()
                           .node_selector_terms())
    cls.required_terms.push_back(term_reqs(t));
  for (const auto& t :
       na.preferred_during_scheduling_ignored_during_execution())
    cls.preferred_node.emplace_back(t.weight(), term_reqs(t.preference()));
  std::stable_sort(
      cls.preferred_node.begin(), cls.preferred_node.end(),
      [](const auto& a, const auto& b) { return a.first > b.first; });
  cls.tolerations = CompileTolerations(spec.tolerations());
  for (const auto& t : spec.topology_spread_constraints())
    cls.spreads.push_back(t);
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
  if (cls.invalid.empty()) return CompileVolumes(pod, cls);
  return absl::OkStatus();
}

absl::Status Round::CompileVolumes(const v1::Pod& pod, PodClass& cls) {
  std::vector<std::vector<Reqs>> per_volume;
  for (const auto& vol : pod.spec().volumes()) {
    std::string claim;
    if (!vol.persistent_volume_claim().claim_name().empty()) {
      claim = vol.persistent_volume_claim().claim_name();
    } else if (vol.has_ephemeral()) {
      claim = absl::StrCat(pod.metadata().name(), "-", vol.name());
    } else {
      continue;
    }
    const v1::PersistentVolumeClaim* pvc = nullptr;
    for (const auto& x : req_.persistent_volume_claims())
      if (x.metadata().name() == claim &&
          (x.metadata().namespace_().empty()
               ? "default"
               : x.metadata().namespace_()) == cls.ns)
        pvc = &x;
    if (pvc == nullptr) {
      if (vol.has_ephemeral()) continue;  // created with the pod
      cls.invalid =
          absl::StrCat("persistentvolumeclaim \"", claim, "\" not found");
      return absl::OkStatus();
    }
    std::vector<Reqs> alts;
    if (!pvc->spec().volume_name().empty()) {
      const v1::PersistentVolume* pv = nullptr;
      for (const auto& x : req_.persistent_volumes())
        if (x.metadata().name() == pvc->spec().volume_name()) pv = &x;
      if (pv == nullptr) {
        cls.invalid = absl::StrCat("persistentvolume \"",
                                   pvc->spec().volume_name(), "\" not found");
        return absl::OkStatus();
      }
      for (const auto& t :
           pv->spec().node_affinity().required().node_selector_terms()) {
        Reqs r;
        for (const auto& e : t.match_expressions()) {
          if (e.key() == "kubernetes.io/hostname") continue;
          r.Add(NodeSelectorReq(in_, e), in_);
        }
        alts.push_back(std::move(r));
      }
    } else if (pvc->spec().has_storage_class_name()) {
      const v1::StorageClass* sc = nullptr;
      for (const auto& x : req_.storage_classes())
        if (x.metadata().name() == pvc->spec().storage_class_name()) sc = &x;
      if (sc == nullptr) {
        cls.invalid =
            absl::StrCat("storageclass \"", pvc->spec().storage_class_name(),
                         "\" not found");
        return absl::OkStatus();
      }
      for (const auto& t : sc->allowed_topologies()) {
        Reqs r;
        for (const auto& e : t.match_label_expressions()) {
          std::vector<Id> vals;
          for (const auto& v : e.values()) vals.push_back(in_.Intern(v));
          r.Add(MakeReq(in_.Intern(e.key()), "In", vals, in_), in_);
        }
        alts.push_back(std::move(r));
      }
    }
    if (!alts.empty()) per_volume.push_back(std::move(alts));
  }
  // Pairwise combination keeping compatible combinations (all if none is).
  std::vector<Reqs> combined;
  for (auto& alts : per_volume) {
    if (combined.empty()) {
      combined = alts;
      continue;
    }
    std::vector<Reqs> ok, all;
    for (const Reqs& a : combined)
      for (const Reqs& b : alts) {
        Reqs m = a;
        bool compatible = Compatible(a, b, &wk_, in_, nullptr);
        m.AddAll(b, in_);
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

absl::Status Round::CompileDaemons() {
  for (const auto& ds : req_.daemon_sets()) {
    DaemonPod d;
    d.name = ds.metadata().name();
    const v1::Pod* newest = NewestDaemonSetPod(ds, req_.pods());
    const v1::PodSpec spec = DaemonSetPodSpec(ds, newest);
    auto rq = PodRequests(
        spec, dims_,
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
      d.node_selector.Add(InReq(in_.Intern(key), in_.Intern(value)), in_);
    for (const auto& t :
         spec.affinity()
             .node_affinity()
             .required_during_scheduling_ignored_during_execution()
             .node_selector_terms()) {
      Reqs r;
      for (const auto& e : t.match_expressions())
        r.Add(NodeSelectorReq(in_, e), in_);
      d.terms.push_back(std::move(r));
    }
    d.ports = CompileHostPorts(spec);
    daemons_.push_back(std::move(d));
  }
  return absl::OkStatus();
}

// The catalog entry of an in-flight NodeClaim's instance type (-1: none):
// the one in its NodePool's catalog when there is one, else the first.
template <typename PoolIndex>
int InFlightType(
    const std::map<std::string, std::string>& labels,
    const absl::flat_hash_map<std::string, std::vector<int>>& types_by_name,
    const std::vector<Pool>& pools, PoolIndex&& pool_index) {
  auto type = labels.find("node.kubernetes.io/instance-type");
  if (type == labels.end()) return -1;
  auto entries = types_by_name.find(type->second);
  if (entries == types_by_name.end()) return -1;
  if (auto pool = labels.find("karpenter.sh/nodepool"); pool != labels.end()) {
    if (int p = pool_index(pool->second); p >= 0) {
      for (int t : entries->second)
        if (pools[p].catalog.Test(t)) return t;
    }
  }
  return entries->second.front();
}

absl::Status Round::CompileExisting() {
  // Catalog lookup by instance-type name for in-flight NodeClaims. With one
  // AWS catalog per NodeClass a name appears once per catalog (their
  // allocatable differs: EKS max pods, ephemeral storage): a NodeClaim's own
  // NodePool's catalog answers first, else the first catalog that has it.
  absl::flat_hash_map<std::string, std::vector<int>> types_by_name;
  for (size_t i = 0; i < c_.types.size(); ++i)
    types_by_name[c_.types[i].name].push_back(static_cast<int>(i));
  absl::flat_hash_map<std::string, int> node_index;
  for (int i = 0; i < req_.nodes_size(); ++i)
    node_index[req_.nodes(i).metadata().name()] = i;
  absl::flat_hash_map<std::string, const v1::NodeClaim*> claim_by_node;
  for (const auto& nc : req_.node_claims())
    if (!nc.status().node_name().empty())
      claim_by_node[nc.status().node_name()] = &nc;
  for (auto& b : bound_) {
    auto it = node_index.find(b.pod->spec().node_name());
    if (it != node_index.end()) b.node = it->second;
  }
  auto is_ephemeral = [](const v1::Taint& t) {
    if (absl::StartsWith(t.key(), "readiness.k8s.io/")) return true;
    static const std::pair<const char*, const char*> kTaints[] = {
        {"node.kubernetes.io/not-ready", "NoSchedule"},
        {"node.kubernetes.io/not-ready", "NoExecute"},
        {"node.kubernetes.io/unreachable", "NoSchedule"},
        {"node.cloudprovider.kubernetes.io/uninitialized", "NoSchedule"},
        {"karpenter.sh/unregistered", "NoExecute"}};
    for (const auto& [k, e] : kTaints)
      if (t.key() == k && t.effect() == e) return true;
    return false;
  };
  auto pool_index = [&](const std::string& name) -> int {
    for (size_t i = 0; i < c_.pools.size(); ++i)
      if (c_.pools[i].name == name) return static_cast<int>(i);
    return -1;
  };
  pools_.resize(c_.pools.size());
  for (size_t i = 0; i < c_.pools.size(); ++i)
    pools_[i].remaining = c_.pools[i].limits;

  auto add_daemon_overhead = [&](Existing& e,
                                 const std::vector<std::string>& present) {
    ResVec oh;
    for (const auto& d : daemons_) {
      if (std::find(present.begin(), present.end(), d.name) != present.end())
        continue;
      if (!Tolerates(e.taints, d.tols, nullptr)) continue;
      Reqs strict = d.node_selector;
      if (!d.terms.empty()) strict.AddAll(d.terms[0], in_);
      if (!Compatible(e.reqs, strict, nullptr, in_, nullptr)) continue;
      oh += d.requests;
    }
    for (int x = 0; x < kMaxDims; ++x) e.remaining[x] -= oh[x];
  };

  for (int i = 0; i < req_.nodes_size(); ++i) {
    const v1::Node& node = req_.nodes(i);
    std::string path = absl::StrCat("nodes[", node.metadata().name(), "]");
    if (node.spec().unschedulable() ||
        !node.metadata().deletion_timestamp().empty())
      continue;
    Existing e;
    e.name = node.metadata().name();
    const auto& labels = node.metadata().labels();
    e.initialized = labels.contains("karpenter.sh/initialized") &&
                    labels.at("karpenter.sh/initialized") == "true";
    bool managed = labels.contains("karpenter.sh/nodepool");
    const v1::NodeClaim* nc = nullptr;
    if (auto it = claim_by_node.find(e.name); it != claim_by_node.end())
      nc = it->second;
    for (const auto& t : node.spec().taints()) {
      if (managed && !e.initialized) {
        if (is_ephemeral(t)) continue;
        bool startup = false;
        if (nc)
          for (const auto& s : nc->spec().startup_taints())
            if (s.key() == t.key() && s.effect() == t.effect()) startup = true;
        if (startup) continue;
      }
      e.taints.push_back(t);
    }
    std::vector<std::pair<std::string, std::string>> ls(labels.begin(),
                                                        labels.end());
    std::sort(ls.begin(), ls.end());
    for (const auto& [key, value] : ls)
      e.reqs.Add(InReq(in_.Intern(key), in_.Intern(value)), in_);
    std::string host = labels.contains("kubernetes.io/hostname")
                           ? labels.at("kubernetes.io/hostname")
                           : e.name;
    e.hostname = in_.Intern(host);
    e.reqs.Add(InReq(k_.hostname, e.hostname), in_);
    auto alloc = dims_.ParseList(node.status().allocatable(),
                                 path + ".status.allocatable");
    if (!alloc.ok()) return alloc.status();
    e.remaining = *alloc;
    std::vector<std::string> present;
    for (const auto& b : bound_) {
      if (b.node != i) continue;
      auto rq = PodRequests(b.pod->spec(), dims_,
                            "pods[" + b.pod->metadata().name() + "].spec");
      if (!rq.ok()) return rq.status();
      for (int x = 0; x < kMaxDims; ++x) e.remaining[x] -= (*rq)[x];
      auto ports = CompileHostPorts(b.pod->spec());
      e.ports.insert(e.ports.end(), ports.begin(), ports.end());
      for (const auto& o : b.pod->metadata().owner_references())
        if (o.kind() == "DaemonSet") present.push_back(o.name());
    }
    add_daemon_overhead(e, present);
    if (managed) {
      int p = pool_index(labels.at("karpenter.sh/nodepool"));
      if (p >= 0 && c_.pools[p].has_limits) {
        auto cap = dims_.ParseList(node.status().capacity(),
                                   path + ".status.capacity");
        if (!cap.ok()) return cap.status();
        ResVec cv = *cap;
        if (nodes_dim_ >= 0) cv[nodes_dim_] = 1;
        for (int x = 0; x < kMaxDims; ++x)
          if (c_.pools[p].limit_mask & (1u << x))
            pools_[p].remaining[x] -= cv[x];
      }
    }
    existing_.push_back(std::move(e));
  }
  // In-flight NodeClaims: launched or launching, no Node yet.
  for (const auto& nc : req_.node_claims()) {
    if (!nc.status().node_name().empty() &&
        node_index.contains(nc.status().node_name()))
      continue;
    if (!nc.metadata().deletion_timestamp().empty()) continue;
    std::string path = absl::StrCat("nodeClaims[", nc.metadata().name(), "]");
    Existing e;
    e.name = nc.metadata().name();
    e.is_claim = true;
    for (const auto& t : nc.spec().taints())
      if (!is_ephemeral(t)) e.taints.push_back(t);
    std::map<std::string, std::string> labels(nc.metadata().labels().begin(),
                                              nc.metadata().labels().end());
    for (const auto& r : nc.spec().requirements())
      if (r.operator_() == "In" && r.values_size() == 1 &&
          !labels.contains(r.key()))
        labels[r.key()] = r.values(0);
    for (const auto& [key, value] : labels)
      e.reqs.Add(InReq(in_.Intern(key), in_.Intern(value)), in_);
    e.hostname = in_.Intern(e.name);
    e.reqs.Add(InReq(k_.hostname, e.hostname), in_);
    ResVec capacity;
    if (!nc.status().allocatable().empty()) {
      auto alloc = dims_.ParseList(nc.status().allocatable(),
                                   path + ".status.allocatable");
      if (!alloc.ok()) return alloc.status();
      e.remaining = *alloc;
      auto cap =
          dims_.ParseList(nc.status().capacity(), path + ".status.capacity");
      if (!cap.ok()) return cap.status();
      capacity = *cap;
    } else if (int t =
                   InFlightType(labels, types_by_name, c_.pools, pool_index);
               t >= 0) {
      e.remaining = c_.types[t].allocatable;
      capacity = c_.types[t].capacity;
    } else {
      continue;  // unknown size: cannot hold pods
    }
    add_daemon_overhead(e, {});
    if (auto it = labels.find("karpenter.sh/nodepool"); it != labels.end()) {
      int p = pool_index(it->second);
      if (p >= 0 && c_.pools[p].has_limits) {
        if (nodes_dim_ >= 0) capacity[nodes_dim_] = 1;
        for (int x = 0; x < kMaxDims; ++x)
          if (c_.pools[p].limit_mask & (1u << x))
            pools_[p].remaining[x] -= capacity[x];
      }
    }
    existing_.push_back(std::move(e));
  }
  std::stable_sort(existing_.begin(), existing_.end(),
                   [](const Existing& a, const Existing& b) {
                     if (a.initialized != b.initialized) return a.initialized;
                     return a.name < b.name;
                   });
  return absl::OkStatus();
}

void Round::CompilePoolStates() {
  std::vector<Toleration> pns = {{"", "Exists", "", "PreferNoSchedule"}};
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    const Pool& pool = c_.pools[p];
    PoolState& ps = pools_[p];
    // Template-level overhead (for messages) and per-type daemon groups.
    std::vector<std::vector<bool>> tolerated(daemons_.size());
    std::vector<bool> daemon_ok(daemons_.size(), false);
    std::vector<std::vector<Reqs>> strict_alts(daemons_.size());
    for (size_t d = 0; d < daemons_.size(); ++d) {
      const DaemonPod& dp = daemons_[d];
      std::vector<Toleration> tols = dp.tols;
      tols.insert(tols.end(), pns.begin(), pns.end());
      if (!Tolerates(pool.taints, tols, nullptr)) continue;
      // Required terms are dropped one at a time (first term first).
      size_t nterms = std::max<size_t>(1, dp.terms.size());
      for (size_t t = 0; t < nterms; ++t) {
        Reqs strict = dp.node_selector;
        if (!dp.terms.empty()) strict.AddAll(dp.terms[t], in_);
        if (Compatible(pool.reqs, strict, &wk_, in_, nullptr))
          strict_alts[d].push_back(std::move(strict));
      }
      if (!strict_alts[d].empty()) {
        daemon_ok[d] = true;
        ps.template_overhead += dp.requests;
      }
    }
    std::map<std::vector<bool>, int> group_of;
    pool.types.ForEach([&](size_t i) {
      std::vector<bool> mask(daemons_.size(), false);
      for (size_t d = 0; d < daemons_.size(); ++d) {
        if (!daemon_ok[d]) continue;
        for (const Reqs& s : strict_alts[d])
          if (Intersects(c_.types[i].reqs, s, in_, nullptr)) {
            mask[d] = true;
            break;
          }
      }
      auto [it, inserted] =
          group_of.emplace(mask, static_cast<int>(ps.groups.size()));
      if (inserted) {
        DaemonGroup g;
        g.types = Bits(n_);
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
    for (int d = 0; d < kMaxDims; ++d)
      if (pool.has_limits && (pool.limit_mask & (1u << d)))
        ps.limited.push_back(d);
    pool.types.ForEach([&](size_t i) {
      for (int d : ps.limited)
        ps.max_capacity[d] =
            std::max(ps.max_capacity[d], c_.types[i].capacity[d]);
    });
    ps.reserved_types = Bits(n_);
    pool.types.ForEach([&](size_t i) {
      const auto& offs = c_.types[i].offerings;
      for (size_t j = 0; j < offs.size() && j < 64; ++j)
        if (offs[j].capacity_type == k_.v_reserved &&
            (pool.offering_mask[i] >> j & 1))
          ps.reserved_types.Set(i);
    });
    // Strict minValues with no pod: a NodePool that cannot meet its own
    // minValues is dropped, as Karpenter drops the template.
    if (!pool.types.Any()) {
      ps.dropped = true;
    } else if (pool.reqs.HasMinValues() && !opt_.best_effort_min_values) {
      Reqs r = pool.reqs;
      if (!MinValuesOk(pool.types, r, false, nullptr)) ps.dropped = true;
    }
  }
}

void Round::BuildDomainUniverse() {
  // Karpenter's buildDomainGroups (topology.go): for every NodePool and every
  // instance type the cloud provider returns for it (compatible or not, and
  // also for NodePools that can launch nothing), the template requirements,
  // the template labels and the type's requirements are intersected, and
  // every value of every resulting requirement is a domain (a NotIn's
  // excluded values too: Requirement.Values lists them). Then every value of
  // the template's own In requirements. (benchmarks/karpenter, class B.)
  absl::flat_hash_map<Id, absl::flat_hash_map<Id, size_t>> index;
  auto insert = [&](Id key, Id domain, int pool) {
    auto& list = universe_[key];
    auto [it, inserted] = index[key].emplace(domain, list.size());
    if (inserted) list.emplace_back(domain, std::vector<int>{});
    auto& pools = list[it->second].second;
    if (std::find(pools.begin(), pools.end(), pool) == pools.end())
      pools.push_back(pool);
  };
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    const Pool& pool = c_.pools[p];
    pool.catalog.ForEach([&](size_t i) {
      const InstanceType& type = c_.types[i];
      // The type's zones and capacity types are those of its available
      // offerings in the NodeClass zones.
      std::vector<Id> zones, cts;
      for (size_t j = 0; j < type.offerings.size() && j < 64; ++j)
        if (pool.catalog_offering_mask[i] >> j & 1) {
          zones.push_back(type.offerings[j].zone);
          cts.push_back(type.offerings[j].capacity_type);
        }
      Reqs r = pool.template_reqs;
      for (const Req& q : type.reqs.items())
        if (q.key != k_.zone && q.key != k_.capacity_type) r.Add(q, in_);
      r.Add(MakeReq(k_.zone, "In", zones, in_), in_);
      r.Add(MakeReq(k_.capacity_type, "In", cts, in_), in_);
      for (const Req& q : r.items())
        for (Id v : q.values) insert(q.key, v, static_cast<int>(p));
    });
    for (const Req& q : pool.template_reqs.items())
      if (!q.complement)
        for (Id v : q.values) insert(q.key, v, static_cast<int>(p));
  }
}

void Round::BuildInverseFromBound() {
  for (const auto& b : bound_) {
    const auto& terms =
        b.pod->spec()
            .affinity()
            .pod_anti_affinity()
            .required_during_scheduling_ignored_during_execution();
    if (terms.empty() || b.node < 0) continue;
    PodClass tmp;
    tmp.ns = b.pod->metadata().namespace_().empty()
                 ? "default"
                 : b.pod->metadata().namespace_();
    tmp.ns_id = b.ns;
    tmp.tolerations = CompileTolerations(b.pod->spec().tolerations());
    const auto& node_labels = req_.nodes(b.node).metadata().labels();
    for (const auto& t : terms) {
      int g = GroupFor(GroupType::kAntiAffinity, t.topology_key(), b.ns, &t,
                       nullptr, tmp, true);
      auto it = node_labels.find(t.topology_key());
      if (it != node_labels.end())
        groups_[g].RecordDomain(in_.Intern(it->second));
    }
  }
}

// ---------------------------------------------------------------------------
// Views and relaxation

bool Round::Relax(const PodClass& cls, RelaxState& s) const {
  if (static_cast<int>(cls.required_terms.size()) - s.req_dropped > 1) {
    ++s.req_dropped;
    return true;
  }
  if (s.aff_dropped < static_cast<int>(cls.pref_affinity.size())) {
    ++s.aff_dropped;
    return true;
  }
  if (s.anti_dropped < static_cast<int>(cls.pref_anti.size())) {
    ++s.anti_dropped;
    return true;
  }
  if (s.node_dropped < static_cast<int>(cls.preferred_node.size())) {
    ++s.node_dropped;
    return true;
  }
  int anyway = 0;
  for (const auto& t : cls.spreads)
    if (t.when_unsatisfiable() == "ScheduleAnyway") ++anyway;
  if (s.anyway_dropped < anyway) {
    ++s.anyway_dropped;
    return true;
  }
  if (any_pns_taint_ && !s.pns) {
    for (const auto& t : cls.tolerations)
      if (t.op == "Exists" && t.key.empty() && t.effect == "PreferNoSchedule")
        return false;
    s.pns = true;
    return true;
  }
  return false;
}

const View* Round::GetView(int ci, int level) {
  ClassState& cs = classes_[ci];
  if (cs.levels.empty()) cs.levels.push_back(RelaxState{});
  while (static_cast<int>(cs.levels.size()) <= level) {
    RelaxState next = cs.levels.back();
    if (!Relax(cs.cls, next)) return nullptr;
    cs.levels.push_back(next);
  }
  if (static_cast<int>(cs.views.size()) <= level) cs.views.resize(level + 1);
  if (cs.views[level]) return cs.views[level].get();
  const PodClass& cls = cs.cls;
  const RelaxState& s = cs.levels[level];
  auto v = std::make_unique<View>();
  v->strict = cls.node_selector;
  if (static_cast<int>(cls.required_terms.size()) > s.req_dropped)
    v->strict.AddAll(cls.required_terms[s.req_dropped], in_);
  v->reqs = v->strict;
  if (!opt_.ignore_preferences &&
      static_cast<int>(cls.preferred_node.size()) > s.node_dropped)
    v->reqs.AddAll(cls.preferred_node[s.node_dropped].second, in_);
  v->tols = cls.tolerations;
  if (s.pns) v->tols.push_back({"", "Exists", "", "PreferNoSchedule"});
  // Topology groups the pod owns at this relaxation level.
  // Karpenter drops ScheduleAnyway spreads one per step, the first one left,
  // moving the last constraint into its slot (preferences.go
  // removeTopologySpreadScheduleAnyway): with three or more, the order is
  // not declaration order.
  std::vector<const v1::TopologySpreadConstraint*> spreads;
  for (const auto& t : cls.spreads) spreads.push_back(&t);
  for (int k = 0; k < s.anyway_dropped; ++k) {
    auto it = std::find_if(spreads.begin(), spreads.end(), [](const auto* t) {
      return t->when_unsatisfiable() == "ScheduleAnyway";
    });
    if (it == spreads.end()) break;
    *it = spreads.back();
    spreads.pop_back();
  }
  for (const v1::TopologySpreadConstraint* t : spreads) {
    if (t->when_unsatisfiable() == "ScheduleAnyway" && opt_.ignore_preferences)
      continue;
    v->groups.push_back(opt_.karpenter_spread_groups
                            ? GroupFor(GroupType::kSpread, t->topology_key(),
                                       cls.ns_id, nullptr, t, cls, false,
                                       s.req_dropped, &v->tols)
                            : GroupFor(GroupType::kSpread, t->topology_key(),
                                       cls.ns_id, nullptr, t, cls, false));
  }
  for (const auto& t : cls.req_affinity)
    v->groups.push_back(GroupFor(GroupType::kAffinity, t.topology_key(),
                                 cls.ns_id, &t, nullptr, cls, false));
  if (!opt_.ignore_preferences)
    for (size_t i = s.aff_dropped; i < cls.pref_affinity.size(); ++i)
      v->groups.push_back(GroupFor(
          GroupType::kAffinity, cls.pref_affinity[i].second.topology_key(),
          cls.ns_id, &cls.pref_affinity[i].second, nullptr, cls, false));
  for (const auto& t : cls.req_anti)
    v->groups.push_back(GroupFor(GroupType::kAntiAffinity, t.topology_key(),
                                 cls.ns_id, &t, nullptr, cls, false));
  if (!opt_.ignore_preferences)
    for (size_t i = s.anti_dropped; i < cls.pref_anti.size(); ++i)
      v->groups.push_back(GroupFor(
          GroupType::kAntiAffinity, cls.pref_anti[i].second.topology_key(),
          cls.ns_id, &cls.pref_anti[i].second, nullptr, cls, false));
  for (const auto& t : cls.req_anti)
    v->inverse.push_back(GroupFor(GroupType::kAntiAffinity, t.topology_key(),
                                  cls.ns_id, &t, nullptr, cls, true));
  for (int g : v->groups)
    if (groups_[g].type != GroupType::kAntiAffinity) v->monotone_filter = false;
  std::sort(v->groups.begin(), v->groups.end());
  v->groups.erase(std::unique(v->groups.begin(), v->groups.end()),
                  v->groups.end());
  std::sort(v->inverse.begin(), v->inverse.end());
  v->inverse.erase(std::unique(v->inverse.begin(), v->inverse.end()),
                   v->inverse.end());
  cs.views[level] = std::move(v);
  return cs.views[level].get();
}

int Round::GroupFor(GroupType type, const std::string& key_text, Id ns_default,
                    const v1::PodAffinityTerm* term,
                    const v1::TopologySpreadConstraint* tsc,
                    const PodClass& cls, bool inverse, size_t first_term,
                    const std::vector<Toleration>* tols) {
  TopologyGroup g;
  g.type = type;
  g.key = in_.Intern(key_text);
  g.inverse = inverse;
  v1::LabelSelector selector_copy;
  const v1::LabelSelector* selector = nullptr;
  std::string sig = absl::StrCat(static_cast<int>(type), inverse ? "I" : "",
                                 "|", key_text, "|");
  if (tsc != nullptr) {
    g.max_skew = tsc->max_skew();
    if (tsc->has_min_domains()) g.min_domains = tsc->min_domains();
    g.namespaces = {ns_default};
    if (tsc->has_label_selector()) {
      selector_copy = tsc->label_selector();
      // matchLabelKeys: key In [the pod's value] for keys the pod carries.
      for (const auto& k : tsc->match_label_keys()) {
        auto it = cls.example
                      ? cls.example->metadata().labels().find(k)
                      : google::protobuf::Map<std::string,
                                              std::string>::const_iterator();
        if (cls.example && it != cls.example->metadata().labels().end()) {
          auto* e = selector_copy.add_match_expressions();
          e->set_key(k);
          e->set_operator_("In");
          e->add_values(it->second);
        }
      }
      selector = &selector_copy;
    }
    g.filter.active = true;
    g.filter.honor_taints = tsc->node_taints_policy() == "Honor";
    g.filter.honor_affinity = tsc->node_affinity_policy() != "Ignore";
    g.filter.tolerations = tols ? *tols : cls.tolerations;
    // Node filter: nodeSelector, ANDed with each required term (ORed) the
    // pod still has at its relaxation level.
    if (cls.required_terms.empty()) {
      g.filter.alternatives.push_back(cls.node_selector);
    } else {
      for (size_t i = first_term; i < cls.required_terms.size(); ++i) {
        Reqs r = cls.node_selector;
        r.AddAll(cls.required_terms[i], in_);
        g.filter.alternatives.push_back(std::move(r));
      }
    }
    absl::StrAppend(&sig, g.max_skew, "|", g.filter.honor_taints,
                    g.filter.honor_affinity, "|");
    if (tols == nullptr) {
      for (const Reqs& r : g.filter.alternatives)
        absl::StrAppend(&sig, ReqsString(r, in_, kNoId), ";");
      if (g.filter.honor_taints)
        for (const auto& t : cls.tolerations)
          absl::StrAppend(&sig, t.key, ",", t.op, ",", t.value, ",", t.effect,
                          ";");
    } else {
      // spreadBookkeeping "Karpenter": Karpenter shares a spread group
      // between pods whose TopologyGroup.Hash (topologygroup.go) is equal.
      // That hash sees a requirement only through its exported fields, the
      // key (and minValues), and hashes the filter's terms and the
      // tolerations as sets by XOR, so identical entries cancel in pairs.
      // The first pod's filter then serves the whole group, and a relaxation
      // that changes the terms or tolerations (dropping a required term,
      // tolerating PreferNoSchedule) moves the pod to another group that has
      // counted only the bound pods and the placements made since it was
      // created. (benchmarks/karpenter cases random-30, random-172,
      // random-593, random-710, random-757, random-861.)
      std::vector<std::string> key_sets, tol_set;
      for (const Reqs& r : g.filter.alternatives) {
        std::vector<std::string> keys;
        for (const Req& q : r.items()) keys.push_back(in_.Str(q.key));
        std::sort(keys.begin(), keys.end());
        key_sets.push_back(absl::StrJoin(keys, ","));
      }
      for (const auto& t : g.filter.tolerations)
        tol_set.push_back(
            absl::StrCat(t.key, ",", t.op, ",", t.value, ",", t.effect));
      absl::StrAppend(&sig, absl::StrJoin(OddOnes(key_sets), ";"), "|",
                      absl::StrJoin(OddOnes(tol_set), ";"), "|");
    }
  } else {
    g.max_skew = std::numeric_limits<int32_t>::max();
    if (term->has_label_selector()) {
      selector_copy = term->label_selector();
      selector = &selector_copy;
    }
    for (const auto& x : Namespaces().Select(*term, cls.ns, in_))
      g.namespaces.push_back(in_.Intern(x));
  }
  std::sort(g.namespaces.begin(), g.namespaces.end());
  for (Id x : g.namespaces) absl::StrAppend(&sig, in_.Str(x), ",");
  absl::StrAppend(&sig, "|", SelectorSignature(selector));
  auto it = group_index_.find(sig);
  if (it != group_index_.end()) return it->second;
  g.selector = CompileSelector(selector, in_);
  // Initial domains from the NodePools, those whose taints the pod creating
  // the group tolerates when taints are honoured. Pod affinity and
  // anti-affinity groups always honour them: their node filter is Karpenter's
  // zero value, whose empty taint policy is not "Ignore"
  // (topologydomaingroup.go ForEachDomain). So a zone anti-affinity of a pod
  // that does not tolerate the only NodePool's taint (even PreferNoSchedule,
  // before relaxation adds the toleration) has no zone to go to.
  // (benchmarks/karpenter cases random-568, random-861, random-924.)
  const bool honor_taints = tsc == nullptr || g.filter.honor_taints;
  const std::vector<Toleration>& creator_tols =
      tsc != nullptr ? g.filter.tolerations : cls.tolerations;
  if (auto u = universe_.find(g.key); u != universe_.end()) {
    for (const auto& [domain, pools] : u->second) {
      bool ok = !honor_taints;
      for (int p : pools) {
        if (ok) break;
        if (Tolerates(c_.pools[p].taints, creator_tols, nullptr)) ok = true;
      }
      if (ok) g.Register(domain);
    }
  }
  CountDomains(g);
  int idx = static_cast<int>(groups_.size());
  groups_.push_back(std::move(g));
  group_index_.emplace(std::move(sig), idx);
  if (inverse) inverse_groups_.push_back(idx);
  return idx;
}

void Round::CountDomains(TopologyGroup& g) {
  if (g.inverse) return;
  const bool hostname = g.key == k_.hostname;
  std::vector<Reqs> node_reqs(req_.nodes_size());
  for (int i = 0; i < req_.nodes_size(); ++i) {
    const v1::Node& node = req_.nodes(i);
    std::vector<v1::Taint> taints(node.spec().taints().begin(),
                                  node.spec().taints().end());
    for (const auto& [k, v] : node.metadata().labels())
      node_reqs[i].Add(InReq(in_.Intern(k), in_.Intern(v)), in_);
    if (!g.filter.Matches(taints, node_reqs[i], nullptr, in_)) continue;
    auto it = node.metadata().labels().find(in_.Str(g.key));
    if (it != node.metadata().labels().end())
      g.Register(in_.Intern(it->second));
    else if (hostname)
      g.Register(in_.Intern(node.metadata().name()));
  }
  for (const auto& e : existing_)
    if (e.is_claim && hostname) g.Register(e.hostname);
  for (const auto& b : bound_) {
    if (b.node < 0) continue;
    if (!std::binary_search(g.namespaces.begin(), g.namespaces.end(), b.ns))
      continue;
    if (!g.selector.Matches(b.labels)) continue;
    const v1::Node& node = req_.nodes(b.node);
    auto it = node.metadata().labels().find(in_.Str(g.key));
    Id domain;
    if (it != node.metadata().labels().end()) {
      domain = in_.Intern(it->second);
    } else if (hostname) {
      domain = in_.Intern(node.metadata().name());
    } else {
      continue;
    }
    std::vector<v1::Taint> taints(node.spec().taints().begin(),
                                  node.spec().taints().end());
    if (!g.filter.Matches(taints, node_reqs[b.node], nullptr, in_)) continue;
    g.RecordDomain(domain);
  }
}

// ---------------------------------------------------------------------------
// Placement

bool Round::AddTopology(const PodClass& cls, const View& v,
                        const std::vector<v1::Taint>& taints,
                        const Reqs& node_reqs, const WellKnown* allow,
                        Reqs* out, std::string* err, const Reqs* extra) {
  auto one = [&](int gi) {
    const TopologyGroup& g = groups_[gi];
    Req exists;
    exists.key = g.key;
    const Req* pd = v.strict.Get(g.key);
    const Req* nd = node_reqs.Get(g.key);
    Req merged;
    if (extra != nullptr) {
      if (const Req* e = extra->Get(g.key)) {
        merged = nd ? Intersect(*nd, *e, in_) : *e;
        nd = &merged;
      }
    }
    Req d = g.Next(cls.ns_id, cls.labels, pd ? *pd : exists, nd ? *nd : exists,
                   in_);
    if (!d.complement && d.values.empty()) {
      // Failures that stay failures as NodeClaims fill up (counts only
      // grow, a NodeClaim's hostname never changes): anti-affinity, and
      // hostname spread on a single-hostname node (its count is past the
      // skew; the hostname minimum is always 0).
      last_group_anti_ =
          g.type == GroupType::kAntiAffinity ||
          (g.type == GroupType::kSpread && g.key == k_.hostname &&
           nd != nullptr && !nd->complement && nd->values.size() == 1);
      // On a single hostname these failures hold for every pod class that
      // owns the group (the same self-selection for spread), whatever its
      // own requirements: record them for the group, not just this view.
      if (g.key == k_.hostname && g.type != GroupType::kAffinity &&
          nd != nullptr && !nd->complement && nd->values.size() == 1)
        last_shared_dead_ = SharedDeadSlot(gi, cls);
      if (err) *err = g.Describe(in_, pd ? *pd : exists, nd ? *nd : exists);
      return false;
    }
    out->Add(d, in_);
    return true;
  };
  for (int gi : v.groups)
    if (!one(gi)) return false;
  for (int gi : inverse_groups_) {
    const TopologyGroup& g = groups_[gi];
    if (!g.Selects(cls.ns_id, cls.labels)) continue;
    if (!one(gi)) return false;
  }
  (void)taints;
  (void)allow;
  return true;
}

void Round::Record(const PodClass& cls, const View& v,
                   const std::vector<v1::Taint>& taints, const Reqs& reqs,
                   const WellKnown* allow) {
  for (auto& g : groups_) {
    if (g.inverse) continue;
    if (!g.Selects(cls.ns_id, cls.labels)) continue;
    if (!g.filter.Matches(taints, reqs, allow, in_)) continue;
    const Req* d = reqs.Get(g.key);
    if (d == nullptr || d->complement) continue;
    if (g.type == GroupType::kAntiAffinity) {
      for (Id x : d->values) g.RecordDomain(x);
    } else if (d->values.size() == 1) {
      g.RecordDomain(d->values[0]);
    }
  }
  for (int gi : v.inverse) {
    const Req* d = reqs.Get(groups_[gi].key);
    if (d == nullptr || d->complement) continue;
    for (Id x : d->values) groups_[gi].RecordDomain(x);
  }
}

const std::vector<int>& Round::SharedSlots(const PodClass& cls, const View& v) {
  const int ninv = static_cast<int>(inverse_groups_.size());
  if (v.slots_inverse == ninv) return v.slots;
  v.slots.clear();
  auto consider = [&](int gi) {
    const TopologyGroup& g = groups_[gi];
    if (g.key == k_.hostname && g.type != GroupType::kAffinity)
      v.slots.push_back(SharedDeadSlot(gi, cls));
  };
  for (int gi : v.groups) consider(gi);
  for (int gi : inverse_groups_)
    if (groups_[gi].Selects(cls.ns_id, cls.labels)) consider(gi);
  v.slots_inverse = ninv;
  return v.slots;
}

bool Round::CanAddExisting(Existing& e, const PodClass& cls, const View& v,
                           Reqs* merged) {
  if (!Tolerates(e.taints, v.tols, nullptr)) return false;
  if (!cls.ports.empty() && PortsConflict(e.ports, cls.ports)) return false;
  if (!Fits(cls.requests, e.remaining)) return false;
  if (!Compatible(e.reqs, v.reqs, nullptr, in_, nullptr)) return false;
  *merged = e.reqs;
  merged->AddAll(v.reqs, in_);
  if (!cls.volume_alts.empty()) {
    bool any = false;
    for (const Reqs& alt : cls.volume_alts)
      if (Compatible(e.reqs, alt, nullptr, in_, nullptr)) {
        any = true;
        break;
      }
    if (!any) return false;
  }
  Reqs topo;
  std::string err;
  if (!AddTopology(cls, v, e.taints, *merged, nullptr, &topo, &err))
    return false;
  if (!Compatible(*merged, topo, nullptr, in_, nullptr)) return false;
  merged->AddAll(topo, in_);
  return true;
}

const Bits& Round::KeyCompat(const Req& r) {
  sig_.clear();
  absl::StrAppend(&sig_, r.key, r.complement ? "c" : "i", "|");
  for (Id v : r.values) absl::StrAppend(&sig_, v, ",");
  if (r.has_gte) absl::StrAppend(&sig_, "g", r.gte);
  if (r.has_lte) absl::StrAppend(&sig_, "l", r.lte);
  auto it = key_compat_.find(sig_);
  if (it != key_compat_.end()) return it->second;
  Bits b(n_);
  Op incoming = OperatorOf(r);
  bool neg_in = incoming == Op::kNotIn || incoming == Op::kDoesNotExist;
  for (size_t i = 0; i < n_; ++i) {
    const Req* t = c_.types[i].reqs.Get(r.key);
    if (t == nullptr || HasIntersection(*t, r, in_)) {
      b.Set(i);
      continue;
    }
    Op o = OperatorOf(*t);
    if (neg_in && (o == Op::kNotIn || o == Op::kDoesNotExist)) b.Set(i);
  }
  return key_compat_.emplace(sig_, std::move(b)).first->second;
}

Bits Round::OfferCompat(int pool, const Reqs& reqs) {
  std::string sig = absl::StrCat(pool, "|");
  for (Id key : {k_.zone, k_.capacity_type, k_.reservation_id}) {
    const Req* r = reqs.Get(key);
    if (r) absl::StrAppend(&sig, ReqString(*r, in_));
    absl::StrAppend(&sig, "|");
  }
  auto it = offer_compat_.find(sig);
  if (it != offer_compat_.end()) return it->second;
  Bits b(n_);
  const Pool& p = c_.pools[pool];
  p.types.ForEach([&](size_t i) {
    uint64_t mask = p.offering_mask[i];
    for (size_t j = 0; j < c_.types[i].offerings.size() && j < 64; ++j)
      if ((mask >> j & 1) &&
          OfferingCompatible(c_.types[i].offerings[j], reqs, k_, in_)) {
        b.Set(i);
        return;
      }
  });
  return offer_compat_.emplace(sig, std::move(b)).first->second;
}

bool Round::MinValuesOk(const Bits& types, Reqs& reqs, bool relax,
                        std::string* err, bool* relaxed) const {
  std::vector<std::pair<Id, int32_t>> floors;
  for (const Req& r : reqs.items())
    if (r.min_values > 0) floors.emplace_back(r.key, r.min_values);
  if (floors.empty()) return true;
  std::vector<std::set<Id>> seen(floors.size());
  bool done = false;
  types.ForEach([&](size_t i) {
    if (done) return;
    bool all = true;
    for (size_t f = 0; f < floors.size(); ++f) {
      const Req* t = c_.types[i].reqs.Get(floors[f].first);
      if (t && !t->complement)
        seen[f].insert(t->values.begin(), t->values.end());
      if (static_cast<int32_t>(seen[f].size()) < floors[f].second) all = false;
    }
    if (all) done = true;
  });
  if (done) return true;
  std::vector<std::string> short_keys;
  for (size_t f = 0; f < floors.size(); ++f) {
    int32_t got = static_cast<int32_t>(seen[f].size());
    if (got >= floors[f].second) continue;
    short_keys.push_back(in_.Str(floors[f].first));
    if (relax) {
      reqs.GetMutable(floors[f].first)->min_values = got;
      if (relaxed) *relaxed = true;
    }
  }
  std::sort(short_keys.begin(), short_keys.end());
  if (err)
    *err = absl::StrCat("minValues requirement is not met for label(s) [",
                        absl::StrJoin(short_keys, " "), "]");
  return relax;
}

const Bits& Round::LimitOk(int pool) {
  PoolState& ps = pools_[pool];
  if (!ps.limit_dirty) return ps.limit_ok;
  const Pool& p = c_.pools[pool];
  bool all = true;
  for (int d : ps.limited)
    if (ps.max_capacity[d] > ps.remaining[d]) all = false;
  if (all) {  // no limits, or none any type can reach yet
    ps.limit_ok = p.types;
    ps.limit_dirty = false;
    return ps.limit_ok;
  }
  ps.limit_ok = Bits(n_);
  p.types.ForEach([&](size_t i) {
    for (int d : ps.limited)
      if (c_.types[i].capacity[d] > ps.remaining[d]) return;
    ps.limit_ok.Set(i);
  });
  ps.limit_dirty = false;
  return ps.limit_ok;
}

Fail Round::FilterTypes(const Claim& claim, const PodClass& cls, Reqs& reqs,
                        bool relax_min, Candidate* out, std::string* err) {
  const PoolState& ps = pools_[claim.pool];
  Bits req_ok = claim.options;
  bool offer_changed = false;
  for (const Req& r : reqs.items()) {
    const Req* old = claim.reqs.Get(r.key);
    if (old != nullptr && *old == r) continue;
    if (r.key == k_.zone || r.key == k_.capacity_type ||
        r.key == k_.reservation_id)
      offer_changed = true;
    if (r.key == k_.hostname) continue;
    req_ok &= KeyCompat(r);
  }
  Bits offer_ok = offer_changed ? OfferCompat(claim.pool, reqs) : claim.options;
  offer_ok &= claim.options;
  Bits fit_any(n_);
  ResVec base = claim.requests + cls.requests;
  bool claim_port_conflict =
      !cls.ports.empty() && PortsConflict(claim.ports, cls.ports);
  ResVec min_oh, max_oh;
  bool tracked = false;
  for (const DaemonGroup& g : ps.groups) {
    if (claim_port_conflict) continue;
    if (!cls.ports.empty() && PortsConflict(g.ports, cls.ports)) continue;
    if (g.has_overhead) {
      if (!tracked) {
        min_oh = max_oh = g.overhead;
        tracked = true;
      } else {
        for (int d = 0; d < kMaxDims; ++d) {
          min_oh[d] = std::min(min_oh[d], g.overhead[d]);
          max_oh[d] = std::max(max_oh[d], g.overhead[d]);
        }
      }
    }
    Bits f = c_.fit.Fitting(base + g.overhead, n_);
    f &= g.types;
    fit_any |= f;
  }
  Bits remaining = req_ok;
  remaining &= offer_ok;
  remaining &= fit_any;
  std::string min_err;
  bool min_failed = false;
  if (remaining.Any() && reqs.HasMinValues()) {
    if (!MinValuesOk(remaining, reqs, relax_min, err ? &min_err : nullptr,
                     &out->min_values_relaxed))
      min_failed = true;
  }
  if (remaining.Any() && !min_failed) {
    out->options = std::move(remaining);
    return Fail::kNone;
  }
  if (err == nullptr) return Fail::kOther;
  // Karpenter's InstanceTypeFilterError.
  std::string rs;
  if (!tracked) {
    rs = dims_.String(cls.requests);
  } else {
    std::string a = dims_.String(cls.requests + min_oh);
    std::string b = dims_.String(cls.requests + max_oh);
    rs = a == b ? a : absl::StrCat("min=", a, ", max=", b);
  }
  std::string tail =
      absl::StrCat(", requirements=", ReqsString(reqs, in_, k_.hostname),
                   ", resources=", rs);
  if (min_failed) {
    *err = min_err + tail;
    return Fail::kOther;
  }
  Bits R = req_ok, O = offer_ok, F = fit_any;
  F &= O;  // Karpenter's fits() needs a compatible offering too
  bool r_any = R.Any(), f_any = F.Any(), o_any = O.Any();
  Bits rf = R;
  rf &= F;
  rf.AndNot(O);
  Bits ro = R;
  ro &= O;
  ro.AndNot(F);
  Bits fo = F;
  fo &= O;
  fo.AndNot(R);
  std::string msg;
  if (!r_any && !f_any && !o_any) {
    msg =
        "no instance type met the scheduling requirements or had enough "
        "resources or had a required offering";
  } else if (!r_any && !f_any) {
    msg =
        "no instance type met the scheduling requirements or had enough "
        "resources";
  } else if (!r_any && !o_any) {
    msg =
        "no instance type met the scheduling requirements or had a required "
        "offering";
  } else if (!f_any && !o_any) {
    msg = "no instance type had enough resources or had a required offering";
  } else if (!r_any) {
    msg = "no instance type met all requirements";
  } else if (!f_any) {
    msg = "no instance type has enough resources";
  } else if (!o_any) {
    msg = "no instance type has the required offering";
  } else if (rf.Any()) {
    msg =
        "no instance type which met the scheduling requirements and had enough "
        "resources, had a required offering";
  } else if (fo.Any()) {
    msg =
        "no instance type which had enough resources and the required offering "
        "met the scheduling requirements";
  } else if (ro.Any()) {
    msg =
        "no instance type which met the scheduling requirements and the "
        "required offering had the required resources";
  } else {
    msg = "no instance type met the requirements/resources/offering tuple";
  }
  *err = msg + tail;
  if (r_any && !f_any && o_any && cls.requests[kCpu] >= int64_t{1000000} * 1000)
    *err += " (CPU request >= 1 Million, m vs M typo?)";
  return Fail::kOther;
}

Fail Round::CanAddClaim(const Claim& claim, const PodClass& cls, const View& v,
                        bool relax_min, Candidate* out, std::string* err) {
  const Pool& pool = c_.pools[claim.pool];
  if (!Tolerates(pool.taints, v.tols, err)) {
    last_monotone_ = true;
    return Fail::kOther;
  }
  if (!Compatible(claim.reqs, v.reqs, &wk_, in_, err)) {
    // Conflicting values stay conflicting as requirements only narrow; an
    // undefined key may become defined by a later pod.
    last_monotone_ = !Intersects(claim.reqs, v.reqs, in_, nullptr);
    if (err) *err = absl::StrCat("incompatible requirements, ", *err);
    return Fail::kOther;
  }
  // Topology first, on the requirements as they would merge, before paying
  // for the copy: most NodeClaims a pod cannot join fail here.
  Reqs early_topo;
  const bool early = cls.volume_alts.empty();
  if (early && !AddTopology(cls, v, pool.taints, claim.reqs, &wk_, &early_topo,
                            err, &v.reqs)) {
    last_monotone_ = last_group_anti_;
    return Fail::kOther;
  }
  Reqs base = claim.reqs;
  base.AddAll(v.reqs, in_);
  static const std::vector<Reqs> kNone = {Reqs()};
  const std::vector<Reqs>& alts =
      cls.volume_alts.empty() ? kNone : cls.volume_alts;
  Fail last = Fail::kOther;
  for (const Reqs& alt : alts) {
    Reqs reqs = alts.size() == 1 ? std::move(base) : base;
    if (!alt.empty()) {
      if (!Compatible(reqs, alt, &wk_, in_, err)) {
        if (err)
          *err = absl::StrCat("incompatible volume requirements, ", *err);
        continue;
      }
      reqs.AddAll(alt, in_);
    }
    Reqs topo;
    if (early) {
      topo = std::move(early_topo);
    } else if (!AddTopology(cls, v, pool.taints, reqs, &wk_, &topo, err)) {
      last_monotone_ = alts.size() == 1 && last_group_anti_;
      continue;
    }
    if (!Compatible(reqs, topo, &wk_, in_, err)) continue;
    reqs.AddAll(topo, in_);
    Candidate cand;
    last = FilterTypes(claim, cls, reqs, relax_min, &cand, err);
    if (last != Fail::kNone) {
      last_monotone_ = alts.size() == 1 && v.monotone_filter;
      continue;
    }
    // Reserved offerings (Strict mode, as provisioning uses).
    if (opt_.reserved_capacity) {
      bool compatible_reserved = false;
      const Pool& p = c_.pools[claim.pool];
      // Only types with a reserved offering can contribute below.
      if (Bits::AnyAnd(cand.options, pools_[claim.pool].reserved_types))
        cand.options.ForEach([&](size_t i) {
          const auto& offs = c_.types[i].offerings;
          for (size_t j = 0; j < offs.size() && j < 64; ++j) {
            const Offering& o = offs[j];
            if (o.capacity_type != k_.v_reserved ||
                !(p.offering_mask[i] >> j & 1))
              continue;
            if (!OfferingCompatible(o, reqs, k_, in_)) continue;
            compatible_reserved = true;
            const Reservation& r = reservations_[o.reservation];
            bool held = r.holders.count(claim.hostname) > 0;
            if (held || static_cast<int32_t>(r.holders.size()) < r.capacity)
              cand.reserve.emplace_back(static_cast<int>(i),
                                        static_cast<int>(j));
          }
        });
      if (compatible_reserved && cand.reserve.empty()) {
        if (err)
          *err =
              "one or more instance types with compatible reserved offerings "
              "are available, but could not be reserved";
        return Fail::kReserved;
      }
      if (!claim.reserved.empty() && cand.reserve.empty()) {
        if (err)
          *err =
              "satisfying updated nodeclaim constraints would remove all "
              "compatible reserved offering options";
        return Fail::kReserved;
      }
    }
    cand.reqs = std::move(reqs);
    *out = std::move(cand);
    return Fail::kNone;
  }
  return last;
}

void Round::Reposition(int ci, bool is_new) {
  // Karpenter re-sorts its in-flight NodeClaims in place by pod count before
  // every in-flight attempt (scheduler.go add: sort.Slice, an insertion sort
  // for the short lists it sees here, hence stable). Ties therefore keep the
  // order of the previous sort, not creation order: a new claim joins the end
  // of the one-pod group, and a claim that gains a pod moves to the front of
  // its new count group, ahead of claims that already had that count.
  // (Found by benchmarks/karpenter, cases/random-33.)
  const size_t now = claims_[ci].pods.size();
  auto count_less = [&](size_t count, int a) {
    return count < claims_[a].pods.size();
  };
  if (is_new) {
    claims_[ci].seq = ++back_seq_;
    auto pos = std::upper_bound(claim_order_.begin(), claim_order_.end(), now,
                                count_less);
    claim_order_.insert(pos, ci);
    return;
  }
  claims_[ci].seq = --front_seq_;
  auto from = std::find(claim_order_.begin(), claim_order_.end(), ci);
  auto to = std::find_if(from + 1, claim_order_.end(),
                         [&](int a) { return claims_[a].pods.size() >= now; });
  std::rotate(from, from + 1, to);
}

void Round::CommitClaim(int ci, int pod, const View& v, Candidate& cand,
                        bool is_new) {
  Claim& claim = claims_[ci];
  const PodClass& cls = classes_[pending_[pod].cls].cls;
  claim.pods.push_back(pod);
  // max_alloc changes only if an option that reached a maximum is dropped
  // (options only narrow); a new NodeClaim starts without options.
  // Dimensions every type has the same value in (unused resources) keep
  // their maximum.
  const int dims = dims_.size();
  bool recompute = is_new;
  if (!recompute) {
    Bits dropped = claim.options;
    dropped.AndNot(cand.options);
    dropped.ForEach([&](size_t i) {
      for (int d : varying_dims_)
        if (c_.types[i].allocatable[d] == claim.max_alloc[d]) recompute = true;
    });
  }
  claim.options = std::move(cand.options);
  claim.requests += cls.requests;
  if (recompute) {
    claim.max_alloc = ResVec();
    claim.options.ForEach([&](size_t i) {
      for (int d = 0; d < dims; ++d)
        claim.max_alloc[d] =
            std::max(claim.max_alloc[d], c_.types[i].allocatable[d]);
    });
  }
  claim.reqs = std::move(cand.reqs);
  if (zone_sig_of_.size() < claims_.size())
    zone_sig_of_.resize(claims_.size(), -1);
  zone_sig_of_[ci] = ZoneSig(claim.reqs);
  if (cand.min_values_relaxed) claim.min_values_relaxed = true;
  for (int gi = 0; gi < static_cast<int>(groups_.size()); ++gi)
    if (groups_[gi].key == k_.hostname) groups_[gi].Register(claim.hostname);
  Record(cls, v, c_.pools[claim.pool].taints, claim.reqs, &wk_);
  claim.ports.insert(claim.ports.end(), cls.ports.begin(), cls.ports.end());
  // Reserve the new offerings, release the ones no longer held.
  std::set<Id> keep;
  for (auto [i, j] : cand.reserve) {
    Id rid = c_.types[i].offerings[j].reservation;
    keep.insert(rid);
    reservations_[rid].holders.insert(claim.hostname);
  }
  for (auto [i, j] : claim.reserved) {
    Id rid = c_.types[i].offerings[j].reservation;
    if (!keep.count(rid)) reservations_[rid].holders.erase(claim.hostname);
  }
  claim.reserved = std::move(cand.reserve);
  placed_claim_[pod] = ci;
  Reposition(ci, is_new);
}

Fail Round::Add(int pod, int level, std::string* err) {
  const int ci = pending_[pod].cls;
  const View* v = GetView(ci, level);
  const PodClass& cls = classes_[ci].cls;
  Reqs merged;
  for (size_t e = 0; e < existing_.size(); ++e) {
    Existing& ex = existing_[e];
    if (!CanAddExisting(ex, cls, *v, &merged)) continue;
    ex.pods.push_back(pod);
    for (int d = 0; d < kMaxDims; ++d) ex.remaining[d] -= cls.requests[d];
    ex.ports.insert(ex.ports.end(), cls.ports.begin(), cls.ports.end());
    Record(cls, *v, ex.taints, merged, nullptr);
    placed_existing_[pod] = static_cast<int>(e);
    return Fail::kNone;
  }
  if (v->dead.size() < claims_.size()) v->dead.resize(claims_.size(), 0);
  if (v->tolerates_pool.size() < c_.pools.size())
    v->tolerates_pool.resize(c_.pools.size(), 0);
  const std::vector<int>& slots = SharedSlots(cls, *v);
  auto shared_dead = [&](int c) {
    for (int s : slots)
      if (static_cast<size_t>(s) < shared_dead_.size() &&
          static_cast<size_t>(c) < shared_dead_[s].size() && shared_dead_[s][c])
        return true;
    return false;
  };
  // Topology verdicts of this walk, by the NodeClaim's requirements on the
  // view's topology keys. Nothing changes during one walk, so NodeClaims
  // with the same requirements there (the same zone) get the same verdict:
  // a pod spread over zones does not re-run the spread for every NodeClaim
  // of a zone it cannot use. Only failures skip; a pass goes the full way.
  // Not for hostname groups (every NodeClaim differs) or volume
  // alternatives (topology is then checked on the merged requirements).
  bool memo = cls.volume_alts.empty();
  memo_keys_.clear();
  auto memo_key = [&](int gi) {
    if (groups_[gi].key == k_.hostname) memo = false;
    memo_keys_.push_back(groups_[gi].key);
  };
  for (int gi : v->groups) memo_key(gi);
  for (int gi : inverse_groups_)
    if (groups_[gi].Selects(cls.ns_id, cls.labels)) memo_key(gi);
  if (memo_keys_.empty()) memo = false;
  memo_reqs_.clear();
  memo_ok_.clear();
  const size_t nk = memo_keys_.size();
  // The common case, a zone: each NodeClaim carries the id of its zone
  // requirement (ZoneSig), so the verdict is one array lookup.
  bool zone_only = memo;
  for (Id k : memo_keys_)
    if (k != k_.zone) zone_only = false;
  zone_verdict_.assign(zone_sigs_.size(), 0);
  auto evaluate = [&](const Claim& claim) {
    Reqs topo;
    return AddTopology(cls, *v, c_.pools[claim.pool].taints, claim.reqs, &wk_,
                       &topo, nullptr, &v->reqs);
  };
  auto topology_fails = [&](int c) {
    const Claim& claim = claims_[c];
    if (zone_only && zone_sig_of_[c] >= 0) {
      char& verdict = zone_verdict_[zone_sig_of_[c]];
      if (verdict == 0) verdict = evaluate(claim) ? 1 : 2;
      return verdict == 2;
    }
    memo_probe_.clear();
    for (Id k : memo_keys_) memo_probe_.push_back(claim.reqs.Get(k));
    for (size_t e = 0; e < memo_ok_.size(); ++e) {
      bool same = true;
      for (size_t j = 0; j < nk && same; ++j) {
        const Req* a = memo_reqs_[e * nk + j];
        const Req* b = memo_probe_[j];
        same = a == b || (a != nullptr && b != nullptr && *a == *b);
      }
      if (same) return !memo_ok_[e];
    }
    const bool ok = evaluate(claim);
    if (memo_ok_.size() < 16) {  // a handful of zones, not one per claim
      memo_reqs_.insert(memo_reqs_.end(), memo_probe_.begin(),
                        memo_probe_.end());
      memo_ok_.push_back(ok);
    }
    return !ok;
  };
  // Tries NodeClaim c; true when the pod was committed to it.
  auto try_claim = [&](int c) {
    if (v->dead[c]) return false;
    if (zone_only && zone_sig_of_[c] >= 0 &&
        zone_verdict_[zone_sig_of_[c]] == 2)
      return false;
    const Claim& claim = claims_[c];
    if (shared_dead(c)) {
      v->dead[c] = 1;
      return false;
    }
    char& tol = v->tolerates_pool[claim.pool];
    if (tol == 0)
      tol = Tolerates(c_.pools[claim.pool].taints, v->tols, nullptr) ? 1 : 2;
    if (tol == 2 || !Fits(claim.requests + cls.requests, claim.max_alloc)) {
      v->dead[c] = 1;
      return false;
    }
    if (memo && topology_fails(c)) return false;
    Candidate cand;
    last_monotone_ = false;
    last_shared_dead_ = -1;
    if (CanAddClaim(claims_[c], cls, *v, false, &cand, nullptr) ==
        Fail::kNone) {
      CommitClaim(c, pod, *v, cand, false);
      return true;
    }
    if (last_monotone_) v->dead[c] = 1;
    if (last_shared_dead_ >= 0) {
      if (shared_dead_.size() <= static_cast<size_t>(last_shared_dead_))
        shared_dead_.resize(last_shared_dead_ + 1);
      auto& d = shared_dead_[last_shared_dead_];
      if (d.size() < claims_.size()) d.resize(claims_.size(), 0);
      d[c] = 1;
    }
    return false;
  };
  // NodeClaims below v->scan_from are all dead ends for this view. When
  // only a few above it are left, try those in claim_order_'s order (the
  // (pod count, seq) key Reposition keeps) instead of walking every
  // NodeClaim: a pod class that can join no existing NodeClaim (hostname
  // anti-affinity) then costs O(new NodeClaims), not O(all NodeClaims).
  size_t& from = v->scan_from;
  while (from < claims_.size() && v->dead[from]) ++from;
  if ((claims_.size() - from) * 8 < claim_order_.size()) {
    gather_.clear();
    for (size_t c = from; c < claims_.size(); ++c)
      if (!v->dead[c]) gather_.push_back(static_cast<int>(c));
    std::sort(gather_.begin(), gather_.end(), [&](int a, int b) {
      const size_t na = claims_[a].pods.size(), nb = claims_[b].pods.size();
      return na != nb ? na < nb : claims_[a].seq < claims_[b].seq;
    });
    for (int c : gather_)
      if (try_claim(c)) return Fail::kNone;
  } else {
    for (int c : claim_order_)
      if (try_claim(c)) return Fail::kNone;
  }
  bool any_pool = false;
  for (const auto& ps : pools_)
    if (!ps.dropped) any_pool = true;
  if (!any_pool) {
    if (err)
      *err = c_.pools.empty() && !c_.static_pools.empty()
                 ? "no dynamic nodepools found"
                 : "nodepool requirements filtered out all available instance "
                   "types";
    return Fail::kOther;
  }
  std::vector<std::string> errs;
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    PoolState& ps = pools_[p];
    if (ps.dropped) continue;
    const Pool& pool = c_.pools[p];
    // Explanations are built only when asked for (see Run).
    std::string prefix =
        err == nullptr ? std::string()
                       : absl::StrCat("incompatible with nodepool \"",
                                      pool.name, "\", daemonset overhead=",
                                      dims_.String(ps.template_overhead), ", ");
    if (pool.has_limits && nodes_dim_ >= 0 &&
        (pool.limit_mask & (1u << nodes_dim_)) &&
        ps.remaining[nodes_dim_] <= 0) {
      errs.push_back(prefix + "node limits have been exhausted for nodepool");
      continue;
    }
    Bits cand_types = pool.types;
    cand_types &= LimitOk(static_cast<int>(p));
    if (!cand_types.Any()) {
      errs.push_back(prefix +
                     "all available instance types exceed limits for nodepool");
      continue;
    }
    Claim trial;
    trial.pool = static_cast<int>(p);
    trial.reqs = pool.reqs;
    trial.hostname = trial_host_;
    trial.reqs.Add(InReq(k_.hostname, trial_host_), in_);
    trial.options = std::move(cand_types);
    Candidate cand;
    std::string e;
    Fail f = CanAddClaim(trial, cls, *v, opt_.best_effort_min_values, &cand,
                         err ? &e : nullptr);
    if (f != Fail::kNone) {
      if (err) errs.push_back(prefix + e);
      if (f == Fail::kReserved) {
        if (err) *err = absl::StrJoin(errs, "; ");
        return Fail::kReserved;
      }
      continue;
    }
    // Launch it: a real placeholder hostname replaces the trial one.
    Id host = in_.Intern(
        absl::StrFormat("hostname-placeholder-%04d", ++placeholder_));
    trial.hostname = host;
    trial.options = Bits(n_);
    trial.reqs.Remove(k_.hostname);
    trial.reqs.Add(InReq(k_.hostname, host), in_);
    cand.reqs.Remove(k_.hostname);
    cand.reqs.Add(InReq(k_.hostname, host), in_);
    int idx = static_cast<int>(claims_.size());
    claims_.push_back(std::move(trial));
    // Pessimistic limits: the largest option's capacity.
    if (pool.has_limits) {
      ResVec mx;
      cand.options.ForEach([&](size_t i) {
        for (int d : ps.limited)
          mx[d] = std::max(mx[d], c_.types[i].capacity[d]);
      });
      for (int d : ps.limited) ps.remaining[d] -= mx[d];
      ps.limit_dirty = true;
    }
    CommitClaim(idx, pod, *v, cand, true);
    return Fail::kNone;
  }
  if (err) *err = absl::StrJoin(errs, "; ");
  return Fail::kOther;
}

void Round::ReleasePlacementState() {
  for (ClassState& cs : classes_)
    for (auto& v : cs.views)
      if (v) {
        v->dead = std::vector<char>();
        v->slots = std::vector<int>();
      }
  shared_dead_ = {};
  key_compat_ = {};
  offer_compat_ = {};
  zone_sig_of_ = {};
  gather_ = {};
}

void Round::Run() {
  const size_t np = pending_.size();
  errors_.assign(np, "");
  placed_claim_.assign(np, -1);
  placed_existing_.assign(np, -1);
  std::vector<int> order;
  for (size_t i = 0; i < np; ++i) {
    const PodClass& cls = classes_[pending_[i].cls].cls;
    if (!cls.invalid.empty()) {
      errors_[i] = cls.invalid;
      continue;
    }
    order.push_back(static_cast<int>(i));
  }
  // The sort reads its keys from one flat array, not through the classes.
  struct SortKey {
    int64_t cpu, memory;
    const std::string *created, *uid;
    int pod;
  };
  std::vector<SortKey> keys;
  keys.reserve(order.size());
  for (int p : order) {
    const ResVec& r = classes_[pending_[p].cls].cls.requests;
    const auto& md = pending_[p].pod->metadata();
    keys.push_back(
        {r[kCpu], r[kMemory], &md.creation_timestamp(), &md.uid(), p});
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const SortKey& a, const SortKey& b) {
                     if (a.cpu != b.cpu) return a.cpu > b.cpu;
                     if (a.memory != b.memory) return a.memory > b.memory;
                     if (*a.created != *b.created)
                       return *a.created < *b.created;
                     return *a.uid < *b.uid;
                   });
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].pod;
  std::deque<int> q(order.begin(), order.end());
  std::vector<size_t> last_len(np, 0);
  std::vector<int> last_level(np, 0);
  while (!q.empty()) {
    int p = q.front();
    if (last_len[p] == q.size()) break;
    q.pop_front();
    Fail f = Fail::kOther;
    int level = 0;
    for (;; ++level) {
      if (GetView(pending_[p].cls, level) == nullptr) {
        --level;
        break;
      }
      f = Add(p, level, nullptr);
      if (f != Fail::kOther) break;
    }
    if (f != Fail::kNone) {
      last_level[p] = level;
      q.push_back(p);
      last_len[p] = q.size();
    }
  }
  // The loop ends after a full cycle without progress, so the state is what
  // each remaining pod last saw: explaining now gives the same message as
  // explaining at the time, without paying for it on every retry.
  for (int p : q) {
    std::string err;
    if (Add(p, last_level[p], &err) == Fail::kNone) continue;
    errors_[p] = err.empty() ? "no placement found" : err;
  }
}

// ---------------------------------------------------------------------------
// Rendering

std::string NodeClaimName(const std::string& pool, int ordinal, int salt) {
  // FNV-1a 64 of "<pool>/<ordinal>[/salt]" -> 5 characters of Kubernetes'
  // generateName alphabet.
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 1469598103934665603ull;
  std::string s = absl::StrCat(pool, "/", ordinal);
  if (salt) absl::StrAppend(&s, "/", salt);
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  std::string out = pool + "-";
  for (int i = 0; i < 5; ++i) {
    out.push_back(kAlphabet[h % 27]);
    h /= 27;
  }
  return out;
}

void Round::Finalize(int ci, v1::NewNodeClaim* out, std::vector<int>* failed,
                     std::string* fail_reason) {
  Claim& claim = claims_[ci];
  const Pool& pool = c_.pools[claim.pool];
  const PoolState& ps = pools_[claim.pool];
  Reqs reqs = claim.reqs;
  reqs.Remove(k_.hostname);
  if (!claim.reserved.empty()) {
    reqs.Remove(k_.capacity_type);
    reqs.Add(InReq(k_.capacity_type, k_.v_reserved), in_);
    std::vector<Id> ids;
    for (auto [i, j] : claim.reserved)
      ids.push_back(c_.types[i].offerings[j].reservation);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    reqs.Add(MakeReq(k_.reservation_id, "In", ids, in_), in_);
  }
  // Minimum daemon overhead among groups that still have options.
  ResVec requests = claim.requests;
  bool first = true;
  ResVec min_oh;
  for (const DaemonGroup& g : ps.groups) {
    if (!Bits::AnyAnd(g.types, claim.options)) continue;
    if (first) {
      min_oh = g.overhead;
      first = false;
    } else {
      for (int d = 0; d < kMaxDims; ++d)
        min_oh[d] = std::min(min_oh[d], g.overhead[d]);
    }
  }
  requests += min_oh;
  // Options by cheapest compatible offering (ties: catalog order), truncated.
  std::string sig = absl::StrCat(claim.pool, "|");
  for (Id key : {k_.zone, k_.capacity_type, k_.reservation_id})
    if (const Req* r = reqs.Get(key))
      absl::StrAppend(&sig, ReqString(*r, in_), "|");
  auto [pit, fresh] = price_cache_.try_emplace(sig);
  if (fresh) {
    PriceEntry& e = pit->second;
    e.price.assign(n_, std::numeric_limits<double>::infinity());
    e.offers.assign(n_, 0);
    e.ct_mask.assign(n_, 0);
    c_.pools[claim.pool].types.ForEach([&](size_t i) {
      const auto& offs = c_.types[i].offerings;
      for (size_t j = 0; j < offs.size() && j < 64; ++j)
        if ((pool.offering_mask[i] >> j & 1) &&
            OfferingCompatible(offs[j], reqs, k_, in_)) {
          e.offers[i] |= uint64_t{1} << j;
          e.price[i] = std::min(e.price[i], offs[j].price);
          Id ct = offs[j].capacity_type;
          auto at = std::find(ct_ids_.begin(), ct_ids_.end(), ct);
          if (at == ct_ids_.end()) at = ct_ids_.insert(at, ct);
          const size_t bit = at - ct_ids_.begin();
          if (bit < 64) {
            e.ct_mask[i] |= uint64_t{1} << bit;
          } else {
            e.ct_exact = false;
          }
        }
      e.order.push_back(static_cast<int>(i));
    });
    std::sort(e.order.begin(), e.order.end(), [&](int a, int b) {
      return e.price[a] != e.price[b] ? e.price[a] < e.price[b] : a < b;
    });
  }
  const std::vector<double>& prices = pit->second.price;
  const std::vector<uint64_t>& offers = pit->second.offers;
  // Options are a subset of the NodePool's types.
  std::vector<std::pair<double, int>> opts;
  for (int i : pit->second.order) {
    if (static_cast<int>(opts.size()) >= opt_.max_instance_types) break;
    if (claim.options.Test(i)) opts.emplace_back(prices[i], i);
  }
  Bits kept(n_);
  for (auto& [price, i] : opts) kept.Set(i);
  if (!opt_.best_effort_min_values && reqs.HasMinValues()) {
    Bits ordered = kept;  // MinValuesOk walks in index order; fine for counting
    std::string e;
    Reqs copy = reqs;
    if (!MinValuesOk(ordered, copy, false, &e)) {
      for (int p : claim.pods) failed->push_back(p);
      *fail_reason = absl::StrCat(
          "pod didn\u2019t schedule because NodePool couldn\u2019t meet "
          "minValues "
          "requirements, validating minValues, ",
          e, " (NodePool ", pool.name, ")");
      return;
    }
  }
  // Instance types and the capacity types their offerings can launch.
  std::vector<Id> cts;
  if (pit->second.ct_exact) {
    uint64_t mask = 0;
    for (auto& [price, i] : opts) mask |= pit->second.ct_mask[i];
    for (; mask; mask &= mask - 1)
      cts.push_back(ct_ids_[__builtin_ctzll(mask)]);
  } else {
    for (auto& [price, i] : opts) {
      const auto& offs = c_.types[i].offerings;
      for (uint64_t m = offers[i]; m; m &= m - 1) {
        // A handful of distinct values among thousands of offerings.
        Id ct = offs[__builtin_ctzll(m)].capacity_type;
        if (std::find(cts.begin(), cts.end(), ct) == cts.end())
          cts.push_back(ct);
      }
    }
  }
  // Its values are rendered from `kept` (below), so they are not built here.
  Req it_req;
  it_req.key = k_.instance_type;
  it_req.complement = false;
  if (const Req* old = reqs.Get(k_.instance_type))
    it_req.min_values = old->min_values;
  reqs.Remove(k_.instance_type);
  reqs.Add(it_req, in_);
  std::sort(cts.begin(), cts.end());
  cts.erase(std::unique(cts.begin(), cts.end()), cts.end());
  Req ct_req = MakeReq(k_.capacity_type, "In", cts, in_);
  if (const Req* old = reqs.Get(k_.capacity_type))
    ct_req.min_values = old->min_values;
  reqs.Remove(k_.capacity_type);
  reqs.Add(ct_req, in_);

  // Launch: a held reserved offering first, else the cheapest compatible
  // available offering of a type the requests fit; ties keep catalog order.
  int best_t = -1, best_o = -1;
  if (!claim.reserved.empty()) {
    // A held reservation launches first (cheapest, then catalog order).
    double best_price = std::numeric_limits<double>::infinity();
    for (auto [i, j] : claim.reserved) {
      if (!kept.Test(i) || !Fits(requests, c_.types[i].allocatable)) continue;
      double p = c_.types[i].offerings[j].price;
      if (best_t < 0 || p < best_price || (p == best_price && i < best_t)) {
        best_t = i;
        best_o = j;
        best_price = p;
      }
    }
  }
  // Options are in (cheapest compatible offering, catalog) order: the first
  // one the requests fit launches, at its cheapest non-reserved offering.
  for (size_t k = 0; best_t < 0 && k < opts.size(); ++k) {
    int i = opts[k].second;
    if (!Fits(requests, c_.types[i].allocatable)) continue;
    const auto& offs = c_.types[i].offerings;
    double best_price = std::numeric_limits<double>::infinity();
    for (uint64_t m = offers[i]; m; m &= m - 1) {
      int j = __builtin_ctzll(m);
      if (offs[j].capacity_type == k_.v_reserved) continue;
      if (offs[j].price < best_price) {
        best_price = offs[j].price;
        best_t = i;
        best_o = j;
      }
    }
  }
  if (best_t < 0 && !opts.empty()) {
    best_t = opts[0].second;
    for (size_t j = 0; j < c_.types[best_t].offerings.size(); ++j)
      if (pool.offering_mask[best_t] >> j & 1) {
        best_o = static_cast<int>(j);
        break;
      }
  }

  // Render.
  v1::NodeClaim& nc = *out->mutable_node_claim();
  nc.set_api_version("karpenter.sh/v1");
  nc.set_kind("NodeClaim");
  auto* md = nc.mutable_metadata();
  out->set_node_pool(pool.name);
  const auto& tmpl = pool.proto.spec().template_();
  auto& labels = *md->mutable_labels();
  for (const auto& [k, v] : tmpl.metadata().labels()) labels[k] = v;
  labels["karpenter.sh/nodepool"] = pool.name;
  if (!pool.nodeclass_label_key.empty())
    labels[pool.nodeclass_label_key] = pool.nodeclass_name;
  for (const Req& r : reqs.items()) {
    const std::string& key = in_.Str(r.key);
    if (wk_.Contains(r.key) || r.key == k_.hostname || r.key == k_.registered ||
        r.key == k_.initialized || labels.contains(key))
      continue;
    if (absl::StrContains(key, "karpenter.sh/")) continue;
    Op op = OperatorOf(r);
    if (op == Op::kDoesNotExist) continue;
    if (op == Op::kIn) {
      std::vector<std::string> vals;
      for (Id v : r.values) vals.push_back(in_.Str(v));
      labels[key] = *std::min_element(vals.begin(), vals.end());
    } else {
      int64_t v = r.has_gte ? std::max<int64_t>(r.gte, 0) : 0;
      while (Has(r, in_.Intern(absl::StrCat(v)), in_) == false &&
             (!r.has_lte || v <= r.lte))
        ++v;
      labels[key] = absl::StrCat(v);
    }
  }
  auto& ann = *md->mutable_annotations();
  for (const auto& [k, v] : tmpl.metadata().annotations()) ann[k] = v;
  ann["karpenter.sh/nodepool-hash"] = pool.hash;
  ann["karpenter.sh/nodepool-hash-version"] = kNodePoolHashVersion;
  ann["karpenter.sh/nodeclaim-min-values-relaxed"] =
      claim.min_values_relaxed ? "true" : "false";
  auto* owner = md->add_owner_references();
  owner->set_api_version("karpenter.sh/v1");
  owner->set_kind("NodePool");
  owner->set_name(pool.name);
  owner->set_uid(pool.proto.metadata().uid());
  owner->set_block_owner_deletion(true);
  auto* spec = nc.mutable_spec();
  *spec->mutable_taints() = tmpl.spec().taints();
  *spec->mutable_startup_taints() = tmpl.spec().startup_taints();
  *spec->mutable_node_class_ref() = tmpl.spec().node_class_ref();
  spec->set_expire_after(
      tmpl.spec().expire_after().empty() ? "720h" : tmpl.spec().expire_after());
  spec->set_termination_grace_period(tmpl.spec().termination_grace_period());
  std::vector<std::pair<std::string, const Req*>> sorted_reqs;
  for (const Req& r : reqs.items()) {
    if (r.key == k_.hostname || r.key == k_.registered ||
        r.key == k_.initialized)
      continue;
    sorted_reqs.emplace_back(in_.Str(r.key), &r);
  }
  std::sort(sorted_reqs.begin(), sorted_reqs.end());
  if (name_order_.empty()) {
    // Instance-type names in byte order, once: option lists are long.
    name_order_.resize(n_);
    for (size_t i = 0; i < n_; ++i) name_order_[i] = static_cast<int>(i);
    std::sort(name_order_.begin(), name_order_.end(), [&](int a, int b) {
      return c_.types[a].name < c_.types[b].name;
    });
  }
  // Option names: every NodeClaim lists up to max_instance_types of them
  // twice (instanceTypes and the instance-type requirement). On an arena
  // each name is stored once per response, in one arena-owned block that
  // every list points into (UnsafeArenaAddAllocated), where
  // RepeatedPtrField::Add makes an allocation, a cleanup and a copy per
  // string (schedule.h: such a response is for reading, not editing).
  google::protobuf::Arena* arena = out->GetArena();
  const bool indexed = option_table_.has_value();
  if (arena != nullptr && !indexed && name_arena_ != arena) {
    name_arena_ = arena;
    name_block_ =
        google::protobuf::Arena::Create<std::vector<std::string>>(arena);
    name_block_->reserve(n_);  // at most one per type: pointers stay valid
    name_slot_.assign(n_, -1);
  }
  auto add_name = [&](google::protobuf::RepeatedPtrField<std::string>* field,
                      int i) {
    if (arena == nullptr) {
      field->Add()->assign(c_.types[i].name);
      return;
    }
    if (name_slot_[i] < 0) {
      name_slot_[i] = static_cast<int>(name_block_->size());
      name_block_->push_back(c_.types[i].name);
    }
    field->UnsafeArenaAddAllocated(&(*name_block_)[name_slot_[i]]);
  };
  // Values go straight into the proto: the instance-type requirement alone
  // carries up to max_instance_types names per NodeClaim.
  std::vector<const std::string*> vals;
  for (const auto& [key, r] : sorted_reqs) {
    auto start = [&, &key = key, r = r](const char* op) {
      auto* x = spec->add_requirements();
      x->set_key(key);
      x->set_operator_(op);
      if (r->min_values > 0) x->set_min_values(r->min_values);
      return x;
    };
    if (r->key == k_.instance_type) {
      // Option names in byte order (name_order_), the kept ones only.
      if (opts.empty()) {
        start("DoesNotExist");
        continue;
      }
      if (indexed) {
        // No values until expanded from the indices: an unexpanded object
        // is rejected by the API server, never launched wider than planned.
        start("In");
        continue;
      }
      auto* names = start("In")->mutable_values();
      names->Reserve(static_cast<int>(opts.size()));
      for (int i : name_order_)
        if (kept.Test(i)) add_name(names, i);
      continue;
    }
    if (r->has_gte) start("Gte")->add_values(absl::StrCat(r->gte));
    if (r->has_lte) start("Lte")->add_values(absl::StrCat(r->lte));
    Op op = OperatorOf(*r);
    if (op == Op::kDoesNotExist) {
      start("DoesNotExist");
      continue;
    }
    if (op == Op::kExists) {
      if (!r->has_gte && !r->has_lte) start("Exists");
      continue;
    }
    auto* x = start(op == Op::kIn ? "In" : "NotIn");
    auto* out_vals = x->mutable_values();
    vals.clear();
    for (Id v : r->values) vals.push_back(&in_.Str(v));
    std::sort(
        vals.begin(), vals.end(),
        [](const std::string* a, const std::string* b) { return *a < *b; });
    out_vals->Reserve(static_cast<int>(vals.size()));
    for (const std::string* v : vals) out_vals->Add()->assign(*v);
  }
  auto& rq = *spec->mutable_resources()->mutable_requests();
  for (int d = 0; d < dims_.size(); ++d)
    if (requests[d] != 0) {
      rq[dims_.Name(d)] = dims_.Format(d, requests[d]);
      (*out->mutable_requests())[dims_.Name(d)] = dims_.Format(d, requests[d]);
    }
  if (indexed) {
    auto* indices = out->mutable_instance_type_indices();
    indices->Reserve(static_cast<int>(opts.size()));
    for (auto& [price, i] : opts) option_table_->Add(i, indices);
  } else {
    out->mutable_instance_types()->Reserve(static_cast<int>(opts.size()));
    for (auto& [price, i] : opts) add_name(out->mutable_instance_types(), i);
  }
  if (best_t >= 0 && best_o >= 0) {
    const Offering& o = c_.types[best_t].offerings[best_o];
    auto* l = out->mutable_launch();
    l->set_instance_type(c_.types[best_t].name);
    l->set_zone(in_.Str(o.zone));
    l->set_capacity_type(in_.Str(o.capacity_type));
    l->set_price(o.price);
    if (o.reservation != kNoId) l->set_reservation_id(in_.Str(o.reservation));
    auto& la = *out->mutable_launch_allocatable();
    for (int d = 0; d < dims_.size(); ++d)
      if (c_.types[best_t].allocatable[d] != 0)
        la[dims_.Name(d)] = dims_.Format(d, c_.types[best_t].allocatable[d]);
  }
  for (int p : claim.pods) out->add_pods(pending_[p].key);
}

void Round::Render(v1::ScheduleResponse* out) {
  v1::ScheduleResponse& resp = *out;
  resp.set_library_version(LibraryVersion());
  resp.set_ignored_pods(ignored_);
  std::vector<std::string> reasons = errors_;
  absl::flat_hash_map<std::string, int> per_pool;
  std::set<std::string> used_names;
  double cost = 0;
  if (opt_.indexed_instance_types) option_table_.emplace(n_);
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    // Rendered in place (on the response's arena, if any); a NodeClaim that
    // fails minValues at the end is taken off again.
    v1::NewNodeClaim& nnc = *resp.add_new_node_claims();
    std::vector<int> failed;
    std::string reason;
    Finalize(static_cast<int>(ci), &nnc, &failed, &reason);
    if (!failed.empty()) {
      for (int p : failed) {
        reasons[p] = reason;
        placed_claim_[p] = -1;
      }
      resp.mutable_new_node_claims()->RemoveLast();
      continue;
    }
    const std::string& pool = c_.pools[claims_[ci].pool].name;
    int ordinal = per_pool[pool]++;
    std::string name;
    for (int salt = 0;; ++salt) {
      name = NodeClaimName(pool, ordinal, salt);
      if (used_names.insert(name).second) break;
    }
    nnc.set_name(name);
    nnc.mutable_node_claim()->mutable_metadata()->set_name(name);
    cost += nnc.launch().price();
  }
  for (const Existing& e : existing_) {
    if (e.pods.empty()) continue;
    auto* x = resp.add_existing_nodes();
    x->set_name(e.name);
    x->set_kind(e.is_claim ? "NodeClaim" : "Node");
    for (int p : e.pods) x->add_pods(pending_[p].key);
  }
  if (option_table_)
    option_table_->Finish(
        name_order_,
        [&](int t) -> const std::string& { return c_.types[t].name; }, out);
  for (size_t p = 0; p < pending_.size(); ++p) {
    if (placed_claim_[p] >= 0 || placed_existing_[p] >= 0) continue;
    auto* u = resp.add_unschedulable();
    u->set_pod(pending_[p].key);
    u->set_reason(reasons[p].empty() ? "not scheduled" : reasons[p]);
  }
  resp.set_cost(cost);
}

}  // namespace

absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   v1::ScheduleResponse* out) {
  auto opt = ParseOptions(state.options());
  if (!opt.ok()) return opt.status();
  auto round = std::make_unique<Round>(snapshot, state, *opt);
  if (auto s = round->Setup(); !s.ok()) return s;
  round->Run();
  round->ReleasePlacementState();
  round->Render(out);
  return absl::OkStatus();
}

}  // namespace nodeplan::scheduling
