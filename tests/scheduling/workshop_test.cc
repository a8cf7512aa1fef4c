// The seed NodePool (examples/workshop) on the embedded AWS catalog, and the
// independent plan verifier over generated workloads.

#include "fixtures.h"
#include "gmock/gmock.h"
#include "nodeplan/catalog.h"
#include "nodeplan/manifest.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace nodeplan::testing {
namespace {

using ::testing::HasSubstr;

TEST(Workshop, SeedNodePoolOnTheEmbeddedCatalog) {
  v1::LoadOptions opts;
  auto set = LoadManifestFiles(
      {std::string(NODEPLAN_SOURCE_DIR) + "/examples/workshop"}, opts);
  ASSERT_TRUE(set.ok()) << set.status();
  v1::ScheduleRequest r;
  *r.mutable_node_pools() = set->node_pools();
  *r.mutable_node_classes() = set->node_classes();
  r.set_catalog_ref("aws");
  for (int i = 0; i < 5; ++i)
    *r.add_pods() = Pod(absl::StrCat("web-", i), "1", "2Gi");
  *r.add_pods() = Pod(
      "gpu", "1", "1Gi",
      R"pb(spec { containers { name: "g" resources { limits { key: "nvidia.com/gpu" value: "1" } } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_GE(resp.new_node_claims_size(), 1);
  const auto& nc = resp.new_node_claims(0);
  EXPECT_EQ(nc.node_pool(), "general-purpose");
  EXPECT_EQ(
      nc.node_claim().metadata().annotations().at("karpenter.sh/nodepool-hash"),
      "4012513481623584108");
  EXPECT_EQ(nc.launch().capacity_type(), "on-demand");
  EXPECT_GT(resp.cost(), 0);
  EXPECT_THAT(ReasonFor(resp, "default/gpu"),
              HasSubstr("incompatible with nodepool \"general-purpose\""));
  // The verifier reads explicit catalogs: give it the one catalogRef meant.
  v1::ScheduleRequest explicit_catalog = r;
  explicit_catalog.clear_catalog_ref();
  auto catalog =
      AwsCatalog(r.node_classes_size() ? &r.node_classes(0) : nullptr);
  ASSERT_TRUE(catalog.ok());
  *explicit_catalog.mutable_catalog() = *catalog;
  ExpectVerified(explicit_catalog, resp, "workshop, explicit catalog");
}

TEST(Verifier, KarpenterBenchmarkPlansVerify) {
  for (int pods : {50, 500}) {
    auto r = workload::KarpenterBenchmark(pods);
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 0) << pods;
    ExpectVerified(r, resp, absl::StrCat("benchmark-", pods));
  }
}

TEST(Verifier, PreferencePlansVerify) {
  for (bool respect : {true, false}) {
    auto r = workload::PreferenceBenchmark(200, respect);
    auto resp = MustSchedule(r);
    ExpectVerified(r, resp, respect ? "Respect" : "Ignore");
  }
}

TEST(Verifier, RandomClustersVerifyAndAreDeterministic) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    auto r = workload::RandomCluster(seed);
    auto a = Schedule(r);
    ASSERT_TRUE(a.ok()) << seed << ": " << a.status();
    auto b = Schedule(r);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(Bytes(*a), Bytes(*b)) << seed;
    auto v = Verify(r, *a);
    for (const auto& x : v)
      ADD_FAILURE() << "seed " << seed << ": " << FormatViolation(x);
  }
}

}  // namespace
}  // namespace nodeplan::testing
