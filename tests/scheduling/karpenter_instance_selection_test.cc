// Scenarios translated from Karpenter's instance selection suite
// (sigs.k8s.io/karpenter v1.14.1,
// pkg/controllers/provisioning/scheduling/instance_selection_test.go) on the
// fake provider's assorted types (one offering per type, every combination
// of size, zone, capacity type, OS and architecture; see
// karpenter_fixture.h), beyond the cases karpenter_suite_test.cc restates.
// Karpenter shuffles the types before each case; nodeplan's answer does not
// depend on catalog order, which the table checks by also running each case
// on the catalog reversed.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"

namespace nodeplan::testing {
namespace {

constexpr char kArch[] = "kubernetes.io/arch";
constexpr char kOs[] = "kubernetes.io/os";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kCapacityType[] = "karpenter.sh/capacity-type";

// The suite's NodePool: both capacity types, both architectures.
std::string DefaultPool() {
  return absl::StrCat(Req(kCapacityType, "In", {"spot", "on-demand"}),
                      Req(kArch, "In", {"arm64", "amd64"}));
}

v1::Catalog Reversed(v1::Catalog c) {
  std::reverse(c.mutable_instance_types()->begin(),
               c.mutable_instance_types()->end());
  return c;
}

// The assorted types without those `drop` names (by a name fragment).
v1::Catalog AssortedWithout(const std::vector<std::string>& fragments) {
  v1::Catalog all = Assorted();
  v1::Catalog out = all;
  out.clear_instance_types();
  for (const auto& t : all.instance_types()) {
    bool drop = true;
    for (const auto& f : fragments)
      drop = drop && t.name().find(f) != std::string::npos;
    if (!drop) *out.add_instance_types() = t;
  }
  return out;
}

// instance_selection_test.go: the twenty "should schedule on one of the
// cheapest instances (...)" cases. The launch is at the cheapest price of
// the whole catalog (a 1-core, 1Gi type exists in every combination) and
// every instance type option of the NodeClaim honours the constraints
// (ExpectInstancesWithLabel / ExpectInstancesWithOffering), read from the
// assorted names "<cpu>-cpu-<mem>-mem-<arch>-<os>-<zone>-<capacity type>".
TEST(KarpenterInstanceSelection, CheapestInstanceWithinEveryConstraint) {
  const double min_price = 0.1 * 1 + 0.1 * kGiB / 1e9;
  struct Case {
    const char* name;
    std::string pool;                // empty: the suite's NodePool
    std::vector<std::string> pod;    // required node affinity expressions
    std::vector<std::string> parts;  // in every option's name
  } cases[] = {
      {"unconstrained", "", {}, {}},
      {"pod arch = amd64", "", {Expr(kArch, "In", {"amd64"})}, {"-amd64-"}},
      {"pod arch = arm64", "", {Expr(kArch, "In", {"arm64"})}, {"-arm64-"}},
      {"prov arch = amd64", Req(kArch, "In", {"amd64"}), {}, {"-amd64-"}},
      {"prov arch = arm64", Req(kArch, "In", {"arm64"}), {}, {"-arm64-"}},
      {"prov os = windows", Req(kOs, "In", {"windows"}), {}, {"-windows-"}},
      {"pod os = windows", "", {Expr(kOs, "In", {"windows"})}, {"-windows-"}},
      {"pod os = linux", "", {Expr(kOs, "In", {"linux"})}, {"-linux-"}},
      {"prov zone = test-zone-2",
       Req(kZone, "In", {"test-zone-2"}),
       {},
       {"-test-zone-2-"}},
      {"pod zone = test-zone-2",
       "",
       {Expr(kZone, "In", {"test-zone-2"})},
       {"-test-zone-2-"}},
      {"prov ct = spot", Req(kCapacityType, "In", {"spot"}), {}, {"-spot"}},
      {"pod ct = spot", "", {Expr(kCapacityType, "In", {"spot"})}, {"-spot"}},
      {"prov ct = ondemand, prov zone = test-zone-1",
       absl::StrCat(Req(kCapacityType, "In", {"on-demand"}),
                    Req(kZone, "In", {"test-zone-1"})),
       {},
       {"-test-zone-1-on-demand"}},
      {"pod ct = spot, pod zone = test-zone-1",
       "",
       {Expr(kCapacityType, "In", {"spot"}),
        Expr(kZone, "In", {"test-zone-1"})},
       {"-test-zone-1-spot"}},
      {"prov ct = spot, pod zone = test-zone-2",
       Req(kCapacityType, "In", {"spot"}),
       {Expr(kZone, "In", {"test-zone-2"})},
       {"-test-zone-2-spot"}},
      {"prov ct = ondemand/test-zone-1/arm64/windows",
       absl::StrCat(Req(kArch, "In", {"arm64"}), Req(kOs, "In", {"windows"}),
                    Req(kCapacityType, "In", {"on-demand"}),
                    Req(kZone, "In", {"test-zone-1"})),
       {},
       {"-arm64-windows-test-zone-1-on-demand"}},
      {"prov = spot/test-zone-2, pod = amd64/linux",
       absl::StrCat(Req(kArch, "In", {"amd64"}), Req(kOs, "In", {"linux"})),
       {Expr(kCapacityType, "In", {"spot"}),
        Expr(kZone, "In", {"test-zone-2"})},
       {"-amd64-linux-test-zone-2-spot"}},
      {"pod ct = spot/test-zone-2/amd64/linux",
       "",
       {Expr(kArch, "In", {"amd64"}), Expr(kOs, "In", {"linux"}),
        Expr(kCapacityType, "In", {"spot"}),
        Expr(kZone, "In", {"test-zone-2"})},
       {"-amd64-linux-test-zone-2-spot"}},
  };
  for (const Case& c : cases) {
    for (bool reversed : {false, true}) {
      auto r = KRequest(c.pool.empty() ? DefaultPool() : c.pool,
                        reversed ? Reversed(Assorted()) : Assorted());
      *r.add_pods() = c.pod.empty() ? Bare("p") : Bare("p", Required(c.pod));
      auto resp = MustSchedule(r);
      ASSERT_EQ(resp.new_node_claims_size(), 1) << c.name;
      const auto& claim = resp.new_node_claims(0);
      EXPECT_DOUBLE_EQ(claim.launch().price(), min_price) << c.name;
      ASSERT_GT(claim.instance_types_size(), 0) << c.name;
      for (const auto& t : claim.instance_types())
        for (const auto& part : c.parts)
          EXPECT_THAT(t, ::testing::HasSubstr(part)) << c.name;
      for (const auto& part : c.parts)
        EXPECT_THAT(claim.launch().instance_type(), ::testing::HasSubstr(part))
            << c.name;
      if (reversed) continue;
      // Same answer whatever the catalog order.
      auto again = KRequest(c.pool.empty() ? DefaultPool() : c.pool,
                            Reversed(Assorted()));
      *again.add_pods() = r.pods(0);
      EXPECT_EQ(MustSchedule(again).new_node_claims(0).launch().instance_type(),
                claim.launch().instance_type())
          << c.name;
    }
  }
}

// instance_selection_test.go: "should not schedule if no instance type
// matches selector (pod arch = arm)", "...(pod arch = arm zone=test-zone-2)"
// and "...(prov arch = arm / pod zone=test-zone-2)": with the arm64 types
// (of zone-2) removed, nothing launches.
TEST(KarpenterInstanceSelection, NoMatchingTypeLaunchesNothing) {
  struct Case {
    const char* name;
    v1::Catalog catalog;
    std::string pool;
    std::vector<std::string> pod;
  } cases[] = {
      {"pod arch = arm",
       AssortedWithout({"-arm64-"}),
       DefaultPool(),
       {Expr(kArch, "In", {"arm64"})}},
      {"pod arch = arm zone=test-zone-2",
       AssortedWithout({"-arm64-", "-test-zone-2-"}),
       DefaultPool(),
       {Expr(kArch, "In", {"arm64"}), Expr(kZone, "In", {"test-zone-2"})}},
      {"prov arch = arm / pod zone=test-zone-2",
       AssortedWithout({"-arm64-", "-test-zone-2-"}),
       Req(kArch, "In", {"arm64"}),
       {Expr(kZone, "In", {"test-zone-2"})}},
  };
  for (const Case& c : cases) {
    ASSERT_GT(c.catalog.instance_types_size(), 0) << c.name;
    auto r = KRequest(c.pool, c.catalog);
    *r.add_pods() = Bare("p", Required(c.pod));
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), 0) << c.name;
    EXPECT_EQ(resp.unschedulable_size(), 1) << c.name;
  }
}

