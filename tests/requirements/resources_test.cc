#include "nodeplan/resources.h"

#include <limits>
#include <random>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace nodeplan {
namespace {

using Map = google::protobuf::Map<std::string, std::string>;

class ResourcesTest : public ::testing::Test {
 protected:
  // ParseResourceList refuses negative quantities (no input is negative),
  // but the algebra also meets negative amounts (an over-committed total):
  // those are parsed by magnitude and negated.
  ResourceVector R(std::vector<std::pair<std::string, std::string>> kv) {
    Map m;
    std::vector<std::string> negative;
    for (auto& [k, v] : kv) {
      const bool minus = !v.empty() && v[0] == '-';
      m[k] = minus ? v.substr(1) : v;
      if (minus) negative.push_back(k);
    }
    absl::StatusOr<ResourceVector> r = ParseResourceList(m, names_);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return {};
    for (const std::string& k : negative) {
      static constexpr std::pair<const char*, Resource> kFixed[] = {
          {"cpu", Resource::kCpu},
          {"memory", Resource::kMemory},
          {"pods", Resource::kPods},
          {"ephemeral-storage", Resource::kEphemeralStorage}};
      bool fixed = false;
      for (const auto& [name, resource] : kFixed) {
        if (k == name) {
          r->Set(resource, -r->Get(resource));
          fixed = true;
        }
      }
      if (!fixed) {
        const LabelKeyId id = names_.FindKey(k);
        r->SetExtended(id, -*r->GetExtended(id));
      }
    }
    return *r;
  }
  std::string S(const ResourceVector& r) { return ResourcesString(r, names_); }
  v1::Container C(std::vector<std::pair<std::string, std::string>> requests,
                  std::vector<std::pair<std::string, std::string>> limits = {},
                  const std::string& restart_policy = "") {
    v1::Container c;
    for (auto& [k, v] : requests)
      (*c.mutable_resources()->mutable_requests())[k] = v;
    for (auto& [k, v] : limits)
      (*c.mutable_resources()->mutable_limits())[k] = v;
    c.set_restart_policy(restart_policy);
    return c;
  }
  Interner names_;
};

TEST_F(ResourcesTest, ParseAndPrint) {
  ResourceVector r = R({{"cpu", "1500m"},
                        {"memory", "1Gi"},
                        {"pods", "110"},
                        {"ephemeral-storage", "20Gi"},
                        {"nvidia.com/gpu", "2"},
                        {"example.com/half", "500m"},
                        {"hugepages-2Mi", "1Gi"}});
  EXPECT_EQ(r.cpu_milli(), 1500);
  EXPECT_EQ(r.memory(), int64_t{1} << 30);
  EXPECT_EQ(r.pods(), 110);
  EXPECT_EQ(r.GetExtended(names_.FindKey("nvidia.com/gpu")), 2000);
  EXPECT_EQ(S(r),
            "{\"cpu\":\"1500m\",\"ephemeral-storage\":\"20Gi\","
            "\"example.com/half\":\"500m\",\"hugepages-2Mi\":\"1Gi\","
            "\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"2\",\"pods\":\"110\"}");
  EXPECT_EQ(S(ResourceVector()), "{}");
  Map bad;
  bad["memory"] = "lots";
  absl::StatusOr<ResourceVector> err =
      ParseResourceList(bad, names_, "spec.capacity");
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(
      absl::StartsWith(err.status().message(), "spec.capacity[memory]: "))
      << err.status();
}

TEST_F(ResourcesTest, NegativeQuantitiesAreRefusedWithTheirPath) {
  Map m;
  m["cpu"] = "-1";
  absl::StatusOr<ResourceVector> r =
      ParseResourceList(m, names_, "spec.capacity");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "spec.capacity[cpu]: Invalid value: \"-1\": must be greater than "
            "or equal to 0");
}

TEST_F(ResourcesTest, FitsTable) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> candidate, total;
    bool fits;
  };
  const Case cases[] = {
      {{{"cpu", "1"}}, {{"cpu", "1"}}, true},
      {{{"cpu", "1001m"}}, {{"cpu", "1"}}, false},
      {{{"cpu", "1"}, {"memory", "1Gi"}}, {{"cpu", "2"}}, false},
      {{{"cpu", "1"}, {"memory", "0"}}, {{"cpu", "2"}}, true},
      {{{"nvidia.com/gpu", "1"}}, {{"cpu", "2"}}, false},
      {{{"nvidia.com/gpu", "0"}}, {{"cpu", "2"}}, true},
      {{{"nvidia.com/gpu", "1"}}, {{"nvidia.com/gpu", "4"}}, true},
      {{}, {{"cpu", "-1"}}, false},
      {{{"cpu", "1"}}, {{"cpu", "2"}, {"x.io/y", "-1"}}, false},
      {{}, {}, true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Fits(R(c.candidate), R(c.total)), c.fits)
        << S(R(c.candidate)) << " in " << S(R(c.total));
  }
}

