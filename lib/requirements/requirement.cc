// Requirement: one label key (Karpenter pkg/scheduling/requirement.go).

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/requirements.h"

namespace nodeplan {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

bool IdLess(const LabelValue& a, const LabelValue& b) { return a.id < b.id; }

bool Within(const LabelValue& v, const std::optional<int64_t>& gte,
            const std::optional<int64_t>& lte) {
  if (!gte.has_value() && !lte.has_value()) return true;
  // With a bound set, non-integers never qualify.
  if (!v.is_int) return false;
  if (gte.has_value() && v.int_value < *gte) return false;
  if (lte.has_value() && v.int_value > *lte) return false;
  return true;
}

template <typename Vec>
bool ContainsId(const Vec& values, LabelValueId id) {
  auto it = std::lower_bound(
      values.begin(), values.end(), id,
      [](const LabelValue& v, LabelValueId x) { return v.id < x; });
  return it != values.end() && it->id == id;
}

std::optional<int64_t> MaxOpt(const std::optional<int64_t>& a,
                              const std::optional<int64_t>& b) {
  if (!a.has_value()) return b;
  if (!b.has_value()) return a;
  return std::max(*a, *b);
}
std::optional<int64_t> MinOpt(const std::optional<int64_t>& a,
                              const std::optional<int64_t>& b) {
  if (!a.has_value()) return b;
  if (!b.has_value()) return a;
  return std::min(*a, *b);
}
std::optional<int32_t> MaxOpt32(const std::optional<int32_t>& a,
                                const std::optional<int32_t>& b) {
  if (!a.has_value()) return b;
  if (!b.has_value()) return a;
  return std::max(*a, *b);
}

// Go's wrapping int arithmetic.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

}  // namespace

std::optional<SelectorOperator> ParseSelectorOperator(absl::string_view text) {
  if (text == "In") return SelectorOperator::kIn;
  if (text == "NotIn") return SelectorOperator::kNotIn;
  if (text == "Exists") return SelectorOperator::kExists;
  if (text == "DoesNotExist") return SelectorOperator::kDoesNotExist;
  if (text == "Gt") return SelectorOperator::kGt;
  if (text == "Lt") return SelectorOperator::kLt;
  if (text == "Gte") return SelectorOperator::kGte;
  if (text == "Lte") return SelectorOperator::kLte;
  return std::nullopt;
}

absl::string_view SelectorOperatorName(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kIn:
      return "In";
    case SelectorOperator::kNotIn:
      return "NotIn";
    case SelectorOperator::kExists:
      return "Exists";
    case SelectorOperator::kDoesNotExist:
      return "DoesNotExist";
    case SelectorOperator::kGt:
      return "Gt";
    case SelectorOperator::kLt:
      return "Lt";
    case SelectorOperator::kGte:
      return "Gte";
    case SelectorOperator::kLte:
      return "Lte";
  }
  return "";
}

Requirement Requirement::Make(LabelKeyId key, SelectorOperator op,
                              absl::Span<const LabelValue> values,
                              std::optional<int32_t> min_values) {
  Requirement r;
  r.key_ = key;
  r.set_min_values(min_values);
  const int64_t operand = values.empty() ? 0 : values[0].int_value;
  switch (op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      r.complement_ = op == SelectorOperator::kNotIn;
      r.values_.assign(values.begin(), values.end());
      std::sort(r.values_.begin(), r.values_.end(), IdLess);
      r.values_.erase(std::unique(r.values_.begin(), r.values_.end()),
                      r.values_.end());
      break;
    case SelectorOperator::kExists:
      r.complement_ = true;
      break;
    case SelectorOperator::kDoesNotExist:
      r.complement_ = false;
      break;
    case SelectorOperator::kGt:
      if (operand == kMaxInt64) return DoesNotExist(key);
      r.complement_ = true;
      r.set_gte(operand + 1);
      break;
    case SelectorOperator::kLt:
      r.complement_ = true;
      r.set_lte(WrapAdd(operand, -1));
      break;
    case SelectorOperator::kGte:
      r.complement_ = true;
      r.set_gte(operand);
      break;
    case SelectorOperator::kLte:
      r.complement_ = true;
      r.set_lte(operand);
      break;
  }
  return r;
}

