#ifndef NODEPLAN_LIB_SCHEDULING_ROUND_H_
#define NODEPLAN_LIB_SCHEDULING_ROUND_H_

// One scheduling round's state and steps (Karpenter's Scheduler.Solve over
// the compiled model), private to lib/scheduling. solver.cc runs it;
// the steps live by concern: round_setup.cc (pods, DaemonSets, existing
// capacity, NodePool state), round_views.cc (relaxation levels, topology
// groups), round_placement.cc (trying existing nodes and NodeClaims) and
// round_render.cc (the response).
//
// Deterministic rules where Karpenter relies on unstable sorts, hash-map
// order or randomness (see also topology.h):
//  - in-flight NodeClaims are tried in pod count order as Go's sort.Slice
//    leaves Karpenter's list (GoSortSlice, SortClaimOrder);
//  - preferred terms of equal weight keep declaration order;
//  - pods of equal CPU, memory and creation time are ordered by identity
//    (PodIdentity: the uid, or "<namespace>/<name>" without one); only pods
//    of equal identity keep input order;
//  - instance-type options of equal price keep catalog order;
//  - a custom requirement label without a single value resolves to its
//    smallest allowed value (In) or smallest allowed integer >= 0 (Exists,
//    NotIn, Gt...), where Karpenter picks at random.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "nodeplan/requirements_index.h"
#include "nodeplan/v1/schedule.pb.h"
#include "scheduling/model.h"
#include "scheduling/namespaces.h"
#include "scheduling/option_table.h"
#include "scheduling/pods.h"
#include "scheduling/requirement_text.h"
#include "scheduling/solver.h"
#include "scheduling/topology.h"

