// More of Karpenter's disruption rules, one behaviour per test: static
// NodePools, drift by every requirement operator and by a vanished instance
// type, the WhenEmpty and Balanced policies, budget reasons, re-validation.

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

void AddRequirement(v1::NodePool& np, const std::string& key,
                    const std::string& op, std::vector<std::string> values) {
  v1::NodeSelectorRequirement* r = np.mutable_spec()
                                       ->mutable_template_()
                                       ->mutable_spec()
                                       ->add_requirements();
  r->set_key(key);
  r->set_operator_(op);
  for (const std::string& v : values) r->add_values(v);
}

TEST(StaticDriftTest, StaticNodePoolsOnlyDriftAndReplaceFromTheTemplate) {
  Cluster c;
  v1::NodePool& np = c.NodePool("static");
  np.mutable_spec()->set_replicas(2);
  c.Node("s1", "static");
  c.Node("s2", "static");
  (*c.request().mutable_provider_drifted())["s1-claim"] = "AMIDrifted";
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "static-drift");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("s1"));
  ASSERT_EQ(r.commands(0).replacements_size(), 1);
  const v1::NewNodeClaim& rep = r.commands(0).replacements(0);
  EXPECT_EQ(rep.node_pool(), "static");
  EXPECT_EQ(rep.node_claim().metadata().generate_name(), "static-");
  EXPECT_EQ(rep.instance_types_size(), 0);
  // Empty static nodes are never removed by emptiness.
  const v1::NodeCandidacy* s2 = Candidacy(r, "s2");
  ASSERT_NE(s2, nullptr);
  EXPECT_FALSE(s2->methods(0).eligible());
}

TEST(DriftTest, RequirementDriftByOperator) {
  struct Case {
    const char* name;
    const char* key;
    const char* op;
    std::vector<std::string> values;
    bool drifted;
  } cases[] = {
      {"In without the node's zone",
       "topology.kubernetes.io/zone",
       "In",
       {"test-zone-2"},
       true},
      {"In with it",
       "topology.kubernetes.io/zone",
       "In",
       {"test-zone-1", "test-zone-2"},
       false},
      {"NotIn the node's zone",
       "topology.kubernetes.io/zone",
       "NotIn",
       {"test-zone-1"},
       true},
      {"Exists on a label the node has",
       "kubernetes.io/arch",
       "Exists",
       {},
       false},
      {"Exists on a label it lacks", "example.com/team", "Exists", {}, true},
      {"DoesNotExist on a label it lacks",
       "example.com/team",
       "DoesNotExist",
       {},
       false},
      {"DoesNotExist on a label it has",
       "kubernetes.io/arch",
       "DoesNotExist",
       {},
       true},
      {"In on a key it lacks", "example.com/team", "In", {"a"}, true},
      {"NotIn on a key it lacks", "example.com/team", "NotIn", {"a"}, false},
  };
  for (const Case& k : cases) {
    Cluster c;
    AddRequirement(c.NodePool("default"), k.key, k.op, k.values);
    c.Node("n1", "default");
    c.Pod("p", "n1", "2");
    v1::DisruptResponse r = c.Disrupt();
    ASSERT_EQ(r.conditions_size(), 1) << k.name;
    EXPECT_EQ(r.conditions(0).drifted().reason(),
              k.drifted ? "RequirementsDrifted" : "")
        << k.name;
  }
}

TEST(DriftTest, NumericBoundsDrift) {
  Cluster c;
  AddRequirement(c.NodePool("default"), "example.com/generation", "Gt", {"5"});
  c.Node("old", "default");
  (*c.ClaimOf("old")
        .mutable_metadata()
        ->mutable_labels())["example.com/generation"] = "5";
  c.Node("new", "default");
  (*c.ClaimOf("new")
        .mutable_metadata()
        ->mutable_labels())["example.com/generation"] = "6";
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.conditions_size(), 2);
  EXPECT_EQ(r.conditions(0).node_claim(), "new-claim");
  EXPECT_EQ(r.conditions(0).drifted().reason(), "");
  EXPECT_EQ(r.conditions(1).drifted().reason(), "RequirementsDrifted");
}

TEST(DriftTest, AVanishedInstanceTypeDriftsAfterAnHour) {
  Cluster c;
  c.NodePool("default");
  c.Node("gone", "default",
         {.type = "size-4", .created = "2026-12-02T08:00:00Z"});
  c.Node("young", "default", {.type = "size-4"});  // exactly an hour
  // The catalog no longer offers size-4.
  c.request().mutable_catalog()->CopyFrom(SizedCatalog({1, 2, 8, 16}));
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.conditions_size(), 2);
  EXPECT_EQ(r.conditions(0).node_claim(), "gone-claim");
  EXPECT_EQ(r.conditions(0).drifted().reason(), "InstanceTypeNotFound");
  // Checked only for NodeClaims older than an hour (strictly).
  EXPECT_EQ(r.conditions(1).drifted().reason(), "");
}

TEST(DriftTest, LaunchedIsRequired) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  (*c.request().mutable_provider_drifted())["n1-claim"] = "AMIDrifted";
  c.ClaimOf("n1").mutable_status()->mutable_conditions(0)->set_status("False");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.conditions(0).drifted().status(), "");
}

