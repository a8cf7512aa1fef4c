// Scenarios translated from Karpenter's topology test suite
// (sigs.k8s.io/karpenter v1.14.1,
// pkg/controllers/provisioning/scheduling/topology_test.go), beyond the
// ones karpenter_suite_test.cc already restates. Each test names the
// Karpenter case it comes from.
//
// Karpenter checks these with ExpectSkew: the pods of namespace "default"
// that match the constraint's selector, counted per value of the topology
// key on the node each is bound to. Skew() below counts the same over the
// request's bound pods and the response's placements. A case that
// provisions in several rounds is one request whose earlier rounds are
// existing nodes holding their pods.
//
// Not restated: pending pods without kube-scheduler's Unschedulable
// condition. Karpenter ignores them ("ignored, pending" in its lists);
// nodeplan plans every unbound pod it is given, because what-if pods carry
// no status.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"

namespace nodeplan::testing {
namespace {

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kCapacityType[] = "karpenter.sh/capacity-type";
constexpr char kArch[] = "kubernetes.io/arch";

const v1::Pod* FindPod(const v1::ScheduleRequest& r, const std::string& key) {
  for (const v1::Pod& p : r.pods()) {
    if (p.metadata().name() == key ||
        absl::StrCat(p.metadata().namespace_(), "/", p.metadata().name()) ==
            key)
      return &p;
  }
  return nullptr;
}

bool Matches(const v1::Pod& p,
             const std::map<std::string, std::string>& selector) {
  if (p.metadata().namespace_() != "default") return false;
  for (const auto& [k, v] : selector) {
    auto it = p.metadata().labels().find(k);
    if (it == p.metadata().labels().end() || it->second != v) return false;
  }
  return true;
}

// The value of `key` on the node a new NodeClaim becomes: its own name for
// the hostname, else its label or single-valued requirement, else what its
// launch picked (zone, capacity type, or the instance type's label).
std::string ClaimDomain(const v1::ScheduleRequest& r, const v1::NewNodeClaim& c,
                        const std::string& key) {
  if (key == kHostname) return c.name();
  const auto& labels = c.node_claim().metadata().labels();
  if (auto it = labels.find(key); it != labels.end()) return it->second;
  const auto* req = FindReq(c.node_claim(), key);
  if (req != nullptr && req->operator_() == "In" && req->values_size() == 1)
    return req->values(0);
  if (key == kZone) return c.launch().zone();
  if (key == kCapacityType) return c.launch().capacity_type();
  for (const auto& t : r.catalog().instance_types()) {
    if (t.name() != c.launch().instance_type()) continue;
    auto it = t.labels().find(key);
    if (it != t.labels().end()) return it->second;
  }
  return "";
}

// ExpectSkew: pods of namespace "default" matching `selector` per domain of
// `key`, over bound pods (not terminal, not terminating) and the response's
// placements; sorted, as Gomega's ConsistOf compares without order.
std::vector<int> Skew(const v1::ScheduleRequest& r,
                      const v1::ScheduleResponse& resp, const std::string& key,
                      const std::map<std::string, std::string>& selector = {
                          {"test", "test"}}) {
  std::map<std::string, int> count;
  auto node_domain = [&](const std::string& node) -> std::string {
    if (key == kHostname) return node;
    for (const auto& n : r.nodes()) {
      if (n.metadata().name() != node) continue;
      auto it = n.metadata().labels().find(key);
      return it == n.metadata().labels().end() ? "" : it->second;
    }
    return "";
  };
  for (const v1::Pod& p : r.pods()) {
    if (p.spec().node_name().empty() || !Matches(p, selector)) continue;
    if (p.status().phase() == "Succeeded" || p.status().phase() == "Failed")
      continue;
    if (!p.metadata().deletion_timestamp().empty()) continue;
    std::string d = node_domain(p.spec().node_name());
    if (!d.empty()) ++count[d];
  }
  for (const auto& e : resp.existing_nodes()) {
    std::string d = node_domain(e.name());
    for (const auto& name : e.pods()) {
      const v1::Pod* p = FindPod(r, name);
      if (p != nullptr && Matches(*p, selector) && !d.empty()) ++count[d];
    }
  }
  for (const auto& c : resp.new_node_claims()) {
    std::string d = ClaimDomain(r, c, key);
    for (const auto& name : c.pods()) {
      const v1::Pod* p = FindPod(r, name);
      if (p != nullptr && Matches(*p, selector) && !d.empty()) ++count[d];
    }
  }
  std::vector<int> out;
  for (const auto& [d, n] : count) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

int Placed(const v1::ScheduleResponse& resp) {
  int n = 0;
  for (const auto& c : resp.new_node_claims()) n += c.pods_size();
  for (const auto& e : resp.existing_nodes()) n += e.pods_size();
  return n;
}

// `n` pods "<prefix>-<i>" labelled test=test with a spread constraint.
void AddSpreadPods(v1::ScheduleRequest& r, int n, const std::string& tsc,
                   const std::string& cpu = "",
                   const std::string& prefix = "p") {
  for (int i = 0; i < n; ++i) {
    std::string name = absl::StrCat(prefix, "-", i);
    *r.add_pods() = cpu.empty() ? Bare(name, tsc) : Pod(name, cpu, "0", tsc);
  }
}

// A node a previous round launched: NodePool "default", initialized, with
// its NodeClaim, and `labels` added (key, value).
void AddLaunchedNode(v1::ScheduleRequest& r, const std::string& name,
                     const std::string& type, const std::string& zone,
                     const std::string& cpu,
                     const std::map<std::string, std::string>& labels = {},
                     const std::string& pods = "5") {
  v1::Node n = KNode(name, type, zone, cpu, "4086Mi", pods, true);
  for (const auto& [k, v] : labels)
    (*n.mutable_metadata()->mutable_labels())[k] = v;
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
}

// A node outside Karpenter with no allocatable capacity (test.Node()): it
// only defines domains and holds the pods bound to it.
v1::Node EmptyNode(const std::string& name,
                   const std::map<std::string, std::string>& labels) {
  v1::Node n;
  n.mutable_metadata()->set_name(name);
  auto& l = *n.mutable_metadata()->mutable_labels();
  l[kHostname] = name;
  for (const auto& [k, v] : labels) l[k] = v;
  return n;
}

v1::Pod Labelled(const std::string& name) {
  return Bare(name, R"pb(metadata { labels { key: "test" value: "test" } })pb");
}

// ---------------------------------------------------------------------------
// Spread basics.

// topology_test.go: "should ignore unknown topology keys"
TEST(KarpenterTopology, UnknownTopologyKeyLeavesOnlyItsPodPending) {
  auto r = KRequest(kCapacityTypeExists);
  *r.add_pods() = Bare("a", Tsc("unknown", 1));
  *r.add_pods() = Bare("b");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.unschedulable_size(), 1);
  EXPECT_EQ(resp.unschedulable(0).pod(), "default/a");
  EXPECT_EQ(Placed(resp), 1);
}

// topology_test.go: "should not spread when a nil label selector is defined"
TEST(KarpenterTopology, NilLabelSelectorDoesNotSpread) {
  auto r = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 2; ++i) {
    v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kZone, 1));
    p.mutable_spec()
        ->mutable_topology_spread_constraints(0)
        ->clear_label_selector();
    *r.add_pods() = p;
  }
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{2}));
}