Requirement Requirement::In(LabelKeyId key,
                            absl::Span<const LabelValue> values) {
  return Make(key, SelectorOperator::kIn, values);
}
Requirement Requirement::NotIn(LabelKeyId key,
                               absl::Span<const LabelValue> values) {
  return Make(key, SelectorOperator::kNotIn, values);
}
Requirement Requirement::Exists(LabelKeyId key) {
  Requirement r;
  r.key_ = key;
  r.complement_ = true;
  return r;
}
Requirement Requirement::DoesNotExist(LabelKeyId key) {
  Requirement r;
  r.key_ = key;
  r.complement_ = false;
  return r;
}
Requirement Requirement::Gte(LabelKeyId key, int64_t n) {
  Requirement r = Exists(key);
  r.set_gte(n);
  return r;
}
Requirement Requirement::Lte(LabelKeyId key, int64_t n) {
  Requirement r = Exists(key);
  r.set_lte(n);
  return r;
}

SelectorOperator Requirement::Operator() const {
  if (complement_) {
    return values_.empty() ? SelectorOperator::kExists
                           : SelectorOperator::kNotIn;
  }
  return values_.empty() ? SelectorOperator::kDoesNotExist
                         : SelectorOperator::kIn;
}

int64_t Requirement::Len() const {
  const int64_t n = static_cast<int64_t>(values_.size());
  return complement_ ? kMaxInt64 - n : n;
}

bool Requirement::Has(const LabelValue& value) const {
  const bool listed = ContainsId(values_, value.id);
  return (complement_ ? !listed : listed) && Within(value, gte(), lte());
}

bool Requirement::HasIntersection(const Requirement& other) const {
  const std::optional<int64_t> gte = MaxOpt(this->gte(), other.gte());
  const std::optional<int64_t> lte = MinOpt(this->lte(), other.lte());
  if (gte.has_value() && lte.has_value() && *gte > *lte) return false;
  if (complement_ && other.complement_) return true;
  if (complement_ || other.complement_) {
    const Requirement& excluding = complement_ ? *this : other;
    const Requirement& concrete = complement_ ? other : *this;
    for (const LabelValue& v : concrete.values_) {
      if (!ContainsId(excluding.values_, v.id) && Within(v, gte, lte)) {
        return true;
      }
    }
    return false;
  }
  // Both concrete: merge the sorted id lists.
  auto a = values_.begin(), ae = values_.end();
  auto b = other.values_.begin(), be = other.values_.end();
  while (a != ae && b != be) {
    if (a->id < b->id) {
      ++a;
    } else if (b->id < a->id) {
      ++b;
    } else {
      if (Within(*a, gte, lte)) return true;
      ++a;
      ++b;
    }
  }
  return false;
}