TEST_F(ResourcesTest, MergeSubtractMaxMin) {
  ResourceVector a = R({{"cpu", "1"}, {"memory", "1Gi"}, {"a.io/x", "1"}});
  ResourceVector b = R({{"cpu", "500m"}, {"pods", "3"}, {"b.io/y", "2"}});
  EXPECT_EQ(S(Merge(a, b)),
            "{\"a.io/x\":\"1\",\"b.io/y\":\"2\",\"cpu\":\"1500m\","
            "\"memory\":\"1Gi\",\"pods\":\"3\"}");
  // Subtract keeps lhs keys only.
  EXPECT_EQ(S(Subtract(a, b)),
            "{\"a.io/x\":\"1\",\"cpu\":\"500m\",\"memory\":\"1Gi\"}");
  EXPECT_EQ(S(Subtract(b, a)),
            "{\"b.io/y\":\"2\",\"cpu\":\"-500m\",\"pods\":\"3\"}");
  EXPECT_EQ(S(MaxResources(a, b)),
            "{\"a.io/x\":\"1\",\"b.io/y\":\"2\",\"cpu\":\"1\","
            "\"memory\":\"1Gi\",\"pods\":\"3\"}");
  EXPECT_EQ(S(MinResources(a, b)), "{\"cpu\":\"500m\"}");
  ResourceVector c = a;
  c.SubtractAll(b);
  EXPECT_EQ(S(c),
            "{\"a.io/x\":\"1\",\"b.io/y\":\"-2\",\"cpu\":\"500m\","
            "\"memory\":\"1Gi\",\"pods\":\"-3\"}");
}

// Add (in place) is Merge: random vectors over few fixed and extended
// names, values near both saturation bounds included.
TEST_F(ResourcesTest, AddInPlaceIsMerge) {
  std::mt19937_64 rng(42);
  const int64_t values[] = {0,
                            1,
                            250,
                            -7,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min() + 1,
                            std::numeric_limits<int64_t>::max() - 3};
  auto random_vector = [&] {
    ResourceVector v;
    for (int i = 0; i < kFixedResources; ++i)
      if (rng() % 2) v.Set(static_cast<Resource>(i), values[rng() % 7]);
    for (LabelKeyId name = 1; name <= 4; ++name)
      if (rng() % 3 == 0) v.SetExtended(name, values[rng() % 7]);
    return v;
  };
  for (int i = 0; i < 5000; ++i) {
    const ResourceVector a = random_vector(), b = random_vector();
    ResourceVector sum = a;
    sum.Add(b);
    ASSERT_TRUE(sum == Merge(a, b)) << "case " << i;
  }
}

TEST_F(ResourcesTest, PodRequestsLikeKubernetes) {
  v1::PodSpec spec;
  *spec.add_containers() = C({{"cpu", "100m"}, {"memory", "128Mi"}});
  // Limits only: the request defaults to the limit.
  *spec.add_containers() = C({}, {{"cpu", "200m"}, {"memory", "256Mi"}});
  // Init containers: a plain one larger than the app sum for cpu.
  *spec.add_init_containers() = C({{"cpu", "1"}});
  // A sidecar counts toward the running sum and later init footprints.
  *spec.add_init_containers() =
      C({{"cpu", "50m"}, {"memory", "64Mi"}}, {}, "Always");
  *spec.add_init_containers() = C({{"cpu", "300m"}, {"memory", "600Mi"}});
  (*spec.mutable_overhead())["cpu"] = "10m";
  absl::StatusOr<ResourceVector> r = PodRequests(spec, names_);
  ASSERT_TRUE(r.ok()) << r.status();
  // cpu: app 300m + sidecar 50m = 350m; init max(1000m, 50m, 300m+50m) =
  // 1000m; + overhead 10m. memory: app 384Mi + 64Mi = 448Mi vs init
  // 600Mi+64Mi = 664Mi.
  EXPECT_EQ(S(*r), "{\"cpu\":\"1010m\",\"memory\":\"664Mi\"}");
  absl::StatusOr<ResourceVector> with_pods = RequestsForPod(spec, names_);
  EXPECT_EQ(with_pods->pods(), 1);

  (*spec.mutable_resources()->mutable_requests())["cpu"] = "2";
  absl::StatusOr<ResourceVector> overridden = PodRequests(spec, names_);
  EXPECT_EQ(S(*overridden), "{\"cpu\":\"2010m\",\"memory\":\"664Mi\"}");

  v1::PodSpec bad;
  *bad.add_containers() = C({{"cpu", "x"}});
  EXPECT_FALSE(PodRequests(bad, names_).ok());
}

