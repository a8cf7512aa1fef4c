// instanceTypeEncoding through the C ABI: nodeplan_schedule and
// nodeplan_snapshot_schedule answer "Indexed" with the compact response,
// which a caller parses and expands (ExpandInstanceTypes) into exactly the
// bytes "Names" returns; an unknown encoding is INVALID_ARGUMENT naming the
// field.

#include <string>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nodeplan/c_api.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/schedule.pb.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

using testing::ExpandedOnArena;
using testing::WithEncoding;

// One call's answer: the response bytes, or the code and message.
struct Answer {
  int code = -1;
  std::string response;
  std::string error;
};

template <typename Call>
Answer Ask(Call&& call) {
  void* response = nullptr;
  size_t response_len = 0;
  char* error = nullptr;
  Answer a;
  a.code = call(&response, &response_len, &error);
  if (response != nullptr)
    a.response.assign(static_cast<const char*>(response), response_len);
  if (error != nullptr) a.error = error;
  nodeplan_free(response);
  nodeplan_free(error);
  return a;
}

Answer CallSchedule(const v1::ScheduleRequest& request) {
  const std::string bytes = request.SerializeAsString();
  return Ask([&](void** r, size_t* n, char** e) {
    return nodeplan_schedule(bytes.data(), bytes.size(), r, n, e);
  });
}

TEST(CApiInstanceTypeEncodingTest, IndexedExpandsToTheNamesBytes) {
  for (const v1::ScheduleRequest& request :
       {workload::KarpenterBenchmark(200), workload::SeedNodePoolWorkload(100),
        workload::RandomCluster(7)}) {
    const Answer names = CallSchedule(request);
    const Answer indexed = CallSchedule(WithEncoding(request, "Indexed"));
    ASSERT_EQ(names.code, NODEPLAN_OK) << names.error;
    ASSERT_EQ(indexed.code, NODEPLAN_OK) << indexed.error;
    EXPECT_NE(indexed.response, names.response);
    EXPECT_EQ(ExpandedOnArena(indexed.response), names.response);
  }
}

TEST(CApiInstanceTypeEncodingTest, SnapshotIndexedExpandsToTheNamesBytes) {
  v1::ScheduleRequest base, state;
  testing::SplitForSnapshot(workload::KarpenterBenchmark(200), &base, &state);
  const std::string base_bytes = base.SerializeAsString();
  nodeplan_snapshot* snapshot = nullptr;
  char* error = nullptr;
  ASSERT_EQ(nodeplan_snapshot_new(base_bytes.data(), base_bytes.size(),
                                  &snapshot, &error),
            NODEPLAN_OK)
      << error;
  auto call = [&](const v1::ScheduleRequest& s) {
    const std::string bytes = s.SerializeAsString();
    return Ask([&](void** r, size_t* n, char** e) {
      return nodeplan_snapshot_schedule(snapshot, bytes.data(), bytes.size(), r,
                                        n, e);
    });
  };
  const Answer names = call(state);
  const Answer indexed = call(WithEncoding(state, "Indexed"));
  const Answer bad = call(WithEncoding(state, "indexed"));
  nodeplan_snapshot_free(snapshot);
  ASSERT_EQ(names.code, NODEPLAN_OK) << names.error;
  ASSERT_EQ(indexed.code, NODEPLAN_OK) << indexed.error;
  EXPECT_LT(indexed.response.size() * 4, names.response.size());
  EXPECT_EQ(ExpandedOnArena(indexed.response), names.response);
  EXPECT_EQ(bad.code, NODEPLAN_INVALID_ARGUMENT);
  EXPECT_THAT(bad.error, ::testing::HasSubstr("options.instanceTypeEncoding"));
}

TEST(CApiInstanceTypeEncodingTest, UnknownEncodingIsInvalidArgument) {
  const Answer a =
      CallSchedule(WithEncoding(workload::KarpenterBenchmark(3), "Compact"));
  EXPECT_EQ(a.code, NODEPLAN_INVALID_ARGUMENT);
  EXPECT_TRUE(a.response.empty());
  EXPECT_EQ(a.error,
            "options.instanceTypeEncoding: \"Compact\" is not one of Names, "
            "Indexed");
}

}  // namespace
}  // namespace nodeplan
