// The Optimized packing's candidate rounds reuse one request's Deployment
// replicas and pod class signatures (scheduling::PreparePods): a round with
// them must render byte for byte the response of a round without them, on
// every generated workload (Deployments, bound pods, DaemonSets, topology).

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/workload.h"
#include "scheduling/model.h"
#include "scheduling/round.h"
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
  ASSERT_EQ(p.signatures.size(), static_cast<size_t>(r.pods_size()));
  for (int i = 0; i < r.pods_size(); ++i)
    EXPECT_EQ(p.signatures[i].empty(), !r.pods(i).spec().node_name().empty())
        << i;
}

// Replicas are signed once per Deployment: each replica's signature is the
// one it would have alone, and a Deployment's replicas share one string.
TEST(PreparedPods, ReplicasShareTheirDeploymentsSignature) {
  std::vector<std::pair<std::string, v1::ScheduleRequest>> cases = {
      {"plain-50", workload::PlainSeedWorkload(50)},
      {"seed-50", workload::SeedNodePoolWorkload(50)}};
  for (uint64_t seed = 1; seed <= 30; ++seed)
    cases.push_back(
        {"random-" + std::to_string(seed), workload::RandomCluster(seed)});
  int replicas_seen = 0;
  for (auto& [what, r] : cases) {
    // One Deployment whose template names a node: its replicas are bound.
    if (r.deployments_size() > 1)
      r.mutable_deployments(0)
          ->mutable_spec()
          ->mutable_template_()
          ->mutable_spec()
          ->set_node_name("node-x");
    const PreparedPods p = PreparePods(r);
    ASSERT_EQ(p.replica_signatures.size(), p.expanded.size()) << what;
    size_t at = 0;
    for (const auto& d : r.deployments()) {
      const int n = d.spec().has_replicas() ? d.spec().replicas() : 1;
      const std::string* shared = n > 0 ? p.replica_signatures[at] : nullptr;
      for (int i = 0; i < n; ++i, ++at) {
        const v1::Pod& pod = *p.expanded[at];
        const std::string* sig = p.replica_signatures[at];
        EXPECT_EQ(sig, shared) << what << " replica " << at;
        if (!pod.spec().node_name().empty()) {
          EXPECT_EQ(sig, nullptr) << what << " replica " << at;
          continue;
        }
        ASSERT_NE(sig, nullptr) << what << " replica " << at;
        EXPECT_EQ(*sig, ClassSignature(pod, pod.metadata().namespace_(),
                                       /*moved=*/false))
            << what << " replica " << at;
        ++replicas_seen;
      }
    }
    EXPECT_EQ(at, p.expanded.size()) << what;
  }
  EXPECT_GT(replicas_seen, 0);
}

}  // namespace
}  // namespace nodeplan::scheduling
