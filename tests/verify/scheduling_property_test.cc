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

// Seeds the soak found, kept beyond the range above. 11109: a pod whose
// first required node-affinity term fits no instance type is placed under
// its second term (zone test-zone-1) and bootstraps its own required zone
// affinity there, as Karpenter's relaxation does, although matching pods are
// bound in a zone only the dropped term allowed. The others (the 100,000-seed
// soak of 2026-12-06): a self-selecting pod starts a zone under its first
// term, which allows only zones without a matching pod, while its second
// term would allow a zone where one is bound; Karpenter bootstraps under the
// first term (nextDomainAffinity), the verifier had ORed the terms.
TEST(SchedulingPropertyTest, SoakSeedsHaveNoViolations) {
  for (uint64_t seed :
       {11109, 12706, 25614, 27372, 31391, 39506, 46226, 46943, 50923, 64470,
        70743, 76677, 84181, 90057, 92401, 99881}) {
    EXPECT_EQ(
        Check(workload::RandomCluster(seed), "seed " + std::to_string(seed)),
        "");
  }
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

bool HasRule(const v1::ScheduleRequest& request,
             const v1::ScheduleResponse& response, const std::string& rule) {
  for (const Violation& v : Verify(request, response)) {
    if (v.rule == rule) return true;
  }
  return false;
}

// The verifier is not blind to the scheduler's output: corrupting a real plan
// is caught.
TEST(SchedulingPropertyTest, CorruptedPlansAreCaught) {
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(100);
  absl::StatusOr<v1::ScheduleResponse> plan = Schedule(request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE(Verify(request, *plan).empty());
  ASSERT_GE(plan->new_node_claims_size(), 2);

  v1::ScheduleResponse dropped = *plan;
  dropped.mutable_new_node_claims(0)->mutable_pods()->RemoveLast();
  EXPECT_TRUE(HasRule(request, dropped, "coverage"));

  v1::ScheduleResponse repriced = *plan;
  auto* launch = repriced.mutable_new_node_claims(0)->mutable_launch();
  launch->set_price(launch->price() + 0.01);
  EXPECT_TRUE(HasRule(request, repriced, "launch"));

  // Two hostname anti-affinity pods (app=nginx) on one NodeClaim.
  int first = -1;
  std::string moved;
  v1::ScheduleResponse crowded = *plan;
  for (int c = 0; c < crowded.new_node_claims_size(); ++c) {
    auto* pods = crowded.mutable_new_node_claims(c)->mutable_pods();
    for (int p = 0; p < pods->size(); ++p) {
      if (pods->Get(p).find("/host-anti-") == std::string::npos) continue;
      if (first < 0) {
        first = c;
      } else if (moved.empty()) {
        moved = pods->Get(p);
        pods->DeleteSubrange(p, 1);
        break;
      }
    }
  }
  ASSERT_FALSE(moved.empty());
  crowded.mutable_new_node_claims(first)->add_pods(moved);
  EXPECT_TRUE(HasRule(request, crowded, "pod-anti-affinity"));

  // Every pod on the first NodeClaim: far more than it can hold.
  v1::ScheduleResponse piled = *plan;
  for (int c = 1; c < piled.new_node_claims_size(); ++c) {
    for (const auto& pod : piled.new_node_claims(c).pods()) {
      piled.mutable_new_node_claims(0)->add_pods(pod);
    }
    piled.mutable_new_node_claims(c)->clear_pods();
  }
  EXPECT_TRUE(HasRule(request, piled, "resources"));
  EXPECT_TRUE(HasRule(request, piled, "pod-anti-affinity"));
}

}  // namespace
}  // namespace nodeplan