// instance_selection_test.go: "should schedule on an instance with enough
// resources": three equal pods of every (cpu, memory) pair below share one
// NodeClaim, and every instance type it offers holds the three plus its
// own overhead (kube-reserved 100m CPU and 10Mi) strictly inside capacity.
TEST(KarpenterInstanceSelection, EveryOptionHoldsThePodsAndOverhead) {
  for (double cpu : {0.1, 1.0, 2.0, 2.5, 4.0, 8.0, 16.0}) {
    for (double mem : {0.1, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
      auto r = KRequest(DefaultPool(), Assorted());
      for (int i = 0; i < 3; ++i)
        *r.add_pods() = Pod(absl::StrCat("p", i), absl::StrFormat("%0.1f", cpu),
                            absl::StrFormat("%0.1fGi", mem));
      auto resp = MustSchedule(r);
      ASSERT_EQ(resp.new_node_claims_size(), 1) << cpu << " " << mem;
      for (const auto& name : resp.new_node_claims(0).instance_types()) {
        int type_cpu = 0, type_mem = 0;
        ASSERT_EQ(
            std::sscanf(name.c_str(), "%d-cpu-%d-mem-", &type_cpu, &type_mem),
            2)
            << name;
        EXPECT_LT(3 * cpu + 0.1, type_cpu) << name;
        EXPECT_LT(3 * mem * kGiB + 10 * 1048576.0, type_mem * kGiB) << name;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// minValues (instance_selection_test.go, Context "MinValues").

struct MinType {
  const char* name;
  int cpu;
  double price;
  const char* arch;
  int numeric;  // karpenter/numerical-value, or 0 for none
};

// fake.NewInstanceType with one spot offering in "test-zone-1-spot".
v1::Catalog MinCatalog(const std::vector<MinType>& types) {
  v1::Catalog c;
  for (const MinType& m : types) {
    v1::InstanceType t = KType(m.name, m.cpu, m.cpu, 5, m.arch, {"linux"});
    t.clear_offerings();
    auto* o = t.add_offerings();
    o->set_zone("test-zone-1-spot");
    o->set_capacity_type("spot");
    o->set_price(m.price);
    if (m.numeric != 0) {
      auto* r = t.add_requirements();
      r->set_key("karpenter/numerical-value");
      r->set_operator_("In");
      r->add_values(absl::StrCat(m.numeric));
    }
    *c.add_instance_types() = t;
  }
  return c;
}

// Two pods of 0.9 CPU and 0.9Gi fit together only on a type that alone
// would break minValues: Karpenter puts them on two NodeClaims, each with
// at least two types; where even one pod cannot meet minValues, both wait.
TEST(KarpenterInstanceSelection, MinValuesOperators) {
  const char* kNum = "karpenter/numerical-value";
  struct Case {
    const char* name;
    std::vector<MinType> types;
    std::string pool;
    std::vector<std::string> pod;  // required expressions of both pods
    int max_instance_types;        // 0: the default
    const char* reason;            // nullptr: both pods schedule
  } cases[] = {
      {"should schedule respecting the minValues in Gt operator",
       {{"instance-type-1", 1, 0.52, "arm64", 2},
        {"instance-type-2", 1, 1.0, "arm64", 3},
        {"instance-type-3", 4, 1.2, "arm64", 4}},
       R"pb(requirements { key: "karpenter/numerical-value" operator: "Gt" values: "2" min_values: 2 })pb",
       {},
       0,
       nullptr},
      {"scheduler should fail if the minValues in Gt operator is not "
       "satisfied",
       {{"instance-type-1", 1, 0.52, "arm64", 2},
        {"instance-type-2", 4, 1.0, "arm64", 3}},
       R"pb(requirements { key: "karpenter/numerical-value" operator: "Exists" min_values: 2 })pb",
       {Expr(kNum, "Gt", {"2"})},
       0,
       "minValues requirement is not met for label(s) "
       "(label(s)=[karpenter/numerical-value])"},
      {"should schedule respecting the minValues in Lt operator",
       {{"instance-type-1", 1, 0.52, "arm64", 2},
        {"instance-type-2", 1, 1.0, "arm64", 3},
        {"instance-type-3", 4, 1.2, "arm64", 4}},
       R"pb(requirements { key: "karpenter/numerical-value" operator: "Lt" values: "4" min_values: 2 })pb",
       {},
       0,
       nullptr},
      {"scheduler should fail if the minValues in Lt operator is not "
       "satisfied",
       {{"instance-type-1", 2, 0.52, "arm64", 2},
        {"instance-type-2", 4, 1.2, "arm64", 4}},
       R"pb(requirements { key: "karpenter/numerical-value" operator: "Lt" values: "4" min_values: 2 })pb",
       {},
       0,
       "nodepool requirements filtered out all available instance types"},
      {"should schedule considering the max of the minValues of In and NotIn "
       "operators",
       {{"instance-type-1", 1, 0.52, "arm64", 0},
        {"instance-type-2", 2, 1.0, "arm64", 0},
        {"instance-type-3", 4, 1.2, "arm64", 0}},
       R"pb(requirements { key: "node.kubernetes.io/instance-type" operator: "In"
              values: "instance-type-1" values: "instance-type-2" values: "instance-type-3" min_values: 1 }
            requirements { key: "node.kubernetes.io/instance-type" operator: "NotIn"
              values: "instance-type-3" min_values: 2 })pb",
       {},
       0,
       nullptr},
      {"should schedule considering the max of the minValues of Gt and Lt "
       "operators",
       {{"instance-type-1", 1, 0.52, "arm64", 2},
        {"instance-type-2", 1, 1.0, "arm64", 3},
        {"instance-type-3", 4, 1.2, "arm64", 4},
        {"instance-type-4", 4, 1.2, "arm64", 5}},
       R"pb(requirements { key: "karpenter/numerical-value" operator: "Gt" values: "2" min_values: 1 }
            requirements { key: "karpenter/numerical-value" operator: "Lt" values: "5" min_values: 2 })pb",
       {},
       0,
       nullptr},
      {"schedule should fail if minimum number of InstanceTypes is not met "
       "as per the minValues in the requirement after truncation",
       {{"instance-type-1", 1, 0.52, "arm64", 0},
        {"instance-type-2", 4, 1.0, "arm64", 0}},
       R"pb(requirements { key: "node.kubernetes.io/instance-type" operator: "In"
              values: "instance-type-1" values: "instance-type-2" min_values: 2 })pb",
       {},
       1,
       "pod didn\u2019t schedule because NodePool couldn\u2019t meet minValues "
       "requirements, validating minValues, minValues requirement is not met "
       "for label(s) (label(s)=[node.kubernetes.io/instance-type]) "
       "(NodePool=default)"},
      {"should schedule and pick the max of minValues of InstanceTypes if "
       "multiple operators are used for the same requirement",
       {{"instance-type-1", 1, 0.52, "arm64", 0},
        {"instance-type-2", 4, 1.0, "arm64", 0}},
       R"pb(requirements { key: "node.kubernetes.io/instance-type" operator: "Exists" min_values: 1 }
            requirements { key: "node.kubernetes.io/instance-type" operator: "In"
              values: "instance-type-1" values: "instance-type-2" min_values: 2 })pb",
       {},
       0,
       nullptr},
      {"should schedule and respect multiple requirement keys with minValues",
       {{"instance-type-1", 1, 0.52, "arm64", 0},
        {"instance-type-2", 4, 1.0, "amd64", 0}},
       R"pb(requirements { key: "kubernetes.io/arch" operator: "Exists" min_values: 2 }
            requirements { key: "node.kubernetes.io/instance-type" operator: "In"
              values: "instance-type-1" values: "instance-type-2" min_values: 1 })pb",
       {},
       0,
       nullptr},
  };
  for (const Case& c : cases) {
    auto r = KRequest(c.pool, MinCatalog(c.types));
    if (c.max_instance_types > 0)
      r.mutable_options()->set_max_instance_types(c.max_instance_types);
    for (const char* name : {"a", "b"}) {
      v1::Pod p = Pod(name, "900m", "921Mi");
      if (!c.pod.empty()) p.MergeFrom(Parse<v1::Pod>(Required(c.pod)));
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    if (c.reason != nullptr) {
      EXPECT_EQ(resp.new_node_claims_size(), 0) << c.name;
      EXPECT_EQ(resp.unschedulable_size(), 2) << c.name;
      for (const auto& u : resp.unschedulable())
        EXPECT_THAT(u.reason(), ::testing::HasSubstr(c.reason)) << c.name;
      continue;
    }
    EXPECT_TRUE(resp.unschedulable().empty()) << c.name;
    ASSERT_EQ(resp.new_node_claims_size(), 2) << c.name;
    for (const auto& claim : resp.new_node_claims()) {
      EXPECT_EQ(claim.pods_size(), 1) << c.name;
      EXPECT_GE(claim.instance_types_size(), 2) << c.name;
    }
  }
}