// topology_test.go: "should balance pods across zones (match labels)",
// "...(match expressions)" and "should respect NodePool zonal constraints"
TEST(KarpenterTopology, FourPodsOverThreeZones) {
  const std::string expressions = absl::StrCat(
      R"pb(metadata { labels { key: "test" value: "test" } }
      spec { topology_spread_constraints { max_skew: 1 topology_key: ")pb",
      kZone, R"pb(" when_unsatisfiable: "DoNotSchedule"
        label_selector { match_expressions { key: "test" operator: "In" values: "test" } } } })pb");
  struct Case {
    std::string pool, pod;
  } cases[] = {
      {kCapacityTypeExists, Tsc(kZone, 1)},
      {kCapacityTypeExists, expressions},
      {Req(kZone, "In", {"test-zone-1", "test-zone-2", "test-zone-3"}),
       Tsc(kZone, 1)},
  };
  for (const Case& c : cases) {
    auto r = KRequest(c.pool);
    AddSpreadPods(r, 4, c.pod);
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << c.pool << c.pod;
    EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{1, 1, 2}))
        << c.pool << c.pod;
  }
}

// topology_test.go: "should respect NodePool zonal constraints (subset) with
// labels" and "...with requirements and labels"
TEST(KarpenterTopology, TemplateZoneLabelIsTheOnlyDomain) {
  for (bool with_requirement : {false, true}) {
    auto r = KRequest(
        with_requirement
            ? absl::StrCat(kCapacityTypeExists,
                           Req(kZone, "In", {"test-zone-1", "test-zone-2"}))
            : std::string(kCapacityTypeExists));
    MergePool(
        r,
        R"pb(spec { template { metadata { labels { key: "topology.kubernetes.io/zone" value: "test-zone-1" } } } })pb");
    AddSpreadPods(r, 4, Tsc(kZone, 1));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << with_requirement;
    EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{4})) << with_requirement;
  }
}

// topology_test.go: "should respect NodePool zonal constraints (subset) with
// labels across NodePools"
TEST(KarpenterTopology, ZoneLabelsOfTwoNodePoolsAreTheDomains) {
  auto r = KRequest(absl::StrCat(
      kCapacityTypeExists, Req(kZone, "In", {"test-zone-1", "test-zone-2"})));
  MergePool(
      r,
      R"pb(spec { template { metadata { labels { key: "topology.kubernetes.io/zone" value: "test-zone-1" } } } })pb");
  v1::NodePool second = NodePool("second");
  (*second.mutable_spec()
        ->mutable_template_()
        ->mutable_metadata()
        ->mutable_labels())[kZone] = "test-zone-2";
  *r.add_node_pools() = second;
  AddSpreadPods(r, 4, Tsc(kZone, 1));
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{2, 2}));
}

// topology_test.go: "should only schedule to minimum domains if already
// violating max skew" (a first round spread nine pods 3/3/3, then the pods
// outside zone-1 were deleted, leaving their nodes empty)
TEST(KarpenterTopology, AlreadySkewedSpreadFillsTheMinimumDomainsFirst) {
  auto r = KRequest(kCapacityTypeExists);
  int zone = 0;
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    std::string node = absl::StrCat("n", ++zone);
    AddLaunchedNode(r, node, "default-instance-type", z, "3900m");
    if (zone == 1) {
      for (int i = 0; i < 3; ++i)
        *r.add_pods() = BoundTo(
            Pod(absl::StrCat("old-", i), "1100m", "0", Tsc(kZone, 1)), node);
    }
  }
  AddSpreadPods(r, 3, Tsc(kZone, 1), "1100m");
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{1, 2, 3}));
}

// topology_test.go: "should only count running/scheduled pods with matching
// labels scheduled to nodes with a corresponding domain" (Zonal and
// CapacityType)
TEST(KarpenterTopology, OnlyRunningMatchingPodsOnDomainNodesCount) {
  struct Case {
    std::string key, first, second;
    std::vector<int> skew;
  } cases[] = {
      {kZone, "test-zone-1", "test-zone-2", {1, 2, 2}},
      {kCapacityType, "spot", "on-demand", {2, 3}},
  };
  for (const Case& c : cases) {
    auto r = KRequest(kCapacityTypeExists);
    *r.add_nodes() = EmptyNode("first", {{c.key, c.first}});
    *r.add_nodes() = EmptyNode("second", {{c.key, c.second}});
    *r.add_nodes() = EmptyNode("third", {});
    *r.add_pods() = BoundTo(Bare("unlabelled"), "first");
    *r.add_pods() = BoundTo(Labelled("no-domain"), "third");
    v1::Pod other_ns = BoundTo(Labelled("other-namespace"), "first");
    other_ns.mutable_metadata()->set_namespace_("elsewhere");
    *r.add_pods() = other_ns;
    v1::Pod terminating = Labelled("terminating");
    terminating.mutable_metadata()->set_deletion_timestamp(
        "2026-01-01T00:00:10Z");
    *r.add_pods() = terminating;
    v1::Pod failed = BoundTo(Labelled("failed"), "first");
    failed.mutable_status()->set_phase("Failed");
    *r.add_pods() = failed;
    v1::Pod succeeded = BoundTo(Labelled("succeeded"), "first");
    succeeded.mutable_status()->set_phase("Succeeded");
    *r.add_pods() = succeeded;
    *r.add_pods() = BoundTo(Labelled("running-1"), "first");
    *r.add_pods() = BoundTo(Labelled("running-2"), "first");
    *r.add_pods() = BoundTo(Labelled("running-3"), "second");
    AddSpreadPods(r, 2, Tsc(c.key, 1));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << c.key;
    EXPECT_EQ(Skew(r, resp, c.key), c.skew) << c.key;
  }
}

// topology_test.go: "should match all pods when labelSelector is not
// specified" (Zonal and CapacityType)
TEST(KarpenterTopology, PodWithoutSelectorSchedules) {
  auto r = KRequest(kCapacityTypeExists);
  *r.add_pods() = Bare("p");
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, kZone, {}), (std::vector<int>{1}));
}

// topology_test.go: "should handle interdependent selectors" (Zonal and
// CapacityType): the spread selects pods that do not exist, so nothing
// counts and all five share one node.
TEST(KarpenterTopology, SpreadOverPodsItDoesNotSelectPacksThemTogether) {
  auto r = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 5; ++i) {
    v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kHostname, 1));
    p.mutable_metadata()->clear_labels();
    *r.add_pods() = p;
  }
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(PodsPerClaim(resp), (std::vector<int>{5}));
}

