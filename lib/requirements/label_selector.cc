// metav1.LabelSelector compiled over interned labels.

#include "nodeplan/label_selector.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeplan {
namespace {

bool ContainsId(const absl::InlinedVector<LabelValueId, 2>& values,
                LabelValueId id) {
  return std::binary_search(values.begin(), values.end(), id);
}

}  // namespace

CompiledLabelSelector CompiledLabelSelector::Everything() {
  CompiledLabelSelector s;
  s.nothing_ = false;
  return s;
}

absl::StatusOr<CompiledLabelSelector> CompiledLabelSelector::Compile(
    const v1::LabelSelector* selector, Interner& interner,
    absl::string_view field_path) {
  CompiledLabelSelector out;
  if (selector == nullptr) return out;
  out.nothing_ = false;
  for (const auto& [k, v] : selector->match_labels()) {
    Term t;
    t.key = interner.InternKey(k);
    t.op = Op::kIn;
    t.values.push_back(interner.InternValue(v).id);
    out.terms_.push_back(std::move(t));
  }
  for (int i = 0; i < selector->match_expressions_size(); ++i) {
    const v1::LabelSelectorRequirement& e = selector->match_expressions(i);
    const std::string path =
        absl::StrCat(field_path, ".matchExpressions[", i, "]");
    Term t;
    const std::string& op = e.operator_();
    if (op == "In") {
      t.op = Op::kIn;
    } else if (op == "NotIn") {
      t.op = Op::kNotIn;
    } else if (op == "Exists") {
      t.op = Op::kExists;
    } else if (op == "DoesNotExist") {
      t.op = Op::kDoesNotExist;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".operator: \"", op,
                       "\" is not a valid label selector operator"));
    }
    const bool needs_values = t.op == Op::kIn || t.op == Op::kNotIn;
    if (needs_values && e.values_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          path,
          ".values: Invalid value: []string{}: for 'in', 'notin' operators, "
          "values set can't be empty"));
    }
    if (!needs_values && e.values_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".values: Invalid value: [", absl::StrJoin(e.values(), " "),
          "]: values set must be empty for exists and does not exist"));
    }
    t.key = interner.InternKey(e.key());
    for (const std::string& v : e.values()) {
      t.values.push_back(interner.InternValue(v).id);
    }
    std::sort(t.values.begin(), t.values.end());
    t.values.erase(std::unique(t.values.begin(), t.values.end()),
                   t.values.end());
    out.terms_.push_back(std::move(t));
  }
  std::stable_sort(out.terms_.begin(), out.terms_.end(),
                   [](const Term& a, const Term& b) { return a.key < b.key; });
  return out;
}

void CompiledLabelSelector::AddIn(LabelKeyId key, LabelValueId value) {
  nothing_ = false;
  Term t;
  t.key = key;
  t.op = Op::kIn;
  t.values.push_back(value);
  auto it = std::upper_bound(
      terms_.begin(), terms_.end(), key,
      [](LabelKeyId k, const Term& term) { return k < term.key; });
  terms_.insert(it, std::move(t));
}

bool CompiledLabelSelector::Matches(const LabelSet& labels) const {
  if (nothing_) return false;
  for (const Term& t : terms_) {
    const LabelValue* v = labels.Find(t.key);
    switch (t.op) {
      case Op::kIn:
        if (v == nullptr || !ContainsId(t.values, v->id)) return false;
        break;
      case Op::kNotIn:
        if (v != nullptr && ContainsId(t.values, v->id)) return false;
        break;
      case Op::kExists:
        if (v == nullptr) return false;
        break;
      case Op::kDoesNotExist:
        if (v != nullptr) return false;
        break;
    }
  }
  return true;
}

}  // namespace nodeplan