// instance_selection_test.go: "schedule should fail if minimum number of
// InstanceTypes is not met as per the minValues in the requirement" (ten
// types, minValues 11 on the instance type)
TEST(KarpenterInstanceSelection, MinValuesAboveTheCatalogsTypes) {
  v1::Catalog ten = Assorted();
  ten.mutable_instance_types()->DeleteSubrange(10,
                                               ten.instance_types_size() - 10);
  auto r = KRequest(
      R"pb(requirements { key: "node.kubernetes.io/instance-type" operator: "Exists" min_values: 11 })pb",
      ten);
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  ASSERT_EQ(resp.unschedulable_size(), 1);
  // Karpenter drops a NodePool whose own requirements cannot meet
  // minValues before any pod is tried.
  EXPECT_EQ(resp.unschedulable(0).reason(),
            "nodepool requirements filtered out all available instance types");
}

// ---------------------------------------------------------------------------
// MinValuesPolicy (provisioning/suite_test.go, Context "MinValuesPolicy").

// fake.NewInstanceType of 4 cores and 4Gi with spot offerings
// (zone, price).
v1::InstanceType SpotType(const std::string& name,
                          std::vector<std::pair<std::string, double>> offers) {
  v1::InstanceType t = KType(name, 4, 4, 5, "amd64", {"linux"});
  t.clear_offerings();
  for (const auto& [zone, price] : offers) {
    auto* o = t.add_offerings();
    o->set_zone(zone);
    o->set_capacity_type("spot");
    o->set_price(price);
  }
  return t;
}

