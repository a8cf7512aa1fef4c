// The Optimized packing's candidate rounds reuse one request's Deployment
// replicas and pod class signatures (scheduling::PreparePods): a round with
// them must render byte for byte the response of a round without them, on
// every generated workload (Deployments, bound pods, DaemonSets, topology).

#include <string>

#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/workload.h"
#include "scheduling/model.h"
#include "scheduling/solver.h"

namespace nodeplan::scheduling {
namespace {

void ExpectSameRound(const v1::ScheduleRequest& r, const std::string& what) {
  auto c = CompileSnapshot(r);
  ASSERT_TRUE(c.ok()) << what << ": " << c.status();
  v1::ScheduleResponse plain;
  ASSERT_TRUE(Solve(*c, r, &plain).ok()) << what;
  const PreparedPods prepared = PreparePods(r);
  const DestinationGate none;
  // Twice: the prepared pods are read, never changed, by a round.
  for (int round = 0; round < 2; ++round) {
    v1::ScheduleResponse with;
    ASSERT_TRUE(Solve(*c, r, none, &prepared, &with).ok()) << what;
    EXPECT_EQ(DeterministicBytes(with), DeterministicBytes(plain)) << what;
  }
  // Prepared for another request: ignored.
  v1::ScheduleRequest other = r;
  const PreparedPods foreign = PreparePods(other);
  v1::ScheduleResponse ignored;
  ASSERT_TRUE(Solve(*c, r, none, &foreign, &ignored).ok()) << what;
  EXPECT_EQ(DeterministicBytes(ignored), DeterministicBytes(plain)) << what;
}

TEST(PreparedPods, RoundsRenderTheSameBytes) {
  for (uint64_t seed = 1; seed <= 40; ++seed)
    ExpectSameRound(workload::RandomCluster(seed),
                    "random-" + std::to_string(seed));
  ExpectSameRound(workload::SeedNodePoolWorkload(300), "seed-300");
  ExpectSameRound(workload::PlainSeedWorkload(300), "plain-300");
  ExpectSameRound(workload::KarpenterBenchmark(300), "benchmark-300");
}

TEST(PreparedPods, SignaturesOnlyForPendingPods) {
  const v1::ScheduleRequest r = workload::RandomCluster(3);
  const PreparedPods p = PreparePods(r);
  int replicas = 0;
  for (const auto& d : r.deployments())
    replicas += d.spec().has_replicas() ? d.spec().replicas() : 1;
  ASSERT_EQ(static_cast<int>(p.expanded.size()), replicas);
  ASSERT_EQ(static_cast<int>(p.signatures.size()), r.pods_size() + replicas);
  for (int i = 0; i < r.pods_size(); ++i)
    EXPECT_EQ(p.signatures[i].empty(), !r.pods(i).spec().node_name().empty())
        << i;
}

}  // namespace
}  // namespace nodeplan::scheduling
