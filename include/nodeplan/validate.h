#ifndef NODEPLAN_VALIDATE_H_
#define NODEPLAN_VALIDATE_H_

// NodePool, NodeClaim and NodeOverlay validation as the API server applies
// Karpenter's CRD schema and CEL rules, and pod checks Karpenter makes before
// scheduling. Every violation is reported with its field path.

#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan {

v1::ValidateResponse Validate(const v1::ManifestSet& manifests);

}  // namespace nodeplan

#endif  // NODEPLAN_VALIDATE_H_
