#ifndef NODEPLAN_TESTS_FUZZ_FUZZ_UTIL_H_
#define NODEPLAN_TESTS_FUZZ_FUZZ_UTIL_H_

// Shared by the fuzz targets.

#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "nodeplan/digest.h"

namespace nodeplan::fuzz {

// Deterministic bytes (map entries sorted): equal messages, equal bytes.
inline std::string Bytes(const google::protobuf::MessageLite& m) {
  return DeterministicBytes(m);
}

}  // namespace nodeplan::fuzz

#endif  // NODEPLAN_TESTS_FUZZ_FUZZ_UTIL_H_
