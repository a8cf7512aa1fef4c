// End-to-end disruption decisions on small clusters, after the scenarios of
// Karpenter's pkg/controllers/disruption suites.

#include <functional>
#include <string>
#include <vector>

#include "fixture.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/limits.h"
#include "nodeplan/verify.h"
#include "validation/workload_checks.h"

namespace nodeplan::testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(EmptinessTest, DeletesAnEmptyConsolidatableNode) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
  EXPECT_EQ(r.commands(0).reason(), "Empty");
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
  EXPECT_NEAR(r.commands(0).savings_per_hour(), FakePrice(4, 8), 1e-9);
}

TEST(EmptinessTest, DaemonSetPodsDoNotMakeANodeNonEmpty) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& ds = c.Pod("ds-n1", "n1", "100m");
  ds.mutable_metadata()->mutable_owner_references(0)->set_kind("DaemonSet");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
}

// Karpenter's Candidate.IsEmpty: no pod with a positive eviction cost. A
// running pod whose priority (or pod-deletion-cost) clamps its cost to 0 or
// less leaves the node empty, and the verifier agrees (it used to report
// the pod as still running; found by fuzz_disrupt_request).
TEST(EmptinessTest, PodsThatCostNothingToEvictLeaveANodeEmpty) {
  for (const int32_t priority : {-2147483647 - 1, -33554432, 0}) {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default");
    c.Pod("low", "n1", "100m").mutable_spec()->set_priority(priority);
    v1::DisruptResponse r = c.Disrupt();
    const bool empty = priority <= -33554432;  // 1 + priority / 2^25 <= 0
    if (empty) {
      EXPECT_EQ(r.method(), "emptiness") << priority;
      ASSERT_EQ(r.commands_size(), 1) << priority;
      EXPECT_EQ(r.commands(0).reason(), "Empty");
    } else {
      EXPECT_NE(r.method(), "emptiness") << priority;
    }
    for (const Violation& v : VerifyDisruption(c.request(), r))
      ADD_FAILURE() << priority << ": " << FormatViolation(v);
  }
}

// Karpenter's StateNode.Deleted(): a managed node is deleting when its
// NodeClaim is (or InstanceTerminating), not when only the Node carries a
// deletionTimestamp; such a node stays a candidate and does not consume the
// budget. The verifier used to refuse it (found by fuzz_disrupt_request).
TEST(EmptinessTest, ANodeDeletingWithoutItsNodeClaimIsStillACandidate) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default")
      .mutable_metadata()
      ->set_deletion_timestamp("2026-12-02T09:00:00Z");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
  EXPECT_TRUE(VerifyDisruption(c.request(), r).empty());
  // With the NodeClaim deleting, the node is no candidate.
  c.ClaimOf("n1").mutable_metadata()->set_deletion_timestamp(
      "2026-12-02T09:00:00Z");
  EXPECT_EQ(c.Disrupt().commands_size(), 0);
}

// Karpenter's StateNode.Labels(): until the Node carries
// karpenter.sh/registered=true, the cluster state reads the NodeClaim's
// labels, so a Node that lost its NodePool label is still that NodePool's
// candidate and counts toward its budget. The verifier used to read the
// Node's labels and refuse the command (found by fuzz_disrupt_request).
TEST(EmptinessTest, AnUnregisteredNodeIsSeenThroughItsNodeClaim) {
  Cluster c;
  c.NodePool("default");
  auto& node_labels =
      *c.Node("n1", "default").mutable_metadata()->mutable_labels();
  node_labels.erase("karpenter.sh/nodepool");
  node_labels["karpenter.sh/registered"] = "aws";
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "emptiness");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("n1"));
  EXPECT_EQ(r.commands(0).candidates(0).node_pool(), "default");
  std::string all;
  for (const Violation& v : VerifyDisruption(c.request(), r))
    all += FormatViolation(v) + "\n";
  EXPECT_EQ(all, "");
  // Registered, the Node's own labels count: without the NodePool label it
  // is no candidate.
  node_labels["karpenter.sh/registered"] = "true";
  EXPECT_EQ(c.Disrupt().commands_size(), 0);
}

TEST(EmptinessTest, TakesTheMostExpensiveFirstWithinBudget) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("2");
  c.Node("small", "default", {.type = "size-2"});
  c.Node("big", "default", {.type = "size-8"});
  c.Node("mid", "default", {.type = "size-4"});
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("big", "mid"));
}