namespace nodeplan::scheduling {

struct DaemonPod {
  std::string name;
  DenseResources requests;
  std::vector<v1::Toleration> tols;
  Requirements node_selector;
  std::vector<Requirements> terms;
  std::vector<HostPort> ports;
  bool operator==(const DaemonPod& o) const {
    return name == o.name && requests == o.requests &&
           SameTolerations(tols, o.tols) && node_selector == o.node_selector &&
           terms == o.terms && ports == o.ports;
  }
};

struct DaemonGroup {
  TypeSet types;
  DenseResources overhead;
  bool has_overhead = false;
  std::vector<HostPort> ports;
};

struct PoolState {
  std::vector<DaemonGroup> groups;
  DenseResources template_overhead;
  DenseResources remaining;
  TypeSet limit_ok;
  bool limit_dirty = true;
  bool dropped = false;
  // Types with a reserved offering this NodePool can use.
  TypeSet reserved_types;
  // The dimensions the NodePool limits, and the largest capacity of its
  // types in each (while it is within `remaining`, no type exceeds it).
  std::vector<int> limited;
  DenseResources max_capacity;
};

// A persistent volume claim a pod mounts through a CSI driver (Karpenter's
// Volumes): the driver's name and the claim's "<namespace>/<name>",
// interned. Lists of them are kept sorted and without duplicates.
struct VolumeUse {
  LabelValueId driver = kNoId;
  LabelValueId claim = kNoId;
  bool operator<(const VolumeUse& o) const {
    return driver != o.driver ? driver < o.driver : claim < o.claim;
  }
  bool operator==(const VolumeUse& o) const {
    return driver == o.driver && claim == o.claim;
  }
};

// The CSI volume limits of a node with a CSINode (per driver reporting
// allocatable.count, by driver id) and the claims its bound pods mount.
struct NodeVolumes {
  std::vector<std::pair<LabelValueId, int32_t>> limits;
  std::vector<VolumeUse> used;
  // The bound claims already exceed a limit: Karpenter then refuses the node
  // every pod (it checks the union of the node's and the pod's claims).
  bool over = false;
};

// An existing node or in-flight NodeClaim as compiled from the request:
// what no placement changes, and its capacity before the round's pods.
struct ExistingNode {
  std::string name;
  bool is_claim = false;
  bool initialized = false;
  Requirements reqs;
  std::vector<v1::Taint> taints;
  LabelValue hostname;
  // Allocatable less its bound pods and DaemonSet overhead; bound host ports.
  DenseResources remaining;
  std::vector<HostPort> ports;
  // Where it came from: an index into the request's nodes (-1 for an
  // in-flight NodeClaim) and nodeClaims (-1 for a Node without one).
  int request_node = -1;
  int request_claim = -1;
  // What it takes from its NodePool's limits (pool -1: nothing).
  int limit_pool = -1;
  // Its CSI volume limits: an index into the compiling round's
  // node_volumes_ (-1: none, the node has no CSINode or its drivers report
  // no count; in-flight NodeClaims never have any).
  int volumes = -1;
  DenseResources limit_use;
};

// An existing node during one round: its capacity as the round's pods fill
// it.
struct Existing {
  const ExistingNode* node = nullptr;
  DenseResources remaining;
  std::vector<HostPort> ports;
  std::vector<int> pods;
};

// Per request node, what topology counting reads: its labels as
// requirements and its taints (compiled once per round, not per group).
struct TopologyNode {
  Requirements labels;
  std::vector<v1::Taint> taints;
};

// A pod of a simulation on a compiled cluster (cluster_model.h): pending as
// given, or ("moved") a bound pod of a removed or deleting node that is
// placed again, read as pending (its nodeName, phase and deletionTimestamp
// are ignored).
struct SimPod {
  const v1::Pod* pod = nullptr;
  bool moved = false;
  // Its class signature (ClassSignature) when the caller keeps one.
  const std::string* signature = nullptr;
};

// One simulation: which of the cluster's nodes are taken away and which pods
// are to be placed, in request order.
struct Simulation {
  std::vector<int> removed_nodes;   // indices into the state's nodes
  std::vector<int> removed_claims;  // indices into the state's nodeClaims
  std::vector<SimPod> pods;
};

// The class signature of a pod: everything scheduling reads of it minus its
// identity (namespace, sorted labels, the spec without priority and, for a
// moved pod, without nodeName).
std::string ClassSignature(const v1::Pod& p, absl::string_view ns, bool moved);
// The signatures of Deployment replicas (`replicas`: the replicas of each
// Deployment of `state`, in order, as ExpandDeployments makes them): one
// per Deployment into *storage (whose strings *per_replica points into),
// one pointer per replica, null for a template that names a node.
void SignReplicas(
    const v1::ScheduleRequest& state, absl::Span<const v1::Pod* const> replicas,
    std::vector<std::string>* storage,
    std::vector<const std::string*>* per_replica,
    std::vector<std::pair<absl::string_view, absl::string_view>>* labels);
// The same appended to *sig, with `labels` as scratch.
void AppendClassSignature(
    const v1::Pod& p, absl::string_view ns, bool moved, std::string* sig,
    std::vector<std::pair<absl::string_view, absl::string_view>>* labels);

struct View;

struct Claim {
  int pool = 0;
  Requirements reqs;
  LabelValue hostname;
  TypeSet options;
  DenseResources requests;
  std::vector<int> pods;
  std::vector<HostPort> ports;
  std::vector<std::pair<int, int>> reserved;  // (type, offering)
  bool min_values_relaxed = false;
  // Per-resource maximum allocatable over the options: requests beyond it
  // cannot fit any option (a cheap first check).
  DenseResources max_alloc;
  // The view of the last pod it took (CanAddClaim's shortcut for the next
  // pod of that view).
  const View* joined_view = nullptr;
};

struct RelaxState {
  int req_dropped = 0, aff_dropped = 0, anti_dropped = 0, node_dropped = 0,
      anyway_dropped = 0;
  bool pns = false;
};

struct View {
  Requirements reqs, strict;
  std::vector<v1::Toleration> tols;
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

// The class's spread constraints after `dropped` ScheduleAnyway drops, in
// Karpenter's order, with the topology group of each, so that the view of
// the next relaxation level is built from this one in time linear in the
// constraints rather than from scratch. `groups` holds for relaxation states
// with `req_dropped` and `pns`; it is rebuilt when those differ.
struct SpreadOrder {
  bool valid = false;
  int dropped = 0;
  // Every entry before `scan` is a DoNotSchedule constraint.
  size_t scan = 0;
  std::vector<const v1::TopologySpreadConstraint*> order;
  std::vector<int> groups;  // -1: skipped (ignore_preferences)
  bool groups_valid = false;
  int groups_req_dropped = 0;
  bool groups_pns = false;
};

struct ClassState {
  PodClass cls;
  std::vector<RelaxState> levels;
  std::vector<std::unique_ptr<View>> views;
  SpreadOrder spread_order;
};

struct PendingPod {
  const v1::Pod* pod;
  std::string key;
  int cls = -1;
  int input = 0;
};

// What a caller of ClusterModel::Build already read of one of its pods.
struct KnownPod {
  // nodeplan::PodRequests of the pod (null: not known). Used only without
  // extended resources, whose names are the caller's interner's.
  const ResourceVector* requests = nullptr;
  bool host_ports = true;        // false: no container has a host port
  bool daemon_set_owner = true;  // false: no owner reference of kind DaemonSet
  bool topology_terms = true;    // false: !HasPodTopologyTerms(spec)
  // When `placed` is set, the pod is bound (spec.nodeName is set) and the
  // fields below hold, so that the model need not visit its metadata and
  // status: the index of its Node in the state request (-1: none by that
  // name), NamespaceOf(metadata) (valid during Build), phase Succeeded or
  // Failed, and deletionTimestamp set.
  bool placed = false;
  int node = -1;
  absl::string_view ns;
  bool terminal = false;
  bool terminating = false;
};

// Whether a compiled cluster interns its bound pods' labels. Only topology
// counting reads them (a spread, pod affinity or anti-affinity selector of a
// pod being placed, counted over the pods already there). A caller that
// knows no pod it will simulate has such terms may skip them: it saves a
// pass over every bound pod's label map. A simulation that would read them
// anyway is Unavailable (run it as a whole request instead).
enum class BoundPodLabels { kIntern, kSkip };

struct BoundPod {
  const v1::Pod* pod;
  LabelValueId ns;
  LabelSet labels;
  int node = -1;  // index into request nodes
  // Being deleted (deletionTimestamp set) but not terminal: its requests,
  // host ports and required anti-affinity still hold the node (Karpenter's
  // cluster state drops a pod only when it is terminal), but topology
  // counting ignores it (IgnoredForTopology).
  bool terminating = false;
  // Has required pod anti-affinity terms (read once, with the rest).
  bool required_anti_affinity = false;
  int request_index = -1;  // in the request's pods (-1: a simulation's)
};

struct Candidate {
  Requirements reqs;
  TypeSet options;
  std::vector<std::pair<int, int>> reserve;
  bool min_values_relaxed = false;
  // `reqs` is empty: the NodeClaim keeps the requirements it has.
  bool same_reqs = false;
};

enum class Fail { kNone, kOther, kReserved };

class Round {
 public:
  Round(const Compiled& c, const v1::ScheduleRequest& req, Options opt)
      : c_(c),
        req_(req),
        opt_(opt),
        in_(&c.in),
        wk_(*c.wk),
        dims_(c.dims),
        k_(c.keys),
        n_(c.types.size()) {}
  // A simulation on `base` (which ran SetupCluster and must outlive this
  // round, unchanged): `sim` and the round share nothing mutable with it.
  Round(const Round& base, const Simulation& sim, Options opt)
      : c_(base.c_),
        req_(base.req_),
        opt_(opt),
        in_(&base.in_),
        wk_(base.wk_),
        dims_(base.dims_),
        k_(base.k_),
        n_(base.n_),
        base_(&base),
        sim_(&sim) {}

