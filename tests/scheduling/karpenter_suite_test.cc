// Scenarios translated from Karpenter's provisioning and scheduling test
// suites (sigs.k8s.io/karpenter v1.14.1, pkg/controllers/provisioning),
// restricted to those whose outcome is deterministic. Each test names the
// Karpenter case it comes from. Karpenter's fake cloud provider has its own
// instance types (pkg/cloudprovider/fake); DefaultTypes() and FakeIt() below
// rebuild them: sizes, architectures, operating systems, the "size",
// "special" and "integer" labels, offering order and prices.
//
// A Karpenter case that provisions in several rounds is written as one
// request whose earlier rounds are existing nodes with their bound pods.

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"
#include "nodeplan/verify.h"

namespace nodeplan::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// ---------------------------------------------------------------------------
// Custom labels (suite_test.go, Describe "Custom Constraints").

// suite_test.go: "should schedule unconstrained pods that don't have matching
// node selectors" (NodePool with Labels)
TEST(KarpenterSuite, TemplateLabelReachesAnUnconstrainedPodsNode) {
  auto r = KRequest();
  MergePool(
      r,
      R"pb(spec { template { metadata { labels { key: "test-key" value: "test-value" } } } })pb");
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(ClaimLabel(resp, "test-key"), "test-value");
}

// suite_test.go: "should schedule pods that have matching requirements"
// (an In of two values, one the template label's)
TEST(KarpenterSuite, TemplateLabelSatisfiesMultiValueIn) {
  auto r = KRequest();
  MergePool(
      r,
      R"pb(spec { template { metadata { labels { key: "test-key" value: "test-value" } } } })pb");
  *r.add_pods() = Bare(
      "p", Required({Expr("test-key", "In", {"test-value", "another-value"})}));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(ClaimLabel(resp, "test-key"), "test-value");
}

// suite_test.go (NodePool with Requirements): "should schedule pods that have
// node selectors with matching value and In operator", "...matching value and
// NotIn operator", "...with Exists operator and defined key", "...with
// DoesNotExists operator and defined key", "...different value and In
// operator", "...different value and NotIn operator".
TEST(KarpenterSuite, OperatorsOnAKeyTheNodePoolRequires) {
  struct Case {
    const char* op;
    std::vector<std::string> values;
    bool schedules;
  } cases[] = {
      {"In", {"test-value"}, true},   {"NotIn", {"test-value"}, false},
      {"Exists", {}, true},           {"DoesNotExist", {}, false},
      {"In", {"other-value"}, false}, {"NotIn", {"other-value"}, true},
  };
  for (const auto& c : cases) {
    auto r = KRequest(Req("test-key", "In", {"test-value"}));
    *r.add_pods() = Bare("p", Required({Expr("test-key", c.op, c.values)}));
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), c.schedules ? 1 : 0)
        << c.op << " " << (c.values.empty() ? "" : c.values[0]);
    if (c.schedules) {
      EXPECT_EQ(ClaimLabel(resp, "test-key"), "test-value");
    }
  }
}

// suite_test.go: "should schedule compatible pods to the same node" and
// "should schedule incompatible pods to the different node"
TEST(KarpenterSuite, PodsShareANodeOnlyWhenTheirCustomValuesIntersect) {
  const std::string pool =
      Req("test-key", "In", {"test-value", "another-value"});
  auto r = KRequest(pool);
  *r.add_pods() = Bare("a", Required({Expr("test-key", "In", {"test-value"})}));
  *r.add_pods() =
      Bare("b", Required({Expr("test-key", "NotIn", {"another-value"})}));
  auto same = MustSchedule(r);
  ASSERT_EQ(same.new_node_claims_size(), 1);
  EXPECT_EQ(same.new_node_claims(0).pods_size(), 2);
  EXPECT_EQ(ClaimLabel(same, "test-key"), "test-value");

  *r.mutable_pods(1) =
      Bare("b", Required({Expr("test-key", "In", {"another-value"})}));
  auto apart = MustSchedule(r);
  ASSERT_EQ(apart.new_node_claims_size(), 2);
  std::set<std::string> values = {ClaimLabel(apart, "test-key", 0),
                                  ClaimLabel(apart, "test-key", 1)};
  EXPECT_EQ(values, (std::set<std::string>{"test-value", "another-value"}));
}

// ---------------------------------------------------------------------------
// Well-known labels.

// suite_test.go: "should not schedule if node selector outside of NodePool
// constraints" and "should not schedule the pod if nodeselector unknown"
TEST(KarpenterSuite, ZoneSelectorOutsideTheNodePoolsZones) {
  for (const char* zone : {"test-zone-2", "unknown"}) {
    auto r =
        KRequest(Req("topology.kubernetes.io/zone", "In", {"test-zone-1"}));
    *r.add_pods() = Bare("p", Selector("topology.kubernetes.io/zone", zone));
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), 0) << zone;
    EXPECT_EQ(resp.unschedulable_size(), 1) << zone;
  }
}

// suite_test.go: "should schedule compatible requirements with
// Operator=NotIn" and "should not schedule incompatible preferences and
// requirements with Operator=NotIn"
TEST(KarpenterSuite, ZoneNotIn) {
  auto r = KRequest();
  *r.add_pods() =
      Bare("p", Required({Expr("topology.kubernetes.io/zone", "NotIn",
                               {"test-zone-1", "test-zone-2", "unknown"})}));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-3");

  *r.mutable_pods(0) = Bare(
      "p", Required({Expr(
               "topology.kubernetes.io/zone", "NotIn",
               {"test-zone-1", "test-zone-2", "test-zone-3", "unknown"})}));
  EXPECT_EQ(MustSchedule(r).new_node_claims_size(), 0);
}

// suite_test.go: "should schedule compatible requirements with Operator=Gt",
// "...Operator=Lt", "...Operator=Gte", "...Operator=Lte" (NodePool
// requirements on the fake provider's integer label, its core count)
TEST(KarpenterSuite, IntegerLabelBoundsInTheNodePool) {
  struct Case {
    const char* op;
    const char* value;
    const char* launched;
  } cases[] = {
      {"Gt", "8", "arm-instance-type"},
      {"Lt", "8", "small-instance-type"},
      {"Gte", "16", "arm-instance-type"},
      {"Lte", "2", "small-instance-type"},
  };
  for (const auto& c : cases) {
    auto r = KRequest(Req("integer", c.op, {c.value}));
    *r.add_pods() = Bare("p");
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.new_node_claims_size(), 1) << c.op;
    EXPECT_EQ(LaunchedType(resp), c.launched) << c.op;
  }
}

// suite_test.go: "Exists operator should not overwrite the existing value"
TEST(KarpenterSuite, ExistsDoesNotWidenAnImpossibleIn) {
  auto r = KRequest();
  *r.add_pods() =
      Bare("p", Required({Expr("topology.kubernetes.io/zone", "In",
                               {"non-existent-zone"}),
                          Expr("topology.kubernetes.io/zone", "Exists")}));
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

// ---------------------------------------------------------------------------
// Preferential fallback.

// suite_test.go: "should not relax the final term"
TEST(KarpenterSuite, FinalRequiredTermIsNotRelaxed) {
  auto r = KRequest(
      absl::StrCat(Req("topology.kubernetes.io/zone", "In", {"test-zone-1"}),
                   Req("node.kubernetes.io/instance-type", "In",
                       {"default-instance-type"})));
  *r.add_pods() = Bare(
      "p", Required({Expr("topology.kubernetes.io/zone", "In", {"invalid"})}));
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

// suite_test.go: "should relax multiple terms" (two impossible required
// terms before a satisfiable one; the one after it is never reached)
TEST(KarpenterSuite, SeveralRequiredTermsAreRelaxedInOrder) {
  auto r = KRequest();
  *r.add_pods() = Bare("p", R"pb(spec { affinity { node_affinity {
      required_during_scheduling_ignored_during_execution {
        node_selector_terms { match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "invalid" } }
        node_selector_terms { match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "invalid" } }
        node_selector_terms { match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "test-zone-1" } }
        node_selector_terms { match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "test-zone-2" } }
      } } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-1");
}

// suite_test.go: "should relax all terms" (preferred)
TEST(KarpenterSuite, AllImpossiblePreferencesAreRelaxed) {
  auto r = KRequest();
  *r.add_pods() = Bare(
      "p",
      Preferred(
          {{1, {Expr("topology.kubernetes.io/zone", "In", {"invalid"})}},
           {1,
            {Expr("node.kubernetes.io/instance-type", "In", {"invalid"})}}}));
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_TRUE(resp.unschedulable().empty());
}

// suite_test.go: "should relax to use lighter weights" (the heaviest term is
// impossible, the next holds, the lightest is never reached)
TEST(KarpenterSuite, PreferencesRelaxHeaviestFirst) {
  auto r = KRequest(
      Req("topology.kubernetes.io/zone", "In", {"test-zone-1", "test-zone-2"}));
  *r.add_pods() = Bare(
      "p",
      Preferred(
          {{100,
            {Expr("node.kubernetes.io/instance-type", "In", {"test-zone-3"})}},
           {50, {Expr("topology.kubernetes.io/zone", "In", {"test-zone-2"})}},
           {1, {Expr("topology.kubernetes.io/zone", "In", {"test-zone-1"})}}}));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-2");
}

