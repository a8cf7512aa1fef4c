// CompileSnapshot's per-process cache of the embedded AWS catalog's
// translated instance types (scheduling/model.h): a cached translation gives
// the same bytes as a fresh one, for several NodeClasses and mixes of them,
// and from concurrent callers.

#include <string>
#include <thread>
#include <vector>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "scheduling/model.h"

namespace nodeplan::testing {
namespace {

using scheduling::ClearAwsTypeCache;
using scheduling::GetAwsTypeCacheStats;

v1::NodeClass Eks(const std::string& name, std::vector<std::string> zones,
                  const std::string& ephemeral = "") {
  v1::NodeClass nc;
  nc.set_api_version("eks.amazonaws.com/v1");
  nc.set_kind("NodeClass");
  nc.mutable_metadata()->set_name(name);
  for (const std::string& z : zones)
    nc.mutable_status()->add_subnets()->set_zone(z);
  if (!ephemeral.empty())
    nc.mutable_spec()->mutable_ephemeral_storage()->set_size(ephemeral);
  return nc;
}

v1::NodePool PoolOf(const std::string& name, const std::string& node_class) {
  v1::NodePool p = NodePool(name);
  p.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_node_class_ref()
      ->set_name(node_class);
  return p;
}

// A small request on catalogRef "aws": one NodePool per NodeClass name.
v1::ScheduleRequest AwsRequest(const std::vector<v1::NodeClass>& classes,
                               const std::vector<std::string>& pool_classes) {
  v1::ScheduleRequest r;
  r.set_catalog_ref("aws");
  for (const auto& nc : classes) *r.add_node_classes() = nc;
  for (size_t i = 0; i < pool_classes.size(); ++i)
    *r.add_node_pools() = PoolOf("pool-" + std::to_string(i), pool_classes[i]);
  *r.add_pods() = Pod("a", "1500m", "1Gi");
  *r.add_pods() = Pod("b", "7", "30Gi");
  *r.add_pods() = Pod("c", "100m", "100Mi");
  return r;
}

std::vector<v1::ScheduleRequest> Requests() {
  std::vector<v1::ScheduleRequest> out;
  out.push_back(AwsRequest({}, {"missing"}));  // the provider's defaults
  out.push_back(AwsRequest({Eks("z", {"us-west-2b", "us-west-2a"})}, {"z"}));
  out.push_back(AwsRequest({Eks("e", {}, "200Gi")}, {"e"}));
  out.push_back(
      AwsRequest({Eks("z", {"us-west-2a"}), Eks("e", {"eu-west-1c"}, "50Gi")},
                 {"z", "e", "z"}));
  v1::ScheduleRequest overlaid = AwsRequest({}, {"missing"});
  *overlaid.add_node_overlays() = Parse<v1::NodeOverlay>(
      R"pb(metadata { name: "cheap" }
           spec {
             requirements {
               key: "karpenter.k8s.aws/instance-family"
               operator: "In"
               values: "m5"
             }
             price_adjustment: "-90%"
           })pb");
  out.push_back(overlaid);
  return out;
}

TEST(AwsTypeCache, CachedTranslationGivesTheUncachedBytes) {
  const std::vector<v1::ScheduleRequest> requests = Requests();
  std::vector<std::string> uncached;
  for (const auto& r : requests) {
    ClearAwsTypeCache();
    uncached.push_back(Bytes(MustSchedule(r)));
    EXPECT_GT(GetAwsTypeCacheStats().misses, 0);
  }
  ClearAwsTypeCache();
  // Twice over, interleaved: the second round is served from the cache.
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < requests.size(); ++i)
      EXPECT_EQ(Bytes(MustSchedule(requests[i])), uncached[i])
          << "request " << i << ", round " << round;
  EXPECT_GE(GetAwsTypeCacheStats().hits, static_cast<int64_t>(requests.size()));
  EXPECT_LE(GetAwsTypeCacheStats().entries, 8);
}

TEST(AwsTypeCache, DistinctOverlaysAreDistinctEntries) {
  ClearAwsTypeCache();
  std::vector<v1::ScheduleRequest> requests = Requests();
  const std::string plain = Bytes(MustSchedule(requests[0]));
  const std::string overlaid = Bytes(MustSchedule(requests[4]));
  EXPECT_NE(plain, overlaid);
  EXPECT_EQ(Bytes(MustSchedule(requests[0])), plain);
  EXPECT_EQ(Bytes(MustSchedule(requests[4])), overlaid);
}

TEST(AwsTypeCache, ConcurrentCallersGetTheSameBytes) {
  const std::vector<v1::ScheduleRequest> requests = Requests();
  std::vector<std::string> want;
  for (const auto& r : requests) want.push_back(Bytes(MustSchedule(r)));
  ClearAwsTypeCache();
  std::vector<std::vector<std::string>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < requests.size(); ++i) {
        const auto& r = requests[(i + t) % requests.size()];
        auto resp = Schedule(r);
        got[t].push_back(resp.ok() ? Bytes(*resp) : "error");
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t)
    for (size_t i = 0; i < requests.size(); ++i)
      EXPECT_EQ(got[t][i], want[(i + t) % requests.size()]) << t << " " << i;
}

}  // namespace
}  // namespace nodeplan::testing
