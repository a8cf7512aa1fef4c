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

std::vector<int> TypeSet::ToVector() const {
  std::vector<int> out;
  ForEach([&](int i) { out.push_back(i); });
  return out;
}

// ---- RequirementsIndex -----------------------------------------------------

namespace {

// The types of one value slot of a key: listed while there are few (most
// values of a catalog's keys belong to a handful of types; an instance-type
// name to one), a row of bits in KeyIndex::rows beyond that.
struct SlotTypes {
  static constexpr int kListed = 5;
  int32_t count = 0;
  int32_t row = -1;  // first word of the row, once count > kListed
  int32_t listed[kListed];
  // While building (`has` slots): the value's integer is in single_ints.
  bool int_recorded = false;
};

}  // namespace

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
  // Per value slot: concrete types listing the value / unbounded complement
  // types excluding it (`excl` is empty when no complement type of this key
  // lists values).
  std::vector<SlotTypes> has;
  std::vector<SlotTypes> excl;
  // Rows of `words_` words for slots with more than SlotTypes::kListed types.
  std::vector<uint64_t> rows;
  // While building: a direct-mapped memo of value id -> slot in front of
  // the index-wide table (most keys of a catalog have a few dozen values).
  struct Memo {
    LabelValueId value = kNoId;
    int slot = -1;
  };
  static constexpr int kMemo = 64;
  std::vector<Memo> memo;
  // Integer values listed by single-valued types: (int value, slot), sorted.
  std::vector<std::pair<int64_t, int>> single_ints;
};

struct RequirementsIndex::SlotEntry {
  // (key position << 32) | value id as unsigned; kEmpty when unused.
  uint64_t packed;
  int32_t slot;
};

namespace {

constexpr uint64_t kEmpty = ~uint64_t{0};

uint64_t Pack(int position, LabelValueId value) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(position)) << 32) |
         static_cast<uint32_t>(value);
}

size_t SlotHash(uint64_t packed, size_t mask) {
  return static_cast<size_t>((packed * 0x9E3779B97F4A7C15ull) >> 29) & mask;
}

// AddType beyond the listed types: the slot's row.
void AddTypeToRow(SlotTypes& s, std::vector<uint64_t>& rows, int words, int t) {
  if (s.row < 0) {
    s.row = static_cast<int32_t>(rows.size());
    rows.resize(rows.size() + words, 0);
    for (int listed : s.listed) {
      rows[s.row + (listed >> 6)] |= uint64_t{1} << (listed & 63);
    }
  }
  rows[s.row + (t >> 6)] |= uint64_t{1} << (t & 63);
  ++s.count;
}

inline void AddType(SlotTypes& s, std::vector<uint64_t>& rows, int words,
                    int t) {
  if (s.count < SlotTypes::kListed) {
    s.listed[s.count++] = t;
  } else if (s.row >= 0) {
    rows[s.row + (t >> 6)] |= uint64_t{1} << (t & 63);
    ++s.count;
  } else {
    AddTypeToRow(s, rows, words, t);
  }
}

// The words of a slot's row (only when count > kListed).
const uint64_t* Row(const SlotTypes& s, const std::vector<uint64_t>& rows) {
  return rows.data() + s.row;
}

bool Listed(const SlotTypes& s) { return s.count <= SlotTypes::kListed; }

// dst |= types(s)
void OrTypes(const SlotTypes& s, const std::vector<uint64_t>& rows,
             Words& dst) {
  if (Listed(s)) {
    for (int i = 0; i < s.count; ++i) SetBit(dst, s.listed[i]);
    return;
  }
  const uint64_t* row = Row(s, rows);
  for (size_t w = 0; w < dst.size(); ++w) dst[w] |= row[w];
}

bool TestBit(absl::Span<const uint64_t> bits, int i) {
  return (bits[i >> 6] >> (i & 63)) & 1;
}

