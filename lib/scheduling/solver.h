#ifndef NODEPLAN_LIB_SCHEDULING_SOLVER_H_
#define NODEPLAN_LIB_SCHEDULING_SOLVER_H_

// One scheduling round over a compiled snapshot (Karpenter's Scheduler.Solve).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "nodeplan/requirements_index.h"
#include "nodeplan/v1/schedule.pb.h"
#include "scheduling/model.h"
#include "scheduling/pods.h"
#include "scheduling/topology.h"

namespace nodeplan::scheduling {

// Disruption's consolidation simulations (Karpenter's
// IsConsolidationSimulation): the pods in `pods` ("namespace/name") may not
// be placed on the existing nodes in `nodes` (those inside their NodePool's
// consolidateAfter window).
struct DestinationGate {
  absl::flat_hash_set<std::string> nodes;
  // Views of keys the caller keeps alive while the simulation runs.
  absl::flat_hash_set<absl::string_view> pods;
};

// A gate that restricts nothing: a round under it is the ungated round,
// except that the request's pods are not checked again
// (CheckRequestWorkload).
const DestinationGate& NoGate();

// What every round over one request computes the same way before placing a
// pod: its Deployments' replicas and its pending pods' class signatures.
// The Optimized packing runs several rounds of one request (one per
// candidate size cap) and prepares them once (PreparePods).
struct PreparedPods {
  // The request they were prepared from: a round of another ignores them.
  const v1::ScheduleRequest* request = nullptr;
  // workload::DeploymentReplica of each Deployment, replica by replica, on
  // `arena` (thousands of pods are freed at once).
  std::unique_ptr<google::protobuf::Arena> arena;
  std::vector<const v1::Pod*> expanded;
  // Per pod of request->pods(): its class signature (ClassSignature, not
  // moved) when it has no nodeName, else empty.
  std::vector<std::string> signatures;
  // Per pod of `expanded`: its signature, one per Deployment in
  // `deployment_signatures` (SignReplicas), null when the template names a
  // node.
  std::vector<std::string> deployment_signatures;
  std::vector<const std::string*> replica_signatures;
};

// `state` must outlive the result and stay unchanged, and have passed
// CheckRequestWorkload (every replica of every Deployment is made here).
PreparedPods PreparePods(const v1::ScheduleRequest& state);

struct Options {
  bool ignore_preferences = false;
  bool best_effort_min_values = false;
  int max_instance_types = 600;
  bool reserved_capacity = true;
  // spreadBookkeeping "Karpenter": spread groups identified and split as
  // Karpenter's TopologyGroup.Hash does (see schedule.proto).
  bool karpenter_spread_groups = false;
  // instanceTypeEncoding "Indexed": options as indices into one name table
  // per response instead of two string lists per NodeClaim.
  bool indexed_instance_types = false;
  // Set only by disruption's simulations (never from ScheduleOptions).
  const DestinationGate* gate = nullptr;
  // Set only by the Optimized packing's rounds (never from ScheduleOptions).
  const PreparedPods* prepared = nullptr;
  // Likewise: the instance types each NodePool admits in this round, in
  // place of Compiled::pools[p].types (a size cap on one NodePool), so that
  // a candidate round needs no copy of the snapshot. One per NodePool.
  const std::vector<TypeSet>* pool_types = nullptr;
  // Likewise: per pod of the request, then per Deployment replica
  // (PreparedPods::expanded order), whether it takes part; those marked 0
  // are left out as if the request did not hold them (a caller keeps the
  // bound pods, which hold existing capacity). The Optimized packing
  // repacks some NodeClaims' pods this way without building a request of
  // their own.
  const std::vector<char>* pending_subset = nullptr;
};

absl::StatusOr<Options> ParseOptions(const v1::ScheduleOptions& o);

// Runs one round and renders the response into `out` (which may live on a
// protobuf Arena: rendering allocates straight into out's arena, so nothing
// is copied and the caller frees the whole response at once).
absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   v1::ScheduleResponse* out);
// The same with a destination gate (`gate` must outlive the call), for
// disruption's simulations only: the pods and deployments of `state` are
// trusted to be ones the caller validated (validation::CheckWorkload), as
// Disrupt does once per call; they are not checked again.
absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   const DestinationGate& gate, v1::ScheduleResponse* out);
// The gated call reusing `prepared` (PreparePods(state), may be null: the
// response is the one the call above renders), and with NodePool p
// admitting only (*pool_types)[p] when `pool_types` is given (one entry per
// NodePool of the snapshot, each a subset of the snapshot's own: the
// Optimized packing's capped rounds).
absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   const DestinationGate& gate, const PreparedPods* prepared,
                   v1::ScheduleResponse* out,
                   const std::vector<TypeSet>* pool_types = nullptr);

