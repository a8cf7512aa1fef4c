#include "hash/fnv.h"

namespace nodeplan::hash_internal {
namespace {

constexpr uint64_t kOffsetBasis = 14695981039346656037ULL;
constexpr uint64_t kPrime = 1099511628211ULL;

uint64_t Update(uint64_t h, unsigned char byte) { return (h * kPrime) ^ byte; }

uint64_t UpdateU64(uint64_t h, uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    h = Update(h, static_cast<unsigned char>(value >> (8 * i)));
  }
  return h;
}

}  // namespace

uint64_t Fnv1(absl::string_view bytes) {
  uint64_t h = kOffsetBasis;
  for (char c : bytes) h = Update(h, static_cast<unsigned char>(c));
  return h;
}

uint64_t Fnv1a(absl::string_view bytes) {
  uint64_t h = kOffsetBasis;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * kPrime;
  return h;
}

uint64_t FnvU64(uint64_t value) { return UpdateU64(kOffsetBasis, value); }

uint64_t Ordered(uint64_t a, uint64_t b) {
  return UpdateU64(UpdateU64(kOffsetBasis, a), b);
}

}  // namespace nodeplan::hash_internal