TEST(EmptinessTest, NotReadyNodesConsumeTheBudget) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("2");
  c.Node("a", "default");
  c.Node("b", "default");
  c.Node("sick", "default", {.ready = false});
  c.Pod("p", "sick");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("a"));
  for (const v1::BudgetAllowance& b : r.budgets()) {
    EXPECT_EQ(b.raw(), 2);
    EXPECT_EQ(b.allowed(), 1) << b.reason();
    EXPECT_EQ(b.nodes(), 3);
    EXPECT_EQ(b.disrupting(), 1);
  }
}

TEST(EmptinessTest, DefaultBudgetIsTenPercentRoundedUp) {
  Cluster c;
  c.NodePool("default");
  for (int i = 0; i < 11; ++i) c.Node(absl::StrCat("n", i), "default");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).candidates_size(), 2);
  ASSERT_EQ(r.budgets_size(), 3);
  EXPECT_EQ(r.budgets(0).raw(), 2);
}

TEST(ConsolidateAfterTest, NotYetElapsedKeepsTheNodeAndRequeues) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("30m");
  c.Node("n1", "default", {.created = "2026-12-02T09:50:00Z"});
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  ASSERT_EQ(r.conditions_size(), 1);
  EXPECT_EQ(r.conditions(0).consolidatable().status(), "");
  EXPECT_EQ(r.conditions(0).consolidatable().requeue_after(), "20m0s");
  EXPECT_EQ(r.next_decision_at(), "2026-12-02T10:20:00Z");
}

TEST(ConsolidateAfterTest, ExactlyAtTheBoundaryIsConsolidatable) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("10m");
  c.Node("n1", "default", {.created = "2026-12-02T09:50:00Z"});
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.conditions(0).consolidatable().status(), "True");
}

TEST(ConsolidateAfterTest, LastPodEventRestartsTheWindow) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("10m");
  c.Node("n1", "default");
  c.ClaimOf("n1").mutable_status()->set_last_pod_event_time(
      "2026-12-02T09:55:00Z");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  EXPECT_EQ(r.conditions(0).consolidatable().requeue_after(), "5m0s");
}

TEST(ConsolidateAfterTest, ANodeInsideItsWindowReceivesNoMovedPods) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("30m");
  // "fresh" had a pod event 10 minutes ago: not consolidatable, and not a
  // destination for the pods consolidation moves. "old" can go only with a
  // replacement then.
  c.Node("fresh", "default", {.type = "size-8"});
  c.ClaimOf("fresh").mutable_status()->set_last_pod_event_time(
      "2026-12-02T09:50:00Z");
  c.Pod("f", "fresh", "1");
  c.Node("old", "default", {.type = "size-4"});
  c.Pod("o", "old", "1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.method(), "single-node-consolidation");
  EXPECT_THAT(CandidateNodes(cmd), ElementsAre("old"));
  EXPECT_EQ(cmd.decision(), "replace");
  EXPECT_EQ(cmd.existing_nodes_size(), 0);
}

TEST(ConsolidateAfterTest, NeverDisablesEmptinessAndConsolidation) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("Never");
  c.Node("n1", "default");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_TRUE(n1->graceful().eligible());
  EXPECT_FALSE(n1->methods(0).eligible());
  EXPECT_EQ(n1->methods(0).message(),
            "NodePool \"default\" has consolidation disabled");
}

