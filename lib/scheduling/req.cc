#include "scheduling/req.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeplan::scheduling {
namespace {

bool WithinBounds(const Req& r, Id v, const Interner& in) {
  if (!r.has_gte && !r.has_lte) return true;
  const auto& n = in.Int(v);
  if (!n) return false;
  if (r.has_gte && *n < r.gte) return false;
  if (r.has_lte && *n > r.lte) return false;
  return true;
}

bool Contains(const absl::InlinedVector<Id, 2>& v, Id x) {
  return std::binary_search(v.begin(), v.end(), x);
}

}  // namespace

Req MakeReq(Id key, absl::string_view op, const std::vector<Id>& values,
            const Interner& in) {
  Req r;
  r.key = key;
  auto first_int = [&]() -> int64_t {
    if (values.empty()) return 0;
    const auto& n = in.Int(values[0]);
    return n ? *n : 0;
  };
  if (op == "In") {
    r.complement = false;
    r.values.assign(values.begin(), values.end());
  } else if (op == "NotIn") {
    r.complement = true;
    r.values.assign(values.begin(), values.end());
  } else if (op == "Exists") {
    r.complement = true;
  } else if (op == "Gt") {
    int64_t n = first_int();
    if (n == std::numeric_limits<int64_t>::max()) {
      r.complement = false;
    } else {
      r.has_gte = true;
      r.gte = n + 1;
    }
  } else if (op == "Lt") {
    int64_t n = first_int();
    if (n == std::numeric_limits<int64_t>::min()) {
      r.complement = false;
    } else {
      r.has_lte = true;
      r.lte = n - 1;
    }
  } else if (op == "Gte") {
    r.has_gte = true;
    r.gte = first_int();
  } else if (op == "Lte") {
    r.has_lte = true;
    r.lte = first_int();
  } else {  // DoesNotExist and anything unknown
    r.complement = false;
  }
  std::sort(r.values.begin(), r.values.end());
  r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
  return r;
}

Op OperatorOf(const Req& r) {
  if (r.complement) return r.values.empty() ? Op::kExists : Op::kNotIn;
  return r.values.empty() ? Op::kDoesNotExist : Op::kIn;
}

int64_t ReqLen(const Req& r) {
  if (r.complement)
    return std::numeric_limits<int64_t>::max() -
           static_cast<int64_t>(r.values.size());
  return static_cast<int64_t>(r.values.size());
}

bool Has(const Req& r, Id value, const Interner& in) {
  bool member = r.complement ? !Contains(r.values, value)
                             : Contains(r.values, value);
  return member && WithinBounds(r, value, in);
}

Req Intersect(const Req& a, const Req& b, const Interner& in) {
  Req out;
  out.key = a.key;
  out.complement = a.complement && b.complement;
  out.has_gte = a.has_gte || b.has_gte;
  out.gte = a.has_gte && b.has_gte ? std::max(a.gte, b.gte)
                                   : (a.has_gte ? a.gte : b.gte);
  out.has_lte = a.has_lte || b.has_lte;
  out.lte = a.has_lte && b.has_lte ? std::min(a.lte, b.lte)
                                   : (a.has_lte ? a.lte : b.lte);
  out.min_values = std::max(a.min_values, b.min_values);
  if (out.has_gte && out.has_lte && out.gte > out.lte) {
    Req dne;
    dne.key = a.key;
    dne.complement = false;
    dne.min_values = out.min_values;
    return dne;
  }
  if (a.complement && b.complement) {
    std::set_union(a.values.begin(), a.values.end(), b.values.begin(),
                   b.values.end(), std::back_inserter(out.values));
  } else if (a.complement) {
    for (Id v : b.values)
      if (!Contains(a.values, v)) out.values.push_back(v);
  } else if (b.complement) {
    for (Id v : a.values)
      if (!Contains(b.values, v)) out.values.push_back(v);
  } else {
    std::set_intersection(a.values.begin(), a.values.end(), b.values.begin(),
                          b.values.end(), std::back_inserter(out.values));
  }
  if (out.has_gte || out.has_lte) {
    absl::InlinedVector<Id, 2> kept;
    for (Id v : out.values)
      if (WithinBounds(out, v, in)) kept.push_back(v);
    out.values = std::move(kept);
  }
  if (!out.complement) out.has_gte = out.has_lte = false;
  return out;
}

