// Conversions between Requirements and Kubernetes / Karpenter shapes.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "nodeplan/requirements.h"

namespace nodeplan {
namespace {

bool IsOneOf(absl::string_view key, absl::Span<const absl::string_view> set) {
  return std::find(set.begin(), set.end(), key) != set.end();
}

absl::Status AddTerm(const v1::NodeSelectorTerm& term, Interner& interner,
                     absl::string_view path, Requirements* out) {
  for (int i = 0; i < term.match_expressions_size(); ++i) {
    absl::Status st = AddNodeSelectorRequirement(
        term.match_expressions(i), interner, /*use_min_values=*/false,
        absl::StrCat(path, ".matchExpressions[", i, "]"), *out);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddNodeSelectorRequirement(const v1::NodeSelectorRequirement& in,
                                        Interner& interner, bool use_min_values,
                                        absl::string_view path,
                                        Requirements& out) {
  std::optional<SelectorOperator> op = ParseSelectorOperator(in.operator_());
  if (!op.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".operator: unsupported operator \"", in.operator_(),
                     "\" for key \"", in.key(), "\""));
  }
  const LabelKeyId key =
      interner.InternKey(labels::NormalizeLabelKey(in.key()));
  std::optional<int32_t> min_values;
  if (use_min_values && in.has_min_values()) min_values = in.min_values();
  absl::InlinedVector<LabelValue, 4> values;
  switch (*op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      values.reserve(in.values_size());
      for (const std::string& v : in.values()) {
        values.push_back(interner.InternValue(v));
      }
      break;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt:
    case SelectorOperator::kGte:
    case SelectorOperator::kLte: {
      if (in.values_size() == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ".values: operator ", in.operator_(),
                         " on key \"", in.key(), "\" needs a value"));
      }
      // Only the integer operand matters; the text is not interned.
      LabelValue operand;
      operand.int_value = GoAtoiIgnoringError(in.values(0));
      values.push_back(operand);
      break;
    }
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      break;
  }
  out.Add(Requirement::Make(key, *op, values, min_values));
  return absl::OkStatus();
}

absl::StatusOr<Requirements> RequirementsFromNodeSelector(
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>&
        requirements,
    Interner& interner, bool use_min_values, absl::string_view field_path) {
  Requirements out;
  for (int i = 0; i < requirements.size(); ++i) {
    absl::Status st = AddNodeSelectorRequirement(
        requirements.Get(i), interner, use_min_values,
        absl::StrCat(field_path, "[", i, "]"), out);
    if (!st.ok()) return st;
  }
  return out;
}

Requirements RequirementsFromLabels(
    const google::protobuf::Map<std::string, std::string>& labels,
    Interner& interner) {
  Requirements out;
  for (const auto& [k, v] : labels) {
    LabelValue value = interner.InternValue(v);
    out.Add(Requirement::In(interner.InternKey(labels::NormalizeLabelKey(k)),
                            absl::MakeConstSpan(&value, 1)));
  }
  return out;
}

Requirements RequirementsFromLabels(const LabelSet& labels) {
  // The keys are used as interned (LabelSet holds real label keys).
  Requirements out;
  for (const auto& [key, value] : labels.entries()) {
    out.Add(Requirement::In(key, absl::MakeConstSpan(&value, 1)));
  }
  return out;
}

absl::StatusOr<Requirements> PodRequirements(const v1::PodSpec& spec,
                                             Interner& interner,
                                             PodRequirementsMode mode) {
  Requirements out = RequirementsFromLabels(spec.node_selector(), interner);
  if (!spec.has_affinity() || !spec.affinity().has_node_affinity()) return out;
  const v1::NodeAffinity& na = spec.affinity().node_affinity();
  if (mode == PodRequirementsMode::kAll &&
      na.preferred_during_scheduling_ignored_during_execution_size() > 0) {
    const auto& preferred =
        na.preferred_during_scheduling_ignored_during_execution();
    int heaviest = 0;
    for (int i = 1; i < preferred.size(); ++i) {
      if (preferred.Get(i).weight() > preferred.Get(heaviest).weight()) {
        heaviest = i;
      }
    }
    absl::Status st =
        AddTerm(preferred.Get(heaviest).preference(), interner,
                absl::StrCat("spec.affinity.nodeAffinity."
                             "preferredDuringSchedulingIgnoredDuringExecution[",
                             heaviest, "].preference"),
                &out);
    if (!st.ok()) return st;
  }
  if (na.has_required_during_scheduling_ignored_during_execution() &&
      na.required_during_scheduling_ignored_during_execution()
              .node_selector_terms_size() > 0) {
    absl::Status st = AddTerm(
        na.required_during_scheduling_ignored_during_execution()
            .node_selector_terms(0),
        interner,
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0]",
        &out);
    if (!st.ok()) return st;
  }
  return out;
}

v1::NodeSelectorRequirement ToNodeSelectorRequirement(const Requirement& r,
                                                      const Interner& names) {
  v1::NodeSelectorRequirement out;
  out.set_key(std::string(names.KeyText(r.key())));
  if (r.min_values().has_value()) out.set_min_values(*r.min_values());
  // Karpenter: a bound wins over the value list (a NotIn list on a bounded
  // requirement is not emitted).
  if (r.gte().has_value()) {
    out.set_operator_("Gte");
    out.add_values(absl::StrCat(*r.gte()));
    return out;
  }
  if (r.lte().has_value()) {
    out.set_operator_("Lte");
    out.add_values(absl::StrCat(*r.lte()));
    return out;
  }
  out.set_operator_(std::string(SelectorOperatorName(r.Operator())));
  for (absl::string_view v : r.SortedValueTexts(names)) {
    out.add_values(std::string(v));
  }
  return out;
}

std::vector<v1::NodeSelectorRequirement> ToNodeSelectorRequirements(
    const Requirements& requirements, const Interner& names) {
  std::vector<const Requirement*> sorted;
  for (const Requirement& r : requirements) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [&](const Requirement* a, const Requirement* b) {
              return names.KeyText(a->key()) < names.KeyText(b->key());
            });
  std::vector<v1::NodeSelectorRequirement> out;
  out.reserve(sorted.size());
  for (const Requirement* r : sorted) {
    if (r->gte().has_value() && r->lte().has_value()) {
      // BoundedNodeSelectorRequirements: Gte then Lte.
      out.push_back(ToNodeSelectorRequirement(*r, names));
      v1::NodeSelectorRequirement upper = out.back();
      upper.set_operator_("Lte");
      upper.clear_values();
      upper.add_values(absl::StrCat(*r->lte()));
      out.push_back(std::move(upper));
    } else {
      out.push_back(ToNodeSelectorRequirement(*r, names));
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> RequirementLabels(
    const Requirements& requirements, const WellKnownLabels& well_known,
    const Interner& names) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Requirement& r : requirements) {
    absl::string_view key = names.KeyText(r.key());
    if (well_known.Contains(r.key()) ||
        IsOneOf(key, labels::RestrictedLabels()) ||
        IsOneOf(key, labels::SchedulingSimulationKeys())) {
      continue;
    }
    std::string value = r.Any(names);
    if (!value.empty()) out.emplace_back(std::string(key), std::move(value));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nodeplan