  absl::Status Setup();
  // The cluster half of Setup for a compiled cluster: the request's bound
  // pods, DaemonSets, existing capacity, NodePool state and the domain
  // universe. Its pending pods (if any) are ignored.
  // `known`, `labels`: ClusterModel::Build's.
  absl::Status SetupCluster(absl::Span<const KnownPod> known = {},
                            BoundPodLabels labels = BoundPodLabels::kIntern);
  // Setup of a simulation round. An Unavailable status means the
  // simulation cannot reuse the compiled cluster (a DaemonSet's newest pod
  // changed with the removed nodes, and with it the DaemonSet's pod; or a
  // pod's topology terms count bound pods whose labels the compiled cluster
  // skipped): run it as a whole request instead.
  absl::Status SetupSimulation();
  // Topology counting met bound pods whose labels the compiled cluster
  // skipped (BoundPodLabels::kSkip): the round's answer is not to be used.
  bool needed_skipped_labels() const { return needed_skipped_labels_; }
  void Run();
  void Render(v1::ScheduleResponse* out);
  // What Render would answer for cost and unschedulable pods, without
  // writing a response: the Optimized packing ranks its candidate rounds by
  // these and renders only the one it keeps. Render may follow.
  struct Summary {
    double cost = 0;                  // summed as Render sums it
    std::vector<int> unschedulable;   // pending pod indices, ascending
    std::vector<int> launched_pools;  // of the NodeClaims kept, ascending
    // (NodePool, launch type) of each NodeClaim kept, in claim order.
    std::vector<std::pair<int, int>> launches;
  };
  Summary Summarize();
  // "namespace/name" of pending pod `p` (a Summary's index).
  const std::string& PendingKey(int p) const { return pending_[p].key; }
  int PendingCount() const { return static_cast<int>(pending_.size()); }
  // Frees what only placement needs (per-view dead ends, caches), so the
  // response is built with less memory held.
  void ReleasePlacementState();

