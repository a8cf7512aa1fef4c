// Requirements: key -> Requirement (Karpenter pkg/scheduling/requirements.go)
// and minValues (pkg/cloudprovider/types.go SatisfiesMinValues).

#include "nodeplan/requirements.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace nodeplan {
namespace {

bool NotInOrDoesNotExist(const Requirement& r) {
  SelectorOperator op = r.Operator();
  return op == SelectorOperator::kNotIn ||
         op == SelectorOperator::kDoesNotExist;
}

bool PairIntersects(const Requirement& existing, const Requirement& incoming) {
  return existing.HasIntersection(incoming) ||
         (NotInOrDoesNotExist(incoming) && NotInOrDoesNotExist(existing));
}

// Calls f(existing, incoming) for every key defined on both sides.
template <typename F>
void ForCommonKeys(absl::Span<const Requirement> a,
                   absl::Span<const Requirement> b, F&& f) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].key() < b[j].key()) {
      ++i;
    } else if (b[j].key() < a[i].key()) {
      ++j;
    } else {
      if (!f(a[i], b[j])) return;
      ++i;
      ++j;
    }
  }
}

// The text after the first '/', or the whole key.
absl::string_view Suffix(absl::string_view key) {
  size_t slash = key.find('/');
  return slash == absl::string_view::npos ? key : key.substr(slash + 1);
}

bool HintMatches(absl::string_view candidate, absl::string_view key) {
  return absl::StrContains(candidate, key) ||
         absl::EndsWith(candidate, Suffix(key));
}

}  // namespace

Requirements::Requirements(const Requirements& other)
    : entries_(other.entries().begin(), other.entries().end()) {}

Requirements& Requirements::operator=(const Requirements& other) {
  if (this != &other) {
    Storage copy(other.entries().begin(), other.entries().end());
    entries_ = std::move(copy);
    view_ = {};
  }
  return *this;
}

Requirements Requirements::Viewing(absl::Span<const Requirement> sorted) {
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (!(sorted[i - 1].key() < sorted[i].key())) {
      return FromSorted(Storage(sorted.begin(), sorted.end()));
    }
  }
  Requirements out;
  out.view_ = sorted;
  return out;
}

void Requirements::Own() {
  if (view_.data() == nullptr) return;
  entries_.assign(view_.begin(), view_.end());
  view_ = {};
}

void Requirements::Add(const Requirement& r) {
  Own();
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), r.key(),
      [](const Requirement& e, LabelKeyId k) { return e.key() < k; });
  if (it != entries_.end() && it->key() == r.key()) {
    *it = r.Intersection(*it);
  } else {
    entries_.insert(it, r);
  }
}

Requirements Requirements::FromSorted(Storage entries) {
  Requirements out;
  bool sorted = true;
  const Requirement* e = entries.data();
  for (size_t i = 1; i < entries.size() && sorted; ++i) {
    sorted = e[i - 1].key() < e[i].key();
  }
  if (sorted) {
    out.entries_ = std::move(entries);
    return out;
  }
  out.Reserve(entries.size());
  for (const Requirement& r : entries) out.Add(r);
  return out;
}

void Requirements::Add(const Requirements& other) {
  for (const Requirement& r : other.entries()) Add(r);
}

void Requirements::Remove(LabelKeyId key) {
  Own();
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), key,
      [](const Requirement& e, LabelKeyId k) { return e.key() < k; });
  if (it != entries_.end() && it->key() == key) entries_.erase(it);
}

const Requirement* Requirements::Find(LabelKeyId key) const {
  const absl::Span<const Requirement> all = entries();
  auto it = std::lower_bound(
      all.begin(), all.end(), key,
      [](const Requirement& e, LabelKeyId k) { return e.key() < k; });
  if (it != all.end() && it->key() == key) return &*it;
  return nullptr;
}

Requirement Requirements::Get(LabelKeyId key) const {
  const Requirement* r = Find(key);
  return r != nullptr ? *r : Requirement::Exists(key);
}

bool Requirements::HasMinValues() const {
  for (const Requirement& r : entries()) {
    if (r.min_values().has_value()) return true;
  }
  return false;
}

bool Requirements::Intersects(const Requirements& incoming) const {
  bool ok = true;
  ForCommonKeys(entries(), incoming.entries(),
                [&](const Requirement& e, const Requirement& i) {
                  ok = PairIntersects(e, i);
                  return ok;
                });
  return ok;
}

