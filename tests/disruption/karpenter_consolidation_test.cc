// More deterministic outcomes of Karpenter's consolidation suite
// (pkg/controllers/disruption/consolidation_test.go) beside those in
// karpenter_suite_test.cc: budgets across NodePools and passes, the
// consolidateAfter window of destinations, node lifetime, invalid and static
// NodePools, and the emptiness validation's churn check. Multi-pass
// scenarios mark the nodes a command took (`markedForDeletion`, pods still
// bound) and run the next pass, as Karpenter's queue leaves the cluster.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nodeplan::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The suite's BeforeEach NodePool: on-demand only (see OnDemandOnly),
// consolidateAfter 0s and a 100% budget.
v1::NodePool& SuitePool(Cluster& c, const std::string& name,
                        const std::string& budget = "100%") {
  v1::NodePool& np = OnDemandOnly(c.NodePool(name));
  np.mutable_spec()->mutable_disruption()->set_consolidate_after("0s");
  np.mutable_spec()->mutable_disruption()->clear_budgets();
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes(budget);
  return np;
}

// The Delete context's two cheapest nodes: n0 with two pods, n1 with one.
void TwoCheapNodes(Cluster& c, const std::string& pool = "default") {
  c.Node("n0", pool, {.type = "size-1"});
  c.Node("n1", pool, {.type = "size-1"});
  c.Pod("a", "n0", "100m");
  c.Pod("b", "n0", "100m");
  c.Pod("c", "n1", "100m");
}

int CommandNodes(const v1::DisruptResponse& r) {
  int n = 0;
  for (const v1::DisruptionCommand& c : r.commands()) n += c.candidates_size();
  return n;
}

// Context "Budgets", "should allow 2 nodes from each nodePool to be
// deleted" (50% of 3 rounds up to 2), "should allow all nodes from each
// nodePool to be deleted" (100%) and "should allow no nodes from each
// nodePool to be deleted" (0%): ten NodePools of three empty nodes, one
// command.
TEST(KarpenterConsolidationBudgetsTest, EmptyNodesPerNodePoolBudget) {
  for (const auto& [budget, want] : std::vector<std::pair<std::string, int>>{
           {"50%", 20}, {"100%", 30}, {"0%", 0}}) {
    Cluster c;
    for (int p = 0; p < 10; ++p) {
      const std::string pool = absl::StrCat("pool-", p);
      SuitePool(c, pool, budget);
      for (int n = 0; n < 3; ++n) {
        c.Node(absl::StrCat(pool, "-n", n), pool, {.type = "size-16"});
      }
    }
    v1::DisruptResponse r = c.Disrupt();
    EXPECT_EQ(r.commands_size(), want > 0 ? 1 : 0) << budget;
    EXPECT_EQ(CommandNodes(r), want) << budget;
    if (want > 0) {
      EXPECT_EQ(r.method(), "emptiness") << budget;
    }
  }
}

// "should only allow 3 empty nodes to be disrupted", "should allow all empty
// nodes to be disrupted" and "should allow no empty nodes to be disrupted":
// ten empty nodes of one NodePool under 30%, 100% and 0%.
TEST(KarpenterConsolidationBudgetsTest, EmptyNodesOfOneNodePool) {
  for (const auto& [budget, want] : std::vector<std::pair<std::string, int>>{
           {"30%", 3}, {"100%", 10}, {"0%", 0}}) {
    Cluster c;
    SuitePool(c, "default", budget);
    for (int n = 0; n < 10; ++n) {
      c.Node(absl::StrCat("n", n), "default", {.type = "size-16"});
    }
    EXPECT_EQ(CommandNodes(c.Disrupt()), want) << budget;
  }
}

// "should only allow 3 nodes to be deleted in single node consolidation
// delete": ten nodes with one pod each and room for one more; under a 30%
// budget, however many passes run, three nodes go.
TEST(KarpenterConsolidationBudgetsTest, ThreeOfTenDeletedUnderThirtyPercent) {
  Cluster c;
  SuitePool(c, "default", "30%");
  for (int n = 0; n < 10; ++n) {
    const std::string node = absl::StrCat("n", n);
    c.Node(node, "default", {.type = "size-16"});
    c.Pod(absl::StrCat("p", n), node, "7");
  }
  int taken = 0;
  for (const v1::DisruptionCommand& cmd : PassesUntilQuiet(c)) {
    taken += cmd.candidates_size();
  }
  EXPECT_EQ(taken, 3);
}