// topology_test.go: "should respect minDomains constraints" (three domains
// required, the NodePool offers two: one pod per zone, the third pending)
// and "satisfied minDomains constraints (greater than minimum) should allow
// expected pod scheduling"
TEST(KarpenterTopology, MinDomains) {
  auto few = KRequest(absl::StrCat(
      kCapacityTypeExists, Req(kZone, "In", {"test-zone-1", "test-zone-2"})));
  AddSpreadPods(few, 3, Tsc(kZone, 1, "min_domains: 3"));
  auto resp = MustSchedule(few);
  EXPECT_EQ(Skew(few, resp, kZone), (std::vector<int>{1, 1}));
  EXPECT_EQ(resp.unschedulable_size(), 1);

  auto enough = KRequest(absl::StrCat(
      kCapacityTypeExists,
      Req(kZone, "In", {"test-zone-1", "test-zone-2", "test-zone-3"})));
  AddSpreadPods(enough, 11, Tsc(kZone, 1, "min_domains: 2"));
  resp = MustSchedule(enough);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(enough, resp, kZone), (std::vector<int>{3, 4, 4}));
}

// ---------------------------------------------------------------------------
// Hostname.

// topology_test.go: "should balance pods across nodes" and "should balance
// pods on the same hostname up to maxskew"
TEST(KarpenterTopology, HostnameSpread) {
  for (auto [skew, expected] :
       {std::pair<int, std::vector<int>>{1, {1, 1, 1, 1}}, {4, {4}}}) {
    auto r = KRequest(kCapacityTypeExists);
    AddSpreadPods(r, 4, Tsc(kHostname, skew));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << skew;
    EXPECT_EQ(Skew(r, resp, kHostname), expected) << skew;
  }
}

// topology_test.go: "balance multiple deployments with hostname topology
// spread" and "...& varying arch" (Karpenter issue 1425: two apps of two
// pods share two nodes; apart by architecture they need four)
TEST(KarpenterTopology, TwoDeploymentsSpreadOverHostnamesShareNodes) {
  for (bool varying_arch : {false, true}) {
    auto r = KRequest(kCapacityTypeExists);
    for (const char* app : {"app1", "app2"}) {
      for (int i = 0; i < 2; ++i) {
        std::string extra = absl::StrCat(
            R"pb(metadata { labels { key: "app" value: ")pb", app,
            R"pb(" } } spec { topology_spread_constraints { max_skew: 1
              topology_key: "kubernetes.io/hostname" when_unsatisfiable: "DoNotSchedule"
              label_selector { match_labels { key: "app" value: ")pb",
            app, R"pb(" } } } })pb");
        v1::Pod p = Bare(absl::StrCat(app, "-", i), extra);
        if (varying_arch) {
          p.MergeFrom(Parse<v1::Pod>(Required(
              {Expr(kArch, "In",
                    {std::string(app) == "app1" ? "amd64" : "arm64"})})));
        }
        *r.add_pods() = p;
      }
    }
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << varying_arch;
    EXPECT_EQ(resp.new_node_claims_size(), varying_arch ? 4 : 2)
        << varying_arch;
  }
}

// ---------------------------------------------------------------------------
// Capacity type and architecture.

// topology_test.go: "should balance pods across capacity types" and "should
// respect NodePool capacity type constraints"
TEST(KarpenterTopology, FourPodsOverTwoCapacityTypes) {
  for (const std::string& pool :
       {std::string(kCapacityTypeExists),
        Req(kCapacityType, "In", {"spot", "on-demand"})}) {
    auto r = KRequest(pool);
    AddSpreadPods(r, 4, Tsc(kCapacityType, 1));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << pool;
    EXPECT_EQ(Skew(r, resp, kCapacityType), (std::vector<int>{2, 2})) << pool;
  }
}

// topology_test.go: "should not violate max-skew when unsat = do not
// schedule (capacity type)" and "should violate max-skew when unsat =
// schedule anyway (capacity type)" (a first round put one pod on a spot
// node; the NodePool now launches on-demand only)
TEST(KarpenterTopology, CapacityTypeSkewAgainstAnEarlierSpotPod) {
  for (auto [when, expected] :
       {std::pair<const char*, std::vector<int>>{"DoNotSchedule", {1, 2}},
        {"ScheduleAnyway", {1, 5}}}) {
    auto r = KRequest(Req(kCapacityType, "In", {"on-demand"}));
    AddLaunchedNode(r, "spot-node", "small-instance-type", "test-zone-1",
                    "1900m", {{kCapacityType, "spot"}});
    *r.add_pods() = BoundTo(
        Pod("old", "1100m", "0", Tsc(kCapacityType, 1, "", when)), "spot-node");
    AddSpreadPods(r, 5, Tsc(kCapacityType, 1, "", when), "1100m");
    auto resp = MustSchedule(r);
    EXPECT_EQ(Skew(r, resp, kCapacityType), expected) << when;
    EXPECT_EQ(resp.unschedulable_size(), 5 - expected[1]) << when;
  }
}

// topology_test.go: "should balance pods across capacity-types (node
// required affinity constrained)": the pods' own affinity to spot in
// zone-2 leaves the earlier on-demand node out of their domains.
TEST(KarpenterTopology, PodAffinityExcludesTheOtherCapacityTypesNodes) {
  auto r = KRequest(kCapacityTypeExists);
  AddLaunchedNode(r, "od-node", "small-instance-type", "test-zone-1", "1900m",
                  {{kCapacityType, "on-demand"}});
  *r.add_pods() = BoundTo(Labelled("old"), "od-node");
  for (int i = 0; i < 5; ++i) {
    v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kCapacityType, 1));
    p.MergeFrom(
        Parse<v1::Pod>(Required({Expr(kZone, "In", {"test-zone-2"}),
                                 Expr(kCapacityType, "In", {"spot"})})));
    *r.add_pods() = p;
  }
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, kCapacityType), (std::vector<int>{1, 5}));
}

// topology_test.go: "should balance pods across capacity-types (no
// constraints)" and "should balance pods across arch (no constraints)": an
// earlier pod on an on-demand (amd64) single-pod node counts, and the
// NodePool now launches only spot (arm64), so two more fit the skew.
TEST(KarpenterTopology, UnconstrainedPodsSeeTheEarlierDomain) {
  struct Case {
    std::string key, old_value, pool_value;
  } cases[] = {
      {kCapacityType, "on-demand", "spot"},
      {kArch, "amd64", "arm64"},
  };
  for (const Case& c : cases) {
    auto r = KRequest(Req(c.key, "In", {c.pool_value}));
    AddLaunchedNode(r, "old-node", "single-pod-instance-type", "test-zone-1",
                    "3900m", {{c.key, c.old_value}}, "1");
    *r.add_pods() = BoundTo(Labelled("old"), "old-node");
    AddSpreadPods(r, 5, Tsc(c.key, 1), "2");
    auto resp = MustSchedule(r);
    EXPECT_EQ(Skew(r, resp, c.key), (std::vector<int>{1, 2})) << c.key;
    EXPECT_EQ(resp.unschedulable_size(), 3) << c.key;
  }
}