absl::Status Requirements::IntersectsStatus(const Requirements& incoming,
                                            const Interner& names) const {
  std::vector<std::pair<absl::string_view, std::string>> errors;
  ForCommonKeys(entries(), incoming.entries(),
                [&](const Requirement& e, const Requirement& i) {
                  if (!PairIntersects(e, i)) {
                    absl::string_view key = names.KeyText(e.key());
                    errors.emplace_back(
                        key, absl::StrCat("key ", key, ", ", i.String(names),
                                          " not in ", e.String(names)));
                  }
                  return true;
                });
  if (errors.empty()) return absl::OkStatus();
  std::sort(errors.begin(), errors.end());
  return absl::InvalidArgumentError(absl::StrJoin(
      errors, "; ",
      [](std::string* out, const auto& e) { out->append(e.second); }));
}

bool Requirements::IsCompatible(const Requirements& incoming,
                                const CompatibilityOptions& options) const {
  for (const Requirement& r : incoming.entries()) {
    if (options.allow_undefined != nullptr &&
        options.allow_undefined->Contains(r.key())) {
      continue;
    }
    if (NotInOrDoesNotExist(r) || Has(r.key())) continue;
    return false;
  }
  return Intersects(incoming);
}

absl::Status Requirements::Compatible(const Requirements& incoming,
                                      const CompatibilityOptions& options,
                                      const Interner& names) const {
  // Undefined-key stage: report the offender with the smallest key text.
  absl::string_view offender;
  bool found = false;
  for (const Requirement& r : incoming.entries()) {
    if (options.allow_undefined != nullptr &&
        options.allow_undefined->Contains(r.key())) {
      continue;
    }
    if (NotInOrDoesNotExist(r) || Has(r.key())) continue;
    absl::string_view key = names.KeyText(r.key());
    if (!found || key < offender) offender = key;
    found = true;
  }
  if (found) {
    std::string hint;
    if (options.allow_undefined != nullptr) {
      for (const std::string& wk : options.allow_undefined->sorted_names()) {
        if (HintMatches(wk, offender)) {
          hint = absl::StrFormat(" (typo of \"%s\"?)", wk);
          break;
        }
      }
    }
    if (hint.empty()) {
      std::vector<absl::string_view> existing;
      for (const Requirement& r : entries()) {
        existing.push_back(names.KeyText(r.key()));
      }
      std::sort(existing.begin(), existing.end());
      for (absl::string_view k : existing) {
        if (HintMatches(k, offender)) {
          hint = absl::StrFormat(" (typo of \"%s\"?)", k);
          break;
        }
      }
    }
    return absl::InvalidArgumentError(absl::StrFormat(
        "label \"%s\" does not have known values%s", offender, hint));
  }
  return IntersectsStatus(incoming, names);
}

std::string Requirements::String(const Interner& names) const {
  std::vector<std::string> parts;
  parts.reserve(size());
  for (const Requirement& r : entries()) {
    absl::string_view key = names.KeyText(r.key());
    bool restricted = false;
    for (absl::string_view k : labels::RestrictedLabels()) {
      if (key == k) restricted = true;
    }
    if (!restricted) parts.push_back(r.String(names));
  }
  std::sort(parts.begin(), parts.end());
  return absl::StrJoin(parts, ", ");
}

MinValuesResult SatisfiesMinValues(
    const Requirements& requirements,
    absl::Span<const Requirements* const> instance_types) {
  MinValuesResult result;
  struct Tracked {
    LabelKeyId key;
    int32_t floor;
    absl::flat_hash_set<LabelValueId> seen;
  };
  std::vector<Tracked> tracked;
  for (const Requirement& r : requirements) {
    if (r.min_values().has_value()) {
      tracked.push_back(Tracked{r.key(), *r.min_values(), {}});
    }
  }
  if (tracked.empty()) return result;
  for (size_t i = 0; i < instance_types.size(); ++i) {
    result.unsatisfied.clear();
    for (Tracked& t : tracked) {
      if (const Requirement* r = instance_types[i]->Find(t.key)) {
        for (const LabelValue& v : r->values()) t.seen.insert(v.id);
      }
      const int count = static_cast<int>(t.seen.size());
      if (count < t.floor) result.unsatisfied.emplace_back(t.key, count);
    }
    if (result.unsatisfied.empty()) {
      result.needed = static_cast<int>(i + 1);
      return result;
    }
  }
  // Karpenter quirk kept: an empty list reports success with 0 types.
  result.needed = static_cast<int>(instance_types.size());
  return result;
}

std::string MinValuesMessage(const MinValuesResult& result,
                             const Interner& names) {
  std::vector<absl::string_view> keys;
  for (const auto& [key, count] : result.unsatisfied) {
    keys.push_back(names.KeyText(key));
  }
  std::sort(keys.begin(), keys.end());
  // Karpenter's structured error (serrors) renders its value as
  // "(label(s)=[a b])"; its keys come in map order, nodeplan's sorted.
  return absl::StrCat(
      "minValues requirement is not met for label(s) (label(s)=[",
      absl::StrJoin(keys, " "), "])");
}

}  // namespace nodeplan
