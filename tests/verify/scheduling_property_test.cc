// The scheduler's plans, over thousands of seeded random clusters and over
// the benchmark workloads, must pass the independent verifier.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

// Formats the violations of one scheduled request; "" when the plan is
// clean. A scheduler error is reported the same way.
std::string Check(const v1::ScheduleRequest& request, const std::string& what) {
  absl::StatusOr<v1::ScheduleResponse> response = Schedule(request);
  if (!response.ok()) {
    return what +
           ": Schedule failed: " + std::string(response.status().message()) +
           "\n";
  }
  std::string out;
  for (const Violation& v : Verify(request, *response)) {
    out += what + ": " + FormatViolation(v) + "\n";
  }
  return out;
}

TEST(SchedulingPropertyTest, RandomClustersHaveNoViolations) {
  constexpr uint64_t kSeeds = 2000;
  std::string failures;
  int failing_seeds = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const std::string found =
        Check(workload::RandomCluster(seed), "seed " + std::to_string(seed));
    if (found.empty()) continue;
    // Keep the report readable: every failing seed is counted, the first
    // few are shown in full.
    if (++failing_seeds <= 15) failures += found;
  }
  EXPECT_EQ(failing_seeds, 0)
      << failing_seeds << " of " << kSeeds << " seeds violate a rule:\n"
      << failures;
}

TEST(SchedulingPropertyTest, KarpenterBenchmarkHasNoViolations) {
  for (int pods : {1, 100, 500}) {
    EXPECT_EQ(Check(workload::KarpenterBenchmark(pods),
                    "benchmark " + std::to_string(pods)),
              "");
  }
}

TEST(SchedulingPropertyTest, PreferenceWorkloadHasNoViolations) {
  for (bool respect : {true, false}) {
    EXPECT_EQ(Check(workload::PreferenceBenchmark(200, respect),
                    respect ? "respect" : "ignore"),
              "");
  }
}

TEST(SchedulingPropertyTest, SeedNodePoolOnAwsHasNoViolations) {
  EXPECT_EQ(Check(workload::SeedNodePoolWorkload(300), "seed nodepool"), "");
}

}  // namespace
}  // namespace nodeplan