// suite_test.go: "should schedule even if preference is conflicting with
// requirement" and "should schedule even if preference requirements are
// conflicting"
TEST(KarpenterSuite, ConflictingPreferencesAreDropped) {
  auto r = KRequest();
  v1::Pod p = Bare("p", Preferred({{1,
                                    {Expr("topology.kubernetes.io/zone",
                                          "NotIn", {"test-zone-3"})}}}));
  p.MergeFrom(Parse<v1::Pod>(
      Required({Expr("topology.kubernetes.io/zone", "In", {"test-zone-3"})})));
  *r.add_pods() = p;
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-3");

  *r.mutable_pods(0) = Bare(
      "p",
      Preferred(
          {{1,
            {Expr("topology.kubernetes.io/zone", "In", {"invalid"}),
             Expr("topology.kubernetes.io/zone", "NotIn", {"invalid"})}}}));
  EXPECT_EQ(MustSchedule(r).new_node_claims_size(), 1);
}

// ---------------------------------------------------------------------------
// Instance type compatibility.

// suite_test.go: "should launch pods with different archs on different
// instances"
TEST(KarpenterSuite, DifferentArchitecturesGetDifferentNodes) {
  auto r = KRequest(Req("kubernetes.io/arch", "In", {"arm64", "amd64"}));
  *r.add_pods() = Bare("amd", Selector("kubernetes.io/arch", "amd64"));
  *r.add_pods() = Bare("arm", Selector("kubernetes.io/arch", "arm64"));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 2);
  std::set<std::string> types = {LaunchedType(resp, 0), LaunchedType(resp, 1)};
  EXPECT_THAT(types, Contains("arm-instance-type"));
}

// suite_test.go: "should exclude instance types that are not supported by
// the pod constraints (node affinity/instance type)", "...(node
// affinity/operating system)" and "...by the provider constraints (arch)"
TEST(KarpenterSuite, AmdOnlyNodePoolExcludesTheArmType) {
  const std::string amd = Req("kubernetes.io/arch", "In", {"amd64"});
  std::vector<v1::Pod> pods = {
      Bare("type", Required({Expr("node.kubernetes.io/instance-type", "In",
                                  {"arm-instance-type"})})),
      Bare("os", Required({Expr("kubernetes.io/os", "In", {"ios"})})),
      Bare("cpu", R"pb(spec { containers { name: "c" resources {
        limits { key: "cpu" value: "14" } } } })pb"),
  };
  pods[2].mutable_spec()->mutable_containers()->DeleteSubrange(0, 1);
  for (const auto& p : pods) {
    auto r = KRequest(amd);
    *r.add_pods() = p;
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), 0) << p.metadata().name();
    EXPECT_EQ(resp.unschedulable_size(), 1) << p.metadata().name();
  }
}

// suite_test.go: "should launch pods with different operating systems on
// different instances" and "...with different zone selectors on different
// instances"
TEST(KarpenterSuite, DifferentOsOrZoneSelectorsGetDifferentNodes) {
  auto r = KRequest(Req("kubernetes.io/arch", "In", {"arm64", "amd64"}));
  *r.add_pods() = Bare("linux", Selector("kubernetes.io/os", "linux"));
  *r.add_pods() = Bare("windows", Selector("kubernetes.io/os", "windows"));
  EXPECT_EQ(MustSchedule(r).new_node_claims_size(), 2);
  r.clear_pods();
  *r.add_pods() =
      Bare("z1", Selector("topology.kubernetes.io/zone", "test-zone-1"));
  *r.add_pods() =
      Bare("z2", Selector("topology.kubernetes.io/zone", "test-zone-2"));
  auto zones = MustSchedule(r);
  ASSERT_EQ(zones.new_node_claims_size(), 2);
  EXPECT_EQ(PodsByZone(zones), (std::map<std::string, int>{
                                   {"test-zone-1", 1}, {"test-zone-2", 1}}));
}

// suite_test.go: "should launch pods with different instance type node
// selectors on different instances" (one selector uses the deprecated beta
// instance-type label, which Karpenter normalizes to the stable one)
TEST(KarpenterSuite, BetaInstanceTypeLabelIsNormalized) {
  auto r = KRequest(Req("kubernetes.io/arch", "In", {"arm64", "amd64"}));
  *r.add_pods() = Bare("small", Selector("beta.kubernetes.io/instance-type",
                                         "small-instance-type"));
  *r.add_pods() = Bare("default", Selector("node.kubernetes.io/instance-type",
                                           "default-instance-type"));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 2) << ReasonFor(resp, "default/small");
  std::set<std::string> types = {LaunchedType(resp, 0), LaunchedType(resp, 1)};
  EXPECT_EQ(types, (std::set<std::string>{"small-instance-type",
                                          "default-instance-type"}));
  EXPECT_TRUE(Verify(r, resp).empty());
}

// suite_test.go: "should launch pods with resources that aren't on any single
// instance type on different instances" and "should fail to schedule a pod
// with resources requests that aren't on a single instance type"
TEST(KarpenterSuite, ExtendedResourcesOnDifferentTypes) {
  auto catalog = FakeIt(5);
  (*catalog.mutable_instance_types(0)
        ->mutable_capacity())["karpenter.sh/super-great-gpu"] = "25";
  (*catalog.mutable_instance_types(1)
        ->mutable_capacity())["karpenter.sh/even-better-gpu"] = "25";
  auto gpu = [](const std::string& name, std::vector<std::string> resources) {
    v1::Pod p = Bare(name);
    for (const auto& res : resources)
      (*p.mutable_spec()
            ->mutable_containers(0)
            ->mutable_resources()
            ->mutable_limits())[res] = "1";
    return p;
  };
  auto r = KRequest("", catalog);
  *r.add_pods() = gpu("one", {"karpenter.sh/super-great-gpu"});
  *r.add_pods() = gpu("two", {"karpenter.sh/even-better-gpu"});
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 2);
  std::set<std::string> types = {LaunchedType(resp, 0), LaunchedType(resp, 1)};
  EXPECT_EQ(types, (std::set<std::string>{"fake-it-0", "fake-it-1"}));

  r.clear_pods();
  *r.add_pods() = gpu(
      "both", {"karpenter.sh/super-great-gpu", "karpenter.sh/even-better-gpu"});
  auto none = MustSchedule(r);
  EXPECT_EQ(none.new_node_claims_size(), 0);
  EXPECT_EQ(none.unschedulable_size(), 1);
}

// suite_test.go: "should filter instance types that match labels" and "should
// not schedule with incompatible labels" (provider-specific "size")
TEST(KarpenterSuite, ProviderLabelSelectsTheType) {
  auto r = KRequest("", FakeIt(5));
  *r.add_pods() = Bare("large", Selector("size", "large"));
  auto large = MustSchedule(r);
  EXPECT_EQ(LaunchedType(large), "fake-it-4");
  *r.mutable_pods(0) = Bare("small", Selector("size", "small"));
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "fake-it-0");

  for (auto [size, type] :
       {std::pair<const char*, const char*>{"large", "fake-it-0"},
        {"small", "fake-it-4"}}) {
    *r.mutable_pods(0) = Bare(
        "p",
        absl::StrCat(
            R"pb(spec { node_selector { key: "size" value: ")pb", size,
            R"pb(" } node_selector { key: "node.kubernetes.io/instance-type" value: ")pb",
            type, R"pb(" } })pb"));
    EXPECT_EQ(MustSchedule(r).new_node_claims_size(), 0) << size;
  }
}

// suite_test.go: "should schedule optional labels" and "should schedule
// without optional labels if disallowed" (only the large type carries
// "special")
TEST(KarpenterSuite, OptionalProviderLabel) {
  auto r = KRequest("", FakeIt(5));
  *r.add_pods() = Bare("p", Required({Expr("special", "Exists")}));
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "fake-it-4");
  *r.mutable_pods(0) = Bare("p", Required({Expr("special", "DoesNotExist")}));
  auto without = MustSchedule(r);
  ASSERT_EQ(without.new_node_claims_size(), 1);
  EXPECT_EQ(LaunchedType(without), "fake-it-0");
}

// ---------------------------------------------------------------------------
// Binpacking.

// suite_test.go: "should schedule a small pod on the smallest instance" and
// "...on the smallest possible instance type" (2000M still fits in 2Gi less
// kube-reserved)
TEST(KarpenterSuite, SmallMemoryPodGetsTheSmallType) {
  for (const char* mem : {"100M", "2000M"}) {
    auto r = KRequest();
    v1::Pod p = Bare("p");
    (*p.mutable_spec()
          ->mutable_containers(0)
          ->mutable_resources()
          ->mutable_requests())["memory"] = mem;
    *r.add_pods() = p;
    EXPECT_EQ(LaunchedType(MustSchedule(r)), "small-instance-type") << mem;
  }
}