 private:
  // Setup helpers.
  // Pod `i` of the round (request pods, then Deployment replicas) is one
  // Options::pending_subset leaves out.
  bool LeftOut(size_t i) const {
    return opt_.pending_subset != nullptr && sim_ == nullptr &&
           i < opt_.pending_subset->size() && !(*opt_.pending_subset)[i];
  }
  absl::Status CompilePods();
  // Adds one pod of `all` (the round's pods in request order) at index `i`.
  absl::Status CompilePod(const v1::Pod& p, int i, bool moved,
                          const std::string* signature);
  void ExpandDeployments(std::vector<const v1::Pod*>* all);
  absl::Status CompileSimulationDaemons();
  // `moved`: a bound pod a simulation reschedules (its claims are not
  // validated again, as Karpenter validates only pending pods).
  absl::Status CompileClass(const v1::Pod& pod, PodClass& cls,
                            const std::string& path, bool moved);
  absl::Status CompileVolumes(const v1::Pod& pod, PodClass& cls, bool moved);
  // Karpenter's GetVolumes: the claims `pod` (in namespace `ns`) mounts
  // through a CSI driver, sorted, appended to *out. A claim, volume or class
  // that does not exist is skipped, as are volumes of no CSI driver.
  void PodVolumes(const v1::Pod& pod, absl::string_view ns,
                  std::vector<VolumeUse>* out);
  // The node's CSI volume limits from the CSINode named `node_name`, with
  // the claims of its bound pods `bound` (indices into bound_), added to
  // node_volumes_: the index, or -1 when it has no limit.
  int CompileNodeVolumes(const std::string& node_name,
                         const std::vector<int>& bound);
  // Fills existing_volumes_ once existing_ is built (nothing when no node
  // has limits).
  void InitExistingVolumes();
  absl::Status CompileDaemons();
  absl::StatusOr<DaemonPod> CompileDaemon(const v1::DaemonSet& ds,
                                          const v1::Pod* newest);
  void SetupCommon();
  void FinishSetup();
  absl::Status CompileExisting();
  // Charges `use` (and one node) to NodePool `pool`'s limits on behalf of
  // `e`; GiveBackLimits returns what `e` was charged.
  void ChargeLimits(ExistingNode& e, int pool, DenseResources use);
  void GiveBackLimits(const ExistingNode& e);
  void CompilePoolStates();
  void BuildDomainUniverse();
  void BuildInverseFromBound();
  // The cluster half shared by Setup and SetupCluster.
  absl::Status SetupClusterState();
  // The pods bound to the round's nodes (a simulation's: the compiled
  // cluster's, less those of removed nodes), in request order.
  template <typename F>
  void ForEachBound(F&& f) const {
    const Round& owner = base_ != nullptr ? *base_ : *this;
    for (const BoundPod& b : owner.bound_) {
      if (b.node >= 0 && !node_removed_.empty() && node_removed_[b.node])
        continue;
      f(b);
    }
  }
  const std::vector<TopologyNode>& TopologyNodes();
  // The domain of request node `node` for topology key `key`: its label's
  // value, or for hostname groups without the label the node's name
  // (kNoId: none).
  LabelValueId NodeDomain(int node, LabelKeyId key, bool hostname);

