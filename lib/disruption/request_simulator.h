#ifndef NODEPLAN_LIB_DISRUPTION_REQUEST_SIMULATOR_H_
#define NODEPLAN_LIB_DISRUPTION_REQUEST_SIMULATOR_H_

// A Simulator that states each simulation as a ScheduleRequest (the cluster
// without the candidates, their reschedulable pods pending) and runs the
// public scheduler on it. Simple and independent of the scheduler's
// internals: the reference the compiled-cluster simulator is checked
// against.

#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "disruption/cluster_view.h"
#include "disruption/conditions.h"
#include "disruption/simulator.h"
#include "nodeplan/schedule.h"

namespace nodeplan::disruption {

class RequestSimulator : public Simulator {
 public:
  RequestSimulator(ClusterView& view, const ConditionsResult& conditions);
  absl::StatusOr<SimulationResult> Simulate(absl::Span<const int> candidates,
                                            bool consolidation) override;
  // Later simulations pack with ScheduleOptions.packing `packing` and
  // packing_budget `budget` (optimized consolidation: "Optimized").
  void UsePacking(const std::string& packing, int32_t budget);

 private:
  ClusterView& view_;
  const ConditionsResult& conditions_;
  // What every simulation shares: the NodePools, NodeClasses, catalog and
  // overlays, compiled once (the first simulation compiles it).
  v1::ScheduleRequest base_;
  std::shared_ptr<const Snapshot> snapshot_;
  // The cluster state fields that do not depend on the candidates.
  v1::ScheduleRequest state_;
  // Per view node: its NodeClaim with status.nodeName set to the paired
  // Node (or cleared), as the scheduler pairs them.
  std::vector<v1::NodeClaim> claims_;
};

// Where a pod of a simulation comes from.
enum class Origin { kBound, kPending, kCandidate, kDeleting };

// A simulation's result from the scheduler's response to it: `origin` holds
// the pending pods and the pods moved from candidates or deleting nodes
// (absent: pending).
// Keys are pod keys ("namespace/name") the caller keeps alive.
using OriginMap = absl::flat_hash_map<absl::string_view, Origin>;
absl::StatusOr<SimulationResult> ToSimulationResult(
    ClusterView& view, const v1::ScheduleResponse& resp,
    const OriginMap& origin);

// The origin entries for the Deployments' replicas (pending pods named
// <name>-<i>) of `deployments`, their keys stored in `keys`.
void AddDeploymentOrigins(
    const google::protobuf::RepeatedPtrField<v1::Deployment>& deployments,
    std::deque<std::string>* keys, OriginMap* origin);

// The existing nodes a consolidation simulation's moved pods may not land
// on: those (not taken away, per `existing`) whose NodeClaim is inside its
// consolidateAfter window.
absl::flat_hash_set<std::string> ConsolidateAfterGate(
    const ClusterView& view, const std::vector<char>& existing);

// Karpenter's IsCurrentlyReschedulable: reschedulable, disruptable and not
// held by a fully blocking PDB.
bool IsCurrentlyReschedulable(const ClusterView& view, int pod);

// "not all pods would schedule, ns/a => why ns/b => why " with at most five
// pods then " and N other(s)" (Karpenter's NonPendingPodSchedulingErrors;
// pods sorted by key here).
std::string SchedulingErrors(
    const std::vector<std::pair<std::string, std::string>>& errors);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_REQUEST_SIMULATOR_H_