// suite_test.go: "should take pod runtime class into consideration" (the
// RuntimeClass's pod overhead arrives in spec.overhead)
TEST(KarpenterSuite, PodOverheadMovesToALargerType) {
  auto r = KRequest();
  v1::Pod p = Pod("p", "1", "1Gi",
                  R"pb(spec { overhead { key: "cpu" value: "2" } })pb");
  p.mutable_spec()
      ->mutable_containers(0)
      ->mutable_resources()
      ->mutable_requests()
      ->erase("memory");
  *r.add_pods() = p;
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "default-instance-type");
}

// suite_test.go: "should schedule multiple small pods on the smallest
// possible instance type" and "should create new nodes when a node is at
// capacity due to pod limits per node" (every type holds 5 pods at most)
TEST(KarpenterSuite, PodCapacityCapsEachNode) {
  auto r = KRequest();
  for (int i = 0; i < 5; ++i) {
    v1::Pod p = Bare(absl::StrCat("p", i));
    (*p.mutable_spec()
          ->mutable_containers(0)
          ->mutable_resources()
          ->mutable_requests())["memory"] = "10M";
    *r.add_pods() = p;
  }
  auto five = MustSchedule(r);
  ASSERT_EQ(five.new_node_claims_size(), 1);
  EXPECT_EQ(LaunchedType(five), "small-instance-type");

  r.clear_pods();
  for (int i = 0; i < 25; ++i)
    *r.add_pods() = Pod(absl::StrCat("p", i), "1m", "1m",
                        Selector("kubernetes.io/arch", "amd64"));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(LaunchedType(resp, i), "small-instance-type");
    EXPECT_EQ(resp.new_node_claims(i).pods_size(), 5);
  }
}

// suite_test.go: "should create new nodes when a node is at capacity" and
// "should pack small and large pods together"
TEST(KarpenterSuite, MemoryBoundPodsPackTwoPerDefaultNode) {
  auto r = KRequest();
  auto mem_pod = [](const std::string& name, const std::string& mem) {
    v1::Pod p = Bare(name, Selector("kubernetes.io/arch", "amd64"));
    (*p.mutable_spec()
          ->mutable_containers(0)
          ->mutable_resources()
          ->mutable_requests())["memory"] = mem;
    return p;
  };
  for (int i = 0; i < 40; ++i)
    *r.add_pods() = mem_pod(absl::StrCat("large", i), "1.8G");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 20);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(LaunchedType(resp, i), "default-instance-type");

  for (int i = 0; i < 20; ++i)
    *r.add_pods() = mem_pod(absl::StrCat("small", i), "400M");
  auto mixed = MustSchedule(r);
  EXPECT_TRUE(mixed.unschedulable().empty());
  ASSERT_EQ(mixed.new_node_claims_size(), 20);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(LaunchedType(mixed, i), "default-instance-type");
    EXPECT_EQ(mixed.new_node_claims(i).pods_size(), 3);
  }
}

// suite_test.go: "should pack nodes tightly" (a 4.5-core pod takes the
// 5-core type; the 1-core pod does not fit beside it)
TEST(KarpenterSuite, LargePodDoesNotDragTheSmallOneUp) {
  auto r = KRequest("", FakeIt(5));
  *r.add_pods() = Pod("big", "4500m", "0");
  *r.add_pods() = Pod("small", "1", "0");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 2);
  EXPECT_NE(LaunchedType(resp, 0), LaunchedType(resp, 1));
  std::set<std::string> types = {LaunchedType(resp, 0), LaunchedType(resp, 1)};
  EXPECT_EQ(types, (std::set<std::string>{"fake-it-4", "fake-it-1"}));
}

// suite_test.go: "should handle zero-quantity resource requests"
TEST(KarpenterSuite, ZeroQuantityOfAnUnknownResourceFits) {
  auto r = KRequest();
  v1::Pod p = Bare("p");
  auto* res = p.mutable_spec()->mutable_containers(0)->mutable_resources();
  (*res->mutable_requests())["foo.com/weird-resources"] = "0";
  (*res->mutable_limits())["foo.com/weird-resources"] = "0";
  *r.add_pods() = p;
  EXPECT_EQ(MustSchedule(r).new_node_claims_size(), 1);
}

// suite_test.go: "should take into account initContainer resource requests
// when binpacking" and "should not schedule pods when initContainer resource
// requests are greater than available instance types"
TEST(KarpenterSuite, InitContainerRequestsSizeTheNode) {
  auto r = KRequest();
  *r.add_pods() = Pod("p", "1", "1Gi", R"pb(spec { init_containers { name: "i"
      resources { requests { key: "cpu" value: "2" } requests { key: "memory" value: "1Gi" } } } })pb");
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "default-instance-type");
  (*r.mutable_pods(0)
        ->mutable_spec()
        ->mutable_init_containers(0)
        ->mutable_resources()
        ->mutable_requests())["memory"] = "1Ti";
  EXPECT_EQ(MustSchedule(r).new_node_claims_size(), 0);
}

// suite_test.go: "should schedule based on the pod level resources
// requests": three "example" types (Karpenter's AddInstanceResources: arch
// "arch", spot in test-zone-1, fake price) of 10/4Gi, 11/5Gi and 12/6Gi;
// the pod-level requests (9.9, 3.9Gi) size the node, not the containers'
// aggregate. Then the same pod with pod-level requests above the 10-core
// type's allocatable, which the containers' aggregate (9, 3Gi) would fit.
TEST(KarpenterSuite, PodLevelRequestsSizeTheNode) {
  v1::Catalog c = DefaultTypes();
  for (auto [cpu, mem] : {std::pair{10, 4}, {11, 5}, {12, 6}}) {
    v1::InstanceType t =
        KType(absl::StrCat("example-", cpu), cpu, mem, 110, "arch", {"linux"});
    t.clear_offerings();
    auto* o = t.add_offerings();
    o->set_zone("test-zone-1");
    o->set_capacity_type("spot");
    o->set_price(0.1 * cpu + 0.1 * mem * kGiB / 1e9);
    *c.add_instance_types() = t;
  }
  auto r = KRequest("", c);
  auto cr = [](const char* cpu, const char* mem) {
    return absl::StrCat(R"pb(requests { key: "cpu" value: ")pb", cpu,
                        R"pb(" } requests { key: "memory" value: ")pb", mem,
                        R"pb(" } limits { key: "cpu" value: ")pb", cpu,
                        R"pb(" } limits { key: "memory" value: ")pb", mem,
                        R"pb(" })pb");
  };
  v1::Pod p = Bare("p");
  p.MergeFrom(Parse<v1::Pod>(absl::StrCat(
      "spec { init_containers { name: \"i\" resources { ", cr("6", "2Gi"),
      " } } init_containers { name: \"s\" restart_policy: \"Always\" "
      "resources { ",
      cr("4", "2Gi"), " } } }")));
  p.mutable_spec()->mutable_containers(0)->MergeFrom(
      Parse<v1::Container>(absl::StrCat("resources { ", cr("5", "1Gi"), " }")));
  auto& pod_level = *p.mutable_spec()->mutable_resources();
  (*pod_level.mutable_requests())["cpu"] = "9.9";
  (*pod_level.mutable_requests())["memory"] = "3.9Gi";
  (*pod_level.mutable_limits())["cpu"] = "10";
  (*pod_level.mutable_limits())["memory"] = "4Gi";
  *r.add_pods() = p;
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "example-10");

  (*pod_level.mutable_requests())["cpu"] = "10.5";
  (*pod_level.mutable_requests())["memory"] = "4.5Gi";
  (*pod_level.mutable_limits())["cpu"] = "11";
  (*pod_level.mutable_limits())["memory"] = "5Gi";
  *r.mutable_pods(0) = p;
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "example-11");
}

// suite_test.go: "should select for valid instance types, regardless of
// price" (the cheapest is launched; every fitting type stays an option)
TEST(KarpenterSuite, EveryFittingTypeIsAnOptionCheapestLaunches) {
  v1::Catalog c;
  for (auto [name, cpu, mem, price] :
       {std::tuple<const char*, int, int, double>{"medium", 2, 2, 3.0},
        {"small", 1, 1, 2.0},
        {"large", 4, 4, 1.0}}) {
    v1::InstanceType t = KType(name, cpu, mem, 5);
    t.clear_offerings();
    auto* o = t.add_offerings();
    o->set_zone("test-zone-1a");
    o->set_capacity_type("on-demand");
    o->set_price(price);
    *c.add_instance_types() = t;
  }
  for (const char* key : {"size", "special", "integer"})
    c.add_well_known_labels(key);
  auto r = KRequest("", c);
  v1::Pod p = Bare("p");
  auto* lim = p.mutable_spec()
                  ->mutable_containers(0)
                  ->mutable_resources()
                  ->mutable_limits();
  (*lim)["cpu"] = "1m";
  (*lim)["memory"] = "1Mi";
  *r.add_pods() = p;
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(LaunchedType(resp), "large");
  EXPECT_THAT(resp.new_node_claims(0).instance_types(),
              UnorderedElementsAre("small", "medium", "large"));
}