TEST(CandidacyTest, NodeDoNotDisruptBlocksOnlyForExactlyTrue) {
  for (const char* value : {"true", "TRUE", "false"}) {
    Cluster c;
    c.NodePool("default");
    v1::Node& n = c.Node("n1", "default");
    (*n.mutable_metadata()
          ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = value;
    v1::DisruptResponse r = c.Disrupt();
    const bool blocked = std::string(value) == "true";
    EXPECT_EQ(r.commands_size(), blocked ? 0 : 1) << value;
    const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
    ASSERT_NE(n1, nullptr);
    EXPECT_EQ(n1->graceful().eligible(), !blocked) << value;
    if (blocked) {
      EXPECT_EQ(
          n1->graceful().message(),
          "Disruption is blocked through the \"karpenter.sh/do-not-disrupt\" "
          "annotation");
    }
  }
}

// A node's requests print as Kubernetes quantities: hugepages in bytes,
// extended resources in whole units or milli (hugepages are held in
// milli-units, and printed the scheduler's one way, ResourceQuantityText).
TEST(CandidacyTest, NodeRequestsPrintAsQuantities) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  v1::Pod& p = c.Pod("p1", "n1", "1500m", "1Gi");
  auto& requests =
      *p.mutable_spec()->mutable_containers(0)->mutable_resources();
  (*requests.mutable_requests())["hugepages-2Mi"] = "4Mi";
  (*requests.mutable_limits())["hugepages-2Mi"] = "4Mi";
  (*requests.mutable_requests())["example.com/fpga"] = "2";
  (*requests.mutable_limits())["example.com/fpga"] = "2";
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  const auto& got = n1->requests();
  ASSERT_EQ(got.count("hugepages-2Mi"), 1u);
  EXPECT_EQ(got.at("hugepages-2Mi"), "4Mi");
  EXPECT_EQ(got.at("example.com/fpga"), "2");
  EXPECT_EQ(got.at("cpu"), "1500m");
  EXPECT_EQ(got.at("memory"), "1Gi");
}

TEST(CandidacyTest, PodDoNotDisruptTrueOrUnexpiredDurationBlocks) {
  struct Case {
    const char* value;
    bool blocks;
  } cases[] = {{"true", true},
               {"2h", true},
               {"5m", false},
               {"nonsense", false},
               {"-1h", false}};
  for (const Case& k : cases) {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default", {.type = "size-16"});
    c.Node("n2", "default", {.type = "size-16"});
    v1::Pod& p = c.Pod("p", "n1");
    (*p.mutable_metadata()
          ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = k.value;
    v1::DisruptResponse r = c.Disrupt();
    const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
    ASSERT_NE(n1, nullptr);
    EXPECT_EQ(n1->graceful().eligible(), !k.blocks) << k.value;
    if (k.blocks) {
      EXPECT_EQ(n1->graceful().message(),
                "Pod has \"karpenter.sh/do-not-disrupt\" annotation "
                "(Pod=default/p)");
    }
  }
}

TEST(CandidacyTest, PdbWithoutDisruptionsAllowedBlocks) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.type = "size-16"});
  c.Node("n2", "default", {.type = "size-16"});
  c.Pod("p", "n1");
  c.Pdb("pdb", "test", 0);
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_FALSE(n1->graceful().eligible());
  EXPECT_EQ(n1->graceful().message(),
            "Pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])");
}

TEST(CandidacyTest, TwoPdbsOnOnePodBlockWhateverTheyAllow) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.type = "size-16"});
  c.Pod("p", "n1");
  c.Pdb("a", "test", 5);
  c.Pdb("b", "test", 5);
  v1::DisruptResponse r = c.Disrupt();
  const v1::NodeCandidacy* n1 = Candidacy(r, "n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->graceful().message(),
            "Eviction does not support multiple PDBs "
            "(PodDisruptionBudget(s)=[default/a default/b])");
}

TEST(CandidacyTest, UninitializedAndDeletingNodesAreNotCandidates) {
  Cluster c;
  c.NodePool("default");
  c.Node("young", "default", {.initialized = false});
  c.Node("going", "default");
  c.request().add_marked_for_deletion("going");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  EXPECT_EQ(Candidacy(r, "young")->graceful().message(),
            "Node isn't initialized");
  EXPECT_EQ(Candidacy(r, "going")->graceful().message(),
            "Node is deleting or marked for deletion");
}

TEST(SingleNodeConsolidationTest, ReplacesWithACheaperNode) {
  Cluster c;
  c.NodePool("default");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "1500m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.DebugString();
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.method(), "single-node-consolidation");
  EXPECT_EQ(cmd.reason(), "Underutilized");
  EXPECT_EQ(cmd.decision(), "replace");
  ASSERT_EQ(cmd.replacements_size(), 1);
  // Able to hold 1.5 CPU, and cheaper at their worst launch price (spot,
  // which the NodePool admits) than the on-demand size-16: size-16 itself
  // too, as spot.
  EXPECT_THAT(cmd.replacements(0).instance_types(),
              ElementsAre("size-2", "size-4", "size-8", "size-16"));
  // An on-demand node replaced by a spot-capable NodeClaim is pinned to spot.
  bool pinned = false;
  for (const v1::NodeSelectorRequirement& q :
       cmd.replacements(0).node_claim().spec().requirements()) {
    if (q.key() == "karpenter.sh/capacity-type") {
      pinned = q.values_size() == 1 && q.values(0) == "spot";
    }
  }
  EXPECT_TRUE(pinned) << cmd.replacements(0).DebugString();
  EXPECT_EQ(cmd.replacements(0).launch().capacity_type(), "spot");
  EXPECT_NEAR(cmd.savings_per_hour(), FakePrice(16, 32) - 0.7 * FakePrice(2, 4),
              1e-9);
}

