// The boundary mechanics (capi/shim.h) against every rule of the header's
// conventions: outputs always overwritten, NULL outputs tolerated, bad lengths
// and bytes rejected, exceptions mapped to codes.

#include "shim.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nodeplan/c_api.h"
#include "nodeplan/digest.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::capi {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Outputs pre-filled with garbage: a test fails if any is left untouched.
char kPoisonText[] = "poison";
struct Poisoned {
  void* response = kPoisonText;
  size_t response_len = SIZE_MAX;
  char* error = kPoisonText;
  Outputs outputs() { return {&response, &response_len, &error}; }
  ~Poisoned() {
    if (response != kPoisonText) nodeplan_free(response);
    if (error != kPoisonText) nodeplan_free(error);
  }
};

v1::ScheduleResponse SampleResponse() {
  v1::ScheduleResponse r;
  r.set_library_version("nodeplan/test");
  r.add_unschedulable()->set_pod("default/a");
  r.set_cost(0.25);
  return r;
}

TEST(CallTest, SuccessOverwritesEveryOutput) {
  Poisoned p;
  int code = Call(p.outputs(), [] {
    return absl::StatusOr<v1::ScheduleResponse>(SampleResponse());
  });
  ASSERT_EQ(code, NODEPLAN_OK);
  EXPECT_EQ(p.error, nullptr);
  ASSERT_NE(p.response, nullptr);
  ASSERT_NE(p.response, static_cast<void*>(kPoisonText));
  v1::ScheduleResponse parsed;
  ASSERT_TRUE(
      parsed.ParseFromArray(p.response, static_cast<int>(p.response_len)));
  EXPECT_EQ(parsed.SerializeAsString(), SampleResponse().SerializeAsString());
}

TEST(CallTest, MapsSerializeInKeyOrder) {
  // Two equal messages whose maps were filled in opposite orders give the
  // same bytes, and those are protobuf's deterministic serialization.
  v1::NewNodeClaim forward, backward;
  for (int i = 0; i < 64; ++i) {
    (*forward.mutable_requests())["r" + std::to_string(i)] = "1";
    (*backward.mutable_requests())["r" + std::to_string(63 - i)] = "1";
  }
  std::string deterministic = DeterministicBytes(forward);
  for (const v1::NewNodeClaim* m : {&forward, &backward}) {
    Poisoned p;
    ASSERT_EQ(
        Call(p.outputs(), [&] { return absl::StatusOr<v1::NewNodeClaim>(*m); }),
        NODEPLAN_OK);
    EXPECT_EQ(std::string(static_cast<const char*>(p.response), p.response_len),
              deterministic);
  }
}

TEST(CallTest, EmptyResponseIsANonNullBuffer) {
  Poisoned p;
  int code = Call(p.outputs(), [] {
    return absl::StatusOr<v1::ScheduleResponse>(v1::ScheduleResponse());
  });
  ASSERT_EQ(code, NODEPLAN_OK);
  EXPECT_NE(p.response, nullptr);
  EXPECT_NE(p.response, static_cast<void*>(kPoisonText));
  EXPECT_EQ(p.response_len, 0u);
  EXPECT_EQ(p.error, nullptr);
}

TEST(CallTest, FailureOverwritesEveryOutput) {
  Poisoned p;
  int code = Call(p.outputs(), []() -> absl::StatusOr<v1::ScheduleResponse> {
    return absl::InvalidArgumentError("NodePool x: spec.weight: too big");
  });
  EXPECT_EQ(code, NODEPLAN_INVALID_ARGUMENT);
  EXPECT_EQ(p.response, nullptr);
  EXPECT_EQ(p.response_len, 0u);
  ASSERT_NE(p.error, nullptr);
  ASSERT_NE(p.error, kPoisonText);
  EXPECT_STREQ(p.error, "NodePool x: spec.weight: too big");
}

