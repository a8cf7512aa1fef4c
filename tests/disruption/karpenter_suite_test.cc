// Deterministic outcomes of Karpenter's disruption suites
// (pkg/controllers/disruption: suite_test.go, emptiness_test.go,
// consolidation_test.go, drift_test.go, staticdrift_test.go,
// singlenodeconsolidation_test.go), restated on nodeplan's fixture. Each test
// names the behaviour Karpenter asserts; scenarios that depend on the
// 15-second validation wait, the orchestration queue, metrics or timeouts are
// not translated. Karpenter's fake provider prices spot like on-demand; the
// fixture's catalog prices spot at 70%, so tests that need "nothing cheaper
// exists" pin the NodePool to on-demand and use the smallest type.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nodeplan::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr char kDoNotDisrupt[] = "karpenter.sh/do-not-disrupt";

void Annotate(v1::ObjectMeta* m, const std::string& key,
              const std::string& value) {
  (*m->mutable_annotations())[key] = value;
}

void OwnedBy(v1::Pod& p, const std::string& api_version,
             const std::string& kind, const std::string& name) {
  v1::OwnerReference* o = p.mutable_metadata()->mutable_owner_references(0);
  o->set_api_version(api_version);
  o->set_kind(kind);
  o->set_name(name);
}

// Only on-demand capacity: the fixture's spot offerings are cheaper than
// on-demand, which Karpenter's fake provider's are not.
v1::NodePool& OnDemandPool(Cluster& c, const std::string& name) {
  return OnDemandOnly(c.NodePool(name));
}

void SetBudget(v1::NodePool& np, const std::string& nodes) {
  np.mutable_spec()->mutable_disruption()->clear_budgets();
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes(nodes);
}

// Spot-to-spot on, and size-1 to size-20: enough types for its fifteen
// cheaper options.
void SpotToSpotWithTwentySizes(Cluster& c) {
  c.request().mutable_options()->set_spot_to_spot_consolidation(true);
  std::vector<int> sizes;
  for (int i = 1; i <= 20; ++i) sizes.push_back(i);
  *c.request().mutable_catalog() = SizedCatalog(sizes);
}

bool HasEvent(const v1::DisruptResponse& r, const std::string& substr) {
  for (const v1::DisruptionEvent& e : r.events()) {
    if (e.message().find(substr) != std::string::npos) return true;
  }
  return false;
}

const v1::BudgetAllowance* Budget(const v1::DisruptResponse& r,
                                  const std::string& pool,
                                  const std::string& reason) {
  for (const v1::BudgetAllowance& b : r.budgets()) {
    if (b.node_pool() == pool && b.reason() == reason) return &b;
  }
  return nullptr;
}

const v1::MethodEligibility* MethodOf(const v1::NodeCandidacy& c,
                                      const std::string& method) {
  for (const v1::MethodEligibility& m : c.methods()) {
    if (m.method() == method) return &m;
  }
  return nullptr;
}

// Karpenter's suites build PDBs with maxUnavailable 0 and no controller
// filling their status: zero disruptions allowed and "fully blocking".
v1::PodDisruptionBudget& BlockingPdb(Cluster& c, const std::string& app) {
  v1::PodDisruptionBudget& b = c.Pdb("pdb", app, 0);
  b.mutable_spec()->set_max_unavailable("0");
  return b;
}

// ---------------------------------------------------------------------------
// Candidate filtering (suite_test.go, "Candidate Filtering").

TEST(KarpenterCandidateFilteringTest, DoNotDisruptMirrorPodBlocks) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& p = c.Pod("mirror", "n1", "100m");
  OwnedBy(p, "v1", "Node", "n1");
  Annotate(p.mutable_metadata(), kDoNotDisrupt, "true");
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_FALSE(n1->graceful().eligible());
  EXPECT_EQ(n1->graceful().message(),
            "Pod has \"karpenter.sh/do-not-disrupt\" annotation "
            "(Pod=default/mirror)");
  EXPECT_EQ(r.commands_size(), 0);
}

TEST(KarpenterCandidateFilteringTest, DoNotDisruptDaemonSetPodBlocks) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& p = c.Pod("ds", "n1", "100m");
  OwnedBy(p, "apps/v1", "DaemonSet", "ds");
  Annotate(p.mutable_metadata(), kDoNotDisrupt, "true");
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_FALSE(n1->graceful().eligible());
  EXPECT_EQ(n1->graceful().message(),
            "Pod has \"karpenter.sh/do-not-disrupt\" annotation "
            "(Pod=default/ds)");
  // Even though a DaemonSet pod alone leaves the node empty, it is not
  // removed.
  EXPECT_EQ(r.commands_size(), 0);
}

// A NodeClaim terminationGracePeriod lets eventual disruption (drift) through
// a do-not-disrupt pod or a blocking PDB, never graceful disruption; without
// one, neither class passes.
TEST(KarpenterCandidateFilteringTest,
     TerminationGracePeriodOpensOnlyTheEventualClass) {
  for (bool pdb : {false, true}) {
    for (bool grace : {false, true}) {
      Cluster c;
      c.NodePool("default");
      c.Node("n1", "default");
      v1::Pod& p = c.Pod("p", "n1");
      if (pdb) {
        BlockingPdb(c, "test");
      } else {
        Annotate(p.mutable_metadata(), kDoNotDisrupt, "true");
      }
      if (grace)
        c.ClaimOf("n1").mutable_spec()->set_termination_grace_period("300s");
      v1::DisruptResponse r = c.Disrupt();
      const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
      ASSERT_NE(n1, nullptr);
      const std::string what = absl::StrCat("pdb=", pdb, " grace=", grace);
      EXPECT_FALSE(n1->graceful().eligible()) << what;
      EXPECT_EQ(n1->eventual().eligible(), grace) << what;
      EXPECT_THAT(
          n1->graceful().message(),
          HasSubstr(pdb ? "Pdb prevents pod evictions" : "do-not-disrupt"))
          << what;
    }
  }
}

TEST(KarpenterCandidateFilteringTest,
     DoNotDisruptOnTerminatingOrTerminalPodsDoesNotBlock) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& going = c.Pod("going", "n1");
  Annotate(going.mutable_metadata(), kDoNotDisrupt, "true");
  going.mutable_metadata()->set_deletion_timestamp("2026-12-02T09:59:00Z");
  for (const char* phase : {"Succeeded", "Failed"}) {
    v1::Pod& done = c.Pod(absl::StrCat("done-", phase), "n1");
    Annotate(done.mutable_metadata(), kDoNotDisrupt, "true");
    done.mutable_status()->set_phase(phase);
  }
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_TRUE(n1->graceful().eligible()) << n1->graceful().message();
  EXPECT_TRUE(n1->eventual().eligible()) << n1->eventual().message();
}

TEST(KarpenterCandidateFilteringTest, BlockingPdbOnADaemonSetPodBlocks) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& p = c.Pod("ds", "n1", "100m");
  OwnedBy(p, "apps/v1", "DaemonSet", "ds");
  BlockingPdb(c, "test");
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->graceful().message(),
            "Pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])");
  EXPECT_EQ(r.commands_size(), 0);
}