// An offering of a capacity reservation with no instance left cannot
// launch: the engine leaves it out of an option's worst launch price, and so
// does the verifier's savings check (it used to count it and call a valid
// replacement dearer than the node; found by fuzz_disrupt_request).
TEST(SingleNodeConsolidationTest, AnExhaustedReservationDoesNotPriceAnOption) {
  Cluster c;
  c.NodePool("default");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "1500m");
  // size-8's spot offerings: one priced above size-16 on demand, through a
  // reservation that is exhausted.
  for (auto& t : *c.request().mutable_catalog()->mutable_instance_types()) {
    if (t.name() != "size-8") continue;
    for (auto& o : *t.mutable_offerings()) {
      if (o.capacity_type() != "spot" || o.zone() != "test-zone-2") continue;
      o.set_price(2 * FakePrice(16, 32));
      o.set_reservation_id("cr-exhausted");
      o.set_reservation_capacity(0);
    }
  }
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1) << r.DebugString();
  EXPECT_THAT(r.commands(0).replacements(0).instance_types(),
              Contains("size-8"));
  for (const Violation& v : VerifyDisruption(c.request(), r))
    ADD_FAILURE() << FormatViolation(v);
}

TEST(SingleNodeConsolidationTest, DeletesWhenPodsFitElsewhere) {
  Cluster c;
  c.NodePool("default");
  c.Node("a", "default", {.type = "size-8"});
  c.Node("b", "default", {.type = "size-8"});
  c.Pod("pa", "a", "1");
  c.Pod("pb1", "b", "3");
  c.Pod("pb2", "b", "3");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  // The default budget (10% of two nodes, rounded up) allows one node, so
  // multi-node consolidation has a single candidate and does nothing; a
  // has the better savings ratio (one pod) and its pod fits on b.
  EXPECT_EQ(r.commands(0).method(), "single-node-consolidation");
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("a"));
  ASSERT_EQ(r.commands(0).existing_nodes_size(), 1);
  EXPECT_EQ(r.commands(0).existing_nodes(0).name(), "b");
  EXPECT_THAT(r.commands(0).existing_nodes(0).pods(),
              ElementsAre("default/pa"));
}

TEST(MultiNodeConsolidationTest, ReplacesTwoNodesWithOneCheaperNode) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->add_budgets()
      ->set_nodes("100%");
  c.Node("a", "default", {.type = "size-8"});
  c.Node("b", "default", {.type = "size-8"});
  c.Pod("pa", "a", "1");
  c.Pod("pb1", "b", "3");
  c.Pod("pb2", "b", "3");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  const v1::DisruptionCommand& cmd = r.commands(0);
  EXPECT_EQ(cmd.method(), "multi-node-consolidation");
  EXPECT_EQ(cmd.decision(), "replace");
  EXPECT_THAT(CandidateNodes(cmd), ElementsAre("a", "b"));
  // 7 CPU fit a size-8 or a size-16; both are cheaper as spot than the two
  // on-demand size-8, but an option of a candidate's own type must also be
  // cheaper than that candidate: the size-16 spot is not.
  ASSERT_EQ(cmd.replacements_size(), 1);
  EXPECT_THAT(cmd.replacements(0).instance_types(), ElementsAre("size-8"));
}