TEST(PolicyTest, WhenEmptyOnlyRemovesEmptyNodes) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidation_policy("WhenEmpty");
  c.Node("busy", "default", {.type = "size-16"});
  c.Pod("p", "busy", "1");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  const v1::NodeCandidacy* busy = Candidacy(r, "busy");
  ASSERT_NE(busy, nullptr);
  EXPECT_THAT(busy->methods(4).message(), HasSubstr("policy WhenEmpty"));
}

TEST(PolicyTest, BalancedRejectsAMoveWhoseSavingsDoNotPayForItsDisruption) {
  // Two nodes: replacing the big one saves little of the pool's cost while
  // disrupting most of its pods.
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidation_policy("Balanced");
  c.Node("a", "default", {.type = "size-2"});
  c.Node("b", "default", {.type = "size-2"});
  for (int i = 0; i < 3; ++i) c.Pod(absl::StrCat("a", i), "a", "500m");
  c.Pod("b0", "b", "500m");
  v1::DisruptResponse r = c.Disrupt();
  for (const v1::DisruptionCommand& cmd : r.commands()) {
    ASSERT_GT(cmd.scores_size(), 0) << cmd.method();
    for (const v1::BalancedScore& s : cmd.scores()) {
      EXPECT_TRUE(s.approved());
      EXPECT_GE(s.score(), s.threshold());
    }
  }
}

// "budgets: []" is kept by the API server (the CRD default fills an absent
// list only), and an empty list limits nothing: all 11 empty nodes go, where
// the default 10% budget would allow 2.
TEST(BudgetTest, AnExplicitlyEmptyBudgetListIsUnbounded) {
  Cluster c;
  c.NodePool("default")
      .mutable_spec()
      ->mutable_disruption()
      ->add_present_empty_fields("budgets");
  for (int i = 0; i < 11; ++i) c.Node(absl::StrCat("n", i), "default");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).candidates_size(), 11);
  ASSERT_EQ(r.budgets_size(), 3);
  for (const v1::BudgetAllowance& b : r.budgets()) {
    EXPECT_EQ(b.raw(), 2147483647) << b.reason();
    EXPECT_TRUE(b.active().empty()) << b.reason();
  }
}

// A budget with "reasons: []" applies to no reason (absent, to all).
TEST(BudgetTest, ABudgetWithAnEmptyReasonListAppliesToNone) {
  Cluster c;
  v1::Budget* b =
      c.NodePool("default").mutable_spec()->mutable_disruption()->add_budgets();
  b->set_nodes("0");
  b->add_present_empty_fields("reasons");
  c.Node("e", "default");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).method(), "emptiness");
  for (const v1::BudgetAllowance& a : r.budgets()) {
    EXPECT_EQ(a.raw(), 2147483647) << a.reason();
  }
}

TEST(BudgetTest, AReasonBudgetBlocksOnlyItsReason) {
  Cluster c;
  v1::Budget* b =
      c.NodePool("default").mutable_spec()->mutable_disruption()->add_budgets();
  b->set_nodes("0");
  b->add_reasons("Empty");
  c.Node("e", "default");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0);
  ASSERT_EQ(r.budgets_size(), 3);
  EXPECT_EQ(r.budgets(0).reason(), "Empty");
  EXPECT_EQ(r.budgets(0).allowed(), 0);
  EXPECT_EQ(r.budgets(1).raw(), 2147483647);
  bool event = false;
  for (const v1::DisruptionEvent& e : r.events()) {
    event |= e.kind() == "NodePool" &&
             e.message() ==
                 "No allowed disruptions for disruption reason Empty due to "
                 "blocking budget";
  }
  EXPECT_TRUE(event);
}

TEST(ValidateCommandTest, EmptinessKeepsTheCandidatesStillEmpty) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("100%");
  c.Node("e1", "default");
  c.Node("e2", "default");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  ASSERT_EQ(r.commands(0).candidates_size(), 2);
  // Fifteen seconds later a pod landed on e1.
  Cluster later = c;
  later.request().set_now("2026-12-02T10:00:15Z");
  later.Pod("new", "e1");
  v1::ValidateCommandRequest v;
  *v.mutable_request() = later.request();
  *v.mutable_command() = r.commands(0);
  absl::StatusOr<v1::ValidateCommandResponse> out = ValidateCommand(v);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->valid());
  ASSERT_EQ(out->command().candidates_size(), 1);
  EXPECT_EQ(out->command().candidates(0).node(), "e2");
}

TEST(ValidateCommandTest, ConsolidationFailsWhenItsPodsNoLongerFit) {
  Cluster c;
  c.NodePool("default");
  c.Node("a", "default", {.type = "size-8"});
  c.Node("b", "default", {.type = "size-8"});
  c.Pod("pa", "a", "1");
  c.Pod("pb", "b", "6");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  ASSERT_EQ(r.commands(0).decision(), "delete");
  // b filled up meanwhile: a's pod has nowhere to go without a new node.
  Cluster later = c;
  later.request().set_now("2026-12-02T10:00:15Z");
  later.Pod("pb2", "b", "1500m");
  v1::ValidateCommandRequest v;
  *v.mutable_request() = later.request();
  *v.mutable_command() = r.commands(0);
  absl::StatusOr<v1::ValidateCommandResponse> out = ValidateCommand(v);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->valid());
  EXPECT_EQ(out->reason(), "scheduling simulation produced new results");
}

}  // namespace
}  // namespace nodeplan::testing