// ---------------------------------------------------------------------------
// Combined constraints.

// topology_test.go: "should spread pods while respecting both constraints
// (hostname and zonal)" and the capacity-type variant, first round: two
// pods, one per zone (capacity type) and no host above three.
TEST(KarpenterTopology, TwoConstraintsFirstRound) {
  for (const char* key : {kZone, kCapacityType}) {
    auto r = KRequest(kCapacityTypeExists);
    v1::Pod tmpl = Bare("tmpl", Tsc(key, 1));
    tmpl.MergeFrom(Parse<v1::Pod>(Tsc(kHostname, 3)));
    for (int i = 0; i < 2; ++i) {
      v1::Pod p = tmpl;
      p.mutable_metadata()->set_name(absl::StrCat("p", i));
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << key;
    EXPECT_EQ(Skew(r, resp, key), (std::vector<int>{1, 1})) << key;
    for (int n : Skew(r, resp, kHostname)) EXPECT_LE(n, 3) << key;
  }
}

// topology_test.go: "should balance pods across NodePool requirements": a
// spot NodePool offers values 2-5 of a custom key, an on-demand one value 1;
// 20 pods spread over the five values, so 4:1 spot to on-demand.
TEST(KarpenterTopology, SpreadOverACustomKeyOfTwoNodePools) {
  v1::ScheduleRequest r = KRequest(
      absl::StrCat(Req(kCapacityType, "In", {"spot"}),
                   Req("capacity.spread.4-1", "In", {"2", "3", "4", "5"})));
  v1::NodePool od = NodePool("on-demand");
  od.mutable_spec()->mutable_template_()->mutable_spec()->clear_requirements();
  od.MergeFrom(Parse<v1::NodePool>(absl::StrCat(
      "spec { template { spec { ", Req(kCapacityType, "In", {"on-demand"}),
      Req("capacity.spread.4-1", "In", {"1"}), " } } }")));
  *r.add_node_pools() = od;
  AddSpreadPods(r, 20, Tsc("capacity.spread.4-1", 1));
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, "capacity.spread.4-1"),
            (std::vector<int>{4, 4, 4, 4, 4}));
  EXPECT_EQ(Skew(r, resp, kCapacityType), (std::vector<int>{4, 16}));
}

// topology_test.go: "should spread pods while respecting both constraints"
// (zonal DoNotSchedule, hostname ScheduleAnyway; a second NodePool for
// test-zone-3 has a CPU limit of 0, so zone-3 is a domain nothing can
// launch in: one pod per other zone, the rest pending)
TEST(KarpenterTopology, DisabledNodePoolsZoneHoldsTheSkew) {
  auto r = KRequest(absl::StrCat(
      kCapacityTypeExists, Req(kZone, "In", {"test-zone-1", "test-zone-2"})));
  v1::NodePool disabled = NodePool("disabled");
  disabled.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->clear_requirements();
  disabled.MergeFrom(Parse<v1::NodePool>(absl::StrCat(
      "spec { template { spec { ", Req(kZone, "In", {"test-zone-3"}),
      R"pb( } } limits { key: "cpu" value: "0" } })pb")));
  *r.add_node_pools() = disabled;
  v1::Pod tmpl = Bare("tmpl", Tsc(kZone, 1));
  tmpl.MergeFrom(Parse<v1::Pod>(Tsc(kHostname, 1, "", "ScheduleAnyway")));
  for (int i = 0; i < 10; ++i) {
    v1::Pod p = tmpl;
    p.mutable_metadata()->set_name(absl::StrCat("p", i));
    *r.add_pods() = p;
  }
  auto resp = MustSchedule(r);
  EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{1, 1}));
  EXPECT_EQ(Skew(r, resp, kHostname), (std::vector<int>{1, 1}));
  EXPECT_EQ(resp.unschedulable_size(), 8);
}

// ---------------------------------------------------------------------------
// Taint and affinity policies.

// A NodePool whose only requirements are capacity-type Exists and `key` In
// `values`, tainted taint-key=`taint` (no taint when empty).
v1::NodePool PolicyPool(const std::string& name, const std::string& key,
                        std::vector<std::string> values,
                        const std::string& taint) {
  v1::NodePool np = NodePool(name);
  np.mutable_spec()->mutable_template_()->mutable_spec()->clear_requirements();
  std::string text = absl::StrCat("spec { template { spec { ",
                                  kCapacityTypeExists, Req(key, "In", values));
  if (!taint.empty())
    absl::StrAppend(&text, R"pb( taints { key: "taint-key" value: ")pb", taint,
                    R"pb(" effect: "NoSchedule" })pb");
  np.MergeFrom(Parse<v1::NodePool>(absl::StrCat(text, " } } }")));
  return np;
}

// topology_test.go: "should balance pods across a label when discovered from
// the nodepool (NodeTaintsPolicy=ignore)" and "...(NodeTaintsPolicy=honor)":
// domain foo comes from an untainted NodePool, bar from a tainted one the
// pods do not tolerate.
TEST(KarpenterTopology, TaintPolicyOnDomainsDiscoveredFromNodePools) {
  for (auto [policy, expected] :
       {std::pair<const char*, std::vector<int>>{"Ignore", {1}},
        {"Honor", {2}}}) {
    v1::ScheduleRequest r = KRequest(kCapacityTypeExists);
    r.clear_node_pools();
    *r.add_node_pools() = PolicyPool("default", "fake-label", {"foo"}, "");
    *r.add_node_pools() =
        PolicyPool("tainted", "fake-label", {"bar"}, "taint-value");
    AddSpreadPods(
        r, 2,
        Tsc("fake-label", 1,
            absl::StrCat(R"pb(node_taints_policy: ")pb", policy, "\"")));
    auto resp = MustSchedule(r);
    EXPECT_EQ(Skew(r, resp, "fake-label"), expected) << policy;
    EXPECT_EQ(resp.unschedulable_size(), 2 - expected[0]) << policy;
  }
}

// topology_test.go: "should balance pods across a label when mutually
// exclusive NodePools (by taints) share domains (NodeTaintsPolicy=honor)":
// two pods tolerate the NodePool of domains foo and bar, four the one of foo
// and baz; every pod selects every other, only the nodes are filtered.
TEST(KarpenterTopology, TaintedNodePoolsSharingADomain) {
  v1::ScheduleRequest r = KRequest(kCapacityTypeExists);
  r.clear_node_pools();
  *r.add_node_pools() =
      PolicyPool("pool-0", "fake-label", {"foo", "bar"}, "nodepool-0");
  *r.add_node_pools() =
      PolicyPool("pool-1", "fake-label", {"foo", "baz"}, "nodepool-1");
  for (int pool = 0; pool < 2; ++pool) {
    for (int i = 0; i < (pool + 1) * 2; ++i) {
      v1::Pod p =
          Bare(absl::StrCat("d", pool, "-", i),
               Tsc("fake-label", 1, R"pb(node_taints_policy: "Honor")pb"));
      auto* t = p.mutable_spec()->add_tolerations();
      t->set_key("taint-key");
      t->set_effect("NoSchedule");
      t->set_value(absl::StrCat("nodepool-", pool));
      *r.add_pods() = p;
    }
  }
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(r, resp, "fake-label"), (std::vector<int>{1, 2, 3}));
}