// ---------------------------------------------------------------------------
// In-flight and existing nodes.

// suite_test.go: "should not launch a second node if there is an in-flight
// node that can support the pod (node selectors)" (the first pod's node is
// small-instance-type in test-zone-2)
TEST(KarpenterSuite, InFlightNodeTakesPodsWhoseZonesIncludeIt) {
  auto r = KRequest();
  *r.add_nodes() = KNode("n1", "small-instance-type", "test-zone-2", "1900m",
                         "2038Mi", "5", true);
  *r.add_pods() = BoundTo(Pod("first", "10m", "0"), "n1");
  *r.add_pods() = Pod("second", "10m", "0",
                      Required({Expr("topology.kubernetes.io/zone", "In",
                                     {"test-zone-1", "test-zone-2"})}));
  *r.add_pods() = Pod("third", "10m", "0",
                      Required({Expr("topology.kubernetes.io/zone", "In",
                                     {"test-zone-1", "test-zone-3"})}));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.existing_nodes_size(), 1);
  EXPECT_THAT(resp.existing_nodes(0).pods(),
              UnorderedElementsAre("default/second"));
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_THAT(resp.new_node_claims(0).pods(),
              UnorderedElementsAre("default/third"));
}

// suite_test.go: "should assume pod will schedule to a node with ephemeral
// taint node.kubernetes.io/not-ready:NoExecute when the node is
// uninitialized" (and not once it is initialized)
TEST(KarpenterSuite, NotReadyTaintIgnoredOnlyBeforeInitialization) {
  for (bool initialized : {false, true}) {
    auto r = KRequest();
    v1::Node n = KNode("n1", "default-instance-type", "test-zone-1", "3900m",
                       "4086Mi", "5", initialized);
    auto* t = n.mutable_spec()->add_taints();
    t->set_key("node.kubernetes.io/not-ready");
    t->set_effect("NoExecute");
    *r.add_node_claims() = LinkedClaim(n);
    *r.add_nodes() = n;
    *r.add_pods() = Bare("p");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.existing_nodes_size(), initialized ? 0 : 1) << initialized;
    EXPECT_EQ(resp.new_node_claims_size(), initialized ? 1 : 0) << initialized;
  }
}

// suite_test.go: "should not assume pod will schedule to a tainted node"
TEST(KarpenterSuite, InitializedNodeWithACustomTaintIsSkipped) {
  auto r = KRequest();
  v1::Node n = KNode("n1", "default-instance-type", "test-zone-1", "3900m",
                     "4086Mi", "5", true);
  auto* t = n.mutable_spec()->add_taints();
  t->set_key("foo.com/taint");
  t->set_value("tainted");
  t->set_effect("NoSchedule");
  *r.add_nodes() = n;
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.existing_nodes_size(), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
}

// suite_test.go: "should assume pod will schedule to a tainted node with a
// custom startup taint" and "should not assume pod will schedule to a node
// with startup taints after initialization"
TEST(KarpenterSuite, StartupTaintIgnoredOnlyBeforeInitialization) {
  for (bool initialized : {false, true}) {
    auto r = KRequest();
    MergePool(r, R"pb(spec { template { spec { startup_taints {
        key: "foo.com/taint" value: "tainted" effect: "NoSchedule" } } } })pb");
    v1::Node n = KNode("n1", "default-instance-type", "test-zone-1", "3900m",
                       "4086Mi", "5", initialized);
    auto* t = n.mutable_spec()->add_taints();
    t->set_key("foo.com/taint");
    t->set_value("tainted");
    t->set_effect("NoSchedule");
    (*n.mutable_metadata()->mutable_labels())["karpenter.sh/registered"] =
        "true";
    *r.add_nodes() = n;
    *r.add_node_claims() = Parse<v1::NodeClaim>(
        R"pb(metadata { name: "default-aaaaa" labels { key: "karpenter.sh/nodepool" value: "default" } }
        spec { startup_taints { key: "foo.com/taint" value: "tainted" effect: "NoSchedule" } }
        status { node_name: "n1" })pb");
    *r.add_pods() = Bare("p");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.existing_nodes_size(), initialized ? 0 : 1) << initialized;
    EXPECT_EQ(resp.new_node_claims_size(), initialized ? 1 : 0) << initialized;
  }
}

// Karpenter's StateNode counts a node as managed only with a NodeClaim: a
// node without one is initialized whatever its labels say, so the not-ready
// taint of a node outside Karpenter's bookkeeping is never ignored.
TEST(KarpenterSuite, NodeWithoutANodeClaimIsNeverUninitialized) {
  auto r = KRequest();
  v1::Node n = KNode("n1", "default-instance-type", "test-zone-1", "3900m",
                     "4086Mi", "5", /*initialized=*/false);
  auto* t = n.mutable_spec()->add_taints();
  t->set_key("node.kubernetes.io/not-ready");
  t->set_effect("NoExecute");
  *r.add_nodes() = n;
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.existing_nodes_size(), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
}

// StateNode.Taints: a managed node whose karpenter.sh/registered label is not
// "true" yet is seen through its NodeClaim's taints, not the Node's.
TEST(KarpenterSuite, UnregisteredNodeIsSeenThroughItsNodeClaimsTaints) {
  for (bool registered : {false, true}) {
    auto r = KRequest();
    v1::Node n = KNode("n1", "default-instance-type", "test-zone-1", "3900m",
                       "4086Mi", "5", /*initialized=*/false);
    auto* t = n.mutable_spec()->add_taints();
    t->set_key("example.com/not-yet");
    t->set_effect("NoSchedule");
    v1::NodeClaim claim = LinkedClaim(n);
    if (!registered)
      n.mutable_metadata()->mutable_labels()->erase("karpenter.sh/registered");
    *r.add_node_claims() = claim;
    *r.add_nodes() = n;
    *r.add_pods() = Bare("p");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.existing_nodes_size(), registered ? 0 : 1) << registered;
    EXPECT_EQ(resp.new_node_claims_size(), registered ? 1 : 0) << registered;
  }
}

// suite_test.go: "should handle resource zeroing of extended resources by
// kubelet" (Karpenter issue 1459): until the node is initialized, a resource
// the Node reports as zero (the device plugin has not registered its GPUs)
// is taken from the NodeClaim, so a second GPU pod waits for that node
// instead of launching another.
TEST(KarpenterSuite,
     UninitializedNodesZeroedExtendedResourceComesFromItsClaim) {
  for (bool initialized : {false, true}) {
    auto r = KRequest();
    v1::Node n = KNode("n1", "gpu-vendor-instance-type", "test-zone-1", "3900m",
                       "4086Mi", "5", initialized);
    (*n.mutable_status()->mutable_allocatable())["fake.com/vendor-a"] = "2";
    v1::NodeClaim claim = LinkedClaim(n);
    (*n.mutable_status()->mutable_allocatable())["fake.com/vendor-a"] = "0";
    (*n.mutable_status()->mutable_capacity())["fake.com/vendor-a"] = "0";
    *r.add_node_claims() = claim;
    *r.add_nodes() = n;
    v1::Pod p = Bare("p");
    auto& limits = *p.mutable_spec()
                        ->mutable_containers(0)
                        ->mutable_resources()
                        ->mutable_limits();
    limits["cpu"] = "10m";
    limits["fake.com/vendor-a"] = "1";
    *r.add_pods() = p;
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.existing_nodes_size(), initialized ? 0 : 1) << initialized;
    EXPECT_EQ(resp.new_node_claims_size(), initialized ? 1 : 0) << initialized;
  }
}

// ---------------------------------------------------------------------------
// DaemonSets (provisioning suite_test.go, Context "Daemonsets"). With a
// 2-core/2Gi daemon beside a 1-core/1Gi pod the small type is too small, so
// a counted daemon shows as default-instance-type.

v1::DaemonSet Daemon(const std::string& name, const std::string& cpu,
                     const std::string& mem, const std::string& pod_spec = "") {
  v1::DaemonSet d = Parse<v1::DaemonSet>(absl::StrCat(
      R"pb(metadata { name: ")pb", name, R"pb(" namespace: "default" uid: ")pb",
      name, R"pb(" } spec { template { spec { containers { name: "d" resources {
        requests { key: "cpu" value: ")pb",
      cpu, R"pb(" } requests { key: "memory" value: ")pb", mem,
      R"pb(" } } } } } })pb"));
  if (!pod_spec.empty())
    d.mutable_spec()->mutable_template_()->MergeFrom(
        Parse<v1::PodTemplateSpec>(pod_spec));
  return d;
}

