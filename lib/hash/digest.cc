#include "nodeplan/digest.h"

#include <climits>

#include "absl/strings/str_format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "hash/fnv.h"

namespace nodeplan {

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  const size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) return "";
  std::string out(size, '\0');
  if (!SerializeDeterministicTo(message, out.data(), size)) return "";
  return out;
}

bool SerializeDeterministicTo(const google::protobuf::MessageLite& message,
                              void* buffer, size_t size) {
  google::protobuf::io::ArrayOutputStream array(buffer, static_cast<int>(size));
  google::protobuf::io::CodedOutputStream coded(&array);
  coded.SetSerializationDeterministic(true);
  message.SerializeWithCachedSizes(&coded);
  return !coded.HadError();
}

uint64_t Fnv1a64(absl::string_view bytes) {
  return hash_internal::Fnv1a(bytes);
}

std::string MessageDigest(const google::protobuf::MessageLite& message) {
  std::string bytes = DeterministicBytes(message);
  return absl::StrFormat("%016x/%d", Fnv1a64(bytes), bytes.size());
}

}  // namespace nodeplan
