#ifndef NODEPLAN_LIB_SCHEDULING_BITS_H_
#define NODEPLAN_LIB_SCHEDULING_BITS_H_

// A dynamically sized bitset over instance types (or NodeClaims).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nodeplan::scheduling {

class Bits {
 public:
  Bits() = default;
  explicit Bits(size_t n, bool all = false)
      : n_(n), w_((n + 63) / 64, all ? ~uint64_t{0} : 0) {
    Trim();
  }
  size_t size() const { return n_; }
  void Set(size_t i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  void Reset(size_t i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool Test(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  Bits& operator&=(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] &= o.w_[k];
    return *this;
  }
  Bits& operator|=(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k];
    return *this;
  }
  Bits& AndNot(const Bits& o) {
    for (size_t k = 0; k < w_.size(); ++k) w_[k] &= ~o.w_[k];
    return *this;
  }
  bool Any() const {
    for (uint64_t x : w_)
      if (x) return true;
    return false;
  }
  size_t Count() const {
    size_t c = 0;
    for (uint64_t x : w_) c += __builtin_popcountll(x);
    return c;
  }
  bool operator==(const Bits& o) const { return w_ == o.w_; }
  template <typename F>
  void ForEach(F f) const {
    for (size_t k = 0; k < w_.size(); ++k) {
      uint64_t x = w_[k];
      while (x) {
        int b = __builtin_ctzll(x);
        f(k * 64 + b);
        x &= x - 1;
      }
    }
  }
  // a & b & c has a bit set (no allocation).
  static bool AnyAnd(const Bits& a, const Bits& b) {
    for (size_t k = 0; k < a.w_.size(); ++k)
      if (a.w_[k] & b.w_[k]) return true;
    return false;
  }

 private:
  void Trim() {
    if (n_ % 64 && !w_.empty()) w_.back() &= (uint64_t{1} << (n_ % 64)) - 1;
  }
  size_t n_ = 0;
  std::vector<uint64_t> w_;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_BITS_H_
