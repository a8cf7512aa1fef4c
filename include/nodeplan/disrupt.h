#ifndef NODEPLAN_DISRUPT_H_
#define NODEPLAN_DISRUPT_H_

// The disruption decisions: which nodes Karpenter would remove or replace
// now, which NodeClaims expire, one drain pass of each deleting node, and why
// every other node stays. Semantics follow Karpenter (karpenter.sh/v1,
// pkg/controllers/disruption, nodeclaim/disruption, nodeclaim/expiration,
// node/termination, nodepool/hash); the deterministic rules chosen where
// Karpenter's order is undefined are listed in docs/DISRUPTION.md and in
// lib/disruption/engine.h.
//
// The pass:
//  1. Conditions at `now`: Consolidatable (consolidateAfter from the last pod
//     event, else the initialization) and Drifted (NodePool hash and hash
//     version, requirements, instance type not found, the provider's
//     answer in providerDrifted), as the NodeClaim disruption controller
//     would set them; the NodePool hash controller's annotation writes.
//  2. Budgets per NodePool and reason (Empty, Drifted, Underutilized):
//     active schedules (UTC cron + duration), percentages rounded up,
//     NotReady and deleting nodes subtracted, any malformed budget fails
//     closed.
//  3. Candidates per class (graceful: emptiness and consolidation; eventual:
//     drift), then the methods Emptiness, StaticDrift, Drift,
//     MultiNodeConsolidation, SingleNodeConsolidation; the first that
//     produces a command ends the pass. Consolidation and drift run the
//     provisioning scheduler as a simulation.
//  4. Expirations, drains and events, independent of the pass.
//
// Pure: no clock (DisruptRequest.now is required), no I/O; the same request
// bytes give the same response bytes (serialize deterministically), and the
// same objects in any order give the same bytes too: every list of the
// request is read in the canonical input order of nodeplan/schedule.h
// (podDisruptionBudgets by namespace, then name; markedForDeletion and
// nominated by value), as is ValidateCommandRequest.request. A node
// that cannot be disrupted is an answer (DisruptResponse.candidates says
// why), not an error; errors are bad input only, naming the object and the
// field.

#include "absl/status/statusor.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan {

absl::StatusOr<v1::DisruptResponse> Disrupt(const v1::DisruptRequest& request);

// Karpenter's 15-second re-validation of an emptiness or consolidation
// command against the cluster at a later time (request.request, typically
// now + 15s): every candidate must still be a candidate of the method, not
// nominated and within budget (emptiness keeps the candidates that still
// qualify), and a consolidation's simulation must give the same result (no
// new NodeClaim for a delete; exactly one whose options include the
// command's for a replace). Drift and static-drift commands are not
// validated by Karpenter and always come back valid. nodeplan's own
// optimized-consolidation proposal (DisruptResponse.optimized) is
// validated as a consolidation of its shape: its candidates as multi-node
// consolidation's, within the Underutilized budgets, and the simulation
// with the Optimized packing must still move every pod onto replacements
// costing no more than the command's, the command as given passing
// VerifyDisruption on the later cluster (docs/OPTIMIZE.md).
absl::StatusOr<v1::ValidateCommandResponse> ValidateCommand(
    const v1::ValidateCommandRequest& request);

}  // namespace nodeplan

#endif  // NODEPLAN_DISRUPT_H_