TEST(KarpenterCandidateFilteringTest,
     BlockingPdbOnMirrorTerminalOrTerminatingPodsDoesNotBlock) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  OwnedBy(c.Pod("mirror", "n1", "100m"), "v1", "Node", "n1");
  c.Pod("succeeded", "n1").mutable_status()->set_phase("Succeeded");
  c.Pod("failed", "n1").mutable_status()->set_phase("Failed");
  c.Pod("going", "n1")
      .mutable_metadata()
      ->set_deletion_timestamp("2026-12-02T09:59:00Z");
  BlockingPdb(c, "test");
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_TRUE(n1->graceful().eligible()) << n1->graceful().message();
}

TEST(KarpenterCandidateFilteringTest, ANodeWithoutNodeClaimIsNotManaged) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.request().clear_node_claims();
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_FALSE(n1->graceful().eligible());
  EXPECT_EQ(n1->graceful().message(), "Node isn't managed by karpenter");
  EXPECT_EQ(r.commands_size(), 0);
}

TEST(KarpenterCandidateFilteringTest, ANodeClaimWithoutNodeIsNoCandidate) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.request().clear_nodes();
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.candidates_size(), 1);
  EXPECT_FALSE(r.candidates(0).graceful().eligible());
  EXPECT_EQ(r.candidates(0).graceful().message(),
            "Nodeclaim does not have an associated node");
  EXPECT_EQ(r.commands_size(), 0);
}

TEST(KarpenterCandidateFilteringTest, NominatedNodesAreNoCandidates) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.request().add_nominated("n1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(Candidacy(r, "n1")->graceful().message(),
            "Node is nominated for a pending pod");
  EXPECT_EQ(r.commands_size(), 0);
}

TEST(KarpenterCandidateFilteringTest, NoNodePoolLabelOrUnknownNodePool) {
  {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default");
    c.ClaimOf("n1").mutable_metadata()->mutable_labels()->erase(
        "karpenter.sh/nodepool");
    c.request().mutable_nodes(0)->mutable_metadata()->mutable_labels()->erase(
        "karpenter.sh/nodepool");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_NE(Candidacy(r, "n1"), nullptr);
    EXPECT_EQ(Candidacy(r, "n1")->graceful().message(),
              "Node doesn't have required label "
              "(label=karpenter.sh/nodepool)");
  }
  {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "gone");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_NE(Candidacy(r, "n1"), nullptr);
    EXPECT_EQ(Candidacy(r, "n1")->graceful().message(),
              "NodePool not found (NodePool=gone)");
    EXPECT_EQ(r.commands_size(), 0);
  }
}

// A node without the capacity-type, zone or instance-type label, or whose
// instance type the catalog no longer has, is still a candidate; only
// consolidation skips it (with an Unconsolidatable event).
TEST(KarpenterCandidateFilteringTest,
     MissingLabelsOrAnUnresolvableTypeStillMakeACandidate) {
  struct Case {
    const char* label;  // removed from Node and NodeClaim; "" = unknown type
    const char* message;
  } cases[] = {
      {"karpenter.sh/capacity-type",
       "Node does not have label \"karpenter.sh/capacity-type\""},
      {"topology.kubernetes.io/zone",
       "Node does not have label \"topology.kubernetes.io/zone\""},
      {"node.kubernetes.io/instance-type", "Instance Type \"\" not found"},
      {"", "Instance Type \"size-4\" not found"},
  };
  for (const Case& k : cases) {
    Cluster c;
    // As in Karpenter's suite, a NodePool without requirements: a missing
    // capacity-type label would otherwise drift the NodeClaim.
    c.NodePool("default")
        .mutable_spec()
        ->mutable_template_()
        ->mutable_spec()
        ->clear_requirements();
    c.Node("n1", "default");
    c.Pod("p", "n1");
    if (std::string(k.label).empty()) {
      *c.request().mutable_catalog() = SizedCatalog({1, 2, 8, 16});
    } else {
      c.ClaimOf("n1").mutable_metadata()->mutable_labels()->erase(k.label);
      c.request().mutable_nodes(0)->mutable_metadata()->mutable_labels()->erase(
          k.label);
    }
    v1::DisruptResponse r = c.Disrupt();
    const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
    ASSERT_NE(n1, nullptr) << k.label;
    EXPECT_TRUE(n1->graceful().eligible())
        << k.label << ": " << n1->graceful().message();
    const v1::MethodEligibility* single =
        MethodOf(*n1, "single-node-consolidation");
    ASSERT_NE(single, nullptr);
    EXPECT_FALSE(single->eligible()) << k.label;
    EXPECT_EQ(single->message(), k.message) << k.label;
    EXPECT_EQ(r.method(), "") << k.label;
    EXPECT_TRUE(HasEvent(r, k.message)) << k.label;
  }
}

// ---------------------------------------------------------------------------
// Budget counting (suite_test.go, BuildDisruptionBudgetMapping): ten managed
// initialized nodes and a 100% budget.

Cluster TenNodes(const std::string& budget) {
  Cluster c;
  SetBudget(c.NodePool("default"), budget);
  for (int i = 0; i < 10; ++i) {
    c.Node(absl::StrCat("n", i), "default");
    c.Pod(absl::StrCat("p", i), absl::StrCat("n", i), "100m");
  }
  return c;
}

void ExpectAllowed(const v1::DisruptResponse& r, int allowed) {
  for (const char* reason : {"Empty", "Drifted", "Underutilized"}) {
    const v1::BudgetAllowance* b = Budget(r, "default", reason);
    ASSERT_NE(b, nullptr) << reason;
    EXPECT_EQ(b->allowed(), allowed) << reason;
  }
}

TEST(KarpenterBudgetCountTest, UnmanagedNodesAreNotCounted) {
  Cluster c = TenNodes("100%");
  v1::Node& unmanaged = *c.request().add_nodes();
  unmanaged.set_api_version("v1");
  unmanaged.set_kind("Node");
  unmanaged.mutable_metadata()->set_name("unmanaged");
  (*unmanaged.mutable_status()->mutable_capacity())["cpu"] = "4";
  ExpectAllowed(c.Disrupt(), 10);
}

TEST(KarpenterBudgetCountTest, UninitializedNodesAreNotCounted) {
  Cluster c = TenNodes("100%");
  c.Node("young", "default", {.initialized = false});
  ExpectAllowed(c.Disrupt(), 10);
}

TEST(KarpenterBudgetCountTest, InstanceTerminatingNodesAreNotCounted) {
  Cluster c = TenNodes("100%");
  c.Node("ending", "default");
  v1::Condition* t = c.ClaimOf("ending").mutable_status()->add_conditions();
  t->set_type("InstanceTerminating");
  t->set_status("True");
  t->set_last_transition_time(kHourAgo);
  ExpectAllowed(c.Disrupt(), 10);
}