class Round;

// A round that has run but whose response is not written yet: the
// Optimized packing compares candidate rounds by cost and unschedulable
// pods and renders only the one it keeps (rendering thousands of
// placements and option lists is a fifth of a round at 5,000 pods).
class SolvedRound {
 public:
  ~SolvedRound();
  SolvedRound(const SolvedRound&) = delete;
  SolvedRound& operator=(const SolvedRound&) = delete;

  // The response's cost, exactly as Render will set it.
  double cost() const { return cost_; }
  // The pods the response will list as unschedulable ("namespace/name",
  // in request order).
  const std::vector<std::string>& unschedulable() const {
    return unschedulable_;
  }
  // The NodePools (indices into the snapshot's pools, ascending) of the
  // NodeClaims the response will hold.
  const std::vector<int>& launched_pools() const { return launched_pools_; }
  // (NodePool, instance type) the response will launch each of its
  // NodeClaims as, in response order (type -1: no launch).
  const std::vector<std::pair<int, int>>& launches() const { return launches_; }
  // The pending pods ("namespace/name") the response will place.
  absl::flat_hash_set<std::string> PlacedPods() const;
  // Writes the response, as the matching Solve call does.
  void Render(v1::ScheduleResponse* out);

 private:
  friend absl::StatusOr<std::unique_ptr<SolvedRound>> SolveUnrendered(
      const Compiled&, const v1::ScheduleRequest&, const DestinationGate&,
      const PreparedPods*, std::vector<TypeSet>, std::vector<char>);
  SolvedRound() = default;
  void Summarize();
  // The round reads its NodePools' types from here (when narrowed).
  std::vector<TypeSet> pool_types_;
  // And the pending pods it takes (Options::pending_subset; empty: all).
  std::vector<char> pending_subset_;
  std::unique_ptr<Round> round_;
  double cost_ = 0;
  std::vector<std::string> unschedulable_;
  std::vector<int> launched_pools_;
  std::vector<std::pair<int, int>> launches_;
};

// The gated Solve reusing `prepared`, with NodePool p admitting only
// pool_types[p] (kept by the result, which may outlive the caller's copy),
// left unrendered. A non-empty `pending_subset` (Options::pending_subset,
// kept by the result too) restricts the pending pods; it needs `prepared`
// for `state` whenever `state` has Deployments (their replicas' order).
absl::StatusOr<std::unique_ptr<SolvedRound>> SolveUnrendered(
    const Compiled& snapshot, const v1::ScheduleRequest& state,
    const DestinationGate& gate, const PreparedPods* prepared,
    std::vector<TypeSet> pool_types, std::vector<char> pending_subset = {});
// What the ungated Solve checks of the request's pods and Deployments
// before its round (validation::CheckWorkload: well-formed pods, replica
// counts within docs/LIMITS.md). A caller that prepares pods itself runs it
// first, as PreparePods expands every replica, and may then run gated
// rounds (an empty gate restricts nothing) that do not check again.
absl::Status CheckRequestWorkload(const v1::ScheduleRequest& state);

// The name a round gives the ordinal-th new NodeClaim of NodePool `pool`
// (salt > 0 after a collision): "<pool>-" and five characters of the
// generateName alphabet from FNV-1a 64 of "<pool>/<ordinal>[/<salt>]".
std::string NodeClaimName(const std::string& pool, int ordinal, int salt);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_SOLVER_H_