// The DaemonSet controller's owner reference on one of its pods.
void OwnByDaemonSet(v1::Pod& pod, const std::string& name,
                    const std::string& uid) {
  auto* o = pod.mutable_metadata()->add_owner_references();
  o->set_api_version("apps/v1");
  o->set_kind("DaemonSet");
  o->set_name(name);
  o->set_uid(uid);
  o->set_controller(true);
}

TEST(KarpenterSuite, DaemonSetOverheadCases) {
  struct Case {
    const char* karpenter_test;
    std::string pool;  // merged into the NodePool
    std::vector<v1::DaemonSet> daemons;
    std::string pod_extra;  // merged into the pod
    const char* launched;
  };
  const Case cases[] = {
      // suite_test.go: "should account for daemonsets"
      {"account for daemonsets",
       "",
       {Daemon("ds", "2", "2Gi")},
       "",
       "default-instance-type"},
      // suite_test.go: "should account for daemonsets (with startup taint)"
      {"startup taint",
       R"pb(spec { template { spec { startup_taints { key: "foo.com/taint" effect: "NoSchedule" } } } })pb",
       {Daemon("ds", "2", "2Gi")},
       "",
       "default-instance-type"},
      // suite_test.go: "should ignore daemonsets without matching
      // tolerations"
      {"untolerated taint",
       R"pb(spec { template { spec { taints { key: "foo" value: "bar" effect: "NoSchedule" } } } })pb",
       {Daemon("ds", "2", "2Gi")},
       R"pb(spec { tolerations { operator: "Exists" } })pb",
       "small-instance-type"},
      // suite_test.go: "should account for daemonsets with a custom label
      // nodeSelector that matches the nodepool"
      {"custom label selector",
       R"pb(spec { template { metadata { labels { key: "purpose" value: "monitoring" } } } })pb",
       {Daemon(
           "ds", "2", "2Gi",
           R"pb(spec { node_selector { key: "purpose" value: "monitoring" } })pb")},
       "",
       "default-instance-type"},
      // suite_test.go: "should filter out daemonsets based on instance type
      // requirements"
      {"per-type daemons",
       "",
       {Daemon("small", "1", "0", Required({Expr("size", "In", {"small"})})),
        Daemon("large", "10", "0", Required({Expr("size", "In", {"large"})}))},
       "",
       "default-instance-type"},
      // suite_test.go: "should account daemonsets with NotIn operator and
      // unspecified key"
      {"NotIn on an undefined key",
       "",
       {Daemon("ds", "2", "2Gi", Required({Expr("foo", "NotIn", {"bar"})}))},
       Required({Expr("topology.kubernetes.io/zone", "In", {"test-zone-2"})}),
       "default-instance-type"},
  };
  for (const Case& c : cases) {
    auto r = KRequest();
    if (!c.pool.empty()) MergePool(r, c.pool);
    for (const auto& d : c.daemons) *r.add_daemon_sets() = d;
    *r.add_pods() = Pod("p", "1", "1Gi", c.pod_extra);
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.new_node_claims_size(), 1)
        << c.karpenter_test << ": " << ReasonFor(resp, "default/p");
    EXPECT_EQ(LaunchedType(resp), c.launched) << c.karpenter_test;
  }
}

// More of Context "Daemonsets": which daemons count on the NodeClaim a
// 1-core/1Gi pod gets. A counted 2-core/2Gi daemon makes it a
// default-instance-type (4 cores), an ignored one leaves the small type.
TEST(KarpenterSuite, DaemonSetsThatCountAndThatDoNot) {
  v1::Pod ds_pod = Pod("ds-pod", "2", "2Gi");
  OwnByDaemonSet(ds_pod, "ds", "ds");
  struct Case {
    const char* karpenter_test;
    std::string pool;  // merged into the NodePool
    std::vector<v1::DaemonSet> daemons;
    std::vector<v1::Pod> daemon_pods;
    std::string pod_extra;
    const char* launched;  // "" when the pod stays pending
  };
  const Case cases[] = {
      {"should not schedule if daemonset overhead is too large",
       "",
       {Daemon("ds", "10000", "10000Gi")},
       {},
       "",
       ""},
      {"should account for overhead using daemonset pod spec instead of "
       "daemonset spec",
       "",
       {Daemon("ds", "4", "4Gi")},
       {ds_pod},
       Selector("karpenter.sh/nodepool", "default"),
       "default-instance-type"},
      {"should ignore daemonsets with an invalid selector",
       "",
       {Daemon(
           "ds", "2", "2Gi",
           R"pb(spec { node_selector { key: "node" value: "invalid" } })pb")},
       {},
       "",
       "small-instance-type"},
      {"should ignore daemonsets when no instance types meet the daemonset "
       "requirements",
       "",
       {Daemon("ds", "2", "2Gi",
               Required({Expr("node.kubernetes.io/instance-type", "In",
                              {"non-existent-instance-type"})}))},
       {},
       "",
       "small-instance-type"},
      {"should consider a daemonset schedulable with multiple node affinity "
       "terms",
       R"pb(spec { template { metadata { labels { key: "foo" value: "bar" } } } })pb",
       {Daemon(
           "ds", "2", "2Gi",
           R"pb(spec { affinity { node_affinity { required_during_scheduling_ignored_during_execution {
                 node_selector_terms { match_expressions { key: "foo" operator: "In" values: "voo" } }
                 node_selector_terms { match_expressions { key: "foo" operator: "In" values: "bar" } }
               } } } })pb")},
       {},
       "",
       "default-instance-type"},
      {"should consider a daemonset schedulable with an incompatible node "
       "affinity preference",
       "",
       {Daemon("ds", "2", "2Gi",
               Preferred({{1, {Expr("node", "In", {"invalid"})}}}))},
       {},
       "",
       "default-instance-type"},
      {"should consider a daemonset schedulable with a PreferNoSchedule taint",
       R"pb(spec { template { spec { taints { key: "test" effect: "PreferNoSchedule" } } } })pb",
       {Daemon("ds", "2", "2Gi")},
       {},
       "",
       "default-instance-type"},
  };
  for (const Case& c : cases) {
    auto r = KRequest();
    if (!c.pool.empty()) MergePool(r, c.pool);
    for (const auto& d : c.daemons) *r.add_daemon_sets() = d;
    for (const auto& p : c.daemon_pods) *r.add_pods() = p;
    *r.add_pods() = Pod("p", "1", "1Gi", c.pod_extra);
    auto resp = MustSchedule(r);
    if (*c.launched == '\0') {
      EXPECT_EQ(resp.new_node_claims_size(), 0) << c.karpenter_test;
      EXPECT_EQ(resp.unschedulable_size(), 1) << c.karpenter_test;
      continue;
    }
    ASSERT_EQ(resp.new_node_claims_size(), 1)
        << c.karpenter_test << ": " << ReasonFor(resp, "default/p");
    EXPECT_EQ(LaunchedType(resp), c.launched) << c.karpenter_test;
  }
}

// suite_test.go: "should remove daemonset node hostname affinity when
// considering daemonset schedulability": the daemon's pod carries the
// DaemonSet controller's pin to one node (metadata.name); the template's
// own affinity (foo In bar) decides, so the pod's 2 cores count.
TEST(KarpenterSuite, DaemonPodsNodePinIsIgnored) {
  auto r = KRequest();
  MergePool(
      r,
      R"pb(spec { template { metadata { labels { key: "foo" value: "bar" } } } })pb");
  *r.add_daemon_sets() =
      Daemon("ds", "4", "4Gi", Required({Expr("foo", "In", {"bar"})}));
  v1::Pod ds_pod = Pod("ds-pod", "2", "2Gi",
                       Required({Expr("metadata.name", "In", {"node-name"})}));
  OwnByDaemonSet(ds_pod, "ds", "ds");
  *r.add_pods() = ds_pod;
  *r.add_pods() = Pod("p", "1", "1Gi", Selector("foo", "bar"));
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1) << ReasonFor(resp, "default/p");
  EXPECT_EQ(LaunchedType(resp), "default-instance-type");
}

// suite_test.go: "should not account for daemonset hostports when daemonset
// would not schedule on selected node": a large-only daemon holds port 8080,
// a small-only one 8081; a small pod on 8080 fits beside the small daemon.
TEST(KarpenterSuite, DaemonHostPortOnlyWhereTheDaemonRuns) {
  auto r = KRequest();
  auto with_port = [](v1::DaemonSet d, int port) {
    auto* c = d.mutable_spec()
                  ->mutable_template_()
                  ->mutable_spec()
                  ->mutable_containers(0);
    auto* p = c->add_ports();
    p->set_host_port(port);
    p->set_container_port(port);
    return d;
  };
  *r.add_daemon_sets() = with_port(
      Daemon("large", "4", "4Gi", Required({Expr("size", "In", {"large"})})),
      8080);
  *r.add_daemon_sets() = with_port(
      Daemon("small", "2", "2Gi", Required({Expr("size", "In", {"small"})})),
      8081);
  v1::Pod p = Pod("p", "1", "1Gi", Required({Expr("size", "In", {"small"})}));
  auto* port = p.mutable_spec()->mutable_containers(0)->add_ports();
  port->set_host_port(8080);
  port->set_container_port(8080);
  *r.add_pods() = p;
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1) << ReasonFor(resp, "default/p");
  EXPECT_EQ(LaunchedType(resp), "default-instance-type");
}

