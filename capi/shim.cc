#include "shim.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "nodeplan/c_api.h"
#include "nodeplan/digest.h"

namespace nodeplan::capi {

static_assert(NODEPLAN_MAX_REQUEST_BYTES == INT_MAX,
              "protobuf parses at most INT_MAX bytes");

void ResetOutputs(const Outputs& out) noexcept {
  if (out.response != nullptr) *out.response = nullptr;
  if (out.response_len != nullptr) *out.response_len = 0;
  if (out.error != nullptr) *out.error = nullptr;
}

absl::Status CheckOutputs(const Outputs& out) {
  if ((out.response == nullptr) != (out.response_len == nullptr)) {
    return absl::InvalidArgumentError(
        "response and response_len must both be NULL or both be set");
  }
  return absl::OkStatus();
}

absl::Status ParseRequest(const void* data, size_t len,
                          google::protobuf::MessageLite& message) {
  if (data == nullptr && len != 0) {
    return absl::InvalidArgumentError(
        "request is NULL but request_len is not 0");
  }
  if (len > NODEPLAN_MAX_REQUEST_BYTES) {
    return absl::InvalidArgumentError(
        "request_len " + std::to_string(len) + " exceeds the limit of " +
        std::to_string(NODEPLAN_MAX_REQUEST_BYTES) + " bytes");
  }
  if (len == 0) {
    message.Clear();
    return absl::OkStatus();
  }
  if (!message.ParseFromArray(data, static_cast<int>(len))) {
    return absl::InvalidArgumentError("request of " + std::to_string(len) +
                                      " bytes does not decode as " +
                                      message.GetTypeName());
  }
  return absl::OkStatus();
}

google::protobuf::ArenaOptions RequestArenaOptions(size_t len) {
  constexpr size_t kMinBlock = size_t{4} << 10;
  constexpr size_t kMaxBlock = size_t{1} << 20;
  google::protobuf::ArenaOptions options;
  options.start_block_size = std::clamp(len, kMinBlock, kMaxBlock);
  options.max_block_size = kMaxBlock;
  return options;
}

int Respond(const google::protobuf::MessageLite& message, const Outputs& out) {
  if (out.response == nullptr) return NODEPLAN_OK;  // Not wanted.
  const size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return Fail(
        absl::ResourceExhaustedError("the " + message.GetTypeName() +
                                     " response of " + std::to_string(size) +
                                     " bytes exceeds protobuf's 2 GiB limit"),
        out);
  }
  // One byte at least, so that success always yields a non-NULL buffer.
  auto* buffer = static_cast<unsigned char*>(std::malloc(size == 0 ? 1 : size));
  if (buffer == nullptr) {
    return Fail(
        absl::ResourceExhaustedError("out of memory for the " +
                                     message.GetTypeName() + " response"),
        out);
  }
  // Deterministic: map entries in key order. Protobuf's default order
  // depends on each map's memory layout, which would break "same request
  // bytes, same response bytes" (caught by the threads test).
  if (!SerializeDeterministicTo(message, buffer, size)) {
    std::free(buffer);
    return Fail(absl::InternalError("serializing the " + message.GetTypeName() +
                                    " failed"),
                out);
  }
  *out.response = buffer;
  *out.response_len = size;
  return NODEPLAN_OK;
}

char* CopyMessage(absl::string_view text) noexcept {
  auto* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) return nullptr;
  if (!text.empty()) std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}

int FailWith(int code, absl::string_view text, const Outputs& out) noexcept {
  // Respond() stores a response only once it is complete, so there is never
  // one to release here.
  ResetOutputs(out);
  if (code == NODEPLAN_OK) {
    code = NODEPLAN_INTERNAL;
    text = "internal error: failure reported with an OK status";
  }
  if (out.error != nullptr) *out.error = CopyMessage(text);
  return code;
}

int Fail(const absl::Status& status, const Outputs& out) noexcept {
  return FailWith(status.raw_code(), status.message(), out);
}

int FailFromException(std::exception_ptr error, const Outputs& out) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return FailWith(NODEPLAN_RESOURCE_EXHAUSTED, "out of memory", out);
  } catch (const std::exception& e) {
    // Building the message can itself throw; then the fixed text below.
    try {
      return FailWith(NODEPLAN_INTERNAL,
                      std::string("internal error: ") + e.what(), out);
    } catch (...) {
    }
  } catch (...) {
  }
  return FailWith(NODEPLAN_INTERNAL, "internal error: unknown exception", out);
}

}  // namespace nodeplan::capi