  // Views and relaxation.
  // The spread groups a class owns at relaxation state `s` (tolerations
  // `tols`), carried over from the previous level.
  const std::vector<int>& SpreadGroups(ClassState& cs, const RelaxState& s,
                                       const std::vector<v1::Toleration>& tols);
  bool Relax(const PodClass& cls, RelaxState& s) const;
  const View* GetView(int cls, int level);
  // For spreads under spreadBookkeeping "Karpenter", `first_term` and
  // `tols` are the pod's required terms and tolerations at its relaxation
  // level (they shape the node filter and the group's identity).
  int GroupFor(GroupType type, const std::string& key, LabelValueId ns_default,
               const v1::PodAffinityTerm* term,
               const v1::TopologySpreadConstraint* tsc, const PodClass& cls,
               bool inverse, size_t first_term = 0,
               const std::vector<v1::Toleration>* tols = nullptr);
  void CountDomains(TopologyGroup& g);
  // Built on first use: only namespaceSelector terms need it.
  const KnownNamespaces& Namespaces();

  // Placement.
  Fail Add(int pod, int level, std::string* err);
  // `extra`, when given, is intersected into node_reqs key by key (so a
  // NodeClaim can be checked before its requirements are copied and merged).
  bool AddTopology(const PodClass& cls, const View& v,
                   const std::vector<v1::Taint>& taints,
                   const Requirements& node_reqs, const WellKnownLabels* allow,
                   Requirements* out, std::string* err,
                   const Requirements* extra = nullptr);
  void Record(const PodClass& cls, const View& v,
              const std::vector<v1::Taint>& taints, const Requirements& reqs,
              const WellKnownLabels* allow);
  bool CanAddExisting(Existing& e, const PodClass& cls, const View& v,
                      Requirements* merged);
  // Karpenter's VolumeUsage.ExceedsLimits: whether `pod`'s claims on
  // existing_[e] would take a driver past its limit ("would exceed volume
  // limit"; like every existing-node refusal, never a pod's reason). Only
  // for nodes with limits (node->volumes >= 0).
  bool ExceedsVolumeLimits(size_t e, const std::vector<VolumeUse>& pod) const;
  // `avoid`, when given, narrows the domains topology may choose (the tied
  // spread domains a new NodeClaim could not launch in, see Add).
  Fail CanAddClaim(const Claim& claim, const PodClass& cls, const View& v,
                   bool relax_min, Candidate* out, std::string* err,
                   const Requirements* avoid = nullptr);
  // `merged`: the requirements the NodeClaim would have (minValues may be
  // relaxed in place); null when they are its own, unchanged.
  Fail FilterTypes(const Claim& claim, const PodClass& cls,
                   Requirements* merged, bool relax_min, Candidate* out,
                   std::string* err);
  Fail ReserveOfferings(const Claim& claim, const Requirements& reqs,
                        Candidate* cand, std::string* err);
  // Some inverse (anti-affinity) group selects pods of `cls`.
  bool SelectedByInverseGroup(const PodClass& cls) const {
    for (int gi : inverse_groups_)
      if (groups_[gi].Selects(cls.ns_id, cls.labels)) return true;
    return false;
  }
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
  const TypeSet& KeyCompat(const Requirement& r);
  // A reference into a cache: valid until the next OfferCompat call.
  const TypeSet& OfferCompat(int pool, const Requirements& reqs);
  void CommitClaim(int ci, int pod, const View& v, Candidate& cand,
                   bool is_new);
  void Reposition(int ci, bool is_new);
  void SortClaimOrder();
  const TypeSet& LimitOk(int pool);
  // The instance types NodePool `pool` admits in this round: the
  // snapshot's, or Options::pool_types' (a capped candidate round).
  const TypeSet& PoolTypes(size_t pool) const {
    return opt_.pool_types != nullptr ? (*opt_.pool_types)[pool]
                                      : c_.pools[pool].types;
  }
  // SatisfiesMinValues over `types`; with `relax`, short floors are lowered
  // in `reqs` to what the types reach and the check passes.
  bool MinValuesOk(const TypeSet& types, Requirements& reqs, bool relax,
                   std::string* err, bool* relaxed = nullptr) const;