TEST(KarpenterBudgetCountTest, NeverNegative) {
  Cluster c = TenNodes("10%");
  for (v1::NodeClaim& nc : *c.request().mutable_node_claims()) {
    nc.mutable_metadata()->set_deletion_timestamp(kHourAgo);
  }
  for (v1::Node& n : *c.request().mutable_nodes()) {
    n.mutable_metadata()->set_deletion_timestamp(kHourAgo);
  }
  ExpectAllowed(c.Disrupt(), 0);
}

TEST(KarpenterBudgetCountTest, DeletingAndMarkedNodesConsumeTheBudget) {
  Cluster c = TenNodes("100%");
  c.ClaimOf("n0").mutable_metadata()->set_deletion_timestamp(kHourAgo);
  c.request().mutable_nodes(0)->mutable_metadata()->set_deletion_timestamp(
      kHourAgo);
  c.request().add_marked_for_deletion("n1");
  ExpectAllowed(c.Disrupt(), 8);
}

TEST(KarpenterBudgetCountTest, NotReadyNodesConsumeTheBudget) {
  Cluster c = TenNodes("100%");
  for (int i : {0, 1}) {
    c.request()
        .mutable_nodes(i)
        ->mutable_status()
        ->mutable_conditions(0)
        ->set_status("False");
  }
  ExpectAllowed(c.Disrupt(), 8);
}

// ---------------------------------------------------------------------------
// Emptiness (emptiness_test.go).

// Three NodePools of three empty nodes, each with a 50% budget: 1.5 rounds up
// to 2, so one emptiness command takes two nodes of every NodePool.
TEST(KarpenterEmptinessTest, PercentageBudgetsRoundUpPerNodePool) {
  Cluster c;
  for (const char* pool : {"a", "b", "c"}) {
    SetBudget(c.NodePool(pool), "50%");
    for (int i = 0; i < 3; ++i) c.Node(absl::StrCat(pool, i), pool);
  }
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
  EXPECT_EQ(r.commands(0).candidates_size(), 6);
  for (const char* pool : {"a", "b", "c"}) {
    int n = 0;
    for (const v1::CommandCandidate& k : r.commands(0).candidates()) {
      n += k.node_pool() == pool;
    }
    EXPECT_EQ(n, 2) << pool;
    EXPECT_EQ(Budget(r, pool, "Empty")->allowed(), 2) << pool;
  }
}

TEST(KarpenterEmptinessTest, AnEmptyDriftedNodeGoesByEmptiness) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  (*c.request().mutable_provider_drifted())["n1-claim"] = "AMIDrifted";
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
  EXPECT_EQ(r.commands(0).reason(), "Empty");
}

TEST(KarpenterEmptinessTest, DoNotDisruptFalseOnTheNodeDoesNotBlock) {
  Cluster c;
  c.NodePool("default");
  Annotate(c.Node("n1", "default").mutable_metadata(), kDoNotDisrupt, "false");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
}

// A pod already terminating leaves its node empty, unless a StatefulSet owns
// it (its replacement keeps the same identity and waits for it).
TEST(KarpenterEmptinessTest, TerminatingPodsAreGoneUnlessOfAStatefulSet) {
  for (bool stateful : {false, true}) {
    Cluster c;
    OnDemandPool(c, "default");
    c.Node("n1", "default", {.type = "size-1"});
    for (int i = 0; i < 2; ++i) {
      v1::Pod& p = c.Pod(absl::StrCat("p", i), "n1", "100m");
      p.mutable_metadata()->set_deletion_timestamp("2026-12-02T09:59:00Z");
      if (stateful) OwnedBy(p, "apps/v1", "StatefulSet", "ss");
    }
    v1::DisruptResponse r = c.Disrupt();
    if (stateful) {
      EXPECT_NE(r.method(), "emptiness");
      const v1::MethodEligibility* e =
          MethodOf(*Candidacy(r, "n1"), "emptiness");
      ASSERT_NE(e, nullptr);
      EXPECT_EQ(e->message(), "Node is not empty");
    } else {
      ASSERT_EQ(r.commands_size(), 1);
      EXPECT_EQ(r.method(), "emptiness");
    }
  }
}

// Consolidation simulates the pending pods too: a pending pod that only the
// candidate's capacity could hold keeps the candidate from being shrunk.
TEST(KarpenterEmptinessTest, PendingPodsAreConsideredWhenConsolidating) {
  for (bool pending : {false, true}) {
    Cluster c;
    OnDemandPool(c, "default");
    c.Node("big", "default", {.type = "size-16"});
    c.Pod("bound", "big", "1");
    if (pending) c.Pod("huge", "", "14");
    v1::DisruptResponse r = c.Disrupt();
    if (pending) {
      EXPECT_EQ(r.commands_size(), 0) << r.method();
    } else {
      ASSERT_EQ(r.commands_size(), 1);
      EXPECT_EQ(r.commands(0).decision(), "replace");
    }
  }
}

// ---------------------------------------------------------------------------
// Consolidation (consolidation_test.go).

// Retypes a fixture node (built as size-4) to `type` in `zone`.
void Retype(Cluster& c, const std::string& node, const std::string& type,
            const std::string& zone) {
  for (v1::ObjectMeta* m :
       {c.ClaimOf(node).mutable_metadata(), [&]() -> v1::ObjectMeta* {
          for (v1::Node& n : *c.request().mutable_nodes()) {
            if (n.metadata().name() == node) return n.mutable_metadata();
          }
          return nullptr;
        }()}) {
    (*m->mutable_labels())["node.kubernetes.io/instance-type"] = type;
    (*m->mutable_labels())["topology.kubernetes.io/zone"] = zone;
  }
}

v1::InstanceType FakeType(const std::string& name) {
  v1::InstanceType t;
  t.set_name(name);
  (*t.mutable_labels())["kubernetes.io/arch"] = "amd64";
  (*t.mutable_labels())["kubernetes.io/os"] = "linux";
  (*t.mutable_capacity())["cpu"] = "4";
  (*t.mutable_capacity())["memory"] = "4Gi";
  (*t.mutable_capacity())["pods"] = "5";
  return t;
}

void AddOffering(v1::InstanceType& t, const std::string& capacity_type,
                 const std::string& zone, double price, bool available = true) {
  v1::Offering* o = t.add_offerings();
  o->set_capacity_type(capacity_type);
  o->set_zone(zone);
  o->set_price(price);
  if (!available) o->set_available(false);
}

// The replacement must be cheaper at its worst launch price: a spot type
// offered at 0.2, 0.4 and 1.0 does not replace a 0.5 on-demand node.
TEST(KarpenterConsolidationTest, NoReplaceWhenAnySpotLaunchIsMoreExpensive) {
  Cluster c;
  c.NodePool("default");
  v1::Catalog& cat = *c.request().mutable_catalog();
  cat.clear_instance_types();
  v1::InstanceType current = FakeType("current-on-demand");
  AddOffering(current, "on-demand", "test-zone-1a", 0.5, false);
  v1::InstanceType spot = FakeType("potential-spot-replacement");
  AddOffering(spot, "spot", "test-zone-1a", 1.0);
  AddOffering(spot, "spot", "test-zone-1b", 0.2);
  AddOffering(spot, "spot", "test-zone-1c", 0.4);
  *cat.add_instance_types() = current;
  *cat.add_instance_types() = spot;
  c.Node("n1", "default");
  Retype(c, "n1", "current-on-demand", "test-zone-1a");
  c.Pod("p", "n1", "100m");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.DebugString();
}