// In-flight nodes' daemons (suite_test.go, Describe "In-Flight Nodes",
// Context "Daemonsets"): an arm-instance-type node (15.9 cores allocatable)
// launched for an 8-core pod that is gone, a DaemonSet pod of 1 core now
// bound to it.
v1::ScheduleRequest InFlightWithDaemonPod(const std::string& node_label,
                                          std::vector<v1::DaemonSet> daemons) {
  auto r = KRequest();
  v1::Node n = KNode("n1", "arm-instance-type", "test-zone-1", "15900m",
                     "130038Mi", "5", false);
  if (!node_label.empty())
    (*n.mutable_metadata()->mutable_labels())[node_label] = "value";
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
  for (auto& d : daemons) *r.add_daemon_sets() = d;
  v1::Pod ds_pod = Pod("ds-pod", "1", "2Gi");
  OwnByDaemonSet(ds_pod, r.daemon_sets(0).metadata().name(),
                 r.daemon_sets(0).metadata().uid());
  if (!node_label.empty())
    (*ds_pod.mutable_spec()->mutable_node_selector())[node_label] = "value";
  *r.add_pods() = BoundTo(ds_pod, "n1");
  return r;
}

// "should track daemonset usage separately so we know how many DS resources
// are remaining to be scheduled": the daemon's pod is bound, so nothing of
// it remains to come and a 14.9-core pod fits the node.
TEST(KarpenterSuite, BoundDaemonPodLeavesNoDaemonOverhead) {
  auto r = InFlightWithDaemonPod("", {Daemon("ds", "1", "1Gi")});
  *r.add_pods() = Pod("second", "14900m", "0");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.existing_nodes_size(), 1) << ReasonFor(resp, "default/second");
  EXPECT_EQ(resp.existing_nodes(0).name(), "n1");
  EXPECT_EQ(resp.new_node_claims_size(), 0);
}

// "should handle unexpected daemonset pods binding to the node": a daemon
// whose selector the node gained later has its pod bound; another daemon of
// 1m still has to come, so a 15.5-core pod needs a new node.
TEST(KarpenterSuite, UnexpectedDaemonPodAndAnotherDaemonStillToCome) {
  auto r = InFlightWithDaemonPod(
      "my-node-label",
      {Daemon(
           "ds1", "1", "1Gi",
           R"pb(spec { node_selector { key: "my-node-label" value: "value" } })pb"),
       Daemon("ds2", "1m", "0")});
  *r.add_pods() = Pod("second", "15500m", "0");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.existing_nodes_size(), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
}

// suite_test.go: "should account for daemonset hostports"
TEST(KarpenterSuite, DaemonSetHostPortBlocksThePod) {
  auto r = KRequest();
  *r.add_daemon_sets() = Daemon(
      "ds", "2", "2Gi",
      R"pb(spec { containers { name: "d" ports { host_port: 8080 container_port: 8080 } } })pb");
  // The merge adds a second container; keep one with the port and requests.
  auto* spec = r.mutable_daemon_sets(0)
                   ->mutable_spec()
                   ->mutable_template_()
                   ->mutable_spec();
  *spec->mutable_containers(0)->mutable_ports() = spec->containers(1).ports();
  spec->mutable_containers()->DeleteSubrange(1, 1);
  *r.add_pods() = Pod(
      "p", "1", "1Gi",
      R"pb(spec { containers { name: "p" ports { host_port: 8080 container_port: 8080 } } })pb");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

// ---------------------------------------------------------------------------
// NodePool limits (provisioning suite_test.go, Context "Limits").

// suite_test.go: "should schedule if limits would be met" and "should not
// schedule if limits would be exceeded"
TEST(KarpenterSuite, CpuLimitAdmitsOnlyTypesWithinIt) {
  for (auto [cpu, schedules] :
       {std::pair<const char*, bool>{"1750m", true}, {"2100m", false}}) {
    auto r = KRequest();
    (*Pool0(r).mutable_spec()->mutable_limits())["cpu"] = "2";
    *r.add_pods() = Pod("p", cpu, "0");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), schedules ? 1 : 0) << cpu;
    if (schedules) {
      EXPECT_EQ(LaunchedType(resp), "small-instance-type");
    }
  }
}

// suite_test.go: "should not schedule if limits would be exceeded (GPU)"
// (a pods limit of 1, and the only GPU type holds 5 pods)
TEST(KarpenterSuite, PodsLimitExcludesTheGpuType) {
  auto r = KRequest();
  (*Pool0(r).mutable_spec()->mutable_limits())["pods"] = "1";
  v1::Pod p = Bare("p");
  (*p.mutable_spec()
        ->mutable_containers(0)
        ->mutable_resources()
        ->mutable_limits())["fake.com/vendor-a"] = "1";
  *r.add_pods() = p;
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

// suite_test.go: "should partially schedule if limits would be exceeded" and
// "should not schedule if limits would be exceeded (node)"
TEST(KarpenterSuite, NodesLimitStopsTheThirdNode) {
  const char* anti = R"pb(metadata { labels { key: "app" value: "foo" } }
      spec { affinity { pod_anti_affinity { required_during_scheduling_ignored_during_execution {
        topology_key: "kubernetes.io/hostname" label_selector { match_labels { key: "app" value: "foo" } } } } } })pb";
  auto r = KRequest();
  (*Pool0(r).mutable_spec()->mutable_limits())["nodes"] = "2";
  for (int i = 0; i < 3; ++i)
    *r.add_pods() = Pod(absl::StrCat("p", i), "1500m", "0", anti);
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 2);
  EXPECT_EQ(resp.unschedulable_size(), 1);
  EXPECT_TRUE(Verify(r, resp).empty());

  auto cpu = KRequest();
  (*Pool0(cpu).mutable_spec()->mutable_limits())["cpu"] = "3";
  for (int i = 0; i < 2; ++i)
    *cpu.add_pods() = Pod(absl::StrCat("p", i), "1500m", "0", anti);
  auto partial = MustSchedule(cpu);
  EXPECT_EQ(partial.new_node_claims_size(), 1);
  EXPECT_EQ(partial.unschedulable_size(), 1);
}

// suite_test.go: "should not schedule to a nodepool after a scheduling round
// if limits would be exceeded" (the first round's 2-core node counts)
TEST(KarpenterSuite, EarlierNodeCountsAgainstTheLimit) {
  auto r = KRequest();
  (*Pool0(r).mutable_spec()->mutable_limits())["cpu"] = "2";
  v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                     "2038Mi", "5", true);
  (*n.mutable_status()->mutable_capacity())["cpu"] = "2";
  *r.add_nodes() = n;
  *r.add_pods() = BoundTo(Pod("first", "1750m", "0"), "n1");
  *r.add_pods() = Pod("second", "1750m", "0");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

// suite_test.go: "should not schedule when limits are exceeded" (an in-flight
// NodeClaim whose capacity alone is over the limit; it names no instance
// type)
// (nodeplan used to skip such a NodeClaim before charging the limits.)
TEST(KarpenterSuite, InFlightClaimCapacityCountsAgainstTheLimit) {
  auto r = KRequest();
  (*Pool0(r).mutable_spec()->mutable_limits())["cpu"] = "20";
  *r.add_node_claims() = Parse<v1::NodeClaim>(
      R"pb(metadata { name: "default-bbbbb" labels { key: "karpenter.sh/nodepool" value: "default" } }
      status { capacity { key: "cpu" value: "100" } })pb");
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

// ---------------------------------------------------------------------------
// NodePool selection.

// suite_test.go: "should schedule to an explicitly selected NodePool" and
// "should schedule to explicitly selected nodepool even if other nodePools
// are higher priority"
TEST(KarpenterSuite, ExplicitNodePoolSelectionBeatsWeight) {
  auto r = KRequest();
  *r.add_node_pools() = NodePool("heavy", R"pb(spec { weight: 100 })pb");
  *r.add_pods() = Bare("p", Selector("karpenter.sh/nodepool", "default"));
  auto selected = MustSchedule(r);
  ASSERT_EQ(selected.new_node_claims_size(), 1);
  EXPECT_EQ(selected.new_node_claims(0).node_pool(), "default");
  // Unconstrained, the heavier NodePool wins. (In one round the second pod
  // would join the first pod's NodeClaim, as Karpenter tries the round's
  // NodeClaims before opening one.)
  *r.mutable_pods(0) = Bare("q");
  auto weighted = MustSchedule(r);
  ASSERT_EQ(weighted.new_node_claims_size(), 1);
  EXPECT_EQ(weighted.new_node_claims(0).node_pool(), "heavy");
}

// ---------------------------------------------------------------------------
// Taints (topology_test.go, Describe "Taints").

// topology_test.go: "should schedule pods that tolerate NodePool constraints"
TEST(KarpenterSuite, TolerationForms) {
  struct Case {
    const char* name;
    const char* toleration;
    bool schedules;
  } cases[] = {
      {"exists",
       R"pb(key: "test-key" operator: "Exists" effect: "NoSchedule")pb", true},
      {"equal",
       R"pb(key: "test-key" value: "test-value" operator: "Equal" effect: "NoSchedule")pb",
       true},
      {"none", "", false},
      {"key mismatch", R"pb(key: "invalid" operator: "Exists")pb", false},
      {"value mismatch",
       R"pb(key: "test-key" operator: "Equal" effect: "NoSchedule")pb", false},
  };
  for (const auto& c : cases) {
    auto r = KRequest();
    MergePool(r, R"pb(spec { template { spec { taints {
        key: "test-key" value: "test-value" effect: "NoSchedule" } } } })pb");
    *r.add_pods() = Bare(
        "p", *c.toleration
                 ? absl::StrCat("spec { tolerations { ", c.toleration, " } }")
                 : "");
    EXPECT_EQ(MustSchedule(r).new_node_claims_size(), c.schedules ? 1 : 0)
        << c.name;
  }
}