// dst |= types(s) & mask
void OrTypesMasked(const SlotTypes& s, const std::vector<uint64_t>& rows,
                   absl::Span<const uint64_t> mask, Words& dst) {
  if (Listed(s)) {
    for (int i = 0; i < s.count; ++i) {
      if (TestBit(mask, s.listed[i])) SetBit(dst, s.listed[i]);
    }
    return;
  }
  const uint64_t* row = Row(s, rows);
  for (size_t w = 0; w < dst.size(); ++w) dst[w] |= row[w] & mask[w];
}

// dst &= ~(types(s) & mask)
void AndNotTypesMasked(const SlotTypes& s, const std::vector<uint64_t>& rows,
                       absl::Span<const uint64_t> mask, Words& dst) {
  if (Listed(s)) {
    for (int i = 0; i < s.count; ++i) {
      const int t = s.listed[i];
      if (TestBit(mask, t)) dst[t >> 6] &= ~(uint64_t{1} << (t & 63));
    }
    return;
  }
  const uint64_t* row = Row(s, rows);
  for (size_t w = 0; w < dst.size(); ++w) dst[w] &= ~(row[w] & mask[w]);
}

// dst |= mask & ~types(s)
void OrMaskWithoutTypes(const SlotTypes& s, const std::vector<uint64_t>& rows,
                        absl::Span<const uint64_t> mask, Words& dst) {
  if (Listed(s)) {
    Words without(mask.begin(), mask.end());
    for (int i = 0; i < s.count; ++i) {
      const int t = s.listed[i];
      without[t >> 6] &= ~(uint64_t{1} << (t & 63));
    }
    for (size_t w = 0; w < dst.size(); ++w) dst[w] |= without[w];
    return;
  }
  const uint64_t* row = Row(s, rows);
  for (size_t w = 0; w < dst.size(); ++w) dst[w] |= mask[w] & ~row[w];
}

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

int RequirementsIndex::FindSlot(int position, LabelValueId value) const {
  if (value_slots_.empty()) return -1;
  const uint64_t packed = Pack(position, value);
  const size_t mask = value_slots_.size() - 1;
  for (size_t i = SlotHash(packed, mask);; i = (i + 1) & mask) {
    const SlotEntry& e = value_slots_[i];
    if (e.packed == packed) return e.slot;
    if (e.packed == kEmpty) return -1;
  }
}

inline int RequirementsIndex::FindOrAddSlot(int position, LabelValueId value) {
  const KeyIndex::Memo& memo =
      keys_[position].memo[static_cast<uint32_t>(value) % KeyIndex::kMemo];
  if (memo.value == value) return memo.slot;
  return LookUpOrAddSlot(position, value);
}

int RequirementsIndex::LookUpOrAddSlot(int position, LabelValueId value) {
  KeyIndex::Memo& memo =
      keys_[position].memo[static_cast<uint32_t>(value) % KeyIndex::kMemo];
  const uint64_t packed = Pack(position, value);
  int slot = -1;
  if (!value_slots_.empty()) {
    const size_t mask = value_slots_.size() - 1;
    for (size_t i = SlotHash(packed, mask);; i = (i + 1) & mask) {
      const SlotEntry& e = value_slots_[i];
      if (e.packed == packed) {
        slot = e.slot;
        break;
      }
      if (e.packed == kEmpty) break;
    }
  }
  if (slot < 0) slot = AddSlot(position, packed);
  // AddSlot may have grown keys_[position].has, not the memo.
  memo = {value, slot};
  return slot;
}

