#include "verify/label_domain.h"

#include <cctype>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/labels.h"

namespace nodeplan::verify_internal {
namespace {

bool IsBoundOp(const std::string& op) {
  return op == "Gt" || op == "Lt" || op == "Gte" || op == "Lte";
}

// The inclusive bounds an operator asks for; false for a malformed value.
bool BoundsOf(const Expr& e, std::optional<int64_t>& lo,
              std::optional<int64_t>& hi) {
  if (e.values.size() != 1) return false;
  const std::optional<int64_t> n = ParseGoInt64(e.values[0]);
  if (!n) return false;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // Karpenter turns Gt n into Gte n+1 and Lt n into Lte n-1 with Go's
  // wrapping ints: Gt MaxInt matches nothing (it says so), Lt MinInt wraps
  // to Lte MaxInt.
  if (e.op == "Gt") {
    if (*n == kMax) {
      lo = kMax;
      hi = kMin;
      return true;
    }
    lo = *n + 1;
  }
  if (e.op == "Gte") lo = *n;
  if (e.op == "Lt") hi = *n == kMin ? kMax : *n - 1;
  if (e.op == "Lte") hi = *n;
  return true;
}

bool InBounds(const std::string& value, std::optional<int64_t> lo,
              std::optional<int64_t> hi) {
  if (!lo && !hi) return true;
  const std::optional<int64_t> n = ParseGoInt64(value);
  if (!n) return false;
  return (!lo || *n >= *lo) && (!hi || *n <= *hi);
}

// Whether a concrete value passes a value test (In/NotIn/bounds).
bool ValuePasses(const std::string& v, const Expr& e) {
  if (e.op == "In") {
    for (const auto& x : e.values) {
      if (x == v) return true;
    }
    return false;
  }
  if (e.op == "NotIn") {
    for (const auto& x : e.values) {
      if (x == v) return false;
    }
    return true;
  }
  if (IsBoundOp(e.op)) {
    std::optional<int64_t> lo, hi;
    if (!BoundsOf(e, lo, hi)) return false;
    return InBounds(v, lo, hi);
  }
  return true;  // Exists
}

}  // namespace

std::optional<int64_t> ParseGoInt64(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  const bool negative = s[0] == '-';
  // Accumulate negatively so that the minimum int64 fits.
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const int digit = s[i] - '0';
    if (v < (std::numeric_limits<int64_t>::min() + digit) / 10) {
      return std::nullopt;
    }
    v = v * 10 - digit;
  }
  if (!negative) {
    if (v == std::numeric_limits<int64_t>::min()) return std::nullopt;
    v = -v;
  }
  return v;
}

Domain Domain::Fixed(const std::string& value) {
  Domain d;
  d.values = {value};
  return d;
}

Domain Domain::Absent() {
  Domain d;
  d.may_be_present = false;
  d.may_be_absent = true;
  return d;
}

Domain Domain::Unknown() {
  Domain d;
  d.may_be_absent = true;
  d.complement = true;
  return d;
}

bool Domain::Definitely(const Expr& e) const {
  if (Empty()) return false;
  if (e.op == "DoesNotExist") return !may_be_present;
  if (e.op == "NotIn") {
    if (!may_be_present) return true;
    if (!complement) {
      for (const auto& v : values) {
        if (!ValuePasses(v, e)) return false;
      }
      return true;
    }
    for (const auto& x : e.values) {
      if (values.count(x) == 0 && InBounds(x, gte, lte)) return false;
    }
    return true;
  }
  // In, Exists and the bound operators all need the label present.
  if (may_be_absent || !may_be_present) return false;
  if (e.op == "Exists") return true;
  if (e.op == "In") {
    if (complement) return false;
    for (const auto& v : values) {
      if (!ValuePasses(v, e)) return false;
    }
    return true;
  }
  if (IsBoundOp(e.op)) {
    std::optional<int64_t> lo, hi;
    if (!BoundsOf(e, lo, hi)) return false;
    if (!complement) {
      for (const auto& v : values) {
        if (!InBounds(v, lo, hi)) return false;
      }
      return true;
    }
    return (!lo || (gte && *gte >= *lo)) && (!hi || (lte && *lte <= *hi));
  }
  return false;  // unknown operator: never satisfied
}

bool Domain::PossiblyIn(const std::string& value) const {
  // Narrow(In {value}) leaves the label present with `value` when it was
  // allowed, else nothing (see Narrow).
  if (!may_be_present) return false;
  if (complement) return values.count(value) == 0 && InBounds(value, gte, lte);
  return values.count(value) > 0;
}