bool HasIntersection(const Req& a, const Req& b, const Interner& in) {
  Req bounds;
  bounds.has_gte = a.has_gte || b.has_gte;
  bounds.gte = a.has_gte && b.has_gte ? std::max(a.gte, b.gte)
                                      : (a.has_gte ? a.gte : b.gte);
  bounds.has_lte = a.has_lte || b.has_lte;
  bounds.lte = a.has_lte && b.has_lte ? std::min(a.lte, b.lte)
                                      : (a.has_lte ? a.lte : b.lte);
  if (bounds.has_gte && bounds.has_lte && bounds.gte > bounds.lte) return false;
  if (a.complement && b.complement) return true;
  if (a.complement || b.complement) {
    const Req& c = a.complement ? a : b;
    const Req& d = a.complement ? b : a;
    for (Id v : d.values)
      if (!Contains(c.values, v) && WithinBounds(bounds, v, in)) return true;
    return false;
  }
  // Both concrete: walk the sorted lists.
  size_t i = 0, j = 0;
  while (i < a.values.size() && j < b.values.size()) {
    if (a.values[i] < b.values[j]) {
      ++i;
    } else if (b.values[j] < a.values[i]) {
      ++j;
    } else {
      if (WithinBounds(bounds, a.values[i], in)) return true;
      ++i;
      ++j;
    }
  }
  return false;
}

std::string ReqString(const Req& r, const Interner& in) {
  const std::string& key = in.Str(r.key);
  std::string s;
  Op op = OperatorOf(r);
  const char* opname = op == Op::kIn      ? "In"
                       : op == Op::kNotIn ? "NotIn"
                       : op == Op::kExists ? "Exists"
                                           : "DoesNotExist";
  if (op == Op::kExists || op == Op::kDoesNotExist) {
    s = absl::StrCat(key, " ", opname);
  } else {
    std::vector<std::string> vals;
    vals.reserve(r.values.size());
    for (Id v : r.values) vals.push_back(in.Str(v));
    std::sort(vals.begin(), vals.end());
    if (vals.size() > 5) {
      size_t n = vals.size();
      vals.resize(5);
      vals.push_back(absl::StrCat("and ", n - 5, " others"));
    }
    s = absl::StrCat(key, " ", opname, " [", absl::StrJoin(vals, " "), "]");
  }
  if (r.has_gte) absl::StrAppend(&s, " >=", r.gte);
  if (r.has_lte) absl::StrAppend(&s, " <=", r.lte);
  if (r.min_values > 0) absl::StrAppend(&s, " minValues ", r.min_values);
  return s;
}

const Req* Reqs::Get(Id key) const {
  auto it = std::lower_bound(
      items_.begin(), items_.end(), key,
      [](const Req& r, Id k) { return r.key < k; });
  if (it == items_.end() || it->key != key) return nullptr;
  return &*it;
}

Req* Reqs::GetMutable(Id key) {
  return const_cast<Req*>(static_cast<const Reqs*>(this)->Get(key));
}

bool Reqs::Add(const Req& r, const Interner& in) {
  auto it = std::lower_bound(
      items_.begin(), items_.end(), r.key,
      [](const Req& x, Id k) { return x.key < k; });
  if (it == items_.end() || it->key != r.key) {
    items_.insert(it, r);
    return true;
  }
  Req merged = Intersect(*it, r, in);
  if (merged == *it) return false;
  *it = std::move(merged);
  return true;
}

void Reqs::Remove(Id key) {
  auto it = std::lower_bound(
      items_.begin(), items_.end(), key,
      [](const Req& x, Id k) { return x.key < k; });
  if (it != items_.end() && it->key == key) items_.erase(it);
}

bool Reqs::HasMinValues() const {
  for (const Req& r : items_)
    if (r.min_values > 0) return true;
  return false;
}