TEST(KarpenterConsolidationTest, NoReplaceWhenOnDemandIsMoreExpensive) {
  Cluster c;
  OnDemandPool(c, "default");
  v1::Catalog& cat = *c.request().mutable_catalog();
  cat.clear_instance_types();
  v1::InstanceType current = FakeType("current-on-demand");
  AddOffering(current, "on-demand", "test-zone-1a", 0.5, false);
  v1::InstanceType next = FakeType("on-demand-replacement");
  AddOffering(next, "on-demand", "test-zone-1a", 0.6);
  AddOffering(next, "on-demand", "test-zone-1b", 0.6);
  AddOffering(next, "spot", "test-zone-1b", 0.2);
  AddOffering(next, "spot", "test-zone-1c", 0.3);
  *cat.add_instance_types() = current;
  *cat.add_instance_types() = next;
  c.Node("n1", "default");
  Retype(c, "n1", "current-on-demand", "test-zone-1a");
  c.Pod("p", "n1", "100m");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.DebugString();
}

// Two nodes of the cheapest type: merging both into one new node of that same
// type is filtered out; deleting the node with fewer pods (the better savings
// ratio) is the command.
TEST(KarpenterConsolidationTest, DeletesTheNodeWithFewerPodsNotASameTypeMerge) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  c.Pod("a", "n0", "100m");
  c.Pod("b", "n0", "100m");
  c.Pod("c", "n1", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
  EXPECT_THAT(r.commands(0).replacements(), IsEmpty());
}

TEST(KarpenterConsolidationTest, MergesThreeNodesIntoOne) {
  for (bool spot : {false, true}) {
    Cluster c;
    SpotToSpotWithTwentySizes(c);
    SetBudget(c.NodePool("default"), "100%");
    for (int i = 0; i < 3; ++i) {
      const std::string n = absl::StrCat("n", i);
      c.Node(n, "default",
             {.type = "size-20", .capacity_type = spot ? "spot" : "on-demand"});
      c.Pod(absl::StrCat("p", i), n, "100m");
    }
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.commands_size(), 1) << spot;
    EXPECT_EQ(r.method(), "multi-node-consolidation") << spot;
    EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n0", "n1", "n2"))
        << spot;
    ASSERT_EQ(r.commands(0).replacements_size(), 1) << spot;
    EXPECT_EQ(r.commands(0).replacements(0).launch().capacity_type(), "spot")
        << spot;
  }
}

TEST(KarpenterConsolidationTest, PodsWithoutAnOwnerAreEvicted) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  c.Pod("a", "n0", "100m");
  c.Pod("b", "n0", "100m");
  c.Pod("bare", "n1", "100m").mutable_metadata()->clear_owner_references();
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
  EXPECT_THAT(r.commands(0).candidates(0).pods(), ElementsAre("default/bare"));
}

// The pod with a blocking PDB keeps its node; the other node goes even though
// it has more pods.
TEST(KarpenterConsolidationTest, DeleteConsidersPdbs) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  for (const char* p : {"a", "b"}) {
    (*c.Pod(p, "n0", "100m").mutable_metadata()->mutable_labels())["app"] =
        "other";
  }
  c.Pod("guarded", "n1", "100m");
  BlockingPdb(c, "test");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n0"));
}

TEST(KarpenterConsolidationTest, DoNotDisruptOnANodeOrPodKeepsIt) {
  for (bool on_pod : {false, true}) {
    Cluster c;
    SetBudget(OnDemandPool(c, "default"), "100%");
    v1::Node& n0 = c.Node("n0", "default", {.type = "size-1"});
    c.Node("n1", "default", {.type = "size-1"});
    if (!on_pod) Annotate(n0.mutable_metadata(), kDoNotDisrupt, "true");
    c.Pod("a", "n0", "100m");
    v1::Pod& pinned = c.Pod("b", "n1", "100m");
    c.Pod("c", "n1", "100m");
    if (on_pod) Annotate(pinned.mutable_metadata(), kDoNotDisrupt, "true");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.commands_size(), 1) << on_pod;
    EXPECT_THAT(CandidateNodes(r.commands(0)),
                ElementsAre(on_pod ? "n0" : "n1"))
        << on_pod;
  }
}

TEST(KarpenterConsolidationTest, DurationDoNotDisruptBlocksUntilItExpires) {
  for (const char* started : {"2026-12-02T09:59:00Z", "2026-12-02T09:00:00Z"}) {
    Cluster c;
    SetBudget(OnDemandPool(c, "default"), "100%");
    c.Node("n0", "default", {.type = "size-1"});
    c.Node("n1", "default", {.type = "size-1"});
    c.Pod("a", "n0", "100m");
    c.Pod("b", "n0", "100m");
    v1::Pod& p = c.Pod("c", "n1", "100m");
    Annotate(p.mutable_metadata(), kDoNotDisrupt, "5m");
    // The duration runs from the pod's start: started an hour ago it has
    // expired, a minute ago it has not.
    p.mutable_status()->set_start_time(started);
    v1::DisruptResponse r = c.Disrupt();
    const bool active = std::string(started) == "2026-12-02T09:59:00Z";
    EXPECT_EQ(Candidacy(r, "n1")->graceful().eligible(), !active) << started;
    ASSERT_EQ(r.commands_size(), 1) << started;
    EXPECT_THAT(CandidateNodes(r.commands(0)),
                ElementsAre(active ? "n0" : "n1"))
        << started;
  }
}

TEST(KarpenterConsolidationTest, NoDeleteOntoAnUninitializedNode) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("young", "default", {.type = "size-1", .initialized = false});
  c.Node("old", "default", {.type = "size-1"});
  c.Pod("a", "young", "100m");
  c.Pod("b", "young", "100m");
  c.Pod("c", "old", "100m");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
  EXPECT_TRUE(HasEvent(r, "would schedule against uninitialized nodeclaim"));
}

TEST(KarpenterConsolidationTest,
     ADestinationWithConsolidateAfterNeverTakesPods) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  v1::NodePool& never = OnDemandPool(c, "never");
  never.mutable_spec()->mutable_disruption()->set_consolidate_after("Never");
  c.Node("keep", "never", {.type = "size-1"});
  c.Node("go", "default", {.type = "size-1"});
  c.Pod("a", "keep", "100m");
  c.Pod("b", "go", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("go"));
  ASSERT_EQ(r.commands(0).existing_nodes_size(), 1);
  EXPECT_EQ(r.commands(0).existing_nodes(0).name(), "keep");
}

