// Core provisioning semantics: resources, requirements, taints, NodePools,
// existing capacity, the NodeClaim object and determinism.

#include "fixtures.h"
#include "gmock/gmock.h"
#include "nodeplan/hash.h"
#include "nodeplan/verify.h"

namespace nodeplan::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

TEST(Schedule, OnePodLaunchesTheCheapestFittingType) {
  auto r = Request();
  *r.add_pods() = Pod("a", "1500m", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  const auto& c = resp.new_node_claims(0);
  EXPECT_EQ(c.node_pool(), "default");
  EXPECT_THAT(c.pods(), ElementsAre("default/a"));
  // fake-it-0 (1 cpu, minus 100m reserved) cannot hold 1.5 cpu.
  ASSERT_GT(c.instance_types_size(), 0);
  EXPECT_EQ(c.instance_types(0), "fake-it-1");
  EXPECT_EQ(c.launch().instance_type(), "fake-it-1");
  EXPECT_EQ(c.launch().zone(), "test-zone-1");
  EXPECT_EQ(c.launch().capacity_type(), "spot");  // first offering on a tie
  EXPECT_DOUBLE_EQ(resp.cost(), c.launch().price());
  EXPECT_EQ(c.requests().at("cpu"), "1500m");
  EXPECT_EQ(c.requests().at("pods"), "1");
  EXPECT_THAT(c.name(), ::testing::MatchesRegex(
                            "default-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  EXPECT_FALSE(resp.library_version().empty());
}

TEST(Schedule, NodeClaimObjectIsReadyToApply) {
  auto r = Request();
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  const auto& nc = resp.new_node_claims(0).node_claim();
  EXPECT_EQ(nc.api_version(), "karpenter.sh/v1");
  EXPECT_EQ(nc.kind(), "NodeClaim");
  EXPECT_EQ(nc.metadata().name(), resp.new_node_claims(0).name());
  EXPECT_EQ(nc.metadata().labels().at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(nc.metadata().labels().at("eks.amazonaws.com/nodeclass"),
            "default");
  auto hash = NodePoolHash(r.node_pools(0));
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(nc.metadata().annotations().at("karpenter.sh/nodepool-hash"),
            *hash);
  EXPECT_EQ(
      nc.metadata().annotations().at("karpenter.sh/nodepool-hash-version"),
      "v3");
  EXPECT_EQ(nc.metadata().annotations().at(
                "karpenter.sh/nodeclaim-min-values-relaxed"),
            "false");
  ASSERT_EQ(nc.metadata().owner_references_size(), 1);
  EXPECT_EQ(nc.metadata().owner_references(0).kind(), "NodePool");
  EXPECT_EQ(nc.metadata().owner_references(0).uid(), "uid-default");
  EXPECT_EQ(nc.spec().node_class_ref().name(), "default");
  EXPECT_EQ(nc.spec().expire_after(), "720h");
  const auto* it = FindReq(nc, "node.kubernetes.io/instance-type");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->operator_(), "In");
  EXPECT_EQ(it->values_size(), resp.new_node_claims(0).instance_types_size());
  const auto* ct = FindReq(nc, "karpenter.sh/capacity-type");
  ASSERT_NE(ct, nullptr);
  EXPECT_THAT(ct->values(), ElementsAre("on-demand", "spot"));
  EXPECT_EQ(FindReq(nc, "kubernetes.io/hostname"), nullptr);
  EXPECT_EQ(FindReq(nc, "karpenter.sh/registered"), nullptr);
  EXPECT_EQ(nc.spec().resources().requests().at("cpu"), "1");
}

TEST(Schedule, PodsPackOntoOneNodeClaimUntilFull) {
  auto r = Request();
  for (int i = 0; i < 6; ++i)
    *r.add_pods() = Pod(absl::StrCat("p", i), "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).pods_size(), 6);
  EXPECT_EQ(resp.new_node_claims(0).launch().instance_type(), "fake-it-6");
}

TEST(Schedule, TooLargePodGetsKarpentersMessage) {
  auto r = Request(3);
  *r.add_pods() = Pod("big", "64", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.unschedulable_size(), 1);
  EXPECT_THAT(
      resp.unschedulable(0).reason(),
      HasSubstr(
          "incompatible with nodepool \"default\", daemonset overhead={}, "
          "no instance type has enough resources, requirements="));
  EXPECT_THAT(resp.unschedulable(0).reason(),
              HasSubstr("resources={\"cpu\":\"64\""));
}

TEST(Schedule, NodeSelectorNarrowsZoneAndLaunch) {
  auto r = Request();
  *r.add_pods() = Pod(
      "a", "1", "1Gi",
      R"pb(spec { node_selector { key: "topology.kubernetes.io/zone" value: "test-zone-3" } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  const auto& c = resp.new_node_claims(0);
  EXPECT_EQ(c.launch().zone(), "test-zone-3");
  EXPECT_EQ(c.launch().capacity_type(), "on-demand");  // no spot in zone 3
  const auto* ct = FindReq(c.node_claim(), "karpenter.sh/capacity-type");
  ASSERT_NE(ct, nullptr);
  EXPECT_THAT(ct->values(), ElementsAre("on-demand"));
  const auto* z = FindReq(c.node_claim(), "topology.kubernetes.io/zone");
  ASSERT_NE(z, nullptr);
  EXPECT_THAT(z->values(), ElementsAre("test-zone-3"));
}

// Karpenter's truth table for a custom label the NodePool does not define.
TEST(Schedule, CustomLabelsMustBeDefinedByTheNodePool) {
  struct Case {
    std::string op;
    bool schedules;
  } cases[] = {{"In", false},
               {"Exists", false},
               {"NotIn", true},
               {"DoesNotExist", true}};
  for (const auto& tc : cases) {
    auto r = Request();
    std::string values =
        tc.op == "In" || tc.op == "NotIn" ? R"pb(values: "x")pb" : "";
    *r.add_pods() = Pod(
        "a", "1", "1Gi",
        absl::StrCat(
            R"pb(spec { affinity { node_affinity { required_during_scheduling_ignored_during_execution {
             node_selector_terms { match_expressions { key: "example.com/team" operator: ")pb",
            tc.op, "\" ", values, " } } } } } }"));
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), tc.schedules ? 1 : 0) << tc.op;
    if (!tc.schedules) {
      EXPECT_THAT(ReasonFor(resp, "default/a"),
                  HasSubstr("incompatible requirements, label "
                            "\"example.com/team\" does not have known values"))
          << tc.op;
    }
  }
}

TEST(Schedule, CustomLabelDefinedByTemplateLabels) {
  auto r = Request();
  r.mutable_node_pools(0)->MergeFrom(Parse<v1::NodePool>(
      R"pb(spec { template { metadata { labels { key: "example.com/team" value: "blue" } } } })pb"));
  *r.add_pods() = Pod(
      "a", "1", "1Gi",
      R"pb(spec { node_selector { key: "example.com/team" value: "blue" } })pb");
  *r.add_pods() = Pod(
      "b", "1", "1Gi",
      R"pb(spec { node_selector { key: "example.com/team" value: "red" } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).node_claim().metadata().labels().at(
                "example.com/team"),
            "blue");
  EXPECT_THAT(ReasonFor(resp, "default/b"),
              HasSubstr("key example.com/team, example.com/team In [red] not "
                        "in example.com/team In [blue]"));
}

TEST(Schedule, RequiredNodeAffinityLaterTermsAreFallbacks) {
  auto r = Request();
  *r.add_pods() = Pod("a", "1", "1Gi", R"pb(spec { affinity { node_affinity {
      required_during_scheduling_ignored_during_execution {
        node_selector_terms { match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "nowhere" } }
        node_selector_terms { match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "test-zone-2" } }
      } } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-2");
}

TEST(Schedule, PreferredNodeAffinityIsRequiredUntilRelaxed) {
  auto r = Request();
  *r.add_pods() = Pod("a", "1", "1Gi", R"pb(spec { affinity { node_affinity {
      preferred_during_scheduling_ignored_during_execution { weight: 10 preference {
        match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "test-zone-3" } } }
      preferred_during_scheduling_ignored_during_execution { weight: 50 preference {
        match_expressions { key: "topology.kubernetes.io/zone" operator: "In" values: "nowhere" } } }
      } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  // The heaviest (impossible) term is relaxed first; the next one holds.
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-3");
  r.mutable_options()->set_preference_policy("Ignore");
  auto ignored = MustSchedule(r);
  ASSERT_EQ(ignored.new_node_claims_size(), 1);
  EXPECT_EQ(ignored.new_node_claims(0).launch().zone(), "test-zone-1");
}

TEST(Schedule, TaintsNeedTolerations) {
  auto r = Request();
  r.mutable_node_pools(0)->MergeFrom(Parse<v1::NodePool>(
      R"pb(spec { template { spec { taints { key: "dedicated" value: "gpu" effect: "NoSchedule" } } } })pb"));
  *r.add_pods() = Pod("plain", "1", "1Gi");
  *r.add_pods() = Pod(
      "tolerant", "1", "1Gi",
      R"pb(spec { tolerations { key: "dedicated" operator: "Equal" value: "gpu" effect: "NoSchedule" } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_THAT(resp.new_node_claims(0).pods(), ElementsAre("default/tolerant"));
  EXPECT_THAT(ReasonFor(resp, "default/plain"),
              HasSubstr("did not tolerate taint dedicated=gpu:NoSchedule"));
  const auto& nc = resp.new_node_claims(0).node_claim();
  ASSERT_EQ(nc.spec().taints_size(), 1);
}

TEST(Schedule, PreferNoScheduleIsHardUntilRelaxed) {
  auto r = Request();
  *r.mutable_node_pools(0) = NodePool(
      "soft",
      R"pb(spec { weight: 10 template { spec { taints { key: "soft" effect: "PreferNoSchedule" } } } })pb");
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  // A second, untainted NodePool of lower weight wins before relaxation.
  *r.add_node_pools() = NodePool("plain");
  auto both = MustSchedule(r);
  ASSERT_EQ(both.new_node_claims_size(), 1);
  EXPECT_EQ(both.new_node_claims(0).node_pool(), "plain");
}

TEST(Schedule, WeightsOrderNodePoolsThenNameDescending) {
  auto r = Request();
  r.clear_node_pools();
  *r.add_node_pools() = NodePool("a");
  *r.add_node_pools() = NodePool("b");
  *r.add_pods() = Pod("p", "1", "1Gi");
  EXPECT_EQ(MustSchedule(r).new_node_claims(0).node_pool(), "b");
  r.mutable_node_pools(0)->mutable_spec()->set_weight(5);
  EXPECT_EQ(MustSchedule(r).new_node_claims(0).node_pool(), "a");
}

TEST(Schedule, StaticNodePoolsAreSkipped) {
  auto r = Request();
  r.mutable_node_pools(0)->mutable_spec()->set_replicas(3);
  *r.add_pods() = Pod("p", "1", "1Gi");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(ReasonFor(resp, "default/p"), "no dynamic nodepools found");
}

TEST(Schedule, LimitsExcludeLargeTypesAndShrinkByLargestOption) {
  auto r = Request();
  (*r.mutable_node_pools(0)->mutable_spec()->mutable_limits())["cpu"] = "4";
  *r.add_pods() = Pod("a", "3", "1Gi");
  *r.add_pods() =
      Pod("b", "3", "1Gi", R"pb(spec { affinity { pod_anti_affinity {
      required_during_scheduling_ignored_during_execution { topology_key: "kubernetes.io/hostname"
        label_selector { match_labels { key: "app" value: "x" } } } } } } metadata { labels { key: "app" value: "x" } })pb");
  (*r.mutable_pods(0)->mutable_metadata()->mutable_labels())["app"] = "x";
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  // Options capped at 4 cpu; the second pod then exceeds the remaining limit.
  for (const auto& t : resp.new_node_claims(0).instance_types())
    EXPECT_TRUE(t == "fake-it-2" || t == "fake-it-3") << t;
  ASSERT_EQ(resp.unschedulable_size(), 1);
  EXPECT_THAT(
      resp.unschedulable(0).reason(),
      HasSubstr("all available instance types exceed limits for nodepool"));
}