bool Intersects(const Reqs& existing, const Reqs& incoming, const Interner& in,
                std::string* err) {
  std::vector<std::pair<std::string, std::string>> errors;
  const auto& a = existing.items();
  const auto& b = incoming.items();
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].key < b[j].key) {
      ++i;
    } else if (b[j].key < a[i].key) {
      ++j;
    } else {
      if (!HasIntersection(a[i], b[j], in)) {
        Op oi = OperatorOf(b[j]), oe = OperatorOf(a[i]);
        bool both_negative = (oi == Op::kNotIn || oi == Op::kDoesNotExist) &&
                             (oe == Op::kNotIn || oe == Op::kDoesNotExist);
        if (!both_negative) {
          if (err == nullptr) return false;
          errors.emplace_back(in.Str(a[i].key),
                              absl::StrCat("key ", in.Str(a[i].key), ", ",
                                           ReqString(b[j], in), " not in ",
                                           ReqString(a[i], in)));
        }
      }
      ++i;
      ++j;
    }
  }
  if (errors.empty()) return true;
  std::sort(errors.begin(), errors.end());
  std::vector<std::string> msgs;
  for (auto& e : errors) msgs.push_back(std::move(e.second));
  *err = absl::StrJoin(msgs, "; ");
  return false;
}

namespace {

std::string Suffix(const std::string& k) {
  size_t p = k.find('/');
  return p == std::string::npos ? k : k.substr(p + 1);
}

// The "(typo of ...?)" hint: first candidate (well-known keys, then the
// existing keys, each in sorted order) that contains the key or shares its
// suffix. Karpenter scans hash sets; sorting makes the pick deterministic.
std::string LabelHint(const Reqs& existing, const std::string& key,
                      const WellKnown* allow, const Interner& in) {
  std::string suffix = Suffix(key);
  auto scan = [&](std::vector<std::string> cands) -> std::string {
    std::sort(cands.begin(), cands.end());
    for (const auto& c : cands) {
      if (c.find(key) != std::string::npos) return c;
      if (absl::string_view(c).size() >= suffix.size() &&
          absl::string_view(c).substr(c.size() - suffix.size()) == suffix)
        return c;
    }
    return "";
  };
  if (allow != nullptr) {
    std::vector<std::string> wk;
    for (size_t i = 0; i < allow->is_well_known.size(); ++i)
      if (allow->is_well_known[i]) wk.push_back(in.Str(static_cast<Id>(i)));
    std::string h = scan(wk);
    if (!h.empty()) return absl::StrCat(" (typo of \"", h, "\"?)");
  }
  std::vector<std::string> ex;
  for (const Req& r : existing.items()) ex.push_back(in.Str(r.key));
  std::string h = scan(ex);
  if (!h.empty()) return absl::StrCat(" (typo of \"", h, "\"?)");
  return "";
}

}  // namespace

bool Compatible(const Reqs& existing, const Reqs& incoming,
                const WellKnown* allow, const Interner& in, std::string* err) {
  // Undefined keys, in key-text order so the first offender is stable.
  const Req* first_bad = nullptr;
  for (const Req& r : incoming.items()) {
    if (allow != nullptr && allow->Contains(r.key)) continue;
    if (existing.Get(r.key) != nullptr) continue;
    Op op = OperatorOf(r);
    if (op == Op::kNotIn || op == Op::kDoesNotExist) continue;
    if (err == nullptr) return false;
    if (first_bad == nullptr || in.Str(r.key) < in.Str(first_bad->key))
      first_bad = &r;
  }
  if (first_bad != nullptr) {
    const std::string& key = in.Str(first_bad->key);
    *err = absl::StrCat("label \"", key, "\" does not have known values",
                        LabelHint(existing, key, allow, in));
    return false;
  }
  return Intersects(existing, incoming, in, err);
}

std::string ReqsString(const Reqs& r, const Interner& in, Id hostname_key) {
  std::vector<std::string> parts;
  for (const Req& x : r.items()) {
    if (x.key == hostname_key) continue;
    parts.push_back(ReqString(x, in));
  }
  std::sort(parts.begin(), parts.end());
  return absl::StrJoin(parts, ", ");
}

}  // namespace nodeplan::scheduling