// A pending pod that fits nowhere before the move does not block it.
TEST(KarpenterConsolidationTest, APermanentlyPendingPodDoesNotBlockDeletion) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  c.Pod("a", "n0", "100m");
  c.Pod("b", "n0", "100m");
  c.Pod("c", "n1", "100m");
  (*c.Pod("pending", "", "100m")
        .mutable_spec()
        ->mutable_node_selector())["non-existent"] = "node-label";
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
}

TEST(KarpenterConsolidationTest, NoDeleteThatWouldLeaveABoundPodPending) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  (*c.request().mutable_nodes(0)->mutable_metadata()->mutable_labels())["foo"] =
      "1";
  (*c.request().mutable_nodes(1)->mutable_metadata()->mutable_labels())["foo"] =
      "2";
  for (const char* p : {"a", "b"}) {
    (*c.Pod(p, "n0", "100m").mutable_spec()->mutable_node_selector())["foo"] =
        "1";
  }
  (*c.Pod("c", "n1", "100m").mutable_spec()->mutable_node_selector())["foo"] =
      "2";
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
}

// With the feature gate on and at least fifteen cheaper spot types, a spot
// node is replaced by spot, its options cut to the fifteen cheapest.
TEST(KarpenterSpotToSpotTest, ReplacesWithTheFifteenCheapestSpotOptions) {
  Cluster c;
  SpotToSpotWithTwentySizes(c);
  c.NodePool("default");
  c.Node("spot", "default", {.type = "size-20", .capacity_type = "spot"});
  c.Pod("p", "spot", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.DebugString();
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.decision(), "replace");
  ASSERT_EQ(cmd.replacements_size(), 1);
  EXPECT_EQ(cmd.replacements(0).instance_types_size(), 15);
  EXPECT_EQ(cmd.replacements(0).instance_types(0), "size-1");
  EXPECT_EQ(cmd.replacements(0).instance_types(14), "size-15");
  EXPECT_EQ(cmd.replacements(0).launch().capacity_type(), "spot");
}

// A spot node that is itself among the cheapest types has fewer than fifteen
// cheaper options and stays.
TEST(KarpenterSpotToSpotTest, ASpotNodeAmongTheCheapestStays) {
  Cluster c;
  SpotToSpotWithTwentySizes(c);
  c.NodePool("default");
  c.Node("spot", "default", {.type = "size-2", .capacity_type = "spot"});
  c.Pod("p", "spot", "100m");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  EXPECT_TRUE(HasEvent(r, "requires 15 cheaper instance type options"));
}

// ---------------------------------------------------------------------------
// Drift (drift_test.go).

void Drift(Cluster& c, const std::string& node, const std::string& since = "") {
  ProviderDrift(c, node);
  if (since.empty()) return;
  v1::Condition* d = c.ClaimOf(node).mutable_status()->add_conditions();
  d->set_type("Drifted");
  d->set_status("True");
  d->set_reason("AMIDrifted");
  d->set_last_transition_time(since);
}

TEST(KarpenterDriftTest, PercentageBudgetAllowsThreeOfTen) {
  Cluster c = TenNodes("30%");
  for (int i = 0; i < 10; ++i) Drift(c, absl::StrCat("n", i));
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(Budget(r, "default", "Drifted")->allowed(), 3);
  ASSERT_GE(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
}

TEST(KarpenterDriftTest, SkipsADriftedNodeWhosePodsCannotReschedule) {
  Cluster c;
  c.NodePool("default");
  c.Node("stuck", "default", {.created = "2026-12-02T08:00:00Z"});
  (*c.request().mutable_nodes(0)->mutable_metadata()->mutable_labels())["foo"] =
      "1";
  (*c.Pod("pinned", "stuck", "1")
        .mutable_spec()
        ->mutable_node_selector())["foo"] = "1";
  Drift(c, "stuck", "2026-12-02T08:00:00Z");
  c.Node("free", "default");
  c.Pod("p", "free", "1");
  Drift(c, "free", "2026-12-02T09:30:00Z");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("free"));
}

TEST(KarpenterDriftTest, DoNotDisruptOnTheNodeBlocksDriftButFalseDoesNot) {
  for (const char* value : {"true", "false"}) {
    Cluster c;
    c.NodePool("default");
    Annotate(c.Node("n1", "default").mutable_metadata(), kDoNotDisrupt, value);
    c.Pod("p", "n1", "1");
    Drift(c, "n1");
    v1::DisruptResponse r = c.Disrupt();
    const bool blocked = std::string(value) == "true";
    EXPECT_EQ(Candidacy(r, "n1")->eventual().eligible(), !blocked) << value;
    EXPECT_EQ(r.method(), blocked ? "" : "drift") << value;
  }
}

// Eventual disruption admits the node (terminationGracePeriod), but a pod
// that a PDB keeps from eviction gets no replacement capacity.
TEST(KarpenterDriftTest, NoReplacementForPdbBlockedPodsUnderAGracePeriod) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.ClaimOf("n1").mutable_spec()->set_termination_grace_period("300s");
  c.Pod("p", "n1", "1");
  BlockingPdb(c, "test");
  Drift(c, "n1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_TRUE(Candidacy(r, "n1")->eventual().eligible());
  for (const v1::DisruptionCommand& cmd : r.commands()) {
    EXPECT_THAT(cmd.replacements(), IsEmpty()) << cmd.method();
  }
}

TEST(KarpenterDriftTest, EmptyDriftedNodesGoBeforeNonEmptyOnes) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("Never");
  c.Node("busy", "default");
  c.Pod("p", "busy", "1");
  Drift(c, "busy", "2026-12-02T08:00:00Z");
  c.Node("empty", "default");
  Drift(c, "empty", "2026-12-02T09:30:00Z");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("empty"));
}

TEST(KarpenterDriftTest, OneNonEmptyNodeAtATimeEarliestDriftFirst) {
  Cluster c;
  c.NodePool("default");
  c.Node("a", "default", {.type = "size-16"});
  c.Pod("pa", "a", "15");
  Drift(c, "a", "2026-12-02T09:50:00Z");
  c.Node("b", "default", {.type = "size-16"});
  c.Pod("pb", "b", "15");
  Drift(c, "b", "2026-12-02T09:00:00Z");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).decision(), "replace");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("b"));
}

TEST(KarpenterDriftTest, NoDriftedConditionNoDrift) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.Pod("p", "n1", "1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_NE(r.method(), "drift");
  const v1::MethodEligibility* d = MethodOf(*Candidacy(r, "n1"), "drift");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->message(), "NodeClaim is not drifted");
}

// ---------------------------------------------------------------------------
// Static drift (staticdrift_test.go).

TEST(KarpenterStaticDriftTest, ADriftedBudgetOfTwoReplacesTwoOfFive) {
  Cluster c;
  v1::NodePool& np = c.NodePool("static");
  np.mutable_spec()->set_replicas(5);
  v1::Budget* b = np.mutable_spec()->mutable_disruption()->add_budgets();
  b->set_nodes("2");
  b->add_reasons("Drifted");
  for (int i = 0; i < 5; ++i) {
    c.Node(absl::StrCat("s", i), "static");
    Drift(c, absl::StrCat("s", i));
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.method(), "static-drift");
  EXPECT_EQ(Budget(r, "static", "Drifted")->allowed(), 2);
  ASSERT_EQ(r.commands_size(), 2);
  for (const v1::DisruptionCommand& cmd : r.commands()) {
    EXPECT_EQ(cmd.candidates_size(), 1);
    EXPECT_EQ(cmd.replacements_size(), 1);
  }
}