// Context "Delete", "should not consolidate pods onto a destination node
// that is under its consolidateAfter window": the only way to consolidate is
// to move n1's pod onto n0, which saw a pod event within consolidateAfter and
// refuses pods that are not pending; once the window has passed, n1 goes.
TEST(KarpenterConsolidationTest, NoMoveOntoADestinationUnderConsolidateAfter) {
  Cluster c;
  SuitePool(c, "default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("1m");
  TwoCheapNodes(c);
  c.ClaimOf("n0").mutable_status()->set_last_pod_event_time(
      "2026-12-02T09:59:30Z");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
  c.request().set_now("2026-12-02T10:02:00Z");
  r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
}

// CSI volume limits hold in consolidation's simulations: each pod mounts a
// claim of its own, and with CSINodes allowing two volumes per node neither
// node can take the other's pods (the delete of n1 would put three claims on
// n0). Without the CSINodes n1 is deleted as above.
TEST(KarpenterConsolidationTest, VolumeLimitsKeepPodsOffAFullNode) {
  for (bool limited : {false, true}) {
    Cluster c;
    SuitePool(c, "default");
    TwoCheapNodes(c);
    v1::StorageClass* sc = c.request().add_storage_classes();
    sc->mutable_metadata()->set_name("gp3");
    sc->set_provisioner("ebs.csi.aws.com");
    sc->set_volume_binding_mode("WaitForFirstConsumer");
    for (v1::Pod& p : *c.request().mutable_pods()) {
      const std::string claim = p.metadata().name() + "-data";
      v1::PersistentVolumeClaim* pvc =
          c.request().add_persistent_volume_claims();
      pvc->mutable_metadata()->set_name(claim);
      pvc->mutable_metadata()->set_namespace_("default");
      pvc->mutable_spec()->set_storage_class_name("gp3");
      v1::Volume* v = p.mutable_spec()->add_volumes();
      v->set_name("data");
      v->mutable_persistent_volume_claim()->set_claim_name(claim);
    }
    if (limited) {
      for (const char* node : {"n0", "n1"}) {
        v1::CSINode* csi = c.request().add_csi_nodes();
        csi->mutable_metadata()->set_name(node);
        v1::CSINodeDriver* d = csi->mutable_spec()->add_drivers();
        d->set_name("ebs.csi.aws.com");
        d->mutable_allocatable()->set_count(2);
      }
    }
    v1::DisruptResponse r = c.Disrupt();
    if (!limited) {
      ASSERT_EQ(r.commands_size(), 1);
      EXPECT_EQ(r.commands(0).decision(), "delete");
      EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
      continue;
    }
    for (const v1::DisruptionCommand& cmd : r.commands())
      EXPECT_NE(cmd.decision(), "delete") << r.method();
  }
}

// "should replace a node with a cheaper one even when consolidateAfter has
// not expired": a replacement is a new NodeClaim, which no window gates.
TEST(KarpenterConsolidationTest, ReplacesWhateverTheDestinationWindows) {
  Cluster c;
  SuitePool(c, "default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("1m");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "replace");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("big"));
  ASSERT_EQ(r.commands(0).replacements_size(), 1);
}

// Context "Node Lifetime Consideration", "should consolidate the node with
// best savings ratio first": two cheapest nodes (expireAfter 3s, long
// expired: the expiration controller is another controller, and the pass
// still sees both), two pods on the older, one on the younger; the younger
// has the better savings ratio and goes.
TEST(KarpenterConsolidationTest, BestSavingsRatioFirstWhateverTheLifetime) {
  Cluster c;
  SuitePool(c, "default")
      .mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->set_expire_after("3s");
  c.Node("older", "default",
         {.type = "size-1", .created = "2026-12-02T08:59:58Z"});
  c.Node("younger", "default", {.type = "size-1"});
  for (const char* n : {"older", "younger"}) {
    c.ClaimOf(n).mutable_spec()->set_expire_after("3s");
  }
  c.Pod("a", "older", "100m");
  c.Pod("b", "older", "100m");
  c.Pod("c", "younger", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.expirations_size(), 2);
  EXPECT_EQ(r.expirations(0).action(), "delete");
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("younger"));
}

// "can delete nodes while an invalid node pool exists": a NodePool whose
// NodeClass offers no instance types does not stop the others.
TEST(KarpenterConsolidationTest, AnInvalidNodePoolDoesNotStopDisruption) {
  Cluster c;
  v1::NodePool& bad = c.NodePool("bad-nodepool");
  bad.mutable_spec()->mutable_template_()->mutable_spec()->clear_requirements();
  bad.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_node_class_ref()
      ->set_name("non-existent");
  SuitePool(c, "default");
  TwoCheapNodes(c);
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
}

// Context "Static NodePool", "should not consolidate static NodePool nodes":
// even NodeClaims that (against the rules) say Consolidatable stay.
TEST(KarpenterConsolidationTest, StaticNodePoolNodesAreNotConsolidated) {
  Cluster c;
  v1::NodePool& np = c.NodePool("static");
  np.mutable_spec()->set_replicas(2);
  for (const char* n : {"s0", "s1"}) {
    c.Node(n, "static");
    v1::Condition* cond = c.ClaimOf(n).mutable_status()->add_conditions();
    cond->set_type("Consolidatable");
    cond->set_status("True");
    cond->set_last_transition_time(kHourAgo);
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
}

// "does not delete nodes with pod churn, deletes nodes without pod churn":
// an emptiness command over two empty nodes, re-validated after a pod was
// bound to the first, goes ahead with the second alone.
TEST(KarpenterConsolidationTest, EmptinessValidationDropsANodeWithNewPods) {
  Cluster c;
  SuitePool(c, "default");
  c.Node("n0", "default", {.type = "size-1"});
  c.Node("n1", "default", {.type = "size-1"});
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n0", "n1"));
  v1::ValidateCommandRequest v;
  *v.mutable_command() = r.commands(0);
  c.request().set_now("2026-12-02T10:00:15Z");
  c.Pod("churn", "n0", "100m")
      .mutable_status()
      ->set_start_time("2026-12-02T10:00:10Z");
  c.ClaimOf("n0").mutable_status()->set_last_pod_event_time(
      "2026-12-02T10:00:10Z");
  *v.mutable_request() = c.request();
  absl::StatusOr<v1::ValidateCommandResponse> got =
      nodeplan::ValidateCommand(v);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->valid()) << got->reason();
  EXPECT_THAT(CandidateNodes(got->command()), ElementsAre("n1"));
  EXPECT_THAT(got->command().replacements(), IsEmpty());
}

// Context "Multi-NodeClaim", "can merge 3 nodes into 1 if the candidates have
// both spot and on-demand" (the suite runs with spot-to-spot on): two
// on-demand and one spot node of the dearest type, a pod each, become one
// cheaper NodeClaim.
TEST(KarpenterConsolidationTest, MergesSpotAndOnDemandNodesIntoOne) {
  Cluster c;
  c.request().mutable_options()->set_spot_to_spot_consolidation(true);
  v1::NodePool& np = c.NodePool("default");
  np.mutable_spec()->mutable_disruption()->set_consolidate_after("0s");
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("100%");
  c.Node("od0", "default", {.type = "size-16"});
  c.Node("od1", "default", {.type = "size-16"});
  c.Node("spot", "default", {.type = "size-16", .capacity_type = "spot"});
  c.Pod("a", "od0", "1");
  c.Pod("b", "od1", "1");
  c.Pod("c", "spot", "1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "multi-node-consolidation");
  EXPECT_EQ(r.commands(0).decision(), "replace");
  EXPECT_EQ(r.commands(0).candidates_size(), 3);
  EXPECT_EQ(r.commands(0).replacements_size(), 1);
}

// Context "Replace", "can replace nodes, considers PDB policy": a fully
// blocking PDB (maxUnavailable 0) with unhealthyPodEvictionPolicy
// AlwaysAllow does not hold pods that are not Ready; the node is replaced.
TEST(KarpenterConsolidationTest, AlwaysAllowLetsUnhealthyPodsMove) {
  Cluster c;
  SuitePool(c, "default");
  c.Node("big", "default", {.type = "size-16"});
  for (int i = 0; i < 3; ++i) {
    v1::PodCondition* ready = c.Pod(absl::StrCat("p", i), "big", "1")
                                  .mutable_status()
                                  ->add_conditions();
    ready->set_type("Ready");
    ready->set_status("False");
  }
  v1::PodDisruptionBudget& pdb = c.Pdb("pdb", "test", 0);
  pdb.mutable_spec()->set_max_unavailable("0");
  pdb.mutable_spec()->set_unhealthy_pod_eviction_policy("AlwaysAllow");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "replace");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("big"));
}

