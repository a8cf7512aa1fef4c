#ifndef NODEPLAN_DIGEST_H_
#define NODEPLAN_DIGEST_H_

// Stable bytes and stable digests of messages.
//
// Protobuf serializes map entries in the order of each map's memory layout,
// which differs between runs and processes. Everything nodeplan promises
// ("same request bytes, same response bytes") and every golden digest in its
// tests go through DeterministicBytes, which sorts map entries by key.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/message_lite.h"

namespace nodeplan {

// The binary wire form with map entries in key order. Equal messages give
// equal bytes. An unserializable message (over 2 GiB) gives "".
std::string DeterministicBytes(const google::protobuf::MessageLite& message);

// The same bytes written into `buffer`, which holds exactly
// message.ByteSizeLong() bytes, computed just before (the sizes are cached
// by that call); false when the writer failed. For callers that own the
// buffer (the C ABI hands out malloc'ed memory).
bool SerializeDeterministicTo(const google::protobuf::MessageLite& message,
                              void* buffer, size_t size);

// FNV-1a, 64 bits (offset basis 14695981039346656037, prime 1099511628211:
// xor the byte, then multiply). Not a cryptographic hash: a digest for
// goldens and a spreader for generated names.
uint64_t Fnv1a64(absl::string_view bytes);

// "<16 hex digits of Fnv1a64>/<byte count>" of DeterministicBytes(message):
// the digest form the golden tests record.
std::string MessageDigest(const google::protobuf::MessageLite& message);

}  // namespace nodeplan

#endif  // NODEPLAN_DIGEST_H_