  // Rendering. What a NodeClaim launches as, decided before anything is
  // written (Decide), then written (WriteClaim); Finalize does both.
  struct ClaimDecision {
    Requirements reqs;        // to render (hostname off, options narrowed)
    DenseResources requests;  // the pods' and the least daemon overhead
    std::vector<std::pair<double, int>> opts;  // (price, type), cheapest first
    TypeSet kept;                              // the types of `opts`
    int best_t = -1, best_o = -1;              // launch type and offering
  };
  // false, with the NodeClaim's pods and the reason, when it fails minValues.
  bool Decide(int ci, ClaimDecision* d, std::vector<int>* failed_pods,
              std::string* fail_reason);
  void WriteClaim(int ci, const ClaimDecision& d, v1::NewNodeClaim* out);
  void Finalize(int ci, v1::NewNodeClaim* out, std::vector<int>* failed_pods,
                std::string* fail_reason);

  const Compiled& c_;
  const v1::ScheduleRequest& req_;
  Options opt_;
  Interner in_;
  const WellKnownLabels& wk_;
  ResourceDims dims_;
  const Keys& k_;
  size_t n_;

  std::vector<PendingPod> pending_;
  // Per pending pod, the claims it mounts through CSI drivers; filled only
  // when the request has CSINodes (else no node has a volume limit).
  std::vector<std::vector<VolumeUse>> pod_volumes_;
  // The request's claims (by namespace/name), volumes and classes (by
  // name), built on first use (VolumeIndex) for CompileVolumes and
  // PodVolumes.
  struct VolumeObjects {
    absl::flat_hash_map<std::string, const v1::PersistentVolumeClaim*> claims;
    absl::flat_hash_map<absl::string_view, const v1::PersistentVolume*> pvs;
    absl::flat_hash_map<absl::string_view, const v1::StorageClass*> classes;
  };
  std::unique_ptr<VolumeObjects> volume_objects_;
  const VolumeObjects& VolumeIndex();
  // ExistingNode::volumes indexes this (a simulation reads its base's).
  std::vector<NodeVolumes> node_volumes_;
  // Per existing_ entry, the claims its bound and placed pods mount; sized
  // only when some node has limits.
  std::vector<std::vector<VolumeUse>> existing_volumes_;
  std::vector<v1::Pod> expanded_;          // pods expanded from Deployments
  std::vector<std::string> replica_sigs_;  // one per Deployment (SignReplicas)
  std::vector<ClassState> classes_;
  absl::flat_hash_map<std::string, int> class_index_;
  std::vector<BoundPod> bound_;
  int ignored_ = 0;
  // Per request node, the pods bound to it (what a removal takes from the
  // ignored count), and those bound to no known node.
  std::vector<int> pods_on_node_;
  // Request nodes by name, and (rounds that are not simulations) each
  // request pod's node index (-1: unbound or on no known node), found once
  // while the pod is compiled.
  absl::flat_hash_map<absl::string_view, int> node_index_;
  std::vector<int> pod_node_;
  // Per DaemonSet, the indices of the request pods it controls.
  std::vector<std::vector<int>> daemon_set_pods_;
  // SetupCluster's `known`, while it runs.
  absl::Span<const KnownPod> known_;
  // A compiled cluster's bound pods (indices into bound_) on known nodes
  // with required anti-affinity terms.
  std::vector<int> anti_affinity_bound_;
  // A simulation's compiled cluster and input (null otherwise), and per
  // request node whether the simulation removed it.
  const Round* base_ = nullptr;
  const Simulation* sim_ = nullptr;
  std::vector<char> node_removed_;
  std::vector<TopologyNode> topology_nodes_;
  bool topology_nodes_built_ = false;
  // Scratch of CompilePod's class signatures.
  std::string sig_scratch_;
  // FilterTypes' working sets, reused from call to call (it runs once or
  // more per pod): no allocation but the candidate's own options.
  TypeSet filter_req_ok_, filter_offer_ok_, filter_fit_any_, filter_fit_,
      filter_remaining_;
  std::string offer_sig_;
  std::vector<std::pair<absl::string_view, absl::string_view>> label_scratch_;
  // SetupCluster: this round is a compiled cluster, never run.
  bool cluster_base_ = false;
  // The compiled cluster's bound pods carry no labels (BoundPodLabels), and
  // whether this round's topology counting needed them.
  bool bound_labels_skipped_ = false;
  bool needed_skipped_labels_ = false;