// "can replace nodes, PDB namespace must match": a blocking PDB in another
// namespace does not select the pod.
TEST(KarpenterConsolidationTest, APdbOfAnotherNamespaceDoesNotHold) {
  Cluster c;
  SuitePool(c, "default");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "1");
  v1::PodDisruptionBudget& pdb = c.Pdb("pdb", "test", 0);
  pdb.mutable_spec()->set_max_unavailable("0");
  pdb.mutable_metadata()->set_namespace_("elsewhere");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "replace");
}

// "Consolidation should fail if filterByPrice breaks the minimum requirement
// from the NodePools": instance-type minValues 16 while only 15 types are
// cheaper than the node's; with minValues 15 the node is replaced.
TEST(KarpenterConsolidationTest, NoReplaceWhenTheCheaperTypesMissMinValues) {
  for (int min_values : {16, 15}) {
    Cluster c;
    std::vector<int> sizes;
    for (int i = 1; i <= 20; ++i) sizes.push_back(i);
    *c.request().mutable_catalog() = SizedCatalog(sizes);
    v1::NodePool& np = SuitePool(c, "default");
    v1::NodeSelectorRequirement* it = np.mutable_spec()
                                          ->mutable_template_()
                                          ->mutable_spec()
                                          ->add_requirements();
    it->set_key("node.kubernetes.io/instance-type");
    it->set_operator_("Exists");
    it->set_min_values(min_values);
    c.Node("n16", "default", {.type = "size-16"});
    c.Pod("p", "n16", "100m");
    v1::DisruptResponse r = c.Disrupt();
    EXPECT_EQ(r.commands_size(), min_values == 16 ? 0 : 1) << min_values;
  }
}

