// Bitset index over many Requirements (instance types, offerings).

#include "nodeplan/requirements_index.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"

namespace nodeplan {
namespace {

// Scratch words on the stack for up to 2048 types.
using Words = absl::InlinedVector<uint64_t, 32>;

bool NotInOrDoesNotExist(const Requirement& r) {
  SelectorOperator op = r.Operator();
  return op == SelectorOperator::kNotIn ||
         op == SelectorOperator::kDoesNotExist;
}

bool PairIntersects(const Requirement& existing, const Requirement& incoming) {
  return existing.HasIntersection(incoming) ||
         (NotInOrDoesNotExist(incoming) && NotInOrDoesNotExist(existing));
}

void OrInto(Words& dst, const TypeSet& src) {
  absl::Span<const uint64_t> s = src.words();
  for (size_t w = 0; w < dst.size(); ++w) dst[w] |= s[w];
}

void SetBit(Words& dst, int i) { dst[i >> 6] |= uint64_t{1} << (i & 63); }

}  // namespace

// ---- TypeSet ---------------------------------------------------------------

void TypeSet::Reset(int size, bool all) {
  size_ = size;
  words_.assign((size + 63) / 64, all ? ~uint64_t{0} : 0);
  if (all && size % 64 != 0) {
    words_.back() = (uint64_t{1} << (size % 64)) - 1;
  }
}

int TypeSet::Count() const {
  int n = 0;
  for (uint64_t w : words_) n += __builtin_popcountll(w);
  return n;
}

bool TypeSet::None() const {
  for (uint64_t w : words_) {
    if (w != 0) return false;
  }
  return true;
}

std::vector<int> TypeSet::ToVector() const {
  std::vector<int> out;
  ForEach([&](int i) { out.push_back(i); });
  return out;
}

void TypeSet::AndWith(const TypeSet& other) {
  for (size_t w = 0; w < words_.size(); ++w) words_[w] &= other.words_[w];
}
void TypeSet::OrWith(const TypeSet& other) {
  for (size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
}
void TypeSet::AndNotWith(const TypeSet& other) {
  for (size_t w = 0; w < words_.size(); ++w) words_[w] &= ~other.words_[w];
}

// ---- RequirementsIndex -----------------------------------------------------

struct RequirementsIndex::KeyIndex {
  LabelKeyId key = kNoId;
  TypeSet defined;
  // Operator NotIn or DoesNotExist (the Intersects exception).
  TypeSet not_in_or_dne;
  // Concrete with exactly one value.
  TypeSet single;
  // Complement without bounds.
  TypeSet complement_unbounded;
  // Evaluated directly: concrete with several values; bounded complements.
  std::vector<int> multi;
  std::vector<int> bounded;
  absl::flat_hash_map<LabelValueId, int> value_slot;
  // Per value slot: concrete types listing the value / unbounded complement
  // types excluding it.
  std::vector<TypeSet> has;
  std::vector<TypeSet> excl;
  // Integer values listed by single-valued types: (int value, slot), sorted.
  std::vector<std::pair<int64_t, int>> single_ints;
};

RequirementsIndex::RequirementsIndex() = default;
RequirementsIndex::~RequirementsIndex() = default;
RequirementsIndex::RequirementsIndex(RequirementsIndex&&) noexcept = default;
RequirementsIndex& RequirementsIndex::operator=(RequirementsIndex&&) noexcept =
    default;

RequirementsIndex::RequirementsIndex(absl::Span<const Requirements> types)
    : size_(static_cast<int>(types.size())),
      words_((static_cast<int>(types.size()) + 63) / 64),
      types_(types.begin(), types.end()) {
  auto key_index = [&](LabelKeyId key) -> KeyIndex& {
    auto [it, inserted] =
        key_slot_.emplace(key, static_cast<int>(keys_.size()));
    if (inserted) {
      keys_.emplace_back();
      KeyIndex& k = keys_.back();
      k.key = key;
      k.defined.Reset(size_, false);
      k.not_in_or_dne.Reset(size_, false);
      k.single.Reset(size_, false);
      k.complement_unbounded.Reset(size_, false);
    }
    return keys_[it->second];
  };
  auto slot = [&](KeyIndex& k, LabelValueId v) -> int {
    auto [it, inserted] =
        k.value_slot.emplace(v, static_cast<int>(k.has.size()));
    if (inserted) {
      k.has.emplace_back(size_, false);
      k.excl.emplace_back(size_, false);
    }
    return it->second;
  };
  for (int t = 0; t < size_; ++t) {
    for (const Requirement& r : types_[t]) {
      KeyIndex& k = key_index(r.key());
      k.defined.Set(t);
      if (NotInOrDoesNotExist(r)) k.not_in_or_dne.Set(t);
      const bool bounded = r.gte().has_value() || r.lte().has_value();
      if (r.complement()) {
        if (bounded) {
          k.bounded.push_back(t);
          continue;
        }
        k.complement_unbounded.Set(t);
        for (const LabelValue& v : r.values()) k.excl[slot(k, v.id)].Set(t);
        continue;
      }
      // Concrete (never bounded).
      for (const LabelValue& v : r.values()) k.has[slot(k, v.id)].Set(t);
      if (r.values().size() == 1) {
        k.single.Set(t);
        const LabelValue& v = r.values()[0];
        if (v.is_int) k.single_ints.emplace_back(v.int_value, slot(k, v.id));
      } else if (r.values().size() > 1) {
        k.multi.push_back(t);
      }
    }
  }
  for (KeyIndex& k : keys_) {
    std::sort(k.single_ints.begin(), k.single_ints.end());
    k.single_ints.erase(std::unique(k.single_ints.begin(), k.single_ints.end()),
                        k.single_ints.end());
  }
}

void RequirementsIndex::AndIntersectingKey(const KeyIndex& k,
                                           const Requirement& q,
                                           TypeSet* out) const {
  Words pass(words_, 0);
  auto eval_directly = [&](const std::vector<int>& list) {
    for (int t : list) {
      if (PairIntersects(*types_[t].Find(k.key), q)) SetBit(pass, t);
    }
  };
  if (!q.complement()) {
    if (q.values().empty()) {
      // DoesNotExist intersects nothing: only the exception passes.
      OrInto(pass, k.not_in_or_dne);
    } else {
      // In [Q]: concrete types sharing a value; unbounded complements not
      // excluding every value of Q; bounded complements directly.
      Words complement_pass(words_, 0);
      absl::Span<const uint64_t> cu = k.complement_unbounded.words();
      for (const LabelValue& v : q.values()) {
        auto it = k.value_slot.find(v.id);
        if (it == k.value_slot.end()) {
          for (int w = 0; w < words_; ++w) complement_pass[w] |= cu[w];
          continue;
        }
        absl::Span<const uint64_t> has = k.has[it->second].words();
        absl::Span<const uint64_t> excl = k.excl[it->second].words();
        for (int w = 0; w < words_; ++w) {
          pass[w] |= has[w];
          complement_pass[w] |= cu[w] & ~excl[w];
        }
      }
      for (int w = 0; w < words_; ++w) pass[w] |= complement_pass[w];
      eval_directly(k.bounded);
    }
  } else {
    // NotIn [X] / Exists, possibly bounded.
    const bool bounded = q.gte().has_value() || q.lte().has_value();
    OrInto(pass, k.complement_unbounded);
    if (!bounded) {
      OrInto(pass, k.single);
    } else {
      auto lo = k.single_ints.begin();
      if (q.gte().has_value()) {
        lo = std::lower_bound(k.single_ints.begin(), k.single_ints.end(),
                              std::make_pair(*q.gte(), -1));
      }
      const absl::Span<const uint64_t> single = k.single.words();
      for (auto it = lo; it != k.single_ints.end(); ++it) {
        if (q.lte().has_value() && it->first > *q.lte()) break;
        absl::Span<const uint64_t> has = k.has[it->second].words();
        for (int w = 0; w < words_; ++w) pass[w] |= has[w] & single[w];
      }
      // Bounds merge with an unbounded complement type's (absent) bounds:
      // never inverted, so complement types still pass.
    }
    // Single-valued types whose value q excludes.
    const absl::Span<const uint64_t> single = k.single.words();
    for (const LabelValue& x : q.values()) {
      auto it = k.value_slot.find(x.id);
      if (it == k.value_slot.end()) continue;
      absl::Span<const uint64_t> has = k.has[it->second].words();
      for (int w = 0; w < words_; ++w) pass[w] &= ~(has[w] & single[w]);
    }
    eval_directly(k.multi);
    eval_directly(k.bounded);
    if (q.Operator() == SelectorOperator::kNotIn) {
      OrInto(pass, k.not_in_or_dne);
    }
  }
  absl::Span<uint64_t> o = out->words();
  absl::Span<const uint64_t> defined = k.defined.words();
  for (int w = 0; w < words_; ++w) o[w] &= ~defined[w] | pass[w];
}

void RequirementsIndex::Intersecting(const Requirements& query,
                                     TypeSet* out) const {
  out->Reset(size_, true);
  for (const Requirement& q : query) {
    auto it = key_slot_.find(q.key());
    if (it == key_slot_.end()) continue;
    AndIntersectingKey(keys_[it->second], q, out);
  }
}

void RequirementsIndex::Compatible(const Requirements& query,
                                   const CompatibilityOptions& options,
                                   TypeSet* out) const {
  out->Reset(size_, true);
  for (const Requirement& q : query) {
    auto it = key_slot_.find(q.key());
    const bool must_be_defined =
        !(options.allow_undefined != nullptr &&
          options.allow_undefined->Contains(q.key())) &&
        !NotInOrDoesNotExist(q);
    if (it == key_slot_.end()) {
      if (must_be_defined) {
        out->Reset(size_, false);
        return;
      }
      continue;
    }
    const KeyIndex& k = keys_[it->second];
    if (must_be_defined) out->AndWith(k.defined);
    AndIntersectingKey(k, q, out);
  }
}

}  // namespace nodeplan