v1::NodePool WeightedPool(const std::string& name, int weight,
                          const std::string& reqs) {
  v1::NodePool np = NodePool(name);
  np.mutable_spec()->mutable_template_()->mutable_spec()->clear_requirements();
  np.MergeFrom(Parse<v1::NodePool>(
      absl::StrCat("spec { template { spec { ", reqs, " } } }")));
  if (weight > 0) np.mutable_spec()->set_weight(weight);
  return np;
}

constexpr char kThreeTypes[] =
    R"pb(requirements { key: "node.kubernetes.io/instance-type" operator: "In"
           values: "instance-type-1" values: "instance-type-2" values: "instance-type-3" )pb";
constexpr char kThreeZones[] =
    R"pb(requirements { key: "topology.kubernetes.io/zone" operator: "In"
           values: "test-zone-1" values: "test-zone-2" values: "test-zone-3" )pb";

struct Relaxed {
  std::string key;
  std::vector<std::string> values;
  int min_values;
};

// "should not schedule when (zone) minValues requirement is not met"
// (Strict), "should schedule even when (zone) minValues requirement is not
// met", "should relax minValues before falling back to other nodepools",
// "should choose nodepool with higher weight when relaxing minValues" and
// "should schedule when minValues requirement is not met" (instance type and
// zone): BestEffort launches on the NodePool of highest weight with its
// minValues lowered to what the options offer, the instance-type
// requirement narrowed to them, and the NodeClaim annotated as relaxed.
TEST(KarpenterMinValuesPolicy, StrictWaitsBestEffortRelaxes) {
  v1::Catalog two_types;
  *two_types.add_instance_types() =
      SpotType("instance-type-1", {{"test-zone-1-spot", 0.52}});
  *two_types.add_instance_types() =
      SpotType("instance-type-2", {{"test-zone-2-spot", 0.52}});
  v1::Catalog two_zones;
  *two_zones.add_instance_types() = SpotType(
      "instance-type-1", {{"test-zone-1", 0.52}, {"test-zone-2", 0.54}});
  const std::string types_min3 = absl::StrCat(kThreeTypes, "min_values: 3 }");
  const std::string zones_min3 = absl::StrCat(kThreeZones, "min_values: 3 }");
  struct Case {
    const char* name;
    v1::Catalog catalog;
    std::vector<v1::NodePool> pools;
    const char* policy;
    std::vector<Relaxed> relaxed;  // empty: the pod waits
  } cases[] = {
      {"types, Strict",
       two_types,
       {WeightedPool("default", 100, types_min3)},
       "Strict",
       {}},
      {"types, BestEffort",
       two_types,
       {WeightedPool("default", 100, types_min3)},
       "BestEffort",
       {{"node.kubernetes.io/instance-type",
         {"instance-type-1", "instance-type-2"},
         2}}},
      {"types, BestEffort before a pool without minValues",
       two_types,
       {WeightedPool("default", 100, types_min3),
        WeightedPool("fallback", 10, absl::StrCat(kThreeTypes, "}"))},
       "BestEffort",
       {{"node.kubernetes.io/instance-type",
         {"instance-type-1", "instance-type-2"},
         2}}},
      {"types, BestEffort on the heavier pool",
       two_types,
       {WeightedPool("lighter", 10, types_min3),
        WeightedPool("default", 100, types_min3)},
       "BestEffort",
       {{"node.kubernetes.io/instance-type",
         {"instance-type-1", "instance-type-2"},
         2}}},
      {"zones, Strict",
       two_zones,
       {WeightedPool("default", 0, zones_min3)},
       "Strict",
       {}},
      {"zones, BestEffort",
       two_zones,
       {WeightedPool("default", 0, zones_min3)},
       "BestEffort",
       {{"topology.kubernetes.io/zone",
         {"test-zone-1", "test-zone-2", "test-zone-3"},
         2}}},
      {"types and zones, BestEffort",
       two_zones,
       {WeightedPool("default", 100, absl::StrCat(types_min3, zones_min3))},
       "BestEffort",
       {{"node.kubernetes.io/instance-type", {"instance-type-1"}, 1},
        {"topology.kubernetes.io/zone",
         {"test-zone-1", "test-zone-2", "test-zone-3"},
         2}}},
  };
  for (const Case& c : cases) {
    v1::ScheduleRequest r;
    *r.mutable_catalog() = c.catalog;
    for (const auto& np : c.pools) *r.add_node_pools() = np;
    r.mutable_options()->set_min_values_policy(c.policy);
    *r.add_pods() = Pod("p", "900m", "921Mi");
    auto resp = MustSchedule(r);
    if (c.relaxed.empty()) {
      EXPECT_EQ(resp.new_node_claims_size(), 0) << c.name;
      EXPECT_EQ(resp.unschedulable_size(), 1) << c.name;
      continue;
    }
    ASSERT_EQ(resp.new_node_claims_size(), 1) << c.name;
    const auto& claim = resp.new_node_claims(0);
    EXPECT_EQ(claim.node_pool(), "default") << c.name;
    EXPECT_EQ(claim.launch().instance_type(), "instance-type-1") << c.name;
    EXPECT_THAT(
        claim.launch().zone(),
        ::testing::AnyOf("test-zone-1", "test-zone-2", "test-zone-1-spot"))
        << c.name;
    const auto& ann = claim.node_claim().metadata().annotations();
    auto it = ann.find("karpenter.sh/nodeclaim-min-values-relaxed");
    ASSERT_NE(it, ann.end()) << c.name;
    EXPECT_EQ(it->second, "true") << c.name;
    for (const Relaxed& want : c.relaxed) {
      const auto* got = FindReq(claim.node_claim(), want.key);
      ASSERT_NE(got, nullptr) << c.name << " " << want.key;
      EXPECT_EQ(got->operator_(), "In") << c.name << " " << want.key;
      EXPECT_THAT(got->values(), ::testing::ElementsAreArray(want.values))
          << c.name << " " << want.key;
      EXPECT_EQ(got->min_values(), want.min_values)
          << c.name << " " << want.key;
    }
  }
}