// Context "Reserved Capacity", "can consolidate from one reserved offering to
// another": a reserved node of the dearest type moves to the cheapest type's
// (cheaper still) reservation.
TEST(KarpenterConsolidationTest, MovesFromOneReservationToACheaperOne) {
  Cluster c;
  v1::NodePool& np = SuitePool(c, "default");
  AllowReserved(np);
  for (v1::InstanceType& t :
       *c.request().mutable_catalog()->mutable_instance_types()) {
    const int cpu = t.name() == "size-16" ? 16 : t.name() == "size-1" ? 1 : 0;
    if (cpu == 0) continue;
    v1::Offering* o = t.add_offerings();
    o->set_zone("test-zone-1");
    o->set_capacity_type("reserved");
    o->set_price(FakePrice(cpu, 2 * cpu) / 1e6);
    o->set_reservation_id(absl::StrCat("r-", t.name()));
    o->set_reservation_capacity(10);
  }
  c.Node("n1", "default", {.type = "size-16", .capacity_type = "reserved"});
  (*c.ClaimOf("n1")
        .mutable_metadata()
        ->mutable_labels())["karpenter.k8s.aws/capacity-reservation-id"] =
      "r-size-16";
  (*c.request()
        .mutable_nodes(0)
        ->mutable_metadata()
        ->mutable_labels())["karpenter.k8s.aws/capacity-reservation-id"] =
      "r-size-16";
  c.Pod("p", "n1", "100m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.decision(), "replace");
  ASSERT_EQ(cmd.replacements_size(), 1);
  EXPECT_EQ(cmd.replacements(0).launch().instance_type(), "size-1");
  EXPECT_EQ(cmd.replacements(0).launch().capacity_type(), "reserved");
  EXPECT_EQ(cmd.replacements(0).launch().reservation_id(), "r-size-1");
}

// suite_test.go, Describe "Simulate Scheduling", "can replace node with a
// local PV (ignoring hostname affinity)": the volume's node affinity to the
// node's own hostname does not keep its StatefulSet pod from a replacement.
TEST(KarpenterConsolidationTest, ReplacesANodeWithALocalVolume) {
  // Karpenter validates the claims of pending pods only: a moved pod whose
  // claim lacks the bind-completed annotation still reschedules.
  for (bool annotated : {true, false}) {
    Cluster c;
    SuitePool(c, "default");
    c.Node("n1", "default", {.type = "size-16"});
    v1::StorageClass& sc = *c.request().add_storage_classes();
    sc.mutable_metadata()->set_name("local-path");
    sc.set_provisioner("kubernetes.io/no-provisioner");
    v1::PersistentVolume& pv = *c.request().add_persistent_volumes();
    pv.mutable_metadata()->set_name("pv");
    pv.mutable_spec()->set_storage_class_name("local-path");
    pv.mutable_spec()->mutable_local()->set_path("/mnt/local-disks");
    v1::NodeSelectorRequirement* host = pv.mutable_spec()
                                            ->mutable_node_affinity()
                                            ->mutable_required()
                                            ->add_node_selector_terms()
                                            ->add_match_expressions();
    host->set_key("kubernetes.io/hostname");
    host->set_operator_("In");
    host->add_values("n1");
    v1::PersistentVolumeClaim& pvc =
        *c.request().add_persistent_volume_claims();
    pvc.mutable_metadata()->set_name("pvc");
    pvc.mutable_metadata()->set_namespace_("default");
    pvc.mutable_spec()->set_storage_class_name("local-path");
    pvc.mutable_spec()->set_volume_name("pv");
    if (annotated) {
      (*pvc.mutable_metadata()
            ->mutable_annotations())["pv.kubernetes.io/bind-completed"] = "yes";
    }
    v1::Pod& p = c.Pod("ss-0", "n1", "100m");
    v1::OwnerReference* o = p.mutable_metadata()->mutable_owner_references(0);
    o->set_kind("StatefulSet");
    o->set_name("ss");
    v1::Volume* vol = p.mutable_spec()->add_volumes();
    vol->set_name("data");
    vol->mutable_persistent_volume_claim()->set_claim_name("pvc");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.commands_size(), 1) << annotated;
    EXPECT_EQ(r.commands(0).decision(), "replace") << annotated;
    EXPECT_EQ(r.commands(0).replacements_size(), 1) << annotated;
  }
}

