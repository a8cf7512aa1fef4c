#ifndef NODEPLAN_LIB_HASH_FNV_H_
#define NODEPLAN_LIB_HASH_FNV_H_

// FNV, 64 bits, in its two variants (one offset basis and prime for both):
// FNV-1 for the primitives of mitchellh/hashstructure v2 (FormatV2), the
// hasher Go's hash/fnv.New64 returns, which the NodePool hash must match;
// FNV-1a for nodeplan's own digests and generated names (nodeplan/digest.h).

#include <cstdint>

#include "absl/strings/string_view.h"

namespace nodeplan::hash_internal {

// FNV-1/64 of `bytes` from the offset basis: multiply, then xor.
uint64_t Fnv1(absl::string_view bytes);

// FNV-1a/64 of `bytes` from the offset basis: xor, then multiply.
uint64_t Fnv1a(absl::string_view bytes);

// Fnv1 of the 8 little-endian bytes of `value` (Go int64/uint64 values).
uint64_t FnvU64(uint64_t value);

// hashUpdateOrdered: Fnv1(u64le(a) || u64le(b)).
uint64_t Ordered(uint64_t a, uint64_t b);

// hashFinishUnordered: FnvU64(a).
inline uint64_t Finish(uint64_t a) { return FnvU64(a); }

// Folds one struct field into a struct hash: finish(h ^ ordered(name, v)).
inline uint64_t AddField(uint64_t struct_hash, absl::string_view field_name,
                         uint64_t value_hash) {
  return Finish(struct_hash ^ Ordered(Fnv1(field_name), value_hash));
}

}  // namespace nodeplan::hash_internal

#endif  // NODEPLAN_LIB_HASH_FNV_H_
