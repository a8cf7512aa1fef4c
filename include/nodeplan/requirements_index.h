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
// Results always equal Requirements::Intersects / IsCompatible type by type
// (property-tested).

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
  bool None() const;
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
  void AndWith(const TypeSet& other);
  void OrWith(const TypeSet& other);
  void AndNotWith(const TypeSet& other);

  absl::Span<uint64_t> words() { return absl::MakeSpan(words_); }
  absl::Span<const uint64_t> words() const { return words_; }
  friend bool operator==(const TypeSet& a, const TypeSet& b) {
    return a.size_ == b.size_ && a.words_ == b.words_;
  }

 private:
  int size_ = 0;
  std::vector<uint64_t> words_;
};

class RequirementsIndex {
 public:
  RequirementsIndex();
  ~RequirementsIndex();
  RequirementsIndex(RequirementsIndex&&) noexcept;
  RequirementsIndex& operator=(RequirementsIndex&&) noexcept;
  // Copies the requirements of each type (index i = position in `types`).
  explicit RequirementsIndex(absl::Span<const Requirements> types);

  int size() const { return size_; }
  const Requirements& type(int i) const { return types_[i]; }

  // out := { i : type(i).Intersects(query) } (keys defined on both sides).
  void Intersecting(const Requirements& query, TypeSet* out) const;
  // out := { i : type(i).IsCompatible(query, options) } (type(i) is the
  // existing side, query the incoming one).
  void Compatible(const Requirements& query,
                  const CompatibilityOptions& options, TypeSet* out) const;

 private:
  struct KeyIndex;
  // Ands into `out` the types whose requirement on the key passes
  // Intersects against q (types not defining the key pass).
  void AndIntersectingKey(const KeyIndex& k, const Requirement& q,
                          TypeSet* out) const;

  int size_ = 0;
  int words_ = 0;
  std::vector<Requirements> types_;
  std::vector<KeyIndex> keys_;
  absl::flat_hash_map<LabelKeyId, int> key_slot_;
};

}  // namespace nodeplan

#endif  // NODEPLAN_REQUIREMENTS_INDEX_H_