TEST(SpotToSpotTest, DisabledByDefault) {
  Cluster c;
  c.NodePool("default");
  c.Node("spot", "default", {.type = "size-16", .capacity_type = "spot"});
  c.Pod("p", "spot", "1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  bool found = false;
  for (const v1::DisruptionEvent& e : r.events()) {
    if (e.reason() == "Unconsolidatable" &&
        e.message() ==
            "SpotToSpotConsolidation is disabled, can't replace a spot node "
            "with a spot node") {
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(SpotToSpotTest, NeedsFifteenCheaperOptions) {
  Cluster c;
  c.request().mutable_options()->set_spot_to_spot_consolidation(true);
  c.NodePool("default");
  c.Node("spot", "default", {.type = "size-16", .capacity_type = "spot"});
  c.Pod("p", "spot", "1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  bool found = false;
  for (const v1::DisruptionEvent& e : r.events()) {
    if (e.message().find("requires 15 cheaper instance type options") !=
        std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(DriftTest, NodePoolHashDriftReplacesTheNode) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.Pod("p", "n1", "2");
  v1::NodeClaim& nc = c.ClaimOf("n1");
  (*nc.mutable_metadata()
        ->mutable_annotations())["karpenter.sh/nodepool-hash"] = "123";
  (*nc.mutable_metadata()
        ->mutable_annotations())["karpenter.sh/nodepool-hash-version"] = "v3";
  (*c.request()
        .mutable_node_pools(0)
        ->mutable_metadata()
        ->mutable_annotations())["karpenter.sh/nodepool-hash-version"] = "v3";
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).reason(), "Drifted");
  EXPECT_EQ(r.commands(0).decision(), "replace");
  EXPECT_EQ(r.conditions(0).drifted().reason(), "NodePoolDrifted");
}

TEST(DriftTest, HashVersionChangeRestampsInsteadOfDrifting) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.Pod("p", "n1", "2");
  v1::NodeClaim& nc = c.ClaimOf("n1");
  (*nc.mutable_metadata()
        ->mutable_annotations())["karpenter.sh/nodepool-hash"] = "123";
  (*nc.mutable_metadata()
        ->mutable_annotations())["karpenter.sh/nodepool-hash-version"] = "v2";
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_NE(r.method(), "drift");
  EXPECT_EQ(r.conditions(0).drifted().status(), "");
  bool restamped = false;
  for (const v1::AnnotationWrite& a : r.annotations()) {
    if (a.kind() == "NodeClaim" &&
        a.key() == "karpenter.sh/nodepool-hash-version" && a.value() == "v3") {
      restamped = true;
    }
  }
  EXPECT_TRUE(restamped);
}

TEST(DriftTest, NarrowedRequirementsDrift) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  v1::NodeSelectorRequirement* z = np.mutable_spec()
                                       ->mutable_template_()
                                       ->mutable_spec()
                                       ->add_requirements();
  z->set_key("topology.kubernetes.io/zone");
  z->set_operator_("In");
  z->add_values("test-zone-2");
  c.Node("n1", "default", {.zone = "test-zone-1"});
  c.Pod("p", "n1", "2");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.conditions_size(), 1);
  EXPECT_EQ(r.conditions(0).drifted().reason(), "RequirementsDrifted");
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
}

TEST(DriftTest, ProviderDrift) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  c.Pod("p", "n1", "2");
  (*c.request().mutable_provider_drifted())["n1-claim"] = "AMIDrifted";
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.conditions(0).drifted().reason(), "AMIDrifted");
  EXPECT_EQ(r.method(), "drift");
}

TEST(ExpirationTest, ExpiredNodeClaimsAreDeletedAndOthersRequeued) {
  Cluster c;
  c.NodePool("default");
  c.Node("old", "default", {.created = "2026-11-01T10:00:00Z"});
  c.Node("new", "default");
  c.ClaimOf("old").mutable_spec()->set_expire_after("720h");
  c.ClaimOf("new").mutable_spec()->set_expire_after("2h");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.expirations_size(), 2);
  EXPECT_EQ(r.expirations(0).node_claim(), "new-claim");
  EXPECT_EQ(r.expirations(0).action(), "requeue");
  EXPECT_EQ(r.expirations(0).requeue_after(), "1h0m0s");
  EXPECT_EQ(r.expirations(1).node_claim(), "old-claim");
  EXPECT_EQ(r.expirations(1).action(), "delete");
  EXPECT_EQ(r.expirations(1).reason(), "Expired");
}