TEST(Schedule, MaxInstanceTypesTruncatesByPrice) {
  auto r = Request();
  r.mutable_options()->set_max_instance_types(3);
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_THAT(resp.new_node_claims(0).instance_types(),
              ElementsAre("fake-it-1", "fake-it-2", "fake-it-3"));
}

TEST(Schedule, DaemonSetOverheadIsAddedAndCanBlock) {
  auto r = Request();
  *r.add_daemon_sets() =
      Parse<v1::DaemonSet>(R"pb(metadata { name: "ds" namespace: "kube-system" }
      spec { template { spec { containers { name: "d" resources {
        requests { key: "cpu" value: "500m" } requests { key: "memory" value: "128Mi" } } } } } })pb");
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).requests().at("cpu"), "1500m");
  EXPECT_EQ(resp.new_node_claims(0).requests().at("pods"), "2");
  EXPECT_EQ(resp.new_node_claims(0).launch().instance_type(), "fake-it-1");
  // A DaemonSet too large for every type blocks the NodePool.
  (*r.mutable_daemon_sets(0)
        ->mutable_spec()
        ->mutable_template_()
        ->mutable_spec()
        ->mutable_containers(0)
        ->mutable_resources()
        ->mutable_requests())["cpu"] = "100";
  auto blocked = MustSchedule(r);
  EXPECT_EQ(blocked.new_node_claims_size(), 0);
  EXPECT_THAT(
      ReasonFor(blocked, "default/a"),
      HasSubstr(
          "daemonset "
          "overhead={\"cpu\":\"100\",\"memory\":\"128Mi\",\"pods\":\"1\"}"));
}

