#ifndef NODEPLAN_LIB_DISRUPTION_SIMULATOR_H_
#define NODEPLAN_LIB_DISRUPTION_SIMULATOR_H_

// The scheduling simulation disruption runs (Karpenter's
// SimulateScheduling, pkg/controllers/disruption/helpers.go): take some
// candidate nodes away and ask the provisioning scheduler where their pods
// (and the pending pods, and the pods of nodes already deleting) would go.
//
// What is simulated, per Karpenter:
//  - existing capacity: every state node that is not marked for deletion,
//    minus the candidates (in-flight NodeClaims included);
//  - pods to place: pending provisionable pods, the candidates' currently
//    reschedulable pods (reschedulable, no active do-not-disrupt, not held by
//    a fully blocking PDB) and those of nodes already deleting;
//  - in consolidation simulations a pod that is not pending and does not
//    come from a deleting node may not land on an existing node whose
//    NodeClaim is inside its consolidateAfter window;
//  - a pod placed on an existing node that is not initialized is an error
//    unless it comes from a deleting node.
// Success means every pod that was not pending found a place.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "nodeplan/requirements.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::disruption {

struct SimulatedNodeClaim {
  // As the scheduler rendered it (options cheapest first).
  v1::NewNodeClaim claim;
  int pool = -1;  // ClusterView::pools() index
  // Indices into the NodePool's catalog, in claim.instance_types order.
  std::vector<int> options;
  // The NodeClaim's requirements, over the view's interner.
  Requirements requirements;
};

struct SimulationResult {
  bool all_non_pending_scheduled = true;
  // Karpenter's NonPendingPodSchedulingErrors text (pods sorted by key).
  std::string errors;
  std::vector<SimulatedNodeClaim> new_claims;
  // The moved pods (candidates' and deleting nodes') placed on existing
  // capacity, per node.
  std::vector<v1::ExistingNodePlacement> existing;
};

class Simulator {
 public:
  virtual ~Simulator() = default;
  // `candidates`: ClusterView node indices to take away. `consolidation`:
  // enforce the consolidateAfter destination rule.
  virtual absl::StatusOr<SimulationResult> Simulate(
      absl::Span<const int> candidates, bool consolidation) = 0;
};

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_SIMULATOR_H_