// ---------------------------------------------------------------------------
// Several constraints at once.

std::vector<v1::Pod> WithConstraints(int n,
                                     const std::vector<std::string>& tscs,
                                     const std::string& prefix = "p") {
  v1::Pod tmpl = Bare("tmpl", tscs[0]);
  for (size_t i = 1; i < tscs.size(); ++i)
    tmpl.MergeFrom(Parse<v1::Pod>(tscs[i]));
  std::vector<v1::Pod> out;
  for (int i = 0; i < n; ++i) {
    v1::Pod p = tmpl;
    p.mutable_metadata()->set_name(absl::StrCat(prefix, "-", i));
    p.mutable_metadata()->set_uid(absl::StrCat(prefix, "-", i));
    out.push_back(p);
  }
  return out;
}

int MaxSkew(const std::vector<int>& counts) {
  return counts.empty() ? 0 : counts.back() - counts.front();
}

// topology_test.go: "should spread pods while respecting both constraints"
// (capacity type and zone, first round) and "should spread pods while
// respecting all constraints" (capacity type skew 1, zone 2, hostname 3 on
// the assorted types; every round of 1 to 14 pods schedules within them).
TEST(KarpenterTopology, AllConstraintsHoldOnEveryRoundSize) {
  auto r = KRequest(kCapacityTypeExists);
  for (const v1::Pod& p :
       WithConstraints(2, {Tsc(kCapacityType, 1), Tsc(kZone, 1)}))
    *r.add_pods() = p;
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  for (int n : Skew(r, resp, kCapacityType)) EXPECT_LE(n, 1);
  for (int n : Skew(r, resp, kZone)) EXPECT_LE(n, 1);

  for (int count = 1; count < 15; ++count) {
    auto all = KRequest(kCapacityTypeExists, Assorted());
    for (const v1::Pod& p : WithConstraints(
             count, {Tsc(kCapacityType, 1), Tsc(kZone, 2), Tsc(kHostname, 3)}))
      *all.add_pods() = p;
    auto got = MustSchedule(all);
    EXPECT_TRUE(got.unschedulable().empty()) << count;
    EXPECT_LE(MaxSkew(Skew(all, got, kCapacityType)), 1) << count;
    EXPECT_LE(MaxSkew(Skew(all, got, kZone)), 2) << count;
    EXPECT_LE(MaxSkew(Skew(all, got, kHostname)), 3) << count;
  }
}

// ---------------------------------------------------------------------------
// Spread and node affinity.

// topology_test.go (Combined Zonal Topology and Node Affinity): "should limit
// spread options by nodeSelector", "...by node requirements" and "should
// not limit spread options by preferred node affinity"
TEST(KarpenterTopology, NodeSelectionLimitsTheSpreadsDomains) {
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 15; ++i) {
      v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kZone, 1));
      (*p.mutable_spec()->mutable_node_selector())[kZone] =
          i < 5 ? "test-zone-1" : "test-zone-2";
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{5, 10}));
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 10; ++i) {
      v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kZone, 1));
      p.MergeFrom(Parse<v1::Pod>(
          Required({Expr(kZone, "In", {"test-zone-1", "test-zone-2"})})));
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{5, 5}));
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 6; ++i) {
      v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kZone, 1));
      p.MergeFrom(Parse<v1::Pod>(Preferred(
          {{1, {Expr(kZone, "In", {"test-zone-1", "test-zone-2"})}}})));
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(r, resp, kZone), (std::vector<int>{2, 2, 2}));
  }
}

// topology_test.go: "should limit spread options by required node affinity",
// its three rounds: six pods over zones 1-2; one pod that may use zones 2-3
// takes the empty zone-3 (it improves the skew); five unconstrained pods
// even all three out.
TEST(KarpenterTopology, RequiredAffinityRounds) {
  auto first = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 6; ++i) {
    v1::Pod p = Bare(absl::StrCat("p", i), Tsc(kZone, 1));
    p.MergeFrom(Parse<v1::Pod>(
        Required({Expr(kZone, "In", {"test-zone-1", "test-zone-2"})})));
    *first.add_pods() = p;
  }
  auto resp = MustSchedule(first);
  EXPECT_EQ(Skew(first, resp, kZone), (std::vector<int>{3, 3}));

  auto second =
      KRequest(Req(kZone, "In", {"test-zone-1", "test-zone-2", "test-zone-3"}));
  for (int z = 1; z <= 2; ++z) {
    std::string node = absl::StrCat("n", z);
    AddLaunchedNode(second, node, "small-instance-type",
                    absl::StrCat("test-zone-", z), "1900m");
    for (int i = 0; i < 3; ++i)
      *second.add_pods() =
          BoundTo(Bare(absl::StrCat("old-", z, "-", i), Tsc(kZone, 1)), node);
  }
  v1::Pod late = Bare("late", Tsc(kZone, 1));
  late.MergeFrom(Parse<v1::Pod>(
      Required({Expr(kZone, "In", {"test-zone-2", "test-zone-3"})})));
  *second.add_pods() = late;
  resp = MustSchedule(second);
  EXPECT_EQ(Skew(second, resp, kZone), (std::vector<int>{1, 3, 3}));

  auto third = second;
  third.mutable_pods()->RemoveLast();
  AddLaunchedNode(third, "n3", "small-instance-type", "test-zone-3", "1900m");
  *third.add_pods() = BoundTo(late, "n3");
  AddSpreadPods(third, 5, Tsc(kZone, 1));
  resp = MustSchedule(third);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(third, resp, kZone), (std::vector<int>{4, 4, 4}));
}