// Karpenter counts the newest pod a DaemonSet controls, not its template
// (provisioner.go getDaemonSetPods, state/cluster.go UpdateDaemonSet): a
// webhook or VPA may have changed its requests. The template's required node
// affinity still applies (the controller pins each pod to its node).
TEST(Schedule, DaemonSetOverheadComesFromItsNewestPod) {
  auto r = Request();
  *r.add_daemon_sets() = Parse<v1::DaemonSet>(
      R"pb(metadata { name: "ds" namespace: "kube-system" uid: "ds-uid" }
      spec { template { spec { containers { name: "d" resources { requests { key: "cpu" value: "500m" } } } } } })pb");
  auto daemon_pod = [](const std::string& name, const std::string& created,
                       const std::string& cpu, const std::string& owner_uid) {
    v1::Pod p = Pod(
        name, cpu, "64Mi",
        absl::StrCat(
            R"pb(metadata { namespace: "kube-system" creation_timestamp: ")pb",
            created,
            R"pb(" owner_references { kind: "DaemonSet" name: "ds" uid: ")pb",
            owner_uid,
            R"pb(" controller: true } } spec { node_name: "elsewhere" })pb"));
    return p;
  };
  *r.add_pods() =
      daemon_pod("ds-old", "2026-01-01T00:00:00Z", "100m", "ds-uid");
  *r.add_pods() = daemon_pod("ds-new", "2026-03-01T00:00:00Z", "2", "ds-uid");
  *r.add_pods() = daemon_pod("ds-tie", "2026-03-01T00:00:00Z", "3",
                             "ds-uid");  // equally new: first wins
  *r.add_pods() = daemon_pod("other", "2026-06-01T00:00:00Z", "4",
                             "other-uid");  // another owner
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).requests().at("cpu"),
            "3");  // 1 + ds-new's 2
  EXPECT_EQ(resp.new_node_claims(0).requests().at("memory"), "1088Mi");

  // A DaemonSet without a uid (hand-written manifests) owns pods that name it.
  r.mutable_daemon_sets(0)->mutable_metadata()->clear_uid();
  EXPECT_EQ(MustSchedule(r).new_node_claims(0).requests().at("cpu"),
            "5");  // "other", newest, names ds

  // The template's required node affinity replaces the pod's: here it
  // excludes every type, so the DaemonSet adds nothing.
  r.mutable_daemon_sets(0)->mutable_metadata()->set_uid("ds-uid");
  *r.mutable_daemon_sets(0)
       ->mutable_spec()
       ->mutable_template_()
       ->mutable_spec()
       ->mutable_affinity() = Parse<v1::Affinity>(
      R"pb(node_affinity { required_during_scheduling_ignored_during_execution {
        node_selector_terms { match_expressions { key: "kubernetes.io/arch" operator: "In" values: "s390x" } } } })pb");
  EXPECT_EQ(MustSchedule(r).new_node_claims(0).requests().at("cpu"), "1");
}

