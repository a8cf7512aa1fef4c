#ifndef NODEPLAN_LIB_VALIDATION_K8S_VALIDATION_H_
#define NODEPLAN_LIB_VALIDATION_K8S_VALIDATION_H_

// Kubernetes' name and value validators (k8s.io/apimachinery
// pkg/util/validation) with their exact error texts, and hand-written
// matchers for the OpenAPI `pattern`s of Karpenter's CRDs. The matchers accept
// exactly what the CRD regular expressions accept (Go RE2 search semantics);
// they are hand-written so that no input length can blow a regex engine's
// stack.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace nodeplan::validation {

// IsQualifiedName: "[prefix/]name" label and taint keys.
std::vector<std::string> IsQualifiedName(absl::string_view value);
// IsValidLabelValue: empty, or up to 63 name characters.
std::vector<std::string> IsValidLabelValue(absl::string_view value);
// IsDNS1123Subdomain.
std::vector<std::string> IsDNS1123Subdomain(absl::string_view value);
// The same answers as `Is...(value).empty()`, without allocating: checks run
// on every pod of every call and build messages only for a refused value.
bool ValidQualifiedName(absl::string_view value);
bool ValidLabelValue(absl::string_view value);

// The CRD patterns, spelled as the API server prints them.
inline constexpr absl::string_view kQualifiedKeyPattern =
    R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$)";
inline constexpr absl::string_view kLabelValuePattern =
    R"(^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$)";
inline constexpr absl::string_view kDurationOrNeverPattern =
    R"(^(([0-9]+(s|m|h))+|Never)$)";
inline constexpr absl::string_view kDurationPattern = R"(^([0-9]+(s|m|h))+$)";
inline constexpr absl::string_view kBudgetDurationPattern =
    R"(^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$)";
inline constexpr absl::string_view kBudgetNodesPattern =
    R"(^((100|[0-9]{1,2})%|[0-9]+)$)";
inline constexpr absl::string_view kSchedulePattern =
    R"(^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$)";
inline constexpr absl::string_view kQuantityPattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";
inline constexpr absl::string_view kGroupPattern = R"(^[^/]*$)";
inline constexpr absl::string_view kPricePattern = R"(^\d+(\.\d+)?$)";
inline constexpr absl::string_view kPriceAdjustmentPattern =
    R"(^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$)";

bool MatchesQualifiedKey(absl::string_view s);
bool MatchesLabelValue(absl::string_view s);
bool MatchesDurationOrNever(absl::string_view s);
bool MatchesDuration(absl::string_view s);
bool MatchesBudgetDuration(absl::string_view s);
bool MatchesBudgetNodes(absl::string_view s);
bool MatchesSchedulePattern(absl::string_view s);
bool MatchesQuantity(absl::string_view s);
bool MatchesGroup(absl::string_view s);
bool MatchesPrice(absl::string_view s);
bool MatchesPriceAdjustment(absl::string_view s);

// Parses a budget schedule the way Karpenter does at run time
// (robfig/cron ParseStandard: five fields or an @descriptor). Returns "" when
// valid, else the parser's complaint.
std::string CronError(absl::string_view schedule);

// Go's strconv.Atoi accepts it and the value is >= 0 (also CEL's int()).
bool IsNonNegativeInteger(absl::string_view s);

// Go's %v of a []string: "[a b c]".
std::string GoList(const std::vector<std::string>& items);

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_K8S_VALIDATION_H_