TEST(KarpenterStaticDriftTest, APercentageBudgetRoundsUp) {
  Cluster c;
  v1::NodePool& np = c.NodePool("static");
  np.mutable_spec()->set_replicas(5);
  v1::Budget* b = np.mutable_spec()->mutable_disruption()->add_budgets();
  b->set_nodes("50%");
  b->add_reasons("Drifted");
  for (int i = 0; i < 5; ++i) {
    c.Node(absl::StrCat("s", i), "static");
    Drift(c, absl::StrCat("s", i));
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(Budget(r, "static", "Drifted")->allowed(), 3);
  EXPECT_EQ(r.commands_size(), 3);
}

TEST(KarpenterStaticDriftTest, DoNotDisruptNodesAreSkipped) {
  Cluster c;
  c.NodePool("static").mutable_spec()->set_replicas(2);
  Annotate(c.Node("s0", "static").mutable_metadata(), kDoNotDisrupt, "true");
  c.Node("s1", "static");
  Drift(c, "s0");
  Drift(c, "s1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("s1"));
}

// ---------------------------------------------------------------------------
// Eviction cost (suite_test.go, "Pod Eviction Cost") through the candidates'
// disruption cost, and the single-node ordering it drives.

double CostWith(const std::string& deletion_cost, int priority) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& p = c.Pod("p", "n1", "100m");
  if (!deletion_cost.empty()) {
    Annotate(p.mutable_metadata(), "controller.kubernetes.io/pod-deletion-cost",
             deletion_cost);
  }
  if (priority != 0) p.mutable_spec()->set_priority(priority);
  v1::DisruptResponse r = c.Disrupt();
  return Candidacy(r, "n1")->disruption_cost();
}

TEST(KarpenterEvictionCostTest, DeletionCostAndPriorityOrderTheCost) {
  const double standard = CostWith("", 0);
  EXPECT_DOUBLE_EQ(standard, 2.0);  // 1 + one pod at cost 1
  EXPECT_GT(CostWith("100", 0), standard);
  EXPECT_LT(CostWith("-100", 0), standard);
  EXPECT_GT(CostWith("101", 0), CostWith("100", 0));
  EXPECT_GT(CostWith("100", 0), CostWith("99", 0));
  EXPECT_GT(CostWith("", 1), standard);
  EXPECT_LT(CostWith("", -1), standard);
}

// Single-node consolidation visits candidates by savings ratio (price over
// disruption cost): of two equal nodes, the one whose pod is cheaper to
// disrupt goes.
TEST(KarpenterSingleNodeTest, SortsCandidatesBySavingsRatio) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "1");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  Annotate(c.Pod("a", "n0", "100m").mutable_metadata(),
           "controller.kubernetes.io/pod-deletion-cost", "1000000000");
  c.Pod("b", "n1", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
  EXPECT_GT(Candidacy(r, "n0")->disruption_cost(),
            Candidacy(r, "n1")->disruption_cost());
}

// ---------------------------------------------------------------------------
// Expiration: forceful, whatever the budgets and do-not-disrupt say.

TEST(KarpenterExpirationTest, ExpiryIgnoresBudgetsAndDoNotDisrupt) {
  Cluster c;
  SetBudget(c.NodePool("default"), "0");
  Annotate(c.Node("n1", "default", {.created = "2026-12-01T09:00:00Z"})
               .mutable_metadata(),
           kDoNotDisrupt, "true");
  c.ClaimOf("n1").mutable_spec()->set_expire_after("24h");
  Annotate(c.Pod("p", "n1").mutable_metadata(), kDoNotDisrupt, "true");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.expirations_size(), 1);
  EXPECT_EQ(r.expirations(0).action(), "delete");
  EXPECT_EQ(r.expirations(0).expires_at(), "2026-12-02T09:00:00Z");
  EXPECT_EQ(r.commands_size(), 0);
}

TEST(KarpenterExpirationTest, NeverExpires) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.created = "2020-01-01T00:00:00Z"});
  c.ClaimOf("n1").mutable_spec()->set_expire_after("Never");
  v1::DisruptResponse r = c.Disrupt();
  for (const v1::Expiration& e : r.expirations()) {
    EXPECT_NE(e.action(), "delete");
  }
}

// ---------------------------------------------------------------------------
// More of consolidation_test.go: budgets, topology, initialization order,
// reserved capacity; and drift into several NodeClaims.

// Ten expensive nodes whose pods all fit on one: the budget (30% = 3) caps
// the multi-node delete at three nodes.
TEST(KarpenterConsolidationTest, MultiNodeDeleteStopsAtTheBudget) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "30%");
  for (int i = 0; i < 10; ++i) {
    c.Node(absl::StrCat("n", i), "default", {.type = "size-16"});
    c.Pod(absl::StrCat("p", i), absl::StrCat("n", i), "100m");
  }
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "multi-node-consolidation");
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_EQ(r.commands(0).candidates_size(), 3);
}

// A zero budget inside its schedule window blocks; outside it, nothing
// blocks. The window's end is the next decision time.
TEST(KarpenterBudgetScheduleTest, AZeroBudgetBlocksOnlyInsideItsWindow) {
  for (const char* schedule : {"0 9 * * *", "0 12 * * *"}) {
    Cluster c;
    v1::Budget* b = c.NodePool("default")
                        .mutable_spec()
                        ->mutable_disruption()
                        ->add_budgets();
    b->set_nodes("0");
    b->set_schedule(schedule);
    b->set_duration("2h");
    c.Node("n1", "default");
    v1::DisruptResponse r = c.Disrupt();
    const bool active = std::string(schedule) == "0 9 * * *";
    EXPECT_EQ(r.commands_size(), active ? 0 : 1) << schedule;
    const v1::BudgetAllowance* e = Budget(r, "default", "Empty");
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->active_size(), 1);
    EXPECT_EQ(e->active(0), active) << schedule;
    if (active) {
      EXPECT_EQ(r.next_decision_at(), "2026-12-02T11:00:00Z");
    }
  }
}