// ---------------------------------------------------------------------------
// NodePool requirements instance filtering (suite_test.go).

// "should return appropriate pod error when no available instance types
// exist" (a node from an earlier round is too small for the pod), "should
// handle multiple pods when requirements filter out all instance types",
// "should handle conflicting requirements that eliminate all instance
// types" and "should handle zone requirements that filter out all instance
// types": every pod fails with Karpenter's words.
TEST(KarpenterInstanceSelection, NodePoolRequirementsFilterOutEveryType) {
  struct Case {
    const char* name;
    std::string reqs;
    int pods;
    bool earlier_node;
  } cases[] = {
      {"unknown instance type",
       Req("node.kubernetes.io/instance-type", "In",
           {"non-existent-instance-type"}),
       1, true},
      {"unknown architecture",
       Req("kubernetes.io/arch", "In", {"non-existent-arch"}), 3, false},
      {"conflicting architectures",
       absl::StrCat(Req("kubernetes.io/arch", "In", {"amd64"}),
                    Req("kubernetes.io/arch", "In", {"arm64"})),
       1, false},
      {"unknown zones",
       Req("topology.kubernetes.io/zone", "In",
           {"non-existent-zone-1", "non-existent-zone-2"}),
       1, false},
  };
  for (const Case& c : cases) {
    auto r = KRequest(c.reqs);
    if (c.earlier_node) {
      v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                         "2038Mi", "5", true);
      *r.add_node_claims() = LinkedClaim(n);
      *r.add_nodes() = n;
      *r.add_pods() = BoundTo(Bare("normal"), "n1");
    }
    for (int i = 0; i < c.pods; ++i) {
      *r.add_pods() = c.earlier_node ? Pod(absl::StrCat("p", i), "32", "256Gi")
                                     : Bare(absl::StrCat("p", i));
    }
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), 0) << c.name;
    ASSERT_EQ(resp.unschedulable_size(), c.pods) << c.name;
    for (const auto& u : resp.unschedulable())
      EXPECT_THAT(u.reason(),
                  ::testing::HasSubstr("nodepool requirements filtered out "
                                       "all available instance types"))
          << c.name;
  }
}

}  // namespace
}  // namespace nodeplan::testing
