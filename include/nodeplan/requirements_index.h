#ifndef NODEPLAN_REQUIREMENTS_INDEX_H_
#define NODEPLAN_REQUIREMENTS_INDEX_H_

// A precomputed bitset index over N label sets (instance types, offerings):
// "which of the N intersect / are compatible with these requirements" as a
// bitset, with no string compares and no allocation beyond the result (for
// N <= 2048; larger N uses heap scratch).
//
// Per key the index keeps bitsets of the types that define the key, that are
// concrete single-valued, DoesNotExist, unbounded complement, or whose
// operator is NotIn/DoesNotExist, and per (key, value) the types whose
// concrete set contains the value or whose complement excludes it. The rare
// shapes (concrete with several values, bounded complement, query values
// against bounded types) fall back to evaluating those few types directly.
// A value that only a few types hold (an instance-type name) lists them
// instead of keeping a bitset, so that the index stays small and its build
// fast. Results always equal Requirements::Intersects / IsCompatible type by
// type (property-tested).

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "nodeplan/requirements.h"

namespace nodeplan {

// A fixed-size set of type indices [0, size()).
class TypeSet {
 public:
  TypeSet() = default;
  explicit TypeSet(int size, bool all = false) { Reset(size, all); }
  // Resizes and fills (reuses the buffer).
  void Reset(int size, bool all);

  int size() const { return size_; }
  bool Test(int i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void Set(int i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void Clear(int i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  int Count() const;
  bool None() const {
    for (uint64_t w : words_)
      if (w != 0) return false;
    return true;
  }
  // Calls f(i) for every member in ascending order.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      uint64_t bits = words_[w];
      while (bits != 0) {
        f(static_cast<int>(w * 64 + __builtin_ctzll(bits)));
        bits &= bits - 1;
      }
    }
  }
  std::vector<int> ToVector() const;
  // Sets of the same size (the hot loops of placement: inline).
  void AndWith(const TypeSet& other) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] &= other.words_[w];
  }
  void OrWith(const TypeSet& other) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
  }
  void AndNotWith(const TypeSet& other) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] &= ~other.words_[w];
  }
  // Some member is in both (this & other is not empty), without building the
  // intersection.
  bool Intersects(const TypeSet& other) const {
    for (size_t w = 0; w < words_.size() && w < other.words_.size(); ++w) {
      if ((words_[w] & other.words_[w]) != 0) return true;
    }
    return false;
  }

  absl::Span<uint64_t> words() { return absl::MakeSpan(words_); }
  absl::Span<const uint64_t> words() const { return words_; }
  friend bool operator==(const TypeSet& a, const TypeSet& b) {
    return a.size_ == b.size_ && a.words_ == b.words_;
  }

 private:
  int size_ = 0;
  std::vector<uint64_t> words_;
};

class RequirementsIndexBuilder;

class RequirementsIndex {
 public:
  RequirementsIndex();
  ~RequirementsIndex();
  RequirementsIndex(RequirementsIndex&&) noexcept;
  RequirementsIndex& operator=(RequirementsIndex&&) noexcept;
  // Copies the requirements of each type (index i = position in `types`).
  explicit RequirementsIndex(absl::Span<const Requirements> types);
  // Borrows the requirements instead of copying them: every pointer must stay
  // valid, and its Requirements unmodified, for the life of the index (e.g.
  // the requirements live in the same immutable object as the index). Moving
  // the index keeps the borrowed pointers.
  explicit RequirementsIndex(absl::Span<const Requirements* const> types);

  int size() const { return size_; }
  const Requirements& type(int i) const { return *types_[i]; }

  // out := { i : type(i).Intersects(query) } (keys defined on both sides).
  void Intersecting(const Requirements& query, TypeSet* out) const;
  // out &= { i : type(i) passes Intersects against the one requirement q }
  // (a type not defining q's key passes): Intersecting one key at a time,
  // for callers that narrow a set as a query gains requirements.
  void AndIntersecting(const Requirement& q, TypeSet* out) const;
  // out := { i : type(i).IsCompatible(query, options) } (type(i) is the
  // existing side, query the incoming one).
  void Compatible(const Requirements& query,
                  const CompatibilityOptions& options, TypeSet* out) const;

 private:
  struct KeyIndex;
  struct SlotEntry;
  // Ands into `out` the types whose requirement on the key passes
  // Intersects against q (types not defining the key pass).
  void AndIntersectingKey(const KeyIndex& k, const Requirement& q,
                          TypeSet* out) const;

  friend class RequirementsIndexBuilder;
  // Build-time state: key id -> position in keys_ for small ids.
  struct BuildState {
    std::vector<int> dense_key;
  };
  // Fills keys_ and the value slots from types_.
  void Build();
  // Indexes types_[t]; then, after the last type, FinishBuild.
  void IndexType(BuildState& state, int t);
  void FinishBuild();
  int KeyPosition(BuildState& state, LabelKeyId key);
  // The slot of (key position, value id), or -1; with `create`, a new slot
  // of keys_[position] when absent.
  int FindSlot(int position, LabelValueId value) const;
  int FindOrAddSlot(int position, LabelValueId value);
  int LookUpOrAddSlot(int position, LabelValueId value);
  int AddSlot(int position, uint64_t packed);
  // IndexType for a complement requirement (NotIn, Exists, bounds).
  void IndexComplement(int position, const Requirement& r, int t);

  int size_ = 0;
  int words_ = 0;
  // The copies made by the copying constructor (empty when borrowing);
  // types_ points into it or at the borrowed requirements. A moved vector
  // keeps its buffer, so the pointers survive moves of the index.
  std::vector<Requirements> owned_;
  std::vector<const Requirements*> types_;
  std::vector<KeyIndex> keys_;
  absl::flat_hash_map<LabelKeyId, int> key_slot_;
  // Open addressing over (key position, value id) -> value slot of that
  // key, for every key (a few thousand entries for a catalog: small enough
  // to stay in cache while building, unlike a table per key).
  std::vector<SlotEntry> value_slots_;
  int value_slot_count_ = 0;
};

// Builds the borrowing index one type at a time, for a caller that creates
// the label sets one by one and indexes each while it is still in cache:
// Add(types[0]), Add(types[1]), ..., then Finish() equals
// RequirementsIndex(types) (borrowing, same conditions on the pointers).
class RequirementsIndexBuilder {
 public:
  // For `size` types.
  explicit RequirementsIndexBuilder(int size);
  // Borrows `type` as the next type (index = the number added before it);
  // ignored once `size` types were added.
  void Add(const Requirements* type);
  // The index. Types never added are empty label sets.
  RequirementsIndex Finish() &&;

 private:
  RequirementsIndex index_;
  RequirementsIndex::BuildState state_;
  int declared_ = 0;
};

}  // namespace nodeplan

#endif  // NODEPLAN_REQUIREMENTS_INDEX_H_