  std::vector<DaemonPod> daemons_;
  // Per DaemonSet, the pods it controls in request order with their request
  // node (-1: not on a known node), and the one whose spec daemons_ holds.
  std::vector<std::vector<std::pair<const v1::Pod*, int>>> daemon_pods_;
  std::vector<const v1::Pod*> daemon_newest_;
  std::vector<ExistingNode> existing_nodes_;  // a simulation reads the base's
  // In-flight NodeClaims of unknown size: they hold no pods, but their
  // status.capacity counts against their NodePool's limits.
  std::vector<ExistingNode> limit_only_claims_;
  std::vector<Existing> existing_;
  std::vector<PoolState> pools_;
  bool any_pns_taint_ = false;
  // MinValuesOk's list of instance-type requirements, kept between calls.
  mutable std::vector<const Requirements*> min_values_scratch_;

  std::vector<Claim> claims_;
  // Karpenter's newNodeClaims slice: creation order, re-sorted by pod count
  // with Go's sort.Slice (GoSortSlice) before every in-flight attempt, when
  // a NodeClaim was added or gained a pod since the last sort (sorting a
  // sorted slice changes nothing): (pod count, claim) pairs.
  // order_pos_[claim] is the claim's index in it.
  std::vector<std::pair<uint32_t, int>> claim_order_;
  std::vector<int> order_pos_;
  bool order_dirty_ = false;
  // Scratch of Add, kept to reuse capacity.
  std::vector<LabelKeyId> memo_keys_;
  std::vector<const Requirement*> memo_reqs_, memo_probe_;
  std::vector<char> memo_ok_;
  std::vector<int> gather_;
  // Distinct zone requirements of NodeClaims (Claim::zone_sig; entry 0: no
  // zone requirement) and, during one Add, the topology verdict of each.
  std::vector<Requirement> zone_sigs_ = std::vector<Requirement>(1);
  std::vector<int> zone_sig_of_;  // per NodeClaim (compact for the walk)
  std::vector<char> zone_verdict_;
  int ZoneSig(const Requirements& reqs) {
    const Requirement* z = reqs.Find(k_.zone);
    if (z == nullptr) return 0;
    for (size_t i = 1; i < zone_sigs_.size(); ++i)
      if (zone_sigs_[i] == *z) return static_cast<int>(i);
    if (zone_sigs_.size() >= 256) return -1;  // then no shortcut
    zone_sigs_.push_back(*z);
    return static_cast<int>(zone_sigs_.size() - 1);
  }
  bool last_monotone_ = false;
  bool last_group_anti_ = false;
  // When set, AddTopology appends each spread domain it chose among equally
  // counted valid domains (key, chosen domain).
  std::vector<std::pair<LabelKeyId, LabelValue>>* spread_ties_ = nullptr;
  // Dead ends shared by every view owning a hostname group: slot (see
  // SharedDeadSlot) -> per NodeClaim, 1 when the group can never accept a
  // pod on it again (spread past its skew, anti-affinity already present).
  std::vector<std::vector<char>> shared_dead_;
  int last_shared_dead_ = -1;

  std::vector<TopologyGroup> groups_;
  absl::flat_hash_map<std::string, int> group_index_;
  std::vector<int> inverse_groups_;
  std::optional<KnownNamespaces> namespaces_;
  // key -> (domain -> pools producing it; empty vector: untainted): the
  // snapshot's (Compiled::universe), else built by this round.
  std::shared_ptr<const DomainUniverse> universe_;

  absl::flat_hash_map<std::string, TypeSet> key_compat_;
  absl::flat_hash_map<std::string, TypeSet> offer_compat_;
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
  std::vector<LabelValue> ct_ids_;
  absl::flat_hash_map<std::string, PriceEntry> price_cache_;
  std::string sig_;

  // Reservations: id -> (capacity, holders).
  struct Reservation {
    int32_t capacity = std::numeric_limits<int32_t>::max();
    std::set<LabelValueId> holders;
  };
  absl::flat_hash_map<LabelValueId, Reservation> reservations_;

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
  LabelValue trial_host_;
  int nodes_dim_ = -1;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_ROUND_H_