TEST(Schedule, InitContainersAndSidecarsAndOverhead) {
  auto r = Request();
  *r.add_pods() = Pod("a", "1", "1Gi", R"pb(spec {
      init_containers { name: "init" resources { requests { key: "cpu" value: "3" } } }
      init_containers { name: "side" restart_policy: "Always" resources { requests { key: "cpu" value: "500m" } } }
      overhead { key: "cpu" value: "250m" } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  // max(1 + 0.5 sidecar, 3 init) + 0.25 overhead.
  EXPECT_EQ(resp.new_node_claims(0).requests().at("cpu"), "3250m");
}

v1::Node ExistingNode(const std::string& name, const std::string& cpu,
                      bool initialized) {
  v1::Node n = Parse<v1::Node>(absl::StrCat(
      R"pb(metadata { name: ")pb", name,
      R"pb(" labels { key: "kubernetes.io/hostname" value: ")pb", name,
      R"pb(" } labels { key: "topology.kubernetes.io/zone" value: "test-zone-1" }
           labels { key: "karpenter.sh/nodepool" value: "default" } }
      status { allocatable { key: "cpu" value: ")pb",
      cpu,
      R"pb(" } allocatable { key: "memory" value: "16Gi" } allocatable { key: "pods" value: "10" } })pb"));
  if (initialized)
    (*n.mutable_metadata()->mutable_labels())["karpenter.sh/initialized"] =
        "true";
  return n;
}

// An operator Karpenter does not know, in a catalog's requirements, is an
// error naming the field (the scheduler no longer has a translation of its
// own that read it as DoesNotExist).
TEST(Schedule, UnknownRequirementOperatorIsAnErrorWithItsPath) {
  auto r = Request();
  auto* q = r.mutable_catalog()->mutable_instance_types(0)->add_requirements();
  q->set_key("example.com/x");
  q->set_operator_("Near");
  auto resp = Schedule(r);
  ASSERT_FALSE(resp.ok());
  EXPECT_THAT(std::string(resp.status().message()),
              ::testing::HasSubstr("operator"));
  EXPECT_THAT(std::string(resp.status().message()),
              ::testing::HasSubstr("Near"))
      << resp.status();
}