// Pod-level resources (spec.resources): Karpenter's resources suite ("Pod
// Level Resources") and the API server's defaulting from pod-level limits.
TEST_F(ResourcesTest, PodLevelResourcesReplaceTheContainersAggregate) {
  using KV = std::vector<std::pair<std::string, std::string>>;
  struct Case {
    const char* name;
    KV pod_requests, pod_limits;
    KV container_requests, container_limits;
    KV sidecar_requests;
    const char* want;
  };
  const Case cases[] = {
      {"requests and limits at both levels: the pod's requests",
       {{"cpu", "2"}, {"memory", "2Gi"}},
       {{"cpu", "4"}, {"memory", "4Gi"}},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       {{"cpu", "3"}, {"memory", "3Gi"}},
       {},
       R"({"cpu":"2","memory":"2Gi"})"},
      {"pod-level requests only, over a sidecar",
       {{"cpu", "2"}, {"memory", "2Gi"}},
       {},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       R"({"cpu":"2","memory":"2Gi"})"},
      {"pod-level limits only: requests default to them",
       {},
       {{"cpu", "10"}, {"memory", "10Gi"}},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       {},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       R"({"cpu":"10","memory":"10Gi"})"},
      {"a limited resource with a request keeps the request",
       {{"cpu", "3"}},
       {{"cpu", "4"}, {"memory", "8Gi"}},
       {{"cpu", "1"}, {"memory", "1Gi"}},
       {},
       {},
       R"({"cpu":"3","memory":"8Gi"})"},
      {"unsupported names stay with the containers",
       {{"nvidia.com/gpu", "4"}},
       {},
       {{"cpu", "1"}, {"nvidia.com/gpu", "1"}},
       {},
       {},
       R"({"cpu":"1","nvidia.com/gpu":"1"})"},
      {"hugepages the containers request keep their aggregate",
       {},
       {{"hugepages-2Mi", "8Mi"}, {"cpu", "2"}},
       {{"cpu", "1"}, {"hugepages-2Mi", "4Mi"}},
       {},
       {},
       R"({"cpu":"2","hugepages-2Mi":"4Mi"})"},
      {"hugepages no container requests default to the pod's limit",
       {},
       {{"hugepages-2Mi", "8Mi"}},
       {{"cpu", "1"}},
       {},
       {},
       R"({"cpu":"1","hugepages-2Mi":"8Mi"})"},
      {"empty pod-level resources change nothing",
       {},
       {},
       {{"cpu", "1"}},
       {},
       {},
       R"({"cpu":"1"})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::PodSpec spec;
    *spec.add_containers() = C(c.container_requests, c.container_limits);
    if (!c.sidecar_requests.empty()) {
      *spec.add_init_containers() = C(c.sidecar_requests, {}, "Always");
    }
    v1::ResourceRequirements& pod = *spec.mutable_resources();
    for (const auto& [k, v] : c.pod_requests) (*pod.mutable_requests())[k] = v;
    for (const auto& [k, v] : c.pod_limits) (*pod.mutable_limits())[k] = v;
    absl::StatusOr<ResourceVector> r = PodRequests(spec, names_);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(S(*r), c.want);
  }
  v1::PodSpec bad;
  *bad.add_containers() = C({{"cpu", "1"}});
  (*bad.mutable_resources()->mutable_limits())["memory"] = "x";
  absl::StatusOr<ResourceVector> r = PodRequests(bad, names_);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(
      absl::StrContains(r.status().message(), "spec.resources.limits[memory]"))
      << r.status();
}

TEST_F(ResourcesTest, SidecarOrderMatters) {
  // A sidecar declared after an init container does not add to its footprint.
  std::vector<ResourceVector> app = {R({{"cpu", "100m"}})};
  std::vector<ResourceVector> init = {R({{"cpu", "500m"}}),
                                      R({{"cpu", "200m"}})};
  bool sidecar_after[] = {false, true};
  bool sidecar_before[] = {true, false};
  EXPECT_EQ(CombineContainerRequests(app, init, sidecar_after).cpu_milli(),
            500);
  std::vector<ResourceVector> init2 = {R({{"cpu", "200m"}}),
                                       R({{"cpu", "500m"}})};
  EXPECT_EQ(CombineContainerRequests(app, init2, sidecar_before).cpu_milli(),
            700);
}

TEST_F(ResourcesTest, Allocatable) {
  ResourceVector capacity = R({{"cpu", "4"},
                               {"memory", "16Gi"},
                               {"pods", "58"},
                               {"hugepages-2Mi", "1Gi"}});
  ResourceVector kube = R({{"cpu", "80m"}, {"memory", "893Mi"}});
  ResourceVector system = R({{"cpu", "0"}, {"ephemeral-storage", "1Gi"}});
  ResourceVector eviction = R({{"memory", "100Mi"}});
  ResourceVector a = Allocatable(capacity, kube, system, eviction, names_);
  // ephemeral-storage is not in capacity, so it stays absent; memory =
  // 16384Mi - 893Mi - 100Mi - 1024Mi of hugepages.
  EXPECT_EQ(S(a),
            "{\"cpu\":\"3920m\",\"hugepages-2Mi\":\"1Gi\","
            "\"memory\":\"14367Mi\",\"pods\":\"58\"}");
  ResourceVector huge = R({{"memory", "1Gi"}, {"hugepages-1Gi", "2Gi"}});
  EXPECT_EQ(Allocatable(huge, {}, {}, {}, names_).memory(), 0);
}

}  // namespace
}  // namespace nodeplan
