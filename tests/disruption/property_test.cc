// Random disruption clusters: every decision passes the independent checker
// (nodeplan/verify.h VerifyDisruption) and is deterministic.

#include <cstdlib>
#include <iostream>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

std::string Bytes(const google::protobuf::Message& m) {
  return DeterministicBytes(m);
}

// NODEPLAN_DISRUPTION_SEED=n prints that cluster and its decision.
TEST(DisruptionPropertyTest, PrintsOneSeed) {
  const char* seed = std::getenv("NODEPLAN_DISRUPTION_SEED");
  if (seed == nullptr) GTEST_SKIP() << "NODEPLAN_DISRUPTION_SEED not set";
  v1::DisruptRequest req =
      workload::RandomDisruptionCluster(std::strtoull(seed, nullptr, 10));
  absl::StatusOr<v1::DisruptResponse> resp = Disrupt(req);
  ASSERT_TRUE(resp.ok()) << resp.status();
  std::cout << req.DebugString() << "\n=====\n" << resp->DebugString();
}

TEST(DisruptionPropertyTest, RandomClustersPassTheChecker) {
  constexpr int kClusters = 400;
  int with_command = 0;
  for (uint64_t seed = 0; seed < kClusters; ++seed) {
    v1::DisruptRequest req = workload::RandomDisruptionCluster(seed);
    absl::StatusOr<v1::DisruptResponse> resp = Disrupt(req);
    ASSERT_TRUE(resp.ok()) << "seed " << seed << ": " << resp.status();
    if (resp->commands_size() > 0) ++with_command;
    for (const Violation& v : VerifyDisruption(req, *resp)) {
      ADD_FAILURE() << "seed " << seed << ": " << FormatViolation(v);
    }
    absl::StatusOr<v1::DisruptResponse> again = Disrupt(req);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(Bytes(*resp), Bytes(*again)) << "seed " << seed;
  }
  // The generator must exercise the methods, not only blocked nodes.
  EXPECT_GT(with_command, kClusters / 4);
}

}  // namespace
}  // namespace nodeplan