Requirement Requirement::Intersection(const Requirement& other) const {
  Requirement r;
  r.key_ = key_;
  r.complement_ = complement_ && other.complement_;
  std::optional<int64_t> gte = MaxOpt(this->gte(), other.gte());
  std::optional<int64_t> lte = MinOpt(this->lte(), other.lte());
  r.set_min_values(MaxOpt32(min_values(), other.min_values()));
  if (gte.has_value() && lte.has_value() && *gte > *lte) {
    r.complement_ = false;  // DoesNotExist, keeping the merged minValues.
    return r;
  }
  const auto& av = values_;
  const auto& bv = other.values_;
  auto keep = [&](const LabelValue& v) {
    if (Within(v, gte, lte)) r.values_.push_back(v);
  };
  if (complement_ && other.complement_) {
    // Union of the excluded sets.
    auto a = av.begin(), b = bv.begin();
    while (a != av.end() || b != bv.end()) {
      if (b == bv.end() || (a != av.end() && a->id < b->id)) {
        keep(*a++);
      } else if (a == av.end() || b->id < a->id) {
        keep(*b++);
      } else {
        keep(*a);
        ++a;
        ++b;
      }
    }
  } else if (complement_ || other.complement_) {
    const auto& excluded = complement_ ? av : bv;
    const auto& concrete = complement_ ? bv : av;
    for (const LabelValue& v : concrete) {
      if (!ContainsId(excluded, v.id)) keep(v);
    }
  } else {
    auto a = av.begin(), b = bv.begin();
    while (a != av.end() && b != bv.end()) {
      if (a->id < b->id) {
        ++a;
      } else if (b->id < a->id) {
        ++b;
      } else {
        keep(*a);
        ++a;
        ++b;
      }
    }
  }
  if (r.complement_) {
    r.set_gte(gte);
    r.set_lte(lte);
  }
  return r;
}

std::vector<absl::string_view> Requirement::SortedValueTexts(
    const Interner& names) const {
  std::vector<absl::string_view> out;
  out.reserve(values_.size());
  for (const LabelValue& v : values_) out.push_back(names.ValueText(v.id));
  std::sort(out.begin(), out.end());
  return out;
}

std::string Requirement::Any(const Interner& names) const {
  switch (Operator()) {
    case SelectorOperator::kIn: {
      absl::string_view best = names.ValueText(values_[0].id);
      for (const LabelValue& v : values_) {
        best = std::min(best, names.ValueText(v.id));
      }
      return std::string(best);
    }
    case SelectorOperator::kNotIn:
    case SelectorOperator::kExists: {
      int64_t lo = 0;
      const std::optional<int64_t> gte = this->gte(), lte = this->lte();
      if (gte.has_value()) {
        lo = *gte;
      } else if (lte.has_value() && *lte < 0) {
        lo = *lte;
      }
      const int64_t hi = lte.value_or(kMaxInt64);
      // At most values_.size() + 1 candidates are needed.
      for (int64_t candidate = lo;; ++candidate) {
        bool excluded = false;
        for (const LabelValue& v : values_) {
          if (v.canonical_int && v.int_value == candidate) excluded = true;
        }
        if (!excluded || candidate >= hi) return absl::StrCat(candidate);
      }
    }
    default:
      return "";
  }
}

std::string Requirement::String(const Interner& names) const {
  const SelectorOperator op = Operator();
  std::string s;
  if (op == SelectorOperator::kExists ||
      op == SelectorOperator::kDoesNotExist) {
    s = absl::StrCat(names.KeyText(key_), " ", SelectorOperatorName(op));
  } else {
    std::vector<absl::string_view> texts = SortedValueTexts(names);
    std::string list;
    if (texts.size() > 5) {
      list = absl::StrCat(absl::StrJoin(texts.begin(), texts.begin() + 5, " "),
                          " and ", texts.size() - 5, " others");
    } else {
      list = absl::StrJoin(texts, " ");
    }
    s = absl::StrCat(names.KeyText(key_), " ", SelectorOperatorName(op), " [",
                     list, "]");
  }
  if (flags_ & kHasGte) absl::StrAppend(&s, " >=", gte_);
  if (flags_ & kHasLte) absl::StrAppend(&s, " <=", lte_);
  if (flags_ & kHasMinValues) absl::StrAppend(&s, " minValues ", min_values_);
  return s;
}

bool operator==(const Requirement& a, const Requirement& b) {
  // The setters store 0 for an unset integer, so the fields compare as the
  // optionals would.
  return a.key_ == b.key_ && a.complement_ == b.complement_ &&
         a.flags_ == b.flags_ && a.values_ == b.values_ && a.gte_ == b.gte_ &&
         a.lte_ == b.lte_ && a.min_values_ == b.min_values_;
}

}  // namespace nodeplan