// topology_test.go (Combined Capacity Type Topology and Node Affinity):
// "should limit spread options by nodeSelector" (ScheduleAnyway, five pods
// per capacity type) and "should limit spread options by node affinity
// (capacity type)" (three spot pods; one that may use either takes
// on-demand; five unconstrained pods end 5:4)
TEST(KarpenterTopology, CapacityTypeSpreadAndNodeAffinity) {
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 10; ++i) {
      v1::Pod p = Bare(absl::StrCat("p", i),
                       Tsc(kCapacityType, 1, "", "ScheduleAnyway"));
      (*p.mutable_spec()->mutable_node_selector())[kCapacityType] =
          i < 5 ? "spot" : "on-demand";
      *r.add_pods() = p;
    }
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(r, resp, kCapacityType), (std::vector<int>{5, 5}));
  }
  auto spot_only = [](const std::string& name) {
    v1::Pod p = Bare(name, Tsc(kCapacityType, 1));
    p.MergeFrom(
        Parse<v1::Pod>(Required({Expr(kCapacityType, "In", {"spot"})})));
    return p;
  };
  auto first = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 3; ++i)
    *first.add_pods() = spot_only(absl::StrCat("p", i));
  auto resp = MustSchedule(first);
  EXPECT_EQ(Skew(first, resp, kCapacityType), (std::vector<int>{3}));

  auto second = KRequest(kCapacityTypeExists);
  AddLaunchedNode(second, "spot-node", "small-instance-type", "test-zone-1",
                  "1900m", {{kCapacityType, "spot"}});
  for (int i = 0; i < 3; ++i)
    *second.add_pods() = BoundTo(spot_only(absl::StrCat("p", i)), "spot-node");
  v1::Pod either = Bare("either", Tsc(kCapacityType, 1));
  either.MergeFrom(Parse<v1::Pod>(
      Required({Expr(kCapacityType, "In", {"on-demand", "spot"})})));
  *second.add_pods() = either;
  resp = MustSchedule(second);
  EXPECT_EQ(Skew(second, resp, kCapacityType), (std::vector<int>{1, 3}));

  auto third = second;
  third.mutable_pods()->RemoveLast();
  AddLaunchedNode(third, "od-node", "small-instance-type", "test-zone-1",
                  "1900m", {{kCapacityType, "on-demand"}});
  *third.add_pods() = BoundTo(either, "od-node");
  AddSpreadPods(third, 5, Tsc(kCapacityType, 1));
  resp = MustSchedule(third);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_EQ(Skew(third, resp, kCapacityType), (std::vector<int>{4, 5}));
}

// ---------------------------------------------------------------------------
// Pod affinity and anti-affinity.

constexpr char kS2[] =
    R"pb(metadata { labels { key: "security" value: "s2" } })pb";

// A pod affinity term selecting security=s2 over `key`.
std::string S2Term(const std::string& key, const std::string& extra = "") {
  return absl::StrCat(
      R"pb(label_selector { match_labels { key: "security" value: "s2" } } topology_key: ")pb",
      key, "\" ", extra);
}

// `kind` is pod_affinity or pod_anti_affinity; a weight makes it preferred.
std::string PodTerm(const std::string& kind, const std::string& term,
                    int weight = 0) {
  if (weight == 0)
    return absl::StrCat(
        "spec { affinity { ", kind,
        " { required_during_scheduling_ignored_during_execution "
        "{ ",
        term, " } } } }");
  return absl::StrCat(
      "spec { affinity { ", kind,
      " { preferred_during_scheduling_ignored_during_execution { weight: ",
      weight, " pod_affinity_term { ", term, " } } } } }");
}

v1::Pod With(v1::Pod p, const std::string& extra) {
  p.MergeFrom(Parse<v1::Pod>(extra));
  return p;
}

const v1::NewNodeClaim* ClaimOf(const v1::ScheduleResponse& resp,
                                const std::string& pod) {
  for (const auto& c : resp.new_node_claims())
    for (const auto& p : c.pods())
      if (p == "default/" + pod || p == pod) return &c;
  return nullptr;
}

bool Pending(const v1::ScheduleResponse& resp, const std::string& pod) {
  for (const auto& u : resp.unschedulable())
    if (u.pod() == "default/" + pod || u.pod() == pod) return true;
  return false;
}

// topology_test.go: "should schedule a pod with empty pod affinity and
// anti-affinity", "should respect pod affinity (hostname)" (beside ten
// hostname-spread pods) and "should respect self pod affinity (zone)"
TEST(KarpenterTopology, PodAffinityBasics) {
  {
    auto r = KRequest(kCapacityTypeExists);
    *r.add_pods() = Bare(
        "p",
        R"pb(spec { affinity { pod_affinity {} pod_anti_affinity {} } })pb");
    EXPECT_TRUE(MustSchedule(r).unschedulable().empty());
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    AddSpreadPods(r, 10, Tsc(kHostname, 1));
    *r.add_pods() = Bare("aff1", kS2);
    *r.add_pods() = Bare("aff2", PodTerm("pod_affinity", S2Term(kHostname)));
    auto resp = MustSchedule(r);
    ASSERT_NE(ClaimOf(resp, "aff1"), nullptr);
    EXPECT_EQ(ClaimOf(resp, "aff1"), ClaimOf(resp, "aff2"));
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 3; ++i)
      *r.add_pods() = Bare(absl::StrCat("p", i), SelfAffinity(kZone));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(PodsPerClaim(resp), (std::vector<int>{3}));
  }
}

// topology_test.go: "should respect pod affinity (arch)" and "should not
// violate pod anti-affinity (arch)": the first pod must run on arm64, the
// second follows it (or avoids it) by architecture, on another node because
// of their hostname spread.
TEST(KarpenterTopology, ArchitectureAffinityAndAntiAffinity) {
  for (const char* kind : {"pod_affinity", "pod_anti_affinity"}) {
    auto r = KRequest(kCapacityTypeExists);
    std::string spread = R"pb(
      spec { topology_spread_constraints { max_skew: 1
        topology_key: "kubernetes.io/hostname" when_unsatisfiable: "DoNotSchedule"
        label_selector { match_labels { key: "security" value: "s2" } } } })pb";
    *r.add_pods() = With(With(Pod("first", "2", "0", kS2), spread),
                         Selector(kArch, "arm64"));
    *r.add_pods() = With(With(Pod("second", "1", "0", kS2), spread),
                         PodTerm(kind, S2Term(kArch)));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty()) << kind;
    const auto* a = ClaimOf(resp, "first");
    const auto* b = ClaimOf(resp, "second");
    ASSERT_TRUE(a != nullptr && b != nullptr) << kind;
    EXPECT_NE(a, b) << kind;
    EXPECT_EQ(ClaimDomain(r, *a, kArch) == ClaimDomain(r, *b, kArch),
              std::string(kind) == "pod_affinity")
        << kind;
  }
}

// topology_test.go: "should respect self pod affinity for first empty
// topology domain only (hostname)": ten self-affine pods fill one node of
// five pods and the rest wait; in the next round that node is full, so ten
// more cannot start another.
TEST(KarpenterTopology, SelfAffinityUsesTheFirstEmptyDomainOnly) {
  auto r = KRequest(kCapacityTypeExists);
  for (int i = 0; i < 10; ++i)
    *r.add_pods() = Bare(absl::StrCat("p", i), SelfAffinity(kHostname));
  auto resp = MustSchedule(r);
  EXPECT_EQ(PodsPerClaim(resp), (std::vector<int>{5}));
  EXPECT_EQ(resp.unschedulable_size(), 5);

  auto next = KRequest(kCapacityTypeExists);
  AddLaunchedNode(next, "n1", LaunchedType(resp), "test-zone-1", "1900m");
  for (int i = 0; i < 5; ++i)
    *next.add_pods() =
        BoundTo(Bare(absl::StrCat("old", i), SelfAffinity(kHostname)), "n1");
  for (int i = 0; i < 10; ++i)
    *next.add_pods() = Bare(absl::StrCat("p", i), SelfAffinity(kHostname));
  resp = MustSchedule(next);
  EXPECT_EQ(Placed(resp), 0);
  EXPECT_EQ(resp.unschedulable_size(), 10);
}

