#ifndef NODEPLAN_HASH_H_
#define NODEPLAN_HASH_H_

// The `karpenter.sh/nodepool-hash` annotation Karpenter writes on a NodePool
// and stamps on its NodeClaims (static drift: a NodeClaim whose hash differs
// from its NodePool's has drifted). Hash version "v3", reproduced bit for bit:
// FNV-1/64 over mitchellh/hashstructure v2 FormatV2 with SlicesAsSets,
// IgnoreZeroValue and ZeroNil, walking spec.template only.

#include <string>

#include "absl/status/statusor.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan {

// The value of `karpenter.sh/nodepool-hash-version` that NodePoolHash matches.
inline constexpr char kNodePoolHashVersion[] = "v3";

// The decimal (unsigned) hash of `node_pool.spec.template`, as Karpenter
// writes it. CRD defaults are applied first (an absent expireAfter is 720h;
// "Never" contributes nothing). Requirements, disruption, limits, weight and
// metadata never change it. Maps and lists listed in
// NodeClaimTemplate.present_empty_fields count as present-but-empty, as the
// API server stores them. Errors: an unparsable terminationGracePeriod or
// expireAfter, or an unparsable taint timeAdded, named by field path.
absl::StatusOr<std::string> NodePoolHash(const v1::NodePool& node_pool);

// The same hash of a template alone (what NodePoolHash walks).
absl::StatusOr<std::string> NodeClaimTemplateHash(
    const v1::NodeClaimTemplate& node_claim_template);

}  // namespace nodeplan

#endif  // NODEPLAN_HASH_H_