TEST(CallTest, CodesAreAbslStatusCodes) {
  const absl::Status cases[] = {
      absl::NotFoundError("a"),          absl::FailedPreconditionError("b"),
      absl::ResourceExhaustedError("c"), absl::InternalError("d"),
      absl::UnimplementedError("e"),     absl::OutOfRangeError("f")};
  for (const absl::Status& st : cases) {
    Poisoned p;
    int code = Call(p.outputs(), [&]() -> absl::StatusOr<v1::ScheduleResponse> {
      return st;
    });
    EXPECT_EQ(code, st.raw_code());
    EXPECT_EQ(p.error, st.message());
  }
}

TEST(CallTest, AllOutputsNullOnSuccessAndFailure) {
  Outputs none{nullptr, nullptr, nullptr};
  EXPECT_EQ(
      Call(none,
           [] {
             return absl::StatusOr<v1::ScheduleResponse>(SampleResponse());
           }),
      NODEPLAN_OK);
  EXPECT_EQ(Call(none,
                 []() -> absl::StatusOr<v1::ScheduleResponse> {
                   return absl::InvalidArgumentError("bad");
                 }),
            NODEPLAN_INVALID_ARGUMENT);
}

TEST(CallTest, OnlyErrorWanted) {
  char* error = kPoisonText;
  Outputs out{nullptr, nullptr, &error};
  EXPECT_EQ(
      Call(out,
           [] {
             return absl::StatusOr<v1::ScheduleResponse>(SampleResponse());
           }),
      NODEPLAN_OK);
  EXPECT_EQ(error, nullptr);
}

TEST(CallTest, ResponseWithoutLengthIsRejected) {
  void* response = kPoisonText;
  char* error = kPoisonText;
  Outputs out{&response, nullptr, &error};
  bool ran = false;
  int code = Call(out, [&] {
    ran = true;
    return absl::StatusOr<v1::ScheduleResponse>(SampleResponse());
  });
  EXPECT_EQ(code, NODEPLAN_INVALID_ARGUMENT);
  EXPECT_FALSE(ran);
  EXPECT_EQ(response, nullptr);
  ASSERT_NE(error, kPoisonText);
  EXPECT_THAT(error, HasSubstr("response_len"));
  nodeplan_free(error);
}

TEST(CallTest, ExceptionsBecomeCodes) {
  {
    Poisoned p;
    int code = Call(p.outputs(), []() -> absl::StatusOr<v1::ScheduleResponse> {
      throw std::runtime_error("boom");
    });
    EXPECT_EQ(code, NODEPLAN_INTERNAL);
    EXPECT_EQ(p.response, nullptr);
    EXPECT_EQ(p.response_len, 0u);
    EXPECT_STREQ(p.error, "internal error: boom");
  }
  {
    Poisoned p;
    int code = Call(p.outputs(), []() -> absl::StatusOr<v1::ScheduleResponse> {
      throw std::bad_alloc();
    });
    EXPECT_EQ(code, NODEPLAN_RESOURCE_EXHAUSTED);
    EXPECT_STREQ(p.error, "out of memory");
  }
  {
    Poisoned p;
    int code = Call(p.outputs(),
                    []() -> absl::StatusOr<v1::ScheduleResponse> { throw 42; });
    EXPECT_EQ(code, NODEPLAN_INTERNAL);
    EXPECT_STREQ(p.error, "internal error: unknown exception");
  }
}

TEST(CallTest, OkStatusOnFailurePathIsInternal) {
  Poisoned p;
  EXPECT_EQ(Fail(absl::OkStatus(), p.outputs()), NODEPLAN_INTERNAL);
  EXPECT_EQ(p.response, nullptr);
  EXPECT_THAT(p.error, StartsWith("internal error"));
}

TEST(ParseRequestTest, EmptyAndNullWithZeroLengthAreTheEmptyMessage) {
  v1::ScheduleRequest req;
  req.add_pods();
  ASSERT_TRUE(ParseRequest(nullptr, 0, req).ok());
  EXPECT_EQ(req.pods_size(), 0);
  const char byte = 0;
  EXPECT_TRUE(ParseRequest(&byte, 0, req).ok());
}

