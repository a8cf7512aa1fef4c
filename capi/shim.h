#ifndef NODEPLAN_CAPI_SHIM_H_
#define NODEPLAN_CAPI_SHIM_H_

// The mechanics shared by every C entry point: bounded request parsing,
// serializing a response into memory the caller frees with nodeplan_free(),
// spreading an absl::Status into the out-parameters, and catching every
// exception. The C functions (capi/c_api.cc for versions and freeing,
// schedule.cc, disrupt.cc, manifest.cc, validate.cc, explain.cc, diff.cc and
// cluster.cc, one file per area of capi/include/nodeplan/c_api.h) hold no
// logic beyond calling these and the C++ API.

#include <cstddef>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/message_lite.h"

namespace nodeplan::capi {

// The outputs of one operation, any of which may be NULL ("not wanted").
struct Outputs {
  void** response;
  size_t* response_len;
  char** error;
};

// Writes NULL/0 into every output that is wanted. Called first by every entry
// point so that no output keeps what the caller put there.
void ResetOutputs(const Outputs& out) noexcept;

// Checks the output pointers themselves: response and response_len must be
// both NULL or both set.
absl::Status CheckOutputs(const Outputs& out);

// Parses `len` bytes at `data` as `message`: NULL with a non-zero length, a
// length over NODEPLAN_MAX_REQUEST_BYTES and bytes that do not decode as
// `message` (including invalid UTF-8 in strings and nesting deeper than
// protobuf's recursion limit) are INVALID_ARGUMENT.
absl::Status ParseRequest(const void* data, size_t len,
                          google::protobuf::MessageLite& message);

// The options of the arena one request of `len` bytes is parsed on: a first
// block about the request's size (at least 4 KiB, at most 1 MiB) and blocks
// of up to 1 MiB after it, so that parsing takes a few mallocs instead of one
// per string and sub-message, and releasing the request a few frees. (The
// default arena grows to 8 KiB blocks only.)
google::protobuf::ArenaOptions RequestArenaOptions(size_t len);

// A request parsed (ParseRequest()) on an arena of its own sized with
// RequestArenaOptions(); the message lives as long as this object.
template <typename Request>
class ParsedRequest {
 public:
  ParsedRequest(const void* data, size_t len)
      : arena_(RequestArenaOptions(len)),
        message_(google::protobuf::Arena::CreateMessage<Request>(&arena_)),
        status_(ParseRequest(data, len, *message_)) {}
  ParsedRequest(const ParsedRequest&) = delete;
  ParsedRequest& operator=(const ParsedRequest&) = delete;

  // OK, or why the bytes are not a valid request.
  const absl::Status& status() const { return status_; }
  // The request; meaningful only when status() is OK.
  const Request& operator*() const { return *message_; }
  const Request* operator->() const { return message_; }

 private:
  google::protobuf::Arena arena_;
  Request* message_;
  absl::Status status_;
};

// Serializes `message` deterministically (map entries in key order) into a
// malloc'd buffer (never NULL, even when empty)
// and stores it in the outputs; returns the code to hand back (0 or
// RESOURCE_EXHAUSTED when the buffer cannot be allocated or the message
// exceeds protobuf's 2 GiB limit).
int Respond(const google::protobuf::MessageLite& message, const Outputs& out);
// The same for a response built on an arena (the body returns a pointer).
inline int Respond(const google::protobuf::MessageLite* message,
                   const Outputs& out) {
  return Respond(*message, out);
}

// Stores the status's message (malloc'd) in out.error and returns its code.
// An OK status is mapped to INTERNAL: a failure path never returns 0.
int Fail(const absl::Status& status, const Outputs& out) noexcept;
// The same from a code and text, without building an absl::Status (which
// allocates): the path taken when memory has run out.
int FailWith(int code, absl::string_view text, const Outputs& out) noexcept;

// Copies `text` into a malloc'd NUL-terminated string; NULL when out of
// memory.
char* CopyMessage(absl::string_view text) noexcept;

// Maps an exception caught at the boundary to a code and message.
int FailFromException(std::exception_ptr error, const Outputs& out) noexcept;

// Runs `body` (returning absl::StatusOr<Response>) with every exception
// caught, and spreads its result into `out`.
template <typename Body>
int Call(const Outputs& out, Body&& body) noexcept {
  ResetOutputs(out);
  try {
    if (absl::Status st = CheckOutputs(out); !st.ok()) return Fail(st, out);
    auto result = body();
    if (!result.ok()) return Fail(result.status(), out);
    return Respond(*result, out);
  } catch (...) {
    return FailFromException(std::current_exception(), out);
  }
}

// The whole of a "request in, response out" entry point: parses `len` bytes
// at `data` as a `Request` (on its own arena) and answers with
// decide(request), a Response or absl::StatusOr<Response>, through Call().
template <typename Request, typename Response, typename Decide>
int ParseAndCall(const void* data, size_t len, const Outputs& out,
                 Decide&& decide) noexcept {
  return Call(out, [&]() -> absl::StatusOr<Response> {
    ParsedRequest<Request> request(data, len);
    if (!request.status().ok()) return request.status();
    return decide(*request);
  });
}

// A request parsed (ParseRequest()) on the heap, for a callee that moves
// from it: what it keeps then costs a swap, not a copy out of an arena.
template <typename Request>
class OwnedRequest {
 public:
  OwnedRequest(const void* data, size_t len)
      : status_(ParseRequest(data, len, message_)) {}
  OwnedRequest(const OwnedRequest&) = delete;
  OwnedRequest& operator=(const OwnedRequest&) = delete;
  const absl::Status& status() const { return status_; }
  Request& operator*() { return message_; }

 private:
  Request message_;
  absl::Status status_;
};

// ParseAndCall for a `decide` that takes the request by rvalue reference.
template <typename Request, typename Response, typename Decide>
int ParseOwnedAndCall(const void* data, size_t len, const Outputs& out,
                      Decide&& decide) noexcept {
  return Call(out, [&]() -> absl::StatusOr<Response> {
    OwnedRequest<Request> request(data, len);
    if (!request.status().ok()) return request.status();
    return decide(std::move(*request));
  });
}

}  // namespace nodeplan::capi

#endif  // NODEPLAN_CAPI_SHIM_H_