// minValues counts what Karpenter's SatisfiesMinValues counts: the values()
// of each type's requirement on the key, so a type whose requirement is
// NotIn [a, b] contributes a and b (the scheduler's own walk skipped NotIn,
// found no two flavours and dropped the NodePool).
TEST(Schedule, MinValuesCountsTheValuesOfANotInTypeRequirement) {
  auto r = Request(2);
  for (int i = 0; i < 2; ++i) {
    auto* q =
        r.mutable_catalog()->mutable_instance_types(i)->add_requirements();
    q->set_key("example.com/flavor");
    q->set_operator_(i == 0 ? "NotIn" : "In");
    q->add_values(i == 0 ? "a" : "c");
    if (i == 0) q->add_values("b");
  }
  r.mutable_node_pools(0)->MergeFrom(Parse<v1::NodePool>(
      R"pb(spec { template { spec { requirements {
        key: "example.com/flavor" operator: "Exists" min_values: 3 } } } })pb"));
  *r.add_pods() = Pod("p", "100m", "128Mi");
  auto three = MustSchedule(r);
  EXPECT_EQ(three.new_node_claims_size(), 1);
  EXPECT_EQ(three.unschedulable_size(), 0);

  // Four distinct values are out of reach: a, b and c only.
  r.mutable_node_pools(0)
      ->mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_requirements(1)
      ->set_min_values(4);
  auto four = MustSchedule(r);
  EXPECT_EQ(four.new_node_claims_size(), 0);
  ASSERT_EQ(four.unschedulable_size(), 1);
}

// Requests in reasons print as Karpenter prints a canonical Quantity (the
// library's FormatMilli / FormatBytes): 2000 cores as "2k", 1000 bytes as
// "1k" (the scheduler's own printer said "2000" and "1000").
TEST(Schedule, ReasonsPrintQuantitiesAsKubernetesDoes) {
  auto r = Request(2);
  *r.add_pods() = Pod("p", "2000", "1000");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.unschedulable_size(), 1);
  EXPECT_THAT(resp.unschedulable(0).reason(),
              ::testing::HasSubstr(R"("cpu":"2k","memory":"1k")"));
}

// StateNode.Name() and Labels(): until its karpenter.sh/registered label
// says "true", a managed node goes by its NodeClaim's name and labels, so a
// pod lands on it as on the NodeClaim, and a label only the Node carries does
// not count yet.
TEST(Schedule, UnregisteredNodeGoesByItsNodeClaim) {
  for (bool registered : {false, true}) {
    auto r = Request();
    v1::Node& node = *r.add_nodes() = ExistingNode("node-1", "4", false);
    (*node.mutable_metadata()->mutable_labels())["example.com/team"] = "blue";
    if (registered)
      (*node.mutable_metadata()->mutable_labels())["karpenter.sh/registered"] =
          "true";
    v1::NodeClaim* c = r.add_node_claims();
    c->mutable_metadata()->set_name("default-abcde");
    (*c->mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
        "default";
    (*c->mutable_metadata()->mutable_labels())["topology.kubernetes.io/zone"] =
        "test-zone-1";
    c->mutable_status()->set_node_name("node-1");
    *r.add_pods() = Pod("any", "1", "1Gi");
    *r.add_pods() = Pod("blue", "1", "1Gi", R"pb(spec { node_selector {
        key: "example.com/team" value: "blue" } })pb");
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.existing_nodes_size(), 1) << registered;
    const auto& placed = resp.existing_nodes(0);
    EXPECT_EQ(placed.name(), registered ? "node-1" : "default-abcde");
    EXPECT_EQ(placed.kind(), registered ? "Node" : "NodeClaim");
    std::vector<std::string> pods(placed.pods().begin(), placed.pods().end());
    std::sort(pods.begin(), pods.end());
    const std::vector<std::string> want =
        registered ? std::vector<std::string>({"default/any", "default/blue"})
                   : std::vector<std::string>({"default/any"});
    EXPECT_EQ(pods, want);
  }
}

// Karpenter's sortExistingNodes: initialized first, then by name. Only a node
// with a NodeClaim can be uninitialized (StateNode.Initialized).
TEST(Schedule, ExistingNodesFirstInitializedThenByName) {
  for (bool with_claims : {true, false}) {
    auto r = Request();
    for (auto [name, initialized] :
         {std::pair{"b-node", true}, {"a-node", false}, {"c-node", true}}) {
      v1::Node& node = *r.add_nodes() = ExistingNode(name, "4", initialized);
      if (!with_claims) continue;
      (*node.mutable_metadata()->mutable_labels())["karpenter.sh/registered"] =
          "true";
      v1::NodeClaim* c = r.add_node_claims();
      c->mutable_metadata()->set_name(absl::StrCat(name, "-claim"));
      (*c->mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
          "default";
      c->mutable_status()->set_node_name(name);
    }
    *r.add_pods() = Pod("p", "1", "1Gi");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), 0);
    ASSERT_EQ(resp.existing_nodes_size(), 1);
    EXPECT_EQ(resp.existing_nodes(0).name(), with_claims ? "b-node" : "a-node");
    EXPECT_EQ(resp.existing_nodes(0).kind(), "Node");
  }
}