// Context "Parallelization", "should not consolidate a node that is launched
// for pods on a deleting node": five 1-cpu pods got a new node while the old
// one was being deleted; two are bound to it and three still pending, no
// longer nominated. Consolidation counts the pending pods too, so the new
// node (just big enough for all five) is neither deleted nor replaced.
TEST(KarpenterConsolidationTest, KeepsANodeLaunchedForPodsOfADeletingNode) {
  Cluster c;
  SuitePool(c, "default");
  c.Node("old", "default", {.type = "size-8"});
  c.request().add_marked_for_deletion("old");
  c.Node("new", "default", {.type = "size-8", .created = kNow});
  c.Pod("p0", "new", "1");
  c.Pod("p1", "new", "1");
  for (const char* p : {"p2", "p3", "p4"}) c.Pod(p, "", "1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
}

// Context "TTL" (the real validator): a command re-validated after the wait
// against the cluster as it then is, through ValidateCommand. The wait's
// timing is not modelled; its outcome is.
v1::ValidateCommandResponse ValidateLater(
    const v1::DisruptionCommand& cmd, Cluster& later,
    const std::string& when = "2026-12-02T10:00:15Z") {
  later.request().set_now(when);
  v1::ValidateCommandRequest v;
  *v.mutable_command() = cmd;
  *v.mutable_request() = later.request();
  absl::StatusOr<v1::ValidateCommandResponse> got =
      nodeplan::ValidateCommand(v);
  EXPECT_TRUE(got.ok()) << got.status();
  return got.value_or(v1::ValidateCommandResponse());
}

// A pod that lands on the candidate during the wait: with do-not-disrupt,
// or selected by a blocking PDB (maxUnavailable 0).
void LandProtectedPod(Cluster& c, const std::string& node,
                      const std::string& name, bool pdb) {
  v1::Pod& p = c.Pod(name, node, "100m");
  if (pdb) {
    (*p.mutable_metadata()->mutable_labels())["app"] = "protected";
    c.Pdb("pdb-" + name, "protected", 0)
        .mutable_spec()
        ->set_max_unavailable("0");
  } else {
    (*p.mutable_metadata()
          ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = "true";
  }
}

// "should not replace node if a pod schedules with karpenter.sh/do-not-disrupt
// set to true during the TTL wait" and "... with a blocking PDB during the
// TTL wait".
TEST(KarpenterValidationTest, AProtectedPodArrivingDuringTheWaitStopsAReplace) {
  for (bool pdb : {false, true}) {
    Cluster c;
    SuitePool(c, "default");
    c.Node("big", "default", {.type = "size-16"});
    c.Pod("p", "big", "100m");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.commands_size(), 1) << pdb;
    ASSERT_EQ(r.commands(0).decision(), "replace") << pdb;
    Cluster later = c;
    LandProtectedPod(later, "big", "late", pdb);
    v1::ValidateCommandResponse got = ValidateLater(r.commands(0), later);
    EXPECT_FALSE(got.valid()) << pdb;
    EXPECT_EQ(got.reason(), "1 candidates are no longer valid") << pdb;
  }
}

// "should not delete node if pods schedule with karpenter.sh/do-not-disrupt
// set to true during the TTL wait" and "... with a blocking PDB during the
// TTL wait": two expensive nodes with a pod each merge by deleting one;
// protected pods land on both.
TEST(KarpenterValidationTest, ProtectedPodsArrivingDuringTheWaitStopADelete) {
  for (bool pdb : {false, true}) {
    Cluster c;
    SuitePool(c, "default");
    c.Node("n0", "default", {.type = "size-16"});
    c.Node("n1", "default", {.type = "size-16"});
    c.Pod("p0", "n0", "100m");
    c.Pod("p1", "n1", "100m");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.commands_size(), 1) << pdb;
    Cluster later = c;
    LandProtectedPod(later, "n0", "late0", pdb);
    LandProtectedPod(later, "n1", "late1", pdb);
    v1::ValidateCommandResponse got = ValidateLater(r.commands(0), later);
    EXPECT_FALSE(got.valid()) << pdb << " " << r.commands(0).decision();
    EXPECT_THAT(got.reason(), ::testing::HasSubstr("no longer valid")) << pdb;
  }
}

