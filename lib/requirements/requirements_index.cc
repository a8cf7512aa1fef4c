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
  // Per value slot, `words_` words each: concrete types listing the value /
  // unbounded complement types excluding it (`excl` is empty when no
  // complement type of this key lists values).
  std::vector<uint64_t> has;
  std::vector<uint64_t> excl;
  // Integer values listed by single-valued types: (int value, slot), sorted.
  std::vector<std::pair<int64_t, int>> single_ints;
};

namespace {

// The words of value slot `slot` in a per-slot bit array (empty when the
// array is).
absl::Span<const uint64_t> SlotWords(const std::vector<uint64_t>& bits,
                                     int slot, int words) {
  if (bits.empty()) return {};
  return absl::MakeConstSpan(bits.data() + static_cast<size_t>(slot) * words,
                             words);
}

void SetSlotBit(std::vector<uint64_t>& bits, int slot, int words, int t) {
  bits[static_cast<size_t>(slot) * words + (t >> 6)] |= uint64_t{1} << (t & 63);
}

// Ids below this go through dense arrays while building (ids are small
// dense integers from an Interner, and a catalog's are usually its own);
// larger ones (an interner shared with a big cluster) through hash maps, so
// the arrays stay proportional to the index.
int32_t DenseIdLimit(int types) { return std::max(1 << 12, 8 * types); }

}  // namespace

RequirementsIndex::RequirementsIndex() = default;
RequirementsIndex::~RequirementsIndex() = default;
RequirementsIndex::RequirementsIndex(RequirementsIndex&&) noexcept = default;
RequirementsIndex& RequirementsIndex::operator=(RequirementsIndex&&) noexcept =
    default;

RequirementsIndex::RequirementsIndex(absl::Span<const Requirements> types)
    : size_(static_cast<int>(types.size())),
      words_((static_cast<int>(types.size()) + 63) / 64),
      owned_(types.begin(), types.end()) {
  types_.reserve(owned_.size());
  for (const Requirements& r : owned_) types_.push_back(&r);
  Build();
}

RequirementsIndex::RequirementsIndex(
    absl::Span<const Requirements* const> types)
    : size_(static_cast<int>(types.size())),
      words_((static_cast<int>(types.size()) + 63) / 64),
      types_(types.begin(), types.end()) {
  Build();
}

// One pass over the types' requirements in memory order, with dense
// id -> position / slot arrays instead of a hash probe per requirement and
// value, and one growing bit array per key for all its value slots.
void RequirementsIndex::Build() {
  struct Building {
    std::vector<int> dense_slot;  // value id -> slot, or -1
    std::vector<bool> int_recorded;
    int slots = 0;
  };
  const int32_t dense_limit = DenseIdLimit(size_);
  std::vector<int> dense_key;  // key id -> position in keys_, or -1
  std::vector<Building> building;
  auto key_position = [&](LabelKeyId key) -> int {
    const int next = static_cast<int>(keys_.size());
    int position = next;
    if (key >= 0 && key < dense_limit) {
      if (static_cast<size_t>(key) >= dense_key.size()) {
        dense_key.resize(static_cast<size_t>(key) + 1, -1);
      }
      if (dense_key[key] < 0) dense_key[key] = next;
      position = dense_key[key];
    } else {
      position = key_slot_.emplace(key, next).first->second;
    }
    if (position == next) {
      keys_.emplace_back();
      KeyIndex& k = keys_.back();
      k.key = key;
      k.defined.Reset(size_, false);
      k.not_in_or_dne.Reset(size_, false);
      k.single.Reset(size_, false);
      k.complement_unbounded.Reset(size_, false);
      building.emplace_back();
    }
    return position;
  };
  auto slot = [&](KeyIndex& k, Building& b, LabelValueId v) -> int {
    int s = -1;
    if (v >= 0 && v < dense_limit) {
      if (static_cast<size_t>(v) >= b.dense_slot.size()) {
        b.dense_slot.resize(static_cast<size_t>(v) + 1, -1);
      }
      if (b.dense_slot[v] >= 0) return b.dense_slot[v];
      s = b.dense_slot[v] = b.slots;
    } else {
      auto [it, inserted] = k.value_slot.emplace(v, b.slots);
      if (!inserted) return it->second;
      s = b.slots;
    }
    ++b.slots;
    k.has.resize(k.has.size() + words_, 0);
    if (!k.excl.empty()) k.excl.resize(k.excl.size() + words_, 0);
    b.int_recorded.push_back(false);
    return s;
  };
  for (int t = 0; t < size_; ++t) {
    for (const Requirement& r : *types_[t]) {
      const int position = key_position(r.key());
      KeyIndex& k = keys_[position];
      Building& b = building[position];
      k.defined.Set(t);
      if (NotInOrDoesNotExist(r)) k.not_in_or_dne.Set(t);
      const bool bounded = r.gte().has_value() || r.lte().has_value();
      if (r.complement()) {
        if (bounded) {
          k.bounded.push_back(t);
          continue;
        }
        k.complement_unbounded.Set(t);
        for (const LabelValue& v : r.values()) {
          const int s = slot(k, b, v.id);
          if (k.excl.empty()) k.excl.assign(k.has.size(), 0);
          SetSlotBit(k.excl, s, words_, t);
        }
        continue;
      }
      // Concrete (never bounded).
      for (const LabelValue& v : r.values()) {
        SetSlotBit(k.has, slot(k, b, v.id), words_, t);
      }
      if (r.values().size() == 1) {
        k.single.Set(t);
        const LabelValue& v = r.values()[0];
        const int s = slot(k, b, v.id);
        if (v.is_int && !b.int_recorded[s]) {
          b.int_recorded[s] = true;
          k.single_ints.emplace_back(v.int_value, s);
        }
      } else if (r.values().size() > 1) {
        k.multi.push_back(t);
      }
    }
  }
  key_slot_.reserve(keys_.size());
  for (size_t position = 0; position < keys_.size(); ++position) {
    KeyIndex& k = keys_[position];
    key_slot_.emplace(k.key, static_cast<int>(position));
    const std::vector<int>& dense = building[position].dense_slot;
    k.value_slot.reserve(k.value_slot.size() + building[position].slots);
    for (size_t v = 0; v < dense.size(); ++v) {
      if (dense[v] >= 0) {
        k.value_slot.emplace(static_cast<LabelValueId>(v), dense[v]);
      }
    }
    // One entry per slot: a slot's value (and its integer) never changes.
    std::sort(k.single_ints.begin(), k.single_ints.end());
  }
}

void RequirementsIndex::AndIntersectingKey(const KeyIndex& k,
                                           const Requirement& q,
                                           TypeSet* out) const {
  Words pass(words_, 0);
  auto eval_directly = [&](const std::vector<int>& list) {
    for (int t : list) {
      if (PairIntersects(*types_[t]->Find(k.key), q)) SetBit(pass, t);
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
        absl::Span<const uint64_t> has = SlotWords(k.has, it->second, words_);
        absl::Span<const uint64_t> excl = SlotWords(k.excl, it->second, words_);
        for (int w = 0; w < words_; ++w) {
          pass[w] |= has[w];
          complement_pass[w] |= excl.empty() ? cu[w] : cu[w] & ~excl[w];
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
        absl::Span<const uint64_t> has = SlotWords(k.has, it->second, words_);
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
      absl::Span<const uint64_t> has = SlotWords(k.has, it->second, words_);
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
