#include "nodeplan/digest.h"

#include "absl/strings/str_format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace nodeplan {

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!message.SerializeToCodedStream(&coded)) return "";
  }
  return out;
}

uint64_t Fnv1a64(absl::string_view bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string MessageDigest(const google::protobuf::MessageLite& message) {
  std::string bytes = DeterministicBytes(message);
  return absl::StrFormat("%016x/%d", Fnv1a64(bytes), bytes.size());
}

}  // namespace nodeplan
