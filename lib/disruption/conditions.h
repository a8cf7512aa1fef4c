#ifndef NODEPLAN_LIB_DISRUPTION_CONDITIONS_H_
#define NODEPLAN_LIB_DISRUPTION_CONDITIONS_H_

// What Karpenter's NodeClaim disruption controller (Consolidatable, Drifted)
// and NodePool hash controller compute at `now`
// (pkg/controllers/nodeclaim/disruption/{consolidation,drift}.go,
// pkg/controllers/nodepool/hash/controller.go). The disruption methods read
// these conditions as the controllers would have just written them.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "disruption/cluster_view.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::disruption {

struct ClaimConditions {
  // The controller ran for this NodeClaim (managed, not deleting, with an
  // existing NodePool); otherwise the input's conditions stand.
  bool reconciled = false;
  bool consolidatable = false;
  // While consolidateAfter runs: when it becomes consolidatable.
  std::optional<absl::Time> consolidatable_at;
  bool drifted = false;
  std::string drift_reason;
  // Drifted's lastTransitionTime (kept when it was already True).
  absl::Time drifted_since;
};

struct ConditionsResult {
  // Per state node (ClusterView::nodes() order); unmanaged nodes default.
  std::vector<ClaimConditions> nodes;
  // Rendered, per NodeClaim sorted by name.
  std::vector<v1::NodeClaimConditions> rendered;
  // The hash controller's writes: NodePools in input order, then NodeClaims.
  std::vector<v1::AnnotationWrite> annotations;
};

ConditionsResult ComputeConditions(const ClusterView& view);

// Karpenter's IsUnderConsolidateAfter for the NodeClaim of state node
// `node` (its NodePool by the node's label): consolidateAfter is set and
// not 0s, the NodeClaim is initialized, and less than consolidateAfter has
// passed since its last pod event (else its initialization). When true,
// *until (if not null) is when the window closes.
bool UnderConsolidateAfter(const ClusterView& view, int node,
                           absl::Time* until = nullptr);

// Expiration (pkg/controllers/nodeclaim/expiration): per non-deleting
// NodeClaim with an expireAfter (absent: the CRD default 720h; "Never":
// none) and a creationTimestamp, sorted by NodeClaim name.
std::vector<v1::Expiration> ComputeExpirations(const ClusterView& view);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_CONDITIONS_H_