// Three nodes, one per zone, holding a zone-spread workload: the expensive
// one in test-zone-2 is replaced by a cheaper node in test-zone-2.
TEST(KarpenterConsolidationTest, ReplacementKeepsTheZonalSpread) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("z1", "default", {.type = "size-1", .zone = "test-zone-1"});
  c.Node("z2", "default", {.type = "size-16", .zone = "test-zone-2"});
  c.Node("z3", "default", {.type = "size-1", .zone = "test-zone-3"});
  for (const char* n : {"z1", "z2", "z3"}) {
    v1::Pod& p = c.Pod(absl::StrCat("p-", n), n, "500m");
    (*p.mutable_metadata()->mutable_labels())["app"] = "test-zonal-spread";
    v1::TopologySpreadConstraint* t =
        p.mutable_spec()->add_topology_spread_constraints();
    t->set_max_skew(1);
    t->set_topology_key("topology.kubernetes.io/zone");
    t->set_when_unsatisfiable("DoNotSchedule");
    (*t->mutable_label_selector()->mutable_match_labels())["app"] =
        "test-zonal-spread";
  }
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.DebugString();
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.decision(), "replace");
  EXPECT_THAT(CandidateNodes(cmd), ElementsAre("z2"));
  ASSERT_EQ(cmd.replacements_size(), 1);
  EXPECT_EQ(cmd.replacements(0).launch().zone(), "test-zone-2");
  EXPECT_EQ(cmd.replacements(0).launch().instance_type(), "size-1");
}

// The cheapest nodes, one pod each, with hostname anti-affinity: nothing can
// be deleted and nothing is cheaper.
TEST(KarpenterConsolidationTest, NoDeleteThatWouldBreakPodAntiAffinity) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  const char* zones[] = {"test-zone-1", "test-zone-2", "test-zone-3"};
  for (int i = 0; i < 3; ++i) {
    const std::string n = absl::StrCat("n", i);
    c.Node(n, "default", {.type = "size-1", .zone = zones[i]});
    v1::PodAffinityTerm* t =
        c.Pod(absl::StrCat("p", i), n, "100m")
            .mutable_spec()
            ->mutable_affinity()
            ->mutable_pod_anti_affinity()
            ->add_required_during_scheduling_ignored_during_execution();
    t->set_topology_key("kubernetes.io/hostname");
    (*t->mutable_label_selector()->mutable_match_labels())["app"] = "test";
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
}

// Among many uninitialized nodes with room, the moved pod goes to the one
// initialized node, and the delete goes ahead. As in Karpenter's suite, the
// big nodes are of the cheapest type that holds their pod, with room for the
// small node's pod only.
TEST(KarpenterConsolidationTest, InitializedNodesAreConsideredFirst) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  *c.request().mutable_catalog() = SizedCatalog({1, 3});
  for (int i = 0; i < 5; ++i) {
    const std::string n = absl::StrCat("a-uninit", i);
    c.Node(n, "default", {.type = "size-3", .initialized = false});
    c.Pod(absl::StrCat("u", i), n, "2");
  }
  c.Node("m-init", "default", {.type = "size-3"});
  c.Pod("i", "m-init", "2");
  c.Node("z-small", "default", {.type = "size-1"});
  c.Pod("s", "z-small", "1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.method();
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.decision(), "delete");
  EXPECT_THAT(CandidateNodes(cmd), ElementsAre("z-small"));
  ASSERT_EQ(cmd.existing_nodes_size(), 1);
  EXPECT_EQ(cmd.existing_nodes(0).name(), "m-init");
  EXPECT_FALSE(HasEvent(r, "would schedule against uninitialized nodeclaim"));
}

// A reserved offering of the node's own type, far cheaper, is a valid
// replacement for an on-demand or a spot node (spot-to-spot off: the
// scheduler narrows the replacement to reserved capacity first).
TEST(KarpenterReservedCapacityTest, ConsolidatesIntoReservedOfTheSameType) {
  for (const char* from : {"on-demand", "spot"}) {
    Cluster c;
    v1::NodePool& np = c.NodePool("default");
    AllowReserved(np);
    v1::Catalog& cat = *c.request().mutable_catalog();
    for (v1::InstanceType& t : *cat.mutable_instance_types()) {
      if (t.name() != "size-16") continue;
      v1::Offering* o = t.add_offerings();
      o->set_zone("test-zone-1");
      o->set_capacity_type("reserved");
      o->set_price(FakePrice(16, 32) / 1e6);
      o->set_reservation_id("r-size-16");
      o->set_reservation_capacity(10);
    }
    c.Node("n1", "default", {.type = "size-16", .capacity_type = from});
    c.Pod("p", "n1", "100m");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.commands_size(), 1) << from << r.DebugString();
    const v1::DisruptionCommand& cmd = r.commands(0);
    EXPECT_EQ(cmd.decision(), "replace") << from;
    ASSERT_EQ(cmd.replacements_size(), 1) << from;
    EXPECT_EQ(cmd.replacements(0).launch().instance_type(), "size-16") << from;
    EXPECT_EQ(cmd.replacements(0).launch().capacity_type(), "reserved") << from;
    EXPECT_EQ(cmd.replacements(0).launch().reservation_id(), "r-size-16")
        << from;
  }
}

// A drifted node whose pods need three of the only remaining type gets
// three replacements in one command.
TEST(KarpenterDriftTest, ReplacesADriftedNodeWithSeveralNodes) {
  Cluster c;
  OnDemandPool(c, "default");
  v1::Catalog& cat = *c.request().mutable_catalog();
  cat.clear_instance_types();
  v1::InstanceType current = SizedType(8);
  for (v1::Offering& o : *current.mutable_offerings()) o.set_available(false);
  *cat.add_instance_types() = current;
  *cat.add_instance_types() = SizedType(3);
  c.Node("n1", "default", {.type = "size-8"});
  for (int i = 0; i < 3; ++i) c.Pod(absl::StrCat("p", i), "n1", "2");
  Drift(c, "n1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).replacements_size(), 3);
  for (const v1::NewNodeClaim& n : r.commands(0).replacements()) {
    EXPECT_EQ(n.launch().instance_type(), "size-3");
  }
}

// Pods fit on a Node Karpenter does not manage: the managed node is deleted.
TEST(KarpenterConsolidationTest, NonKarpenterCapacityTakesThePods) {
  Cluster c;
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("managed", "default", {.type = "size-1"});
  for (int i = 0; i < 3; ++i) c.Pod(absl::StrCat("p", i), "managed", "100m");
  v1::Node& u = *c.request().add_nodes();
  u.set_api_version("v1");
  u.set_kind("Node");
  u.mutable_metadata()->set_name("unmanaged");
  (*u.mutable_metadata()->mutable_labels())["kubernetes.io/hostname"] =
      "unmanaged";
  (*u.mutable_metadata()->mutable_labels())["kubernetes.io/arch"] = "amd64";
  (*u.mutable_metadata()->mutable_labels())["kubernetes.io/os"] = "linux";
  u.mutable_spec()->set_provider_id("test://unmanaged");
  auto& cap = *u.mutable_status()->mutable_capacity();
  cap["cpu"] = "32";
  cap["memory"] = "64Gi";
  cap["pods"] = "100";
  *u.mutable_status()->mutable_allocatable() = cap;
  v1::NodeCondition* ready = u.mutable_status()->add_conditions();
  ready->set_type("Ready");
  ready->set_status("True");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.DebugString();
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("managed"));
  ASSERT_EQ(r.commands(0).existing_nodes_size(), 1);
  EXPECT_EQ(r.commands(0).existing_nodes(0).name(), "unmanaged");
}