int RequirementsIndex::AddSlot(int position, uint64_t packed) {
  // At most half full.
  if (2 * (value_slot_count_ + 1) > static_cast<int>(value_slots_.size())) {
    std::vector<SlotEntry> old = std::move(value_slots_);
    value_slots_.assign(std::max<size_t>(1024, 2 * old.size()),
                        SlotEntry{kEmpty, -1});
    const size_t mask = value_slots_.size() - 1;
    for (const SlotEntry& e : old) {
      if (e.packed == kEmpty) continue;
      size_t i = SlotHash(e.packed, mask);
      while (value_slots_[i].packed != kEmpty) i = (i + 1) & mask;
      value_slots_[i] = e;
    }
  }
  const size_t mask = value_slots_.size() - 1;
  size_t i = SlotHash(packed, mask);
  while (value_slots_[i].packed != kEmpty) i = (i + 1) & mask;
  KeyIndex& k = keys_[position];
  const int slot = static_cast<int>(k.has.size());
  value_slots_[i] = SlotEntry{packed, slot};
  ++value_slot_count_;
  k.has.emplace_back();
  if (!k.excl.empty()) k.excl.emplace_back();
  return slot;
}

// Key ids below this go through a dense array while building (ids are
// small dense integers from an Interner); larger ones (an interner shared
// with a big cluster) through the key_slot_ hash map.
constexpr int32_t kDenseKeyLimit = 1 << 14;

int RequirementsIndex::KeyPosition(BuildState& state, LabelKeyId key) {
  const int next = static_cast<int>(keys_.size());
  int position = next;
  if (key >= 0 && key < kDenseKeyLimit) {
    std::vector<int>& dense = state.dense_key;
    if (static_cast<size_t>(key) >= dense.size()) {
      dense.resize(static_cast<size_t>(key) + 1, -1);
    }
    if (dense[key] < 0) dense[key] = next;
    position = dense[key];
  } else {
    position = key_slot_.emplace(key, next).first->second;
  }
  if (position == next) {
    KeyIndex& k = keys_.emplace_back();
    k.key = key;
    k.defined.Reset(size_, false);
    k.not_in_or_dne.Reset(size_, false);
    k.single.Reset(size_, false);
    k.complement_unbounded.Reset(size_, false);
    k.memo.resize(KeyIndex::kMemo);
  }
  return position;
}

// One pass over a type's requirements; values find their slot through one
// small open-addressing table for all keys, and each slot's types are listed
// or set in a row.
void RequirementsIndex::IndexType(BuildState& state, int t) {
  const int word = t >> 6;
  const uint64_t bit = uint64_t{1} << (t & 63);
  for (const Requirement& r : *types_[t]) {
    const LabelKeyId key = r.key();
    const std::vector<int>& dense = state.dense_key;
    const int position =
        key >= 0 && static_cast<size_t>(key) < dense.size() && dense[key] >= 0
            ? dense[key]
            : KeyPosition(state, key);
    KeyIndex& k = keys_[position];
    const absl::Span<const LabelValue> values = r.values();
    const bool complement = r.complement();
    k.defined.words()[word] |= bit;
    // Operator NotIn (a complement listing values) or DoesNotExist (a
    // concrete set without any).
    if (complement != values.empty()) k.not_in_or_dne.words()[word] |= bit;
    if (complement) {
      IndexComplement(position, r, t);
      continue;
    }
    // Concrete (never bounded).
    if (values.size() == 1) {
      const LabelValue& v = values[0];
      const int slot = FindOrAddSlot(position, v.id);
      SlotTypes& s = k.has[slot];
      AddType(s, k.rows, words_, t);
      k.single.words()[word] |= bit;
      if (v.is_int && !s.int_recorded) {
        s.int_recorded = true;
        k.single_ints.emplace_back(v.int_value, slot);
      }
    } else if (!values.empty()) {
      for (const LabelValue& v : values) {
        AddType(k.has[FindOrAddSlot(position, v.id)], k.rows, words_, t);
      }
      k.multi.push_back(t);
    }
  }
}