// topology_test.go: "should taint nodes with NodePool taints" (a toleration
// by effect alone) and "should not generate taints for OpExists"
TEST(KarpenterSuite, NodeClaimTaintsComeFromTheNodePoolOnly) {
  auto r = KRequest();
  MergePool(r, R"pb(spec { template { spec { taints {
      key: "test" value: "bar" effect: "NoSchedule" } } } })pb");
  *r.add_pods() = Bare(
      "p",
      R"pb(spec { tolerations { operator: "Exists" effect: "NoSchedule" } })pb");
  auto tainted = MustSchedule(r);
  ASSERT_EQ(tainted.new_node_claims_size(), 1);
  const auto& taints = tainted.new_node_claims(0).node_claim().spec().taints();
  ASSERT_EQ(taints.size(), 1);
  EXPECT_EQ(taints[0].key(), "test");

  auto plain = KRequest();
  *plain.add_pods() = Bare(
      "p",
      R"pb(spec { tolerations { key: "test-key" operator: "Exists" effect: "NoExecute" } })pb");
  auto resp = MustSchedule(plain);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_TRUE(resp.new_node_claims(0).node_claim().spec().taints().empty());
}

// topology_test.go: "should provision nodes with taints and schedule pods if
// the taint is only a startup taint"
TEST(KarpenterSuite, StartupTaintNeedsNoToleration) {
  auto r = KRequest();
  MergePool(r, R"pb(spec { template { spec { startup_taints {
      key: "ignore-me" value: "nothing-to-see-here" effect: "NoSchedule" } } } })pb");
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).node_claim().spec().startup_taints_size(),
            1);
}

// ---------------------------------------------------------------------------
// Topology spread (topology_test.go). The suite's NodePool requires
// capacity-type Exists.

// topology_test.go: "should not violate max-skew when unsat = do not
// schedule" (zone-1 holds one pod from an earlier round; the NodePool now
// offers zones 2 and 3)
TEST(KarpenterSuite, SpreadCountsAZoneTheNodePoolNoLongerOffers) {
  auto r = KRequest(
      absl::StrCat(kCapacityTypeExists, Req("topology.kubernetes.io/zone", "In",
                                            {"test-zone-2", "test-zone-3"})));
  AddZoneWithOnePod(r, "n1", "test-zone-1");
  for (int i = 0; i < 10; ++i)
    *r.add_pods() = Pod(absl::StrCat("p", i), "1100m", "0",
                        Tsc("topology.kubernetes.io/zone", 1));
  auto resp = MustSchedule(r);
  EXPECT_EQ(PodsByZone(resp), (std::map<std::string, int>{{"test-zone-2", 2},
                                                          {"test-zone-3", 2}}));
  EXPECT_EQ(resp.unschedulable_size(), 6);
}

// topology_test.go: "should schedule to the non-minimum domain if its all
// that's available" (maxSkew 5, zones 1 and 2 hold one pod each, only zone
// 3 can launch)
TEST(KarpenterSuite, SpreadFillsTheOnlyLaunchableZoneUpToMaxSkew) {
  auto r = KRequest(
      absl::StrCat(kCapacityTypeExists,
                   Req("topology.kubernetes.io/zone", "In", {"test-zone-3"})));
  AddZoneWithOnePod(r, "n1", "test-zone-1");
  AddZoneWithOnePod(r, "n2", "test-zone-2");
  for (int i = 0; i < 10; ++i)
    *r.add_pods() = Pod(absl::StrCat("p", i), "1100m", "0",
                        Tsc("topology.kubernetes.io/zone", 5));
  auto resp = MustSchedule(r);
  EXPECT_EQ(PodsByZone(resp), (std::map<std::string, int>{{"test-zone-3", 6}}));
  EXPECT_EQ(resp.unschedulable_size(), 4);
}

// topology_test.go: "should respect NodePool zonal constraints (subset) with
// requirements" and "satisfied minDomains constraints (equal) should allow
// expected pod scheduling"
TEST(KarpenterSuite, SpreadOverTheNodePoolsZonesWithMinDomains) {
  auto subset = KRequest(
      absl::StrCat(kCapacityTypeExists, Req("topology.kubernetes.io/zone", "In",
                                            {"test-zone-1", "test-zone-2"})));
  for (int i = 0; i < 4; ++i)
    *subset.add_pods() =
        Bare(absl::StrCat("p", i), Tsc("topology.kubernetes.io/zone", 1));
  EXPECT_EQ(
      PodsByZone(MustSchedule(subset)),
      (std::map<std::string, int>{{"test-zone-1", 2}, {"test-zone-2", 2}}));

  auto r = KRequest(absl::StrCat(
      kCapacityTypeExists, Req("topology.kubernetes.io/zone", "In",
                               {"test-zone-1", "test-zone-2", "test-zone-3"})));
  for (int i = 0; i < 11; ++i)
    *r.add_pods() =
        Bare(absl::StrCat("p", i),
             Tsc("topology.kubernetes.io/zone", 1, "min_domains: 3"));
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  std::multiset<int> counts;
  for (const auto& [zone, n] : PodsByZone(resp)) counts.insert(n);
  EXPECT_EQ(counts, (std::multiset<int>{3, 4, 4}));
}

// topology_test.go: "should support matchLabelKeys" and "should ignore
// unknown labels specified in matchLabelKeys"
TEST(KarpenterSuite, MatchLabelKeysSplitsTheSpreadGroup) {
  auto r = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 4; ++i) {
    v1::Pod p = Bare(absl::StrCat("p", i),
                     Tsc("kubernetes.io/hostname", 1,
                         R"pb(match_label_keys: "test-label")pb"));
    (*p.mutable_metadata()->mutable_labels())["test-label"] =
        i < 2 ? "value-a" : "value-b";
    *r.add_pods() = p;
  }
  auto resp = MustSchedule(r);
  EXPECT_EQ(PodsPerClaim(resp), (std::vector<int>{2, 2}));

  for (auto& p : *r.mutable_pods())
    p.mutable_metadata()->mutable_labels()->erase("test-label");
  EXPECT_EQ(PodsPerClaim(MustSchedule(r)), (std::vector<int>{1, 1, 1, 1}));
}

// topology_test.go: "should balance pods across a label
// (NodeTaintsPolicy=ignore)" and "...(NodeTaintsPolicy=honor)" (two tainted
// nodes outside Karpenter define domains foo and bar; the NodePool defines
// baz)
TEST(KarpenterSuite, NodeTaintsPolicyDecidesWhetherTaintedNodesAreDomains) {
  for (auto [policy, scheduled] :
       {std::pair<const char*, int>{"Ignore", 1}, {"Honor", 5}}) {
    auto r = KRequest(kCapacityTypeExists);
    MergePool(
        r,
        R"pb(spec { template { metadata { labels { key: "fake-label" value: "baz" } } } })pb");
    for (const char* value : {"foo", "bar"}) {
      v1::Node n =
          PlainNode(value,
                    absl::StrCat(R"pb(labels { key: "fake-label" value: ")pb",
                                 value, R"pb(" })pb"),
                    "100m");
      auto* t = n.mutable_spec()->add_taints();
      t->set_key("taintname");
      t->set_value("taintvalue");
      t->set_effect("NoSchedule");
      *r.add_nodes() = n;
    }
    for (int i = 0; i < 5; ++i)
      *r.add_pods() =
          Pod(absl::StrCat("p", i), "1", "0",
              Tsc("fake-label", 1,
                  absl::StrCat(R"pb(node_taints_policy: ")pb", policy, "\"")));
    auto resp = MustSchedule(r);
    int placed = 0;
    for (const auto& c : resp.new_node_claims()) placed += c.pods_size();
    EXPECT_EQ(placed, scheduled) << policy;
    EXPECT_EQ(resp.unschedulable_size(), 5 - scheduled) << policy;
  }
}

