#ifndef NODEPLAN_LIB_VALIDATION_REQUIREMENT_RULES_H_
#define NODEPLAN_LIB_VALIDATION_REQUIREMENT_RULES_H_

// Requirement checks shared by NodePools, NodeClaims, NodeOverlays and pods:
// the CRD schema and CEL rules on a requirements list, and Karpenter's own
// ValidateRequirement (pkg/apis/v1/nodeclaim_validation.go), which it runs on
// NodePools at run time and on every pending pod's node selector and required
// node affinity before scheduling.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/labels.h"
#include "nodeplan/v1/k8s.pb.h"
#include "validation/violations.h"

namespace nodeplan::validation {

// Karpenter core's well-known labels (labels.go WellKnownLabels).
bool IsWellKnownLabel(absl::string_view key);

// The beta alias a key normalizes to (labels::kArchBeta ->
// labels::kArch), or the key itself.
absl::string_view NormalizeLabelKey(absl::string_view key);

// IsRestrictedLabel: "" when `key` may be used, else Karpenter's message.
std::string RestrictedLabelError(absl::string_view key);

// The part of a key before the first '/', as CEL's find("^([^/]+)") returns
// it (the whole key when there is no '/'; "" when it starts with '/').
absl::string_view CelLabelDomain(absl::string_view key);

// Karpenter's ValidateRequirement, one message per problem, in Karpenter's
// order. `min_values` is honoured when set.
std::vector<std::string> KarpenterRequirementErrors(
    const v1::NodeSelectorRequirement& requirement);

// Which CRD a requirements list belongs to: the key and list rules differ.
enum class RequirementsOwner { kNodePool, kNodeClaim, kNodeOverlay };

// The CRD's schema + CEL rules on `requirements` at `path`
// ("spec.template.spec.requirements"). List-level CEL rules are reported at
// the offending element's field (the API server names only the list).
void CheckCrdRequirements(
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>&
        requirements,
    absl::string_view path, RequirementsOwner owner, Violations* violations);

// Karpenter's run-time check that a capacity-type `In` requirement names a
// known capacity type (NodePools and NodeOverlays; the NodePool is not
// Ready otherwise).
void CheckWellKnownValues(const google::protobuf::RepeatedPtrField<
                              v1::NodeSelectorRequirement>& requirements,
                          absl::string_view path, Violations* violations);

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_REQUIREMENT_RULES_H_