// Deliberate deviation (benchmarks/karpenter/DEVIATIONS.md, class C): in
// Karpenter an existing node's requirements become the merged requirements
// of every pod placed on it (pkg/controllers/provisioning/scheduling/
// existingnode.go Add), so after "a" (preferring team NotIn [green]) lands on
// the node, the key counts as defined there and "b", which requires team In
// [blue], is placed on a node without a team label; kube-scheduler would not
// bind it. nodeplan checks a pod against the node's own labels and leaves "b"
// unschedulable (cases/random-6).
TEST(Schedule, ExistingNodeKeepsItsOwnLabelsForLaterPods) {
  auto r = Request();
  r.mutable_node_pools(0)->MergeFrom(
      Parse<v1::NodePool>(R"pb(spec { template { spec {
      taints { key: "dedicated" value: "x" effect: "NoSchedule" } } } })pb"));
  *r.add_nodes() = ExistingNode("n1", "8", true);
  *r.add_pods() = Pod("a", "2", "1Gi", R"pb(spec { affinity { node_affinity {
      preferred_during_scheduling_ignored_during_execution { weight: 10 preference {
        match_expressions { key: "example.com/team" operator: "NotIn" values: "green" } } } } } })pb");
  *r.add_pods() = Pod("b", "1", "1Gi", R"pb(spec { affinity { node_affinity {
      required_during_scheduling_ignored_during_execution { node_selector_terms {
        match_expressions { key: "example.com/team" operator: "In" values: "blue" } } } } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.existing_nodes_size(), 1);
  EXPECT_THAT(resp.existing_nodes(0).pods(),
              ::testing::ElementsAre("default/a"));
  EXPECT_EQ(resp.unschedulable_size(), 1);
  EXPECT_EQ(resp.unschedulable(0).pod(), "default/b");
}

// Karpenter's daemon pods tolerate PreferNoSchedule on existing nodes once a
// NodePool template has been built (its overhead check adds the toleration
// to the shared pods in place): a DaemonSet without tolerations counts on a
// PreferNoSchedule node, and a pod that fits only without it launches a new
// NodeClaim. With no NodePool type left, the DaemonSet does not count there.
TEST(Schedule, DaemonsCountOnPreferNoScheduleExistingNodes) {
  auto r = Request();
  v1::Node node = ExistingNode("n1", "1", true);
  auto* taint = node.mutable_spec()->add_taints();
  taint->set_key("dedicated");
  taint->set_value("x");
  taint->set_effect("PreferNoSchedule");
  *r.add_nodes() = node;
  *r.add_daemon_sets() =
      Parse<v1::DaemonSet>(R"pb(metadata { name: "ds" namespace: "kube-system" }
      spec { template { spec { containers { name: "d" resources {
        requests { key: "cpu" value: "200m" } } } } } })pb");
  *r.add_pods() = Pod("p", "900m", "1Gi", R"pb(spec { tolerations {
        key: "dedicated" operator: "Equal" value: "x" effect: "PreferNoSchedule" } })pb");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.existing_nodes_size(), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
  // No instance type for the NodePool: no template, no toleration added.
  *r.mutable_node_pools(0)
       ->mutable_spec()
       ->mutable_template_()
       ->mutable_spec()
       ->add_requirements() = Parse<v1::NodeSelectorRequirement>(
      R"pb(key: "node.kubernetes.io/instance-type" operator: "In" values: "none")pb");
  auto no_pool = MustSchedule(r);
  ASSERT_EQ(no_pool.existing_nodes_size(), 1);
  EXPECT_EQ(no_pool.existing_nodes(0).name(), "n1");
}

