#include "validation/requirement_rules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "validation/k8s_validation.h"

namespace nodeplan::validation {
namespace {

// Karpenter prints these from a Go set (unordered); nodeplan sorts them.
const std::vector<std::string>& KnownCapacityTypes() {
  static const auto* values =
      new std::vector<std::string>{"on-demand", "reserved", "spot"};
  return *values;
}

const std::vector<absl::string_view>& Operators() {
  static const auto* ops = new std::vector<absl::string_view>{
      "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"};
  return *ops;
}

bool IsOperator(absl::string_view op) {
  return std::find(Operators().begin(), Operators().end(), op) !=
         Operators().end();
}

bool IsComparison(absl::string_view op) {
  return op == "Gt" || op == "Lt" || op == "Gte" || op == "Lte";
}

std::vector<std::string> Values(const v1::NodeSelectorRequirement& r) {
  return {r.values().begin(), r.values().end()};
}

}  // namespace

bool IsWellKnownLabel(absl::string_view key) {
  for (absl::string_view k : labels::KarpenterWellKnownLabels()) {
    if (k == key) return true;
  }
  return false;
}

absl::string_view NormalizeLabelKey(absl::string_view key) {
  return labels::NormalizeLabelKey(key);
}

std::string RestrictedLabelError(absl::string_view key) {
  // Karpenter core's well-known set: a provider's extra keys never fall in the
  // restricted domain, so they only lengthen the message.
  Interner interner;
  const WellKnownLabels well_known(interner);
  absl::Status status = IsRestrictedLabel(key, well_known);
  return status.ok() ? "" : std::string(status.message());
}

absl::string_view CelLabelDomain(absl::string_view key) {
  return key.substr(0, key.find('/'));
}

std::vector<std::string> KarpenterRequirementErrors(
    const v1::NodeSelectorRequirement& requirement) {
  std::vector<std::string> errs;
  const std::string key(NormalizeLabelKey(requirement.key()));
  const std::string& op = requirement.operator_();
  if (!IsOperator(op)) {
    errs.push_back(absl::StrCat(
        "key ", key, " has an unsupported operator ", op, " not in ",
        GoList({Operators().begin(), Operators().end()})));
  }
  if (std::string e = RestrictedLabelError(key); !e.empty()) {
    errs.push_back(std::move(e));
  }
  // validateWellKnownValues: only capacity-type has a known value set.
  if (key == labels::kCapacityType && op == "In") {
    int valid = 0;
    std::vector<std::string> invalid;
    for (const std::string& v : requirement.values()) {
      if (std::find(KnownCapacityTypes().begin(), KnownCapacityTypes().end(),
                    v) != KnownCapacityTypes().end()) {
        ++valid;
      } else {
        invalid.push_back(v);
      }
    }
    if (valid == 0) {
      errs.push_back(absl::StrCat(
          "no valid values found in ", GoList(Values(requirement)), " for ",
          key, ", expected one of: ", GoList(KnownCapacityTypes()),
          ", got: ", GoList(invalid)));
    } else if (requirement.has_min_values() &&
               valid < requirement.min_values()) {
      errs.push_back(absl::StrCat(
          "not enough valid values found in ", GoList(Values(requirement)),
          " for ", key, ", expected at least ", requirement.min_values(),
          " valid values from: ", GoList(KnownCapacityTypes()),
          ", got: ", valid));
    }
  }
  for (const std::string& e : IsQualifiedName(key)) {
    errs.push_back(absl::StrCat("key ", key, " is not a qualified name, ", e));
  }
  for (const std::string& value : requirement.values()) {
    for (const std::string& e : IsValidLabelValue(value)) {
      errs.push_back(
          absl::StrCat("invalid value ", value, " for key ", key, ", ", e));
    }
  }
  if (op == "In" && requirement.values().empty()) {
    errs.push_back(absl::StrCat("key ", key, " with operator ", op,
                                " must have a value defined"));
  }
  if (op == "In" && requirement.has_min_values() &&
      requirement.values_size() < requirement.min_values()) {
    errs.push_back(absl::StrCat(
        "key ", key, " with operator ", op,
        " must have at least minimum number of values defined in 'values' "
        "field"));
  }
  if (IsComparison(op) && (requirement.values_size() != 1 ||
                           !IsNonNegativeInteger(requirement.values(0)))) {
    errs.push_back(absl::StrCat("key ", key, " with operator ", op,
                                " must have a single positive integer value"));
  }
  return errs;
}

void CheckCrdRequirements(
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>&
        requirements,
    absl::string_view path, RequirementsOwner owner, Violations* violations) {
  if (requirements.size() > 100) {
    violations->TooMany(path, requirements.size(), 100);
  }
  for (int i = 0; i < requirements.size(); ++i) {
    const v1::NodeSelectorRequirement& r = requirements[i];
    const std::string at = absl::StrCat(path, "[", i, "]");
    const std::string key_path = absl::StrCat(at, ".key");
    const std::string& key = r.key();
    if (key.empty()) {
      violations->Required(key_path);
    } else {
      if (key.size() > 316) violations->TooLong(key_path, 316);
      if (!MatchesQualifiedKey(key)) {
        violations->Pattern(key_path, key, kQualifiedKeyPattern);
      }
      if (key != labels::kCapacityType && key != labels::kNodePool &&
          absl::EndsWith(CelLabelDomain(key), "karpenter.sh")) {
        violations->Add(key_path,
                        "label domain \"karpenter.sh\" is restricted");
      }
      if (owner == RequirementsOwner::kNodePool && key == labels::kNodePool) {
        violations->Add(key_path,
                        "label \"karpenter.sh/nodepool\" is restricted");
      }
      if (key == labels::kHostname) {
        violations->Add(key_path,
                        "label \"kubernetes.io/hostname\" is restricted");
      }
    }
    const std::string op_path = absl::StrCat(at, ".operator");
    const std::string& op = r.operator_();
    if (op.empty()) {
      violations->Required(op_path);
    } else if (!IsOperator(op)) {
      violations->Unsupported(op_path, op, Operators());
    }
    for (int j = 0; j < r.values_size(); ++j) {
      const std::string value_path = absl::StrCat(at, ".values[", j, "]");
      if (r.values(j).size() > 63) violations->TooLong(value_path, 63);
      if (!MatchesLabelValue(r.values(j))) {
        violations->Pattern(value_path, r.values(j), kLabelValuePattern);
      }
    }
    if (r.has_min_values()) {
      const std::string mv_path = absl::StrCat(at, ".minValues");
      if (owner == RequirementsOwner::kNodeOverlay) {
        // NodeOverlay requirements have no minValues field: the API server
        // prunes it (strict field validation names it). Say so rather than
        // drop it silently.
        violations->Add(mv_path,
                        absl::StrCat("unknown field \"", mv_path, "\""));
      } else if (r.min_values() < 1) {
        violations->Minimum(mv_path, r.min_values(), 1);
      } else if (r.min_values() > 50) {
        violations->Maximum(mv_path, r.min_values(), 50);
      }
    }
    // The list-level CEL rules.
    const std::string values_path = absl::StrCat(at, ".values");
    if (owner == RequirementsOwner::kNodeOverlay && op == "NotIn" &&
        r.values().empty()) {
      violations->Add(values_path,
                      "requirements with operator 'NotIn' must have a value "
                      "defined");
    }
    if (op == "In" && r.values().empty()) {
      violations->Add(values_path,
                      "requirements with operator 'In' must have a value "
                      "defined");
    }
    if (IsComparison(op) &&
        (r.values_size() != 1 || !IsNonNegativeInteger(r.values(0)))) {
      violations->Add(
          values_path,
          owner == RequirementsOwner::kNodeOverlay
              ? "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have "
                "a single positive integer value"
              : "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have "
                "a single positive integer value");
    }
    if (owner != RequirementsOwner::kNodeOverlay && op == "In" &&
        r.has_min_values() && r.values_size() < r.min_values()) {
      violations->Add(absl::StrCat(at, ".minValues"),
                      "requirements with 'minValues' must have at least that "
                      "many values specified in the 'values' field");
    }
  }
}

void CheckWellKnownValues(const google::protobuf::RepeatedPtrField<
                              v1::NodeSelectorRequirement>& requirements,
                          absl::string_view path, Violations* violations) {
  for (int i = 0; i < requirements.size(); ++i) {
    const v1::NodeSelectorRequirement& r = requirements[i];
    if (NormalizeLabelKey(r.key()) != labels::kCapacityType) continue;
    for (const std::string& e : KarpenterRequirementErrors(r)) {
      if (absl::StartsWith(e, "no valid values") ||
          absl::StartsWith(e, "not enough valid values")) {
        violations->Add(absl::StrCat(path, "[", i, "].values"), e);
      }
    }
  }
}

}  // namespace nodeplan::validation