// topology_test.go: "should respect self pod affinity for first empty
// topology domain only (hostname/constrained zones)": an earlier self-affine
// pod runs in zone-1, so pods limited to zones 2-3 have no domain.
TEST(KarpenterTopology, SelfAffinityAfterAPodInAnExcludedZone) {
  auto r = KRequest(kCapacityTypeExists);
  AddLaunchedNode(r, "n1", "small-instance-type", "test-zone-1", "1900m");
  *r.add_pods() = BoundTo(Bare("old", SelfAffinity(kHostname)), "n1");
  for (int i = 0; i < 10; ++i)
    *r.add_pods() =
        With(Bare(absl::StrCat("p", i), SelfAffinity(kHostname)),
             Required({Expr(kZone, "In", {"test-zone-2", "test-zone-3"})}));
  auto resp = MustSchedule(r);
  EXPECT_EQ(Placed(resp), 0);
  EXPECT_EQ(resp.unschedulable_size(), 10);
}

// topology_test.go: "should allow two nodes to be created when two pods with
// matching affinities have incompatible selectors"
TEST(KarpenterTopology, SelfAffinePodsInDifferentZonesGetTwoNodes) {
  auto r = KRequest(kCapacityTypeExists);
  for (const char* zone : {"test-zone-2", "test-zone-3"}) {
    *r.add_pods() = With(
        Bare(
            zone,
            absl::StrCat(
                R"pb(metadata { labels { key: "security" value: "s1" } })pb",
                R"pb( spec { affinity { pod_affinity { required_during_scheduling_ignored_during_execution {
                         label_selector { match_labels { key: "security" value: "s1" } }
                         topology_key: "topology.kubernetes.io/zone" } } } })pb")),
        Required({Expr(kZone, "In", {zone})}));
  }
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  ASSERT_EQ(resp.new_node_claims_size(), 2);
  EXPECT_EQ(ClaimDomain(r, *ClaimOf(resp, "test-zone-2"), kZone),
            "test-zone-2");
  EXPECT_EQ(ClaimDomain(r, *ClaimOf(resp, "test-zone-3"), kZone),
            "test-zone-3");
}

// topology_test.go: "should allow violation of preferred pod affinity",
// "should allow violation of preferred pod anti-affinity" and "should allow
// violation of a pod affinity preference with a conflicting required
// constraint"
TEST(KarpenterTopology, PreferredPodTermsGiveWay) {
  {
    auto r = KRequest(kCapacityTypeExists);
    AddSpreadPods(r, 10, Tsc(kHostname, 1));
    *r.add_pods() = Bare("aff", PodTerm("pod_affinity", S2Term(kHostname), 50));
    EXPECT_FALSE(Pending(MustSchedule(r), "aff"));
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    AddSpreadPods(r, 3, Tsc(kZone, 1));
    std::string anti = R"pb(spec { affinity { pod_anti_affinity {
      preferred_during_scheduling_ignored_during_execution { weight: 50
        pod_affinity_term { label_selector { match_labels { key: "test" value: "test" } }
                            topology_key: "topology.kubernetes.io/zone" } } } } })pb";
    for (int i = 0; i < 10; ++i)
      *r.add_pods() = Bare(absl::StrCat("a", i), anti);
    auto resp = MustSchedule(r);
    for (int i = 0; i < 10; ++i)
      EXPECT_FALSE(Pending(resp, absl::StrCat("a", i))) << i;
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    *r.add_pods() = Bare("target", kS2);
    for (int i = 0; i < 3; ++i)
      *r.add_pods() = With(Bare(absl::StrCat("p", i), Tsc(kHostname, 1)),
                           PodTerm("pod_affinity", S2Term(kHostname), 50));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(r, resp, kHostname), (std::vector<int>{1, 1, 1}));
  }
}

// topology_test.go: "should separate nodes using simple pod anti-affinity on
// hostname"
TEST(KarpenterTopology, HostnameAntiAffinitySeparatesAPair) {
  auto r = KRequest(kCapacityTypeExists);
  *r.add_pods() = Bare("anti", PodTerm("pod_anti_affinity", S2Term(kHostname)));
  *r.add_pods() = Bare("target", kS2);
  auto resp = MustSchedule(r);
  EXPECT_TRUE(resp.unschedulable().empty());
  EXPECT_NE(ClaimOf(resp, "anti"), ClaimOf(resp, "target"));
}

// topology_test.go: "should not violate pod anti-affinity on zone", "...(other
// schedules first)", "...(inverse)" and "should violate preferred pod
// anti-affinity on zone (inverse)"
TEST(KarpenterTopology, ZoneAntiAffinityAgainstPodsInEveryZone) {
  const std::string anti = PodTerm("pod_anti_affinity", S2Term(kZone));
  const std::string preferred = PodTerm("pod_anti_affinity", S2Term(kZone), 10);
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int z = 1; z <= 3; ++z)
      *r.add_pods() = With(Pod(absl::StrCat("z", z), "2", "0", kS2),
                           Selector(kZone, absl::StrCat("test-zone-", z)));
    *r.add_pods() = Bare("aff", anti);
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 1);
    EXPECT_TRUE(Pending(resp, "aff"));
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    *r.add_pods() = Pod("target", "2", "0", kS2);
    *r.add_pods() = Bare("aff", anti);
    auto resp = MustSchedule(r);
    EXPECT_FALSE(Pending(resp, "target"));
    EXPECT_TRUE(Pending(resp, "aff"));
  }
  for (const std::string& term : {anti, preferred}) {
    auto r = KRequest(kCapacityTypeExists);
    for (int z = 1; z <= 3; ++z)
      *r.add_pods() = With(Pod(absl::StrCat("z", z), "2", "0", term),
                           Selector(kZone, absl::StrCat("test-zone-", z)));
    *r.add_pods() = Bare("aff", kS2);
    auto resp = MustSchedule(r);
    for (int z = 1; z <= 3; ++z)
      EXPECT_FALSE(Pending(resp, absl::StrCat("z", z)));
    EXPECT_EQ(Pending(resp, "aff"), term == anti);
  }
}

// topology_test.go: "should not violate pod anti-affinity on zone
// (inverse w/existing nodes)" and "should violate preferred pod
// anti-affinity on zone (inverse w/existing nodes)"
TEST(KarpenterTopology, ZoneAntiAffinityOfRunningPods) {
  for (int weight : {0, 10}) {
    auto r = KRequest(kCapacityTypeExists);
    for (int z = 1; z <= 3; ++z) {
      std::string node = absl::StrCat("n", z);
      AddLaunchedNode(r, node, "default-instance-type",
                      absl::StrCat("test-zone-", z), "3900m");
      *r.add_pods() =
          BoundTo(Pod(absl::StrCat("z", z), "2", "0",
                      PodTerm("pod_anti_affinity", S2Term(kZone), weight)),
                  node);
    }
    *r.add_pods() = Bare("aff", kS2);
    auto resp = MustSchedule(r);
    EXPECT_EQ(Pending(resp, "aff"), weight == 0) << weight;
  }
}