// topology_test.go: "should balance pods across a label
// (NodeAffinityPolicy=ignore)" and "...(NodeAffinityPolicy=honor)" (two nodes
// whose "selector" label the pods' nodeSelector excludes)
TEST(KarpenterSuite, NodeAffinityPolicyDecidesWhetherExcludedNodesAreDomains) {
  for (auto [policy, scheduled] :
       {std::pair<const char*, int>{"Ignore", 1}, {"Honor", 5}}) {
    auto r = KRequest(kCapacityTypeExists);
    MergePool(r, R"pb(spec { template { metadata {
        labels { key: "fake-label" value: "baz" }
        labels { key: "selector" value: "value" } } } })pb");
    for (const char* value : {"foo", "bar"})
      *r.add_nodes() = PlainNode(
          value,
          absl::StrCat(
              R"pb(labels { key: "fake-label" value: ")pb", value,
              R"pb(" } labels { key: "selector" value: "mismatch" })pb"),
          "100m");
    for (int i = 0; i < 5; ++i) {
      v1::Pod p = Pod(
          absl::StrCat("p", i), "1", "0",
          Tsc("fake-label", 1,
              absl::StrCat(R"pb(node_affinity_policy: ")pb", policy, "\"")));
      (*p.mutable_spec()->mutable_node_selector())["selector"] = "value";
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    int placed = 0;
    for (const auto& c : resp.new_node_claims()) placed += c.pods_size();
    EXPECT_EQ(placed, scheduled) << policy;
    EXPECT_EQ(resp.unschedulable_size(), 5 - scheduled) << policy;
  }
}

// ---------------------------------------------------------------------------
// Pod affinity (topology_test.go).

// topology_test.go: "should respect self pod affinity (hostname)" and
// "should respect self pod affinity (zone w/ constraint)"
TEST(KarpenterSuite, SelfAffinityKeepsPodsTogether) {
  auto r = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 3; ++i)
    *r.add_pods() =
        Bare(absl::StrCat("p", i), SelfAffinity("kubernetes.io/hostname"));
  auto host = MustSchedule(r);
  EXPECT_TRUE(host.unschedulable().empty());
  EXPECT_EQ(PodsPerClaim(host), (std::vector<int>{3}));

  r.clear_pods();
  for (int i = 0; i < 3; ++i) {
    v1::Pod p =
        Bare(absl::StrCat("p", i), SelfAffinity("topology.kubernetes.io/zone"));
    p.MergeFrom(Parse<v1::Pod>(Required(
        {Expr("topology.kubernetes.io/zone", "In", {"test-zone-3"})})));
    *r.add_pods() = p;
  }
  auto zone = MustSchedule(r);
  EXPECT_TRUE(zone.unschedulable().empty());
  EXPECT_EQ(PodsByZone(zone), (std::map<std::string, int>{{"test-zone-3", 3}}));
  EXPECT_EQ(zone.new_node_claims_size(), 1);
}

// topology_test.go: "should handle multiple dependent affinities" (db <- web
// <- cache <- ui on one hostname)
TEST(KarpenterSuite, ChainedHostnameAffinities) {
  auto r = KRequest(kCapacityTypeExists);
  auto pod = [](const std::string& type, const std::string& follows) {
    std::string extra =
        absl::StrCat(R"pb(metadata { labels { key: "type" value: ")pb", type,
                     R"pb(" } labels { key: "spread" value: "spread" } })pb");
    v1::Pod p = Bare(type, extra);
    if (!follows.empty())
      p.MergeFrom(Parse<v1::Pod>(absl::StrCat(
          R"pb(spec { affinity { pod_affinity { required_during_scheduling_ignored_during_execution {
            topology_key: "kubernetes.io/hostname" label_selector { match_labels { key: "type" value: ")pb",
          follows, R"pb(" } } } } } })pb")));
    return p;
  };
  *r.add_pods() = pod("db", "");
  *r.add_pods() = pod("web", "db");
  *r.add_pods() = pod("cache", "web");
  *r.add_pods() = pod("ui", "cache");
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty())
      << resp.unschedulable(0).pod() << ": " << resp.unschedulable(0).reason();
  EXPECT_EQ(PodsPerClaim(resp), (std::vector<int>{4}));
}

// ---------------------------------------------------------------------------
// Instance selection (instance_selection_test.go).

// instance_selection_test.go: "should schedule on one of the cheapest
// instances (pod ct = spot, pod zone = test-zone-1)", "...(prov ct =
// ondemand, prov zone = test-zone-1)" and "...(pod arch = arm64)"
TEST(KarpenterSuite, CheapestOfferingWithinTheConstraints) {
  const double min_price = 0.1 * 1 + 0.1 * kGiB / 1e9;
  const std::string pool = absl::StrCat(
      Req("karpenter.sh/capacity-type", "In", {"spot", "on-demand"}),
      Req("kubernetes.io/arch", "In", {"arm64", "amd64"}));
  struct Case {
    const char* name;
    std::string pool_extra;
    std::string pod;
    const char* zone;  // "" when any
    const char* capacity_type;
    const char* arch;
  } cases[] = {
      {"pod spot zone-1", "",
       Required({Expr("karpenter.sh/capacity-type", "In", {"spot"}),
                 Expr("topology.kubernetes.io/zone", "In", {"test-zone-1"})}),
       "test-zone-1", "spot", ""},
      {"pool on-demand zone-1",
       absl::StrCat(Req("karpenter.sh/capacity-type", "In", {"on-demand"}),
                    Req("topology.kubernetes.io/zone", "In", {"test-zone-1"})),
       "", "test-zone-1", "on-demand", ""},
      {"pod arm64", "", Required({Expr("kubernetes.io/arch", "In", {"arm64"})}),
       "", "", "arm64"},
  };
  for (const auto& c : cases) {
    auto r = KRequest(c.pool_extra.empty() ? pool : c.pool_extra, Assorted());
    *r.add_pods() = Bare("p", c.pod);
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.new_node_claims_size(), 1) << c.name;
    const auto& launch = resp.new_node_claims(0).launch();
    EXPECT_DOUBLE_EQ(launch.price(), min_price) << c.name;
    if (*c.zone) {
      EXPECT_EQ(launch.zone(), c.zone) << c.name;
    }
    if (*c.capacity_type) {
      EXPECT_EQ(launch.capacity_type(), c.capacity_type) << c.name;
    }
    if (*c.arch) {
      for (const auto& t : resp.new_node_claims(0).instance_types()) {
        EXPECT_THAT(t, HasSubstr(absl::StrCat("-mem-", c.arch, "-"))) << c.name;
      }
    }
  }
}

// instance_selection_test.go: "should schedule on cheaper on-demand instance
// even when spot price ordering would place other instance types first"
TEST(KarpenterSuite, OnDemandPoolRanksTypesByOnDemandPrice) {
  v1::Catalog c;
  for (auto [name, od, spot] :
       {std::tuple<const char*, double, double>{"test-instance1", 1.0, 0.2},
        {"test-instance2", 1.3, 0.1}}) {
    v1::InstanceType t = KType(name, 1, 1, 5, "amd64", {"linux"});
    t.clear_offerings();
    for (auto [ct, price] :
         {std::pair<const char*, double>{"on-demand", od}, {"spot", spot}}) {
      auto* o = t.add_offerings();
      o->set_zone("test-zone-1a");
      o->set_capacity_type(ct);
      o->set_price(price);
    }
    *c.add_instance_types() = t;
  }
  auto r = KRequest(Req("karpenter.sh/capacity-type", "In", {"on-demand"}), c);
  *r.add_pods() = Bare("p");
  EXPECT_EQ(LaunchedType(MustSchedule(r)), "test-instance1");
}

// instance_selection_test.go: "should schedule respecting the minValues from
// instance-type requirements" (two pods fit together only on the larger
// type, which would leave one type: each gets its own NodeClaim with both)
TEST(KarpenterSuite, InstanceTypeMinValuesSplitsPods) {
  v1::Catalog c;
  for (auto [name, cpu, price] :
       {std::tuple<const char*, int, double>{"instance-type-1", 1, 0.52},
        {"instance-type-2", 4, 1.0}}) {
    v1::InstanceType t = KType(name, cpu, cpu, 5, "arm64", {"linux"});
    t.clear_offerings();
    auto* o = t.add_offerings();
    o->set_zone("test-zone-1-spot");
    o->set_capacity_type("spot");
    o->set_price(price);
    *c.add_instance_types() = t;
  }
  auto r = KRequest(
      R"pb(requirements { key: "node.kubernetes.io/instance-type" operator: "In"
      values: "instance-type-1" values: "instance-type-2" min_values: 2 })pb",
      c);
  for (const char* name : {"a", "b"})
    *r.add_pods() = Pod(name, "900m", "921Mi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 2);
  for (const auto& claim : resp.new_node_claims()) {
    EXPECT_EQ(claim.pods_size(), 1);
    EXPECT_GE(claim.instance_types_size(), 2);
  }
}

}  // namespace
}  // namespace nodeplan::testing