bool Domain::Possibly(const Expr& e) const {
  Domain narrowed = *this;
  narrowed.Narrow(e);
  return !narrowed.Empty();
}

void Domain::Narrow(const Expr& e) {
  if (e.op == "DoesNotExist") {
    may_be_present = false;
    values.clear();
    complement = false;
    gte.reset();
    lte.reset();
    return;
  }
  if (e.op == "Exists") {
    may_be_absent = false;
    return;
  }
  if (e.op == "NotIn") {
    if (!may_be_present) return;
    if (complement) {
      for (const auto& x : e.values) values.insert(x);
    } else {
      for (const auto& x : e.values) values.erase(x);
    }
  } else if (e.op == "In") {
    may_be_absent = false;
    if (complement) {
      std::set<std::string> kept;
      for (const auto& x : e.values) {
        if (values.count(x) == 0 && InBounds(x, gte, lte)) kept.insert(x);
      }
      values = std::move(kept);
      complement = false;
      gte.reset();
      lte.reset();
    } else {
      std::set<std::string> kept;
      for (const auto& v : values) {
        if (ValuePasses(v, e)) kept.insert(v);
      }
      values = std::move(kept);
    }
  } else if (IsBoundOp(e.op)) {
    may_be_absent = false;
    std::optional<int64_t> lo, hi;
    if (!BoundsOf(e, lo, hi)) {
      may_be_present = false;
    } else if (complement) {
      if (lo && (!gte || *lo > *gte)) gte = lo;
      if (hi && (!lte || *hi < *lte)) lte = hi;
      if (gte && lte && *gte > *lte) may_be_present = false;
    } else {
      std::set<std::string> kept;
      for (const auto& v : values) {
        if (InBounds(v, lo, hi)) kept.insert(v);
      }
      values = std::move(kept);
    }
  } else {
    may_be_present = false;  // an operator nobody can satisfy
    may_be_absent = false;
  }
  if (!complement && values.empty()) may_be_present = false;
}

std::optional<std::set<std::string>> Domain::PresentValues() const {
  if (!may_be_present) return std::set<std::string>{};
  if (complement) return std::nullopt;
  return values;
}

std::string Domain::ToString() const {
  if (Empty()) return "nothing";
  std::string out;
  if (may_be_present) {
    if (complement) {
      out = values.empty() ? "any value"
                           : absl::StrCat("any value but [",
                                          absl::StrJoin(values, " "), "]");
      if (gte) absl::StrAppend(&out, " >=", *gte);
      if (lte) absl::StrAppend(&out, " <=", *lte);
    } else {
      out = absl::StrCat("[", absl::StrJoin(values, " "), "]");
    }
  }
  if (may_be_absent) out += may_be_present ? " or absent" : "absent";
  return out;
}

const Domain& LabelLookup::Get(const std::string& key) const {
  static const Domain* const kAbsent = new Domain(Domain::Absent());
  if (hostname_ != nullptr && key == labels::kHostname) return *hostname_;
  if (overlay_ != nullptr) {
    auto over = overlay_->find(key);
    if (over != overlay_->end()) return over->second;
  }
  auto it = space_->find(key);
  return it == space_->end() ? *kAbsent : it->second;
}

const Domain& Lookup(const LabelLookup& space, const std::string& key) {
  return space.Get(key);
}

void NarrowSpace(LabelSpace& space, const Expr& e) {
  auto it = space.find(e.key);
  if (it == space.end()) it = space.emplace(e.key, Domain::Unknown()).first;
  it->second.Narrow(e);
}

std::string NormalizeKey(const std::string& key) {
  if (key == labels::kZoneBeta) {
    return labels::kZone;
  }
  if (key == labels::kRegionBeta) {
    return labels::kRegion;
  }
  if (key == labels::kArchBeta) return labels::kArch;
  if (key == labels::kOsBeta) return labels::kOs;
  if (key == labels::kInstanceTypeBeta) {
    return labels::kInstanceType;
  }
  return key;
}

bool AllDefinitely(const LabelLookup& space, const std::vector<Expr>& exprs) {
  for (const Expr& e : exprs) {
    if (!Lookup(space, e.key).Definitely(e)) return false;
  }
  return true;
}

bool AllPossibly(const LabelLookup& space, const std::vector<Expr>& exprs) {
  // Expressions on the same key must be possible together.
  LabelSpace narrowed;
  for (const Expr& e : exprs) {
    auto it = narrowed.find(e.key);
    if (it == narrowed.end()) {
      it = narrowed.emplace(e.key, Lookup(space, e.key)).first;
    }
    it->second.Narrow(e);
    if (it->second.Empty()) return false;
  }
  return true;
}

}  // namespace nodeplan::verify_internal