TEST(ParseRequestTest, RejectsBadInputs) {
  v1::ScheduleRequest req;
  const std::string garbage = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
  // Field 1 (node_pools) as a length-delimited record claiming 100 bytes.
  const std::string truncated = "\x0a\x64\x01";
  // Field 1 (node_pools) > field 3 (metadata) > field 1 (name): "\xc3\x28".
  const std::string bad_utf8 =
      std::string("\x0a\x06\x1a\x04\x0a\x02\xc3\x28", 8);
  struct Case {
    const char* name;
    const void* data;
    size_t len;
    const char* message;
  } cases[] = {
      {"null with length", nullptr, 5, "NULL"},
      {"oversized", garbage.data(), size_t{INT_MAX} + 1, "exceeds the limit"},
      {"max size_t", garbage.data(), SIZE_MAX, "exceeds the limit"},
      {"garbage", garbage.data(), garbage.size(), "does not decode"},
      {"truncated", truncated.data(), truncated.size(), "does not decode"},
      {"invalid utf-8", bad_utf8.data(), bad_utf8.size(), "does not decode"},
  };
  for (const Case& c : cases) {
    absl::Status st = ParseRequest(c.data, c.len, req);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(st.message()), HasSubstr(c.message)) << c.name;
  }
}

TEST(ParseRequestTest, DeepNestingIsAnErrorNotACrash) {
  // 10,000 nested groups of an unknown field (number 111): protobuf descends
  // into unknown groups, so this would exhaust the stack without its
  // recursion limit.
  std::string nested;
  for (int i = 0; i < 10000; ++i) nested = "\xfb\x06" + nested + "\xfc\x06";
  v1::ScheduleRequest req;
  absl::Status st = ParseRequest(nested.data(), nested.size(), req);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParsedRequestTest, ParsesOnItsOwnArena) {
  v1::ScheduleRequest original;
  original.add_pods()->mutable_metadata()->set_name("web-0");
  (*original.add_pods()->mutable_metadata()->mutable_labels())["app"] = "web";
  const std::string bytes = original.SerializeAsString();
  ParsedRequest<v1::ScheduleRequest> parsed(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed.status().ok()) << parsed.status();
  EXPECT_NE(parsed->GetArena(), nullptr);
  ASSERT_EQ(parsed->pods_size(), 2);
  EXPECT_EQ(parsed->pods(0).metadata().name(), "web-0");
  EXPECT_EQ(parsed->pods(1).metadata().labels().at("app"), "web");
  EXPECT_EQ((*parsed).SerializeAsString(), bytes);
}

TEST(ParsedRequestTest, CarriesParseRequestsErrors) {
  const std::string garbage = "\xff\xff\xff";
  ParsedRequest<v1::ScheduleRequest> bad(garbage.data(), garbage.size());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  ParsedRequest<v1::ScheduleRequest> null_with_length(nullptr, 3);
  EXPECT_EQ(null_with_length.status().code(),
            absl::StatusCode::kInvalidArgument);
  ParsedRequest<v1::ScheduleRequest> empty(nullptr, 0);
  EXPECT_TRUE(empty.status().ok());
  EXPECT_EQ(empty->pods_size(), 0);
}

TEST(RequestArenaOptionsTest, FirstBlockFollowsTheRequestWithinBounds) {
  struct Case {
    size_t len;
    size_t start;
  } cases[] = {
      {0, 4096},
      {100, 4096},
      {300000, 300000},
      {size_t{1} << 20, size_t{1} << 20},
      {size_t{INT_MAX}, size_t{1} << 20},
  };
  for (const Case& c : cases) {
    const google::protobuf::ArenaOptions options = RequestArenaOptions(c.len);
    EXPECT_EQ(options.start_block_size, c.start) << c.len;
    EXPECT_EQ(options.max_block_size, size_t{1} << 20) << c.len;
  }
}

TEST(VersionTest, VersionAndAbi) {
  EXPECT_EQ(nodeplan_abi_version(), NODEPLAN_CAPI_ABI_VERSION);
  EXPECT_THAT(nodeplan_version(),
              testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
  nodeplan_free(nullptr);  // A no-op.
}

}  // namespace
}  // namespace nodeplan::capi
