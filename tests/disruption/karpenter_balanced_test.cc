// Deterministic outcomes of Karpenter's Balanced consolidation policy suite
// (pkg/controllers/disruption/balanced_integration_test.go, Describe
// "Balanced Consolidation"), restated on nodeplan's fixture: a Balanced
// NodePool, consolidateAfter 0s, a 100% budget. The ConsolidationApproved
// events those tests also count are not part of nodeplan's events; the
// command's scores carry the same verdict.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nodeplan::testing {
namespace {

using ::testing::ElementsAre;

v1::NodePool& BalancedPool(Cluster& c, const std::string& budget = "100%") {
  v1::NodePool& np = c.NodePool("default");
  auto* d = np.mutable_spec()->mutable_disruption();
  d->set_consolidation_policy("Balanced");
  d->set_consolidate_after("0s");
  d->clear_budgets();
  d->add_budgets()->set_nodes(budget);
  return np;
}

void ExpectApproved(const v1::DisruptionCommand& cmd) {
  ASSERT_GT(cmd.scores_size(), 0);
  for (const v1::BalancedScore& s : cmd.scores()) {
    EXPECT_TRUE(s.approved()) << s.node_pool();
    EXPECT_DOUBLE_EQ(s.threshold(), 0.5);
    EXPECT_GE(s.score(), s.threshold());
  }
}

// Context "Single-Node", "should approve replacing an oversized node".
TEST(KarpenterBalancedTest, ApprovesReplacingAnOversizedNode) {
  Cluster c;
  BalancedPool(c);
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "500m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.commands(0).decision(), "replace");
  ASSERT_EQ(r.commands(0).replacements_size(), 1);
  ExpectApproved(r.commands(0));
}

// "should reject replacing a well-packed node": the cheapest type, full,
// offers nothing cheaper.
TEST(KarpenterBalancedTest, LeavesAWellPackedNodeOfTheCheapestType) {
  Cluster c;
  OnDemandOnly(BalancedPool(c));
  c.Node("packed", "default", {.type = "size-1"});
  c.Pod("a", "packed", "450m");
  c.Pod("b", "packed", "450m");
  EXPECT_EQ(c.Disrupt().commands_size(), 0);
}

// Context "Multi-Node", "should approve consolidating multiple underutilized
// nodes": three expensive nodes with a 1-cpu pod each.
TEST(KarpenterBalancedTest, ApprovesMergingUnderutilizedNodes) {
  Cluster c;
  BalancedPool(c);
  for (int i = 0; i < 3; ++i) {
    const std::string n = absl::StrCat("n", i);
    c.Node(n, "default", {.type = "size-16"});
    c.Pod(absl::StrCat("p", i), n, "1");
  }
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_GE(r.commands(0).candidates_size(), 2);
  ExpectApproved(r.commands(0));
}

// Context "Budgets", "should block disruption when budget is 0%".
TEST(KarpenterBalancedTest, AZeroBudgetBlocksAnApprovableMove) {
  Cluster c;
  BalancedPool(c, "0%");
  c.Node("big", "default", {.type = "size-16"});
  c.Pod("p", "big", "500m");
  EXPECT_EQ(c.Disrupt().commands_size(), 0);
}

// Context "Priority Ordering", "should consolidate empty nodes before
// non-empty nodes when budget is limited": a budget of one node.
TEST(KarpenterBalancedTest, EmptyNodesGoFirstUnderABudgetOfOne) {
  Cluster c;
  BalancedPool(c, "1");
  c.Node("empty", "default", {.type = "size-16"});
  c.Node("underutilized", "default", {.type = "size-16"});
  c.Pod("p", "underutilized", "500m");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("empty"));
}

// balanced_adversarial_test.go, "should use source pricing that ignores
// availability": a running node costs its own offering's price even when
// that offering can no longer launch (unavailable, or out of capacity).
TEST(KarpenterBalancedTest,
     ACandidateCostsItsOwnOfferingWhateverItsAvailability) {
  for (bool ice : {false, true}) {
    Cluster c;
    BalancedPool(c);
    for (v1::InstanceType& t :
         *c.request().mutable_catalog()->mutable_instance_types()) {
      if (t.name() != "size-16") continue;
      for (v1::Offering& o : *t.mutable_offerings()) {
        if (o.zone() == "test-zone-1" && o.capacity_type() == "on-demand") {
          if (!ice) o.set_available(false);
        }
      }
    }
    if (ice) {
      v1::UnavailableOffering* u = c.request().add_unavailable_offerings();
      u->set_instance_type("size-16");
      u->set_zone("test-zone-1");
      u->set_capacity_type("on-demand");
    }
    c.Node("big", "default", {.type = "size-16"});
    c.Pod("p", "big", "500m");
    v1::DisruptResponse r = c.Disrupt();
    const v1::NodeCandidacy* big = Candidacy(r, "big");
    ASSERT_NE(big, nullptr);
    EXPECT_DOUBLE_EQ(big->price(), FakePrice(16, 32)) << ice;
  }
}

}  // namespace
}  // namespace nodeplan::testing
