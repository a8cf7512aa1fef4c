#ifndef NODEPLAN_LIB_VALIDATION_KARPENTER_OBJECTS_H_
#define NODEPLAN_LIB_VALIDATION_KARPENTER_OBJECTS_H_

// The API server's checks of Karpenter's CRDs (OpenAPI schema + CEL rules in
// pkg/apis/crds/*.yaml) plus the run-time checks Karpenter applies to a
// NodePool (RuntimeValidate) and a NodeOverlay, each reported with its field
// path.

#include "nodeplan/v1/karpenter.pb.h"
#include "validation/violations.h"

namespace nodeplan::validation {

void CheckNodePool(const v1::NodePool& node_pool, Violations* violations);
void CheckNodeClaim(const v1::NodeClaim& node_claim, Violations* violations);
void CheckNodeOverlay(const v1::NodeOverlay& overlay, Violations* violations);

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_KARPENTER_OBJECTS_H_
