#ifndef NODEPLAN_LIB_CATALOG_TEXT_CACHE_H_
#define NODEPLAN_LIB_CATALOG_TEXT_CACHE_H_

// A direct-mapped memo from text to a small value (an interned id), used by
// CompileCatalog so that the ~45,000 labels of the AWS catalog, which repeat
// a few thousand distinct strings, cost a cheap hash and a compare of two words
// each instead of a normalization and a full hash-map probe.
//
// It only remembers: every entry was first looked up the slow way, so a miss
// (never seen, or evicted by a colliding string) just means "ask the
// interner". The cache stores views, not copies: the texts must outlive it
// (the catalog proto being compiled does).

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/string_view.h"

namespace nodeplan::catalog {

template <typename T>
class TextCache {
 public:
  // 2^log2_slots slots.
  explicit TextCache(int log2_slots)
      : slots_(size_t{1} << log2_slots), mask_((size_t{1} << log2_slots) - 1) {}

  const T* Find(absl::string_view text) const {
    const Ends ends = EndsOf(text);
    const Slot& s = slots_[Hash(ends, text.size()) & mask_];
    if (s.data == nullptr || s.size != text.size() || s.head != ends.head ||
        s.tail != ends.tail) {
      return nullptr;
    }
    // The ends cover texts up to 16 bytes; compare the middle of longer
    // ones.
    if (text.size() > 16 &&
        std::memcmp(s.data + 8, text.data() + 8, text.size() - 16) != 0) {
      return nullptr;
    }
    return &s.value;
  }

  // Remembers text -> value (evicting whatever shared the slot). Empty
  // texts are not cached (their data pointer may be null).
  void Put(absl::string_view text, const T& value) {
    if (text.empty()) return;
    const Ends ends = EndsOf(text);
    Slot& s = slots_[Hash(ends, text.size()) & mask_];
    s.head = ends.head;
    s.tail = ends.tail;
    s.data = text.data();
    s.size = text.size();
    s.value = value;
  }

 private:
  // Up to 8 bytes from each end (zero-padded for shorter texts).
  struct Ends {
    uint64_t head = 0;
    uint64_t tail = 0;
  };
  struct Slot {
    uint64_t head = 0;
    uint64_t tail = 0;
    const char* data = nullptr;
    size_t size = 0;
    T value{};
  };

  static Ends EndsOf(absl::string_view s) {
    Ends e;
    const size_t n = s.size();
    if (n >= 8) {
      std::memcpy(&e.head, s.data(), 8);
      std::memcpy(&e.tail, s.data() + n - 8, 8);
    } else if (n > 0) {
      std::memcpy(&e.head, s.data(), n);
    }
    return e;
  }

  // Label keys differ in their prefix or suffix, label values are mostly
  // short. Collisions only cost a miss.
  static uint64_t Hash(const Ends& e, size_t n) {
    uint64_t h = (e.head * 0x9E3779B97F4A7C15ull) ^
                 (e.tail * 0xC2B2AE3D27D4EB4Full) ^ (n * 0x165667B19E3779F9ull);
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 29);
  }

  std::vector<Slot> slots_;
  size_t mask_;
};

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_TEXT_CACHE_H_