// Karpenter provisions only for pods kube-scheduler marked Unschedulable and
// is not preempting for (IsProvisionable): a gated pod is never tried, a
// nominated one waits for its preemption. Neither is planned.
TEST(Schedule, GatedAndNominatedPodsAreNotPlanned) {
  auto r = Request();
  v1::Pod gated = Pod("gated", "1", "1Gi");
  gated.mutable_spec()->add_scheduling_gates()->set_name("example.com/quota");
  v1::Pod nominated = Pod("nominated", "1", "1Gi");
  nominated.mutable_status()->set_nominated_node_name("n9");
  *r.add_pods() = gated;
  *r.add_pods() = nominated;
  *r.add_pods() = Pod("p", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_THAT(resp.new_node_claims(0).pods(), ElementsAre("default/p"));
  EXPECT_EQ(resp.unschedulable_size(), 0);
  EXPECT_EQ(resp.ignored_pods(), 2);
  EXPECT_TRUE(Verify(r, resp).empty());
}

TEST(Schedule, BoundPodsConsumeExistingCapacity) {
  auto r = Request();
  *r.add_nodes() = ExistingNode("n1", "2", true);
  v1::Pod bound = Pod("running", "1500m", "1Gi");
  bound.mutable_spec()->set_node_name("n1");
  *r.add_pods() = bound;
  *r.add_pods() = Pod("p", "1", "1Gi");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.existing_nodes_size(), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.ignored_pods(), 1);
}

// Karpenter's cluster state releases a bound pod's requests only when the
// pod is terminal (Succeeded/Failed): a pod being deleted still holds its
// node's capacity and host ports, while topology counting ignores it
// (IgnoredForTopology). Found by tests/fuzz: nodeplan freed the capacity and
// over-committed the node.
TEST(Schedule, TerminatingBoundPodsHoldCapacityButNotTopology) {
  auto r = Request();
  *r.add_nodes() = ExistingNode("n1", "2", true);
  v1::Pod bound = Pod("leaving", "1500m", "1Gi");
  bound.mutable_spec()->set_node_name("n1");
  bound.mutable_metadata()->set_deletion_timestamp("2026-12-01T00:00:00Z");
  (*bound.mutable_metadata()->mutable_labels())["app"] = "web";
  *r.add_pods() = bound;
  *r.add_pods() = Pod("p", "1", "1Gi");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.existing_nodes_size(), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.ignored_pods(), 1);
  EXPECT_TRUE(Verify(r, resp).empty());

  // Once terminal, the capacity is free.
  r.mutable_pods(0)->mutable_status()->set_phase("Succeeded");
  auto freed = MustSchedule(r);
  ASSERT_EQ(freed.existing_nodes_size(), 1);
  EXPECT_EQ(freed.existing_nodes(0).name(), "n1");

  // Topology: a pod with required anti-affinity to app=web may join the
  // terminating pod's node, as it may not join a running one.
  r.mutable_pods(0)->mutable_status()->set_phase("Running");
  (*r.mutable_pods(0)
        ->mutable_spec()
        ->mutable_containers(0)
        ->mutable_resources()
        ->mutable_requests())["cpu"] = "100m";
  *r.mutable_pods(1) = Pod("p", "1", "1Gi", R"pb(spec { affinity {
      pod_anti_affinity { required_during_scheduling_ignored_during_execution {
        topology_key: "kubernetes.io/hostname"
        label_selector { match_labels { key: "app" value: "web" } } } } } })pb");
  auto spread = MustSchedule(r);
  ASSERT_EQ(spread.existing_nodes_size(), 1);
  EXPECT_EQ(spread.existing_nodes(0).name(), "n1");
  EXPECT_TRUE(Verify(r, spread).empty());
  r.mutable_pods(0)->mutable_metadata()->clear_deletion_timestamp();
  auto blocked = MustSchedule(r);
  EXPECT_EQ(blocked.existing_nodes_size(), 0);
  EXPECT_EQ(blocked.new_node_claims_size(), 1);
}

// Karpenter's IsOwnedByDaemonSet compares apiVersion and kind: a pending pod
// whose owner is kind DaemonSet without apiVersion apps/v1 is provisioned
// like any other (it was ignored here while disruption counted it as
// reschedulable; found by fuzz_disrupt_request).
TEST(Schedule, DaemonSetOwnershipNeedsTheAppsV1ApiVersion) {
  auto r = Request();
  v1::Pod pod = Pod("agent", "1", "1Gi");
  v1::OwnerReference* owner = pod.mutable_metadata()->add_owner_references();
  owner->set_kind("DaemonSet");
  owner->set_name("agent");
  *r.add_pods() = pod;
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.ignored_pods(), 0);
  EXPECT_TRUE(Verify(r, resp).empty());
  r.mutable_pods(0)
      ->mutable_metadata()
      ->mutable_owner_references(0)
      ->set_api_version("apps/v1");
  auto ignored = MustSchedule(r);
  EXPECT_EQ(ignored.new_node_claims_size(), 0);
  EXPECT_EQ(ignored.ignored_pods(), 1);
}