// Unconsolidatable events carry Karpenter's words, on the Node and on its
// NodeClaim; an empty node under the default policy raises none.
TEST(KarpenterConsolidationEventsTest, DisabledConsolidationIsExplained) {
  struct Case {
    const char* policy;
    const char* consolidate_after;
    bool pod;
    const char* message;  // "" = no Unconsolidatable event
  } cases[] = {
      {"WhenEmptyOrUnderutilized", "0s", false, ""},
      {"WhenEmpty", "1m", true,
       "NodePool \"default\" has consolidation policy WhenEmpty, but node is "
       "not empty"},
      {"WhenEmptyOrUnderutilized", "Never", true,
       "NodePool \"default\" has consolidation disabled"},
  };
  for (const Case& k : cases) {
    Cluster c;
    v1::Disruption* d =
        c.NodePool("default").mutable_spec()->mutable_disruption();
    d->set_consolidation_policy(k.policy);
    d->set_consolidate_after(k.consolidate_after);
    c.Node("n1", "default", {.type = "size-16"});
    if (k.pod) c.Pod("p", "n1");
    v1::DisruptResponse r = c.Disrupt();
    std::vector<std::string> kinds;
    for (const v1::DisruptionEvent& e : r.events()) {
      if (e.reason() != "Unconsolidatable") continue;
      EXPECT_EQ(e.message(), k.message) << k.policy << " " << e.kind();
      kinds.push_back(e.kind());
    }
    if (std::string(k.message).empty()) {
      EXPECT_THAT(kinds, IsEmpty()) << k.policy;
    } else {
      EXPECT_THAT(kinds, UnorderedElementsAre("Node", "NodeClaim"))
          << k.policy << " " << k.consolidate_after;
    }
  }
}

// minValues above fifteen on the instance type widens spot-to-spot's cut:
// the replacement keeps the sixteen cheapest options.
TEST(KarpenterSpotToSpotTest, MinValuesAboveFifteenWidensTheCut) {
  Cluster c;
  SpotToSpotWithTwentySizes(c);
  v1::NodeSelectorRequirement* it = c.NodePool("default")
                                        .mutable_spec()
                                        ->mutable_template_()
                                        ->mutable_spec()
                                        ->add_requirements();
  it->set_key("node.kubernetes.io/instance-type");
  it->set_operator_("Exists");
  it->set_min_values(16);
  c.Node("spot", "default", {.type = "size-20", .capacity_type = "spot"});
  c.Pod("p", "spot", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.DebugString();
  ASSERT_EQ(r.commands(0).replacements_size(), 1);
  const v1::NewNodeClaim& rep = r.commands(0).replacements(0);
  ASSERT_EQ(rep.instance_types_size(), 16);
  EXPECT_EQ(rep.instance_types(15), "size-16");
  bool found = false;
  for (const v1::NodeSelectorRequirement& q :
       rep.node_claim().spec().requirements()) {
    if (q.key() != "node.kubernetes.io/instance-type") continue;
    found = true;
    EXPECT_EQ(q.values_size(), 16);
    EXPECT_THAT(q.values(), ::testing::Not(::testing::Contains("size-20")));
  }
  EXPECT_TRUE(found);
}

// Preference policy Ignore: a hostname anti-preference does not keep pods
// apart, so the node with one pod is deleted onto the other.
TEST(KarpenterPreferencesTest, IgnoredAntiPreferencesAllowADelete) {
  Cluster c;
  c.request().mutable_options()->set_preference_policy("Ignore");
  SetBudget(OnDemandPool(c, "default"), "100%");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  int i = 0;
  for (const char* node : {"n0", "n0", "n1"}) {
    v1::Pod& p = c.Pod(absl::StrCat("p", i++), node, "100m");
    (*p.mutable_metadata()->mutable_labels())["app"] = "foo";
    v1::WeightedPodAffinityTerm* w =
        p.mutable_spec()
            ->mutable_affinity()
            ->mutable_pod_anti_affinity()
            ->add_preferred_during_scheduling_ignored_during_execution();
    w->set_weight(1);
    w->mutable_pod_affinity_term()->set_topology_key("kubernetes.io/hostname");
    (*w->mutable_pod_affinity_term()
          ->mutable_label_selector()
          ->mutable_match_labels())["app"] = "foo";
  }
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
}

// Preference policy Ignore: a node preference for the node's own expensive
// type does not keep the replacement on that type.
TEST(KarpenterPreferencesTest, IgnoredNodePreferencesAllowAReplace) {
  Cluster c;
  c.request().mutable_options()->set_preference_policy("Ignore");
  OnDemandPool(c, "default");
  c.Node("n1", "default", {.type = "size-16"});
  v1::PreferredSchedulingTerm* t =
      c.Pod("p", "n1", "100m")
          .mutable_spec()
          ->mutable_affinity()
          ->mutable_node_affinity()
          ->add_preferred_during_scheduling_ignored_during_execution();
  t->set_weight(1);
  v1::NodeSelectorRequirement* q =
      t->mutable_preference()->add_match_expressions();
  q->set_key("node.kubernetes.io/instance-type");
  q->set_operator_("In");
  q->add_values("size-16");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "replace");
  ASSERT_EQ(r.commands(0).replacements_size(), 1);
  EXPECT_THAT(r.commands(0).replacements(0).instance_types(),
              ::testing::Not(::testing::Contains("size-16")));
}

// MinValuesPolicy BestEffort relaxes minValues when provisioning, never to
// consolidate: a pool that cannot meet minValues 3 keeps its node.
TEST(KarpenterMinValuesPolicyTest, BestEffortDoesNotRelaxToConsolidate) {
  Cluster c;
  c.request().mutable_options()->set_min_values_policy("BestEffort");
  *c.request().mutable_catalog() = SizedCatalog({1, 16});
  // On-demand only (a NodePool without a capacity-type requirement): the
  // fixture's cheaper spot size-16 would otherwise count as a second option.
  v1::NodePool& np = OnDemandPool(c, "default");
  SetBudget(np, "100%");
  v1::NodeSelectorRequirement* it = np.mutable_spec()
                                        ->mutable_template_()
                                        ->mutable_spec()
                                        ->add_requirements();
  it->set_key("node.kubernetes.io/instance-type");
  it->set_operator_("In");
  // As in Karpenter's suite, the values name more types than the catalog
  // still offers (the API server requires at least minValues values).
  for (const char* v : {"size-1", "size-2", "size-4", "size-16"}) {
    it->add_values(v);
  }
  it->set_min_values(3);
  c.Node("n1", "default", {.type = "size-16"});
  c.Pod("p", "n1", "100m");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.DebugString();
  int events = 0;
  for (const v1::DisruptionEvent& e : r.events()) {
    if (e.reason() == "Unconsolidatable" &&
        e.message().find("minValues requirement is not met for label(s) "
                         "(label(s)=[node.kubernetes.io/instance-type])") !=
            std::string::npos) {
      ++events;
    }
  }
  EXPECT_EQ(events, 2);
}

}  // namespace
}  // namespace nodeplan::testing
