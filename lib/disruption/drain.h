#ifndef NODEPLAN_LIB_DISRUPTION_DRAIN_H_
#define NODEPLAN_LIB_DISRUPTION_DRAIN_H_

// One pass of Karpenter's termination controller over each deleting Node
// (pkg/controllers/node/termination/controller.go, terminator/terminator.go):
// pods whose terminationGracePeriod deadline has passed are deleted with a
// shortened grace period (PDBs and do-not-disrupt bypassed); the others are
// evicted tier by tier (non-critical non-DaemonSet, non-critical DaemonSet,
// critical non-DaemonSet, critical DaemonSet), only the first non-empty tier
// per pass, each eviction admitted while its PDB allows.
//
// A Node is taken as deleting when it has a deletionTimestamp; one that
// lists finalizers, none of them Karpenter's termination finalizer, is left
// alone (a Node listed without finalizers is taken to carry it: it would
// already be gone otherwise). Volume attachments and the instance's
// own termination are not modelled: nodeRemoved means nothing is left to
// drain and the drain has been open (the NodeClaim's Drained condition
// Unknown) for Karpenter's minimum drain time of five seconds. A Node whose
// provider ID several NodeClaims carry is drained as one without NodeClaim,
// as the controller does.

#include <vector>

#include "disruption/cluster_view.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::disruption {

struct DrainResult {
  std::vector<v1::Drain> drains;  // by node name
  std::vector<v1::AnnotationWrite> annotations;
  // When a force-delete deadline next passes (for nextDecisionAt).
  std::optional<absl::Time> next_deadline;
};

DrainResult ComputeDrains(const ClusterView& view);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_DRAIN_H_