TEST(Schedule, InFlightNodeClaimsHoldPods) {
  auto r = Request();
  *r.add_node_claims() =
      Parse<v1::NodeClaim>(R"pb(metadata { name: "default-abcde"
      labels { key: "karpenter.sh/nodepool" value: "default" }
      labels { key: "node.kubernetes.io/instance-type" value: "fake-it-3" }
      labels { key: "topology.kubernetes.io/zone" value: "test-zone-2" } })pb");
  *r.add_pods() = Pod("p", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.existing_nodes_size(), 1);
  EXPECT_EQ(resp.existing_nodes(0).name(), "default-abcde");
  EXPECT_EQ(resp.existing_nodes(0).kind(), "NodeClaim");
}

TEST(Schedule, HostPortsConflictOnOneNode) {
  auto r = Request();
  const char* port =
      R"pb(spec { containers { name: "c" ports { host_port: 8080 container_port: 80 } } })pb";
  *r.add_pods() = Pod("a", "1", "1Gi", port);
  *r.add_pods() = Pod("b", "1", "1Gi", port);
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 2);
}

TEST(Schedule, InvalidPodsAreReported) {
  auto r = Request();
  *r.add_pods() = Pod(
      "a", "1", "1Gi",
      R"pb(spec { node_selector { key: "kubernetes.io/hostname" value: "x" } })pb");
  auto resp = MustSchedule(r);
  EXPECT_THAT(ReasonFor(resp, "default/a"),
              HasSubstr("kubernetes.io/hostname is not allowed"));
}

TEST(Schedule, BadOptionsAreErrors) {
  auto r = Request();
  r.mutable_options()->set_preference_policy("Sometimes");
  EXPECT_FALSE(Schedule(r).ok());
}

// Pods without metadata.uid tie-break on "<namespace>/<name>" (empty
// namespace: default), not on input order: with room for two of three equal
// pods, default/b and default/z are placed and team/a, first in the input,
// is left over; reversing the input changes nothing.
TEST(Schedule, PodsWithoutUidAreOrderedByNamespaceAndName) {
  v1::ScheduleRequest r = Request(2);
  (*r.mutable_node_pools(0)->mutable_spec()->mutable_limits())["cpu"] = "2";
  for (auto [ns, name] : {std::pair<const char*, const char*>{"team", "a"},
                          {"", "z"},
                          {"default", "b"}}) {
    v1::Pod p = Pod(name, "900m", "256Mi");
    p.mutable_metadata()->clear_uid();
    p.mutable_metadata()->set_namespace_(ns);
    *r.add_pods() = p;
  }
  for (bool reverse : {false, true}) {
    v1::ScheduleRequest in = r;
    if (reverse) {
      in.clear_pods();
      for (int i = r.pods_size() - 1; i >= 0; --i) *in.add_pods() = r.pods(i);
    }
    auto resp = MustSchedule(in);
    ASSERT_EQ(resp.new_node_claims_size(), 1);
    EXPECT_THAT(resp.new_node_claims(0).pods(),
                UnorderedElementsAre("default/b", "default/z"));
    ASSERT_EQ(resp.unschedulable_size(), 1);
    EXPECT_EQ(resp.unschedulable(0).pod(), "team/a");
  }
}

TEST(Schedule, SameRequestSameBytesAndInputOrderDoesNotMatter) {
  auto r = Request();
  for (int i = 0; i < 30; ++i) {
    std::string extra = i % 3 == 0
                            ? R"pb(metadata { labels { key: "app" value: "s" } }
        spec { topology_spread_constraints { max_skew: 1 topology_key: "topology.kubernetes.io/zone"
          when_unsatisfiable: "DoNotSchedule" label_selector { match_labels { key: "app" value: "s" } } } })pb"
                            : "";
    *r.add_pods() = Pod(absl::StrCat("p", i),
                        absl::StrCat(100 * (i % 4 + 1), "m"), "256Mi", extra);
  }
  auto a = MustSchedule(r);
  auto b = MustSchedule(r);
  EXPECT_EQ(Bytes(a), Bytes(b));
  v1::ScheduleRequest reversed = r;
  reversed.clear_pods();
  for (int i = r.pods_size() - 1; i >= 0; --i) *reversed.add_pods() = r.pods(i);
  auto c = MustSchedule(reversed);
  EXPECT_EQ(Bytes(a), Bytes(c));
}

TEST(Snapshot, CompileOnceScheduleMany) {
  auto base = Request();
  auto snap = Snapshot::Compile(base);
  ASSERT_TRUE(snap.ok()) << snap.status();
  v1::ScheduleRequest state;
  *state.add_pods() = Pod("a", "1", "1Gi");
  auto one = (*snap)->Schedule(state);
  ASSERT_TRUE(one.ok()) << one.status();
  auto r = base;
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto direct = Schedule(r);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(Bytes(*one), Bytes(*direct));
  EXPECT_FALSE((*snap)->Schedule(base).ok());
  EXPECT_FALSE(Snapshot::Compile(r).ok());
}

}  // namespace
}  // namespace nodeplan::testing