// "should not consolidate if the action picks different instance types after
// the node TTL wait": a second pod on the replaced node changes what the
// replacement could be.
TEST(KarpenterValidationTest, ANewPodThatChangesTheReplacementStopsIt) {
  Cluster c;
  SuitePool(c, "default");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  ASSERT_EQ(r.commands(0).decision(), "replace");
  Cluster later = c;
  later.Pod("p2", "big", "1");
  v1::ValidateCommandResponse got = ValidateLater(r.commands(0), later);
  EXPECT_FALSE(got.valid());
  EXPECT_EQ(got.reason(), "scheduling simulation produced new results");
}

// "should not consolidate if the action becomes invalid during the node TTL
// wait": an empty node's emptiness command, after a do-not-disrupt pod bound
// to it, has nothing left to delete.
TEST(KarpenterValidationTest, AnEmptyNodeThatGetsAProtectedPodStays) {
  Cluster c;
  SuitePool(c, "default");
  c.Node("n0", "default", {.type = "size-16"});
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  ASSERT_EQ(r.method(), "emptiness");
  Cluster later = c;
  LandProtectedPod(later, "n0", "late", /*pdb=*/false);
  v1::ValidateCommandResponse got = ValidateLater(r.commands(0), later);
  EXPECT_FALSE(got.valid());
  EXPECT_EQ(got.reason(), "1 candidates are no longer valid");
}

}  // namespace
}  // namespace nodeplan::testing