void RequirementsIndex::IndexComplement(int position, const Requirement& r,
                                        int t) {
  KeyIndex& k = keys_[position];
  if (r.gte().has_value() || r.lte().has_value()) {
    k.bounded.push_back(t);
    return;
  }
  k.complement_unbounded.Set(t);
  for (const LabelValue& v : r.values()) {
    const int s = FindOrAddSlot(position, v.id);
    if (k.excl.empty()) k.excl.resize(k.has.size());
    AddType(k.excl[s], k.rows, words_, t);
  }
}

void RequirementsIndex::FinishBuild() {
  key_slot_.reserve(keys_.size());
  for (size_t position = 0; position < keys_.size(); ++position) {
    KeyIndex& k = keys_[position];
    key_slot_.emplace(k.key, static_cast<int>(position));
    // One entry per slot: a slot's value (and its integer) never changes.
    std::sort(k.single_ints.begin(), k.single_ints.end());
    k.memo = {};
  }
}

void RequirementsIndex::Build() {
  BuildState state;
  for (int t = 0; t < size_; ++t) IndexType(state, t);
  FinishBuild();
}

RequirementsIndexBuilder::RequirementsIndexBuilder(int size)
    : declared_(std::max(size, 0)) {
  index_.size_ = declared_;
  index_.words_ = (declared_ + 63) / 64;
  index_.types_.reserve(declared_);
}

void RequirementsIndexBuilder::Add(const Requirements* type) {
  const int t = static_cast<int>(index_.types_.size());
  if (t >= declared_) return;
  index_.types_.push_back(type);
  index_.IndexType(state_, t);
}

RequirementsIndex RequirementsIndexBuilder::Finish() && {
  if (static_cast<int>(index_.types_.size()) < declared_) {
    // An empty label set of the index's own for the types never added.
    index_.owned_.emplace_back();
    while (static_cast<int>(index_.types_.size()) < declared_) {
      index_.types_.push_back(&index_.owned_.front());
    }
  }
  index_.FinishBuild();
  return std::move(index_);
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
  const int position = static_cast<int>(&k - keys_.data());
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
        const int slot = FindSlot(position, v.id);
        if (slot < 0) {
          for (int w = 0; w < words_; ++w) complement_pass[w] |= cu[w];
          continue;
        }
        OrTypes(k.has[slot], k.rows, pass);
        if (k.excl.empty()) {
          for (int w = 0; w < words_; ++w) complement_pass[w] |= cu[w];
        } else {
          OrMaskWithoutTypes(k.excl[slot], k.rows, cu, complement_pass);
        }
      }
      for (int w = 0; w < words_; ++w) pass[w] |= complement_pass[w];
      eval_directly(k.bounded);
    }
  } else {
    // NotIn [X] / Exists, possibly bounded.
    const bool bounded = q.gte().has_value() || q.lte().has_value();
    OrInto(pass, k.complement_unbounded);
    const absl::Span<const uint64_t> single = k.single.words();
    if (!bounded) {
      OrInto(pass, k.single);
    } else {
      auto lo = k.single_ints.begin();
      if (q.gte().has_value()) {
        lo = std::lower_bound(k.single_ints.begin(), k.single_ints.end(),
                              std::make_pair(*q.gte(), -1));
      }
      for (auto it = lo; it != k.single_ints.end(); ++it) {
        if (q.lte().has_value() && it->first > *q.lte()) break;
        OrTypesMasked(k.has[it->second], k.rows, single, pass);
      }
      // Bounds merge with an unbounded complement type's (absent) bounds:
      // never inverted, so complement types still pass.
    }
    // Single-valued types whose value q excludes.
    for (const LabelValue& x : q.values()) {
      const int slot = FindSlot(position, x.id);
      if (slot < 0) continue;
      AndNotTypesMasked(k.has[slot], k.rows, single, pass);
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

void RequirementsIndex::AndIntersecting(const Requirement& q,
                                        TypeSet* out) const {
  auto it = key_slot_.find(q.key());
  if (it == key_slot_.end()) return;
  AndIntersectingKey(keys_[it->second], q, out);
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