// topology_test.go: "should not violate pod anti-affinity on zone
// (Schrödinger)": a pod anti-affine to s2 on a NodeClaim not yet narrowed to
// a zone blocks every zone for the s2 pod; once it runs in a zone, the s2
// pod goes elsewhere.
TEST(KarpenterTopology, AntiAffinityOnAnUnnarrowedClaimBlocksEveryZone) {
  const std::string anti = PodTerm("pod_anti_affinity", S2Term(kZone));
  auto r = KRequest(kCapacityTypeExists);
  *r.add_pods() = Pod("anywhere", "2", "0", anti);
  *r.add_pods() = Bare("aff", kS2);
  auto resp = MustSchedule(r);
  EXPECT_FALSE(Pending(resp, "anywhere"));
  EXPECT_TRUE(Pending(resp, "aff"));

  auto next = KRequest(kCapacityTypeExists);
  AddLaunchedNode(next, "n1", "default-instance-type", "test-zone-1", "3900m");
  *next.add_pods() = BoundTo(Pod("anywhere", "2", "0", anti), "n1");
  *next.add_pods() = Bare("aff", kS2);
  resp = MustSchedule(next);
  ASSERT_FALSE(Pending(resp, "aff"));
  ASSERT_NE(ClaimOf(resp, "aff"), nullptr);
  EXPECT_NE(ClaimDomain(next, *ClaimOf(resp, "aff"), kZone), "test-zone-1");
}

// topology_test.go: "should support pod anti-affinity with a zone topology":
// three mutually anti-affine pods per round; each round one more zone, as
// an unnarrowed claim blocks the others, until every zone holds one.
TEST(KarpenterTopology, MutualZoneAntiAffinityOneZonePerRound) {
  const std::string pod =
      absl::StrCat(kS2, " ", PodTerm("pod_anti_affinity", S2Term(kZone)));
  for (int existing = 0; existing <= 3; ++existing) {
    auto r = KRequest(kCapacityTypeExists);
    for (int z = 1; z <= existing; ++z) {
      std::string node = absl::StrCat("n", z);
      AddLaunchedNode(r, node, "small-instance-type",
                      absl::StrCat("test-zone-", z), "1900m");
      *r.add_pods() = BoundTo(Bare(absl::StrCat("old", z), pod), node);
    }
    for (int i = 0; i < 3; ++i) *r.add_pods() = Bare(absl::StrCat("p", i), pod);
    auto resp = MustSchedule(r);
    EXPECT_EQ(Placed(resp), existing < 3 ? 1 : 0) << existing;
    std::vector<int> ones(std::min(existing + 1, 3), 1);
    EXPECT_EQ(Skew(r, resp, kZone, {{"security", "s2"}}), ones) << existing;
  }
}

// topology_test.go: "should not schedule pods with affinity to a
// non-existent pod", "should fail to schedule pods with unsatisfiable
// dependencies", and "should support pod affinity with zone topology
// (unconstrained target)" / "(constrained target)": a target on an
// unnarrowed claim gives no zone to follow this round; one limited to
// zone-1 does.
TEST(KarpenterTopology, ZoneAffinityNeedsAKnownTargetZone) {
  const std::string aff = PodTerm("pod_affinity", S2Term(kZone));
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 10; ++i)
      *r.add_pods() = Bare(absl::StrCat("p", i), aff);
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 10);
    auto dep = KRequest(kCapacityTypeExists);
    *dep.add_pods() =
        Bare("db", R"pb(metadata { labels { key: "type" value: "db" } }
                   spec { affinity { pod_affinity { required_during_scheduling_ignored_during_execution {
                     label_selector { match_labels { key: "type" value: "web" } }
                     topology_key: "kubernetes.io/hostname" } } } })pb");
    EXPECT_EQ(MustSchedule(dep).unschedulable_size(), 1);
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 10; ++i)
      *r.add_pods() = Bare(absl::StrCat("p", i), aff);
    *r.add_pods() = Bare("target", kS2);
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 10);
    EXPECT_FALSE(Pending(resp, "target"));

    auto next = KRequest(kCapacityTypeExists);
    AddLaunchedNode(next, "n1", "small-instance-type", "test-zone-2", "1900m");
    *next.add_pods() = BoundTo(Bare("target", kS2), "n1");
    for (int i = 0; i < 10; ++i)
      *next.add_pods() = Bare(absl::StrCat("p", i), aff);
    resp = MustSchedule(next);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(next, resp, kZone, {}), (std::vector<int>{11}));
  }
  {
    auto r = KRequest(kCapacityTypeExists);
    for (int i = 0; i < 10; ++i)
      *r.add_pods() = Bare(absl::StrCat("p", i), aff);
    *r.add_pods() = With(Bare("target", kS2),
                         Required({Expr(kZone, "In", {"test-zone-1"})}));
    auto resp = MustSchedule(r);
    EXPECT_TRUE(resp.unschedulable().empty());
    EXPECT_EQ(Skew(r, resp, kZone, {}), (std::vector<int>{11}));
  }
}

// topology_test.go: "should filter pod affinity topologies by namespace, no
// matching pods", "..., matching pods namespace list" and "..., empty
// namespace selector"
TEST(KarpenterTopology, PodAffinityNamespaces) {
  struct Case {
    std::string term_extra;
    bool together;
  } cases[] = {
      {"", false},
      {R"pb(namespaces: "other")pb", true},
      {"namespace_selector {}", true},
  };
  for (const Case& c : cases) {
    auto r = KRequest(kCapacityTypeExists);
    v1::Namespace ns;
    ns.mutable_metadata()->set_name("other");
    (*ns.mutable_metadata()->mutable_labels())["foo"] = "bar";
    *r.add_namespaces() = ns;
    AddSpreadPods(r, 10, Tsc(kHostname, 1));
    v1::Pod target = Bare("target", kS2);
    target.mutable_metadata()->set_namespace_("other");
    *r.add_pods() = target;
    *r.add_pods() =
        Bare("aff", PodTerm("pod_affinity", S2Term(kHostname, c.term_extra)));
    auto resp = MustSchedule(r);
    const v1::NewNodeClaim* target_claim = nullptr;
    for (const auto& claim : resp.new_node_claims())
      for (const auto& p : claim.pods())
        if (p == "other/target") target_claim = &claim;
    ASSERT_NE(target_claim, nullptr) << c.term_extra;
    EXPECT_EQ(Pending(resp, "aff"), !c.together) << c.term_extra;
    if (c.together) {
      EXPECT_EQ(ClaimOf(resp, "aff"), target_claim) << c.term_extra;
    }
  }
}

}  // namespace
}  // namespace nodeplan::testing