TEST(DrainTest, EvictsThroughPdbsAndForceDeletesAtTheDeadline) {
  Cluster c;
  c.NodePool("default");
  v1::Node& n = c.Node("n1", "default");
  n.mutable_metadata()->set_deletion_timestamp("2026-12-02T09:00:00Z");
  v1::NodeClaim& nc = c.ClaimOf("n1");
  nc.mutable_metadata()->set_deletion_timestamp("2026-12-02T09:00:00Z");
  nc.mutable_spec()->set_termination_grace_period("1h30s");
  c.Pod("a", "n1");
  c.Pod("b", "n1");
  v1::Pod& slow = c.Pod("slow", "n1");
  (*slow.mutable_metadata()->mutable_labels())["app"] = "slow";
  slow.mutable_spec()->set_termination_grace_period_seconds(60);
  c.Pdb("pdb", "test", 1);
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.drains_size(), 1);
  const v1::Drain& d = r.drains(0);
  EXPECT_EQ(d.termination_timestamp(), "2026-12-02T10:00:30Z");
  // slow: deadline 10:00:30 - 60s = 09:59:30 < now -> forced, 30s grace.
  ASSERT_EQ(d.force_delete_size(), 1);
  EXPECT_EQ(d.force_delete(0).pod(), "default/slow");
  EXPECT_EQ(d.force_delete(0).grace_period_seconds(), 30);
  // One eviction admitted by the PDB, the other refused.
  EXPECT_THAT(d.evict(), ElementsAre("default/a"));
  ASSERT_EQ(d.waiting_on_size(), 1);
  EXPECT_EQ(d.waiting_on(0).pod(), "default/b");
  EXPECT_THAT(d.waiting_on(0).reason(), HasSubstr("PDB"));
  EXPECT_FALSE(d.node_removed());
}

TEST(DisruptTest, SameRequestSameBytes) {
  Cluster c;
  c.NodePool("default");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "1500m");
  c.Node("e1", "default");
  // Maps in the response: serialize deterministically (schedule.h).
  EXPECT_EQ(DeterministicBytes(c.Disrupt()), DeterministicBytes(c.Disrupt()));
}

TEST(DisruptTest, BadInputIsAnErrorWithItsFieldPath) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("10 minutes");
  absl::StatusOr<v1::DisruptResponse> r = nodeplan::Disrupt(c.request());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("nodePools[default].spec.disruption.consolidateAfter"));
  Cluster d;
  d.request().set_now("yesterday");
  r = nodeplan::Disrupt(d.request());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("now:"));
}

// One-shot Disrupt checks each pod while its view reads it; whatever fails,
// the error must be the one validating every object at once gives (all the
// violations, in its order), as before that optimization.
TEST(DisruptTest, InvalidPodsGiveTheFullValidationError) {
  auto full_check = [](const v1::DisruptRequest& r) {
    validation::Workload w;
    w.SetAllObjects(r);
    return validation::CheckWorkload(w);
  };
  struct Case {
    std::string name;
    std::function<void(Cluster&)> breakit;
  };
  const std::vector<Case> cases = {
      {"bad pod label",
       [](Cluster& c) {
         (*c.Pod("p2", "n1", "100m")
               .mutable_metadata()
               ->mutable_labels())["bad key!"] = "v";
       }},
      {"bad node label and bad pod quantity",
       [](Cluster& c) {
         (*c.request()
               .mutable_nodes(0)
               ->mutable_metadata()
               ->mutable_labels())["-x"] = "v";
         (*c.Pod("p2", "n1", "100m")
               .mutable_spec()
               ->mutable_containers(0)
               ->mutable_resources()
               ->mutable_requests())["memory"] = "lots";
       }},
      {"duplicate pods", [](Cluster& c) { c.Pod("p1", "n1", "100m"); }},
      {"pod without a name",
       [](Cluster& c) {
         c.Pod("p2", "n1", "100m").mutable_metadata()->clear_name();
       }},
      {"too many spread constraints",
       [](Cluster& c) {
         v1::Pod& p = c.Pod("p2", "", "100m");
         for (int i = 0; i <= limits::kMaxTopologySpreadConstraints; ++i) {
           v1::TopologySpreadConstraint* t =
               p.mutable_spec()->add_topology_spread_constraints();
           t->set_max_skew(1);
           t->set_topology_key("zone" + std::to_string(i));
           t->set_when_unsatisfiable("DoNotSchedule");
         }
       }},
  };
  for (const Case& k : cases) {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default");
    c.Pod("p1", "n1", "100m");
    k.breakit(c);
    const absl::Status want = full_check(c.request());
    ASSERT_FALSE(want.ok()) << k.name;
    absl::StatusOr<v1::DisruptResponse> got = nodeplan::Disrupt(c.request());
    ASSERT_FALSE(got.ok()) << k.name;
    EXPECT_EQ(got.status(), want) << k.name;
  }
}

}  // namespace
}  // namespace nodeplan::testing
