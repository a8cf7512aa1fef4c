// More deterministic outcomes of Karpenter's drift suite
// (pkg/controllers/disruption/drift_test.go) beside those in
// karpenter_suite_test.cc: budgets over passes and NodePools, do-not-disrupt
// durations and formats, static NodePools. Karpenter's tests set the Drifted
// condition by hand; here the provider reports the drift and the condition
// follows. Multi-pass scenarios mark the nodes a command took
// (`markedForDeletion`) and run the next pass.

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nodeplan::testing {
namespace {

using ::testing::ElementsAre;

// The suite's NodePool: consolidateAfter 1h, a 100% budget. Its nodes are
// initialized as the test starts (created at kNow), so none is
// consolidatable: emptiness and consolidation stay out of the way.
v1::NodePool& DriftPool(Cluster& c, const std::string& name,
                        const std::string& budget = "100%") {
  v1::NodePool& np = c.NodePool(name);
  np.mutable_spec()->mutable_disruption()->set_consolidate_after("1h");
  np.mutable_spec()->mutable_disruption()->clear_budgets();
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes(budget);
  return np;
}

// Context "Budgets", "should disrupt 3 nodes, taking into account commands in
// progress": ten nodes under 30%, five drifted with a pod each; however many
// passes run, three go, one per command.
TEST(KarpenterDriftBudgetsTest, ThreeOfFiveDriftedUnderThirtyPercent) {
  Cluster c;
  DriftPool(c, "default", "30%");
  for (int i = 0; i < 10; ++i) {
    const std::string n = absl::StrCat("n", i);
    c.Node(n, "default", {.type = "size-16", .created = kNow});
    if (i < 5) {
      ProviderDrift(c, n);
      c.Pod(absl::StrCat("p", i), n, "1");
    }
  }
  std::vector<v1::DisruptionCommand> cmds = PassesUntilQuiet(c);
  ASSERT_EQ(cmds.size(), 3u);
  for (const v1::DisruptionCommand& cmd : cmds) {
    EXPECT_EQ(cmd.method(), "drift");
    EXPECT_EQ(cmd.candidates_size(), 1);
  }
}

// "should respect budgets for multiple nodepools": ten NodePools of three
// drifted nodes (two with a pod), a budget of one node each: ten commands of
// one node, one per NodePool.
TEST(KarpenterDriftBudgetsTest, OneNodePerNodePoolUnderABudgetOfOne) {
  Cluster c;
  for (int p = 0; p < 10; ++p) {
    const std::string pool = absl::StrCat("pool-", p);
    v1::NodePool& np = DriftPool(c, pool, "1");
    np.mutable_spec()->mutable_disruption()->set_consolidate_after("Never");
    np.mutable_spec()->mutable_template_()->mutable_spec()->set_expire_after(
        "Never");
    for (int n = 0; n < 3; ++n) {
      const std::string node = absl::StrCat(pool, "-n", n);
      c.Node(node, pool, {.type = "size-16"});
      ProviderDrift(c, node);
      if (n < 2) c.Pod(absl::StrCat(node, "-p"), node, "1");
    }
  }
  std::vector<v1::DisruptionCommand> cmds = PassesUntilQuiet(c);
  ASSERT_EQ(cmds.size(), 10u);
  std::vector<std::string> pools;
  for (const v1::DisruptionCommand& cmd : cmds) {
    EXPECT_EQ(cmd.method(), "drift");
    ASSERT_EQ(cmd.candidates_size(), 1);
    pools.push_back(cmd.candidates(0).node_pool());
  }
  std::sort(pools.begin(), pools.end());
  EXPECT_EQ(std::unique(pools.begin(), pools.end()), pools.end());
}

// Context "Drift", "should drift nodes with pods that have an invalid
// do-not-disrupt annotation format": the annotation does not block; the pod
// moves to the other node.
TEST(KarpenterDriftTest, AnInvalidDoNotDisruptValueDoesNotBlock) {
  Cluster c;
  DriftPool(c, "default");
  c.Node("drifted", "default", {.type = "size-16", .created = kNow});
  c.Node("other", "default", {.type = "size-16", .created = kNow});
  v1::Pod& p = c.Pod("p", "drifted", "1");
  (*p.mutable_metadata()
        ->mutable_annotations())["karpenter.sh/do-not-disrupt"] =
      "invalid-format";
  ProviderDrift(c, "drifted");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).decision(), "delete");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("drifted"));
}

// "should not drift nodes with pods that have a duration-based
// do-not-disrupt annotation that is still active" and "should not drift nodes
// until the longest duration-based do-not-disrupt grace period expires across
// multiple pods": pods started now with 1m and 3m; blocked now and two
// minutes on, replaced four minutes on.
TEST(KarpenterDriftTest, DriftWaitsForTheLongestDoNotDisruptDuration) {
  Cluster c;
  DriftPool(c, "default");
  c.Node("n1", "default", {.type = "size-16"});
  ProviderDrift(c, "n1");
  for (const auto& [name, duration] :
       std::vector<std::pair<std::string, std::string>>{{"p1", "1m"},
                                                        {"p2", "3m"}}) {
    v1::Pod& p = c.Pod(name, "n1", "1");
    (*p.mutable_metadata()
          ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = duration;
    p.mutable_status()->set_start_time(kNow);
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
  EXPECT_EQ(r.next_decision_at(), "2026-12-02T10:01:00Z");
  c.request().set_now("2026-12-02T10:02:00Z");
  r = c.Disrupt();
  EXPECT_EQ(r.commands_size(), 0) << r.method();
  EXPECT_EQ(r.next_decision_at(), "2026-12-02T10:03:00Z");
  c.request().set_now("2026-12-02T10:04:00Z");
  r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).decision(), "replace");
}

// "should delete drifted nodes when they are empty and consolidation is
// disabled".
TEST(KarpenterDriftTest, AnEmptyDriftedNodeGoesWithConsolidationDisabled) {
  Cluster c;
  DriftPool(c, "default")
      .mutable_spec()
      ->mutable_disruption()
      ->set_consolidate_after("Never");
  c.Node("n1", "default", {.type = "size-16"});
  ProviderDrift(c, "n1");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "drift");
  EXPECT_EQ(r.commands(0).decision(), "delete");
}

// Context "Static NodePool", "should not consider static nodepool for
// drift": the drift method has no candidates in a NodePool with replicas
// (static drift replaces those).
TEST(KarpenterDriftTest, StaticNodePoolsAreNoDriftCandidates) {
  Cluster c;
  c.NodePool("static").mutable_spec()->set_replicas(2);
  for (const char* n : {"s0", "s1"}) {
    c.Node(n, "static");
    ProviderDrift(c, n);
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_NE(r.method(), "drift");
  for (const char* n : {"s0", "s1"}) {
    const v1::NodeCandidacy* k = Candidacy(r, n);
    ASSERT_NE(k, nullptr);
    for (const v1::MethodEligibility& m : k->methods()) {
      if (m.method() == "drift") {
        EXPECT_FALSE(m.eligible()) << n;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// staticdrift_test.go: a static NodePool (replicas) whose nodes all drifted,
// a 100% budget.

v1::NodePool& StaticPool(Cluster& c, int replicas, const std::string& limit,
                         int nodes) {
  v1::NodePool& np = c.NodePool("static");
  np.mutable_spec()->set_replicas(replicas);
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("100%");
  if (!limit.empty()) (*np.mutable_spec()->mutable_limits())["nodes"] = limit;
  for (int i = 0; i < nodes; ++i) {
    const std::string n = absl::StrCat("s", i);
    c.Node(n, "static", {.type = "size-16"});
    ProviderDrift(c, n);
  }
  return np;
}

// Context "Limits and Scaling": "should not drift nodes when we cannot
// acquire limits" (5 of a 5-node limit running), "should drift nodes when we
// can acquire limits" (2 of 5), "should drift partially when we can acquire
// some limits" (5 of 7: two replacements fit), "should keep drifting
// partially when we can acquire some limits for each reconcile" (5 of 6: one
// per pass); Context "Edge Cases", "should handle missing node limits
// gracefully" (all five); and a limit at int64's edge, whose headroom
// used to wrap round to room for every node.
TEST(KarpenterStaticDriftLimitsTest, ReplacementsStayWithinTheNodeLimit) {
  struct Case {
    std::string limit;
    int nodes;
    int want;
  };
  for (const Case& k : std::vector<Case>{{"5", 5, 0},
                                         {"5", 2, 2},
                                         {"7", 5, 2},
                                         {"6", 5, 1},
                                         {"", 5, 5},
                                         {"-9223372036854775807", 5, 0}}) {
    Cluster c;
    StaticPool(c, 5, k.limit, k.nodes);
    v1::DisruptResponse r = c.Disrupt();
    const std::string what = absl::StrCat(k.nodes, " of ", k.limit);
    EXPECT_EQ(r.commands_size(), k.want) << what;
    if (k.want > 0) {
      EXPECT_EQ(r.method(), "static-drift") << what;
    }
  }
}

// "should wait until nodes are deprovisioned when we are overscaled" and
// "should handle zero replicas": more nodes than replicas, no drift until
// scale-down has caught up.
TEST(KarpenterStaticDriftLimitsTest, NoDriftWhileOverscaled) {
  Cluster c;
  StaticPool(c, 1, "", 2);
  c.Pod("p", "s0", "1");
  EXPECT_EQ(c.Disrupt().commands_size(), 0);
  // s1 gone: one node for one replica, which drifts.
  auto* nodes = c.request().mutable_nodes();
  nodes->DeleteSubrange(1, 1);
  c.request().mutable_node_claims()->DeleteSubrange(1, 1);
  c.request().mutable_provider_drifted()->erase("s1-claim");
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.commands_size(), 1);
  EXPECT_EQ(r.method(), "static-drift");
  EXPECT_THAT(CandidateNodes(r.commands(0)), ElementsAre("s0"));

  Cluster zero;
  StaticPool(zero, 0, "", 1);
  EXPECT_EQ(zero.Disrupt().commands_size(), 0);
}

// Context "Multiple NodePools", "should handle drift for multiple static
// NodePools independently": three static NodePools of two drifted nodes
// (replicas 3, 2 and 2; the second capped at two nodes): two replacements
// each in the first and third, none in the second.
TEST(KarpenterStaticDriftLimitsTest, NodePoolsDriftIndependently) {
  Cluster c;
  for (const auto& [pool, replicas, limit] :
       std::vector<std::tuple<std::string, int, std::string>>{
           {"nodepool-1", 3, ""},
           {"nodepool-2", 2, "2"},
           {"nodepool-3", 2, ""}}) {
    v1::NodePool& np = c.NodePool(pool);
    np.mutable_spec()->set_replicas(replicas);
    np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("100%");
    if (!limit.empty()) (*np.mutable_spec()->mutable_limits())["nodes"] = limit;
    for (int i = 0; i < 2; ++i) {
      const std::string n = absl::StrCat(pool, "-", i);
      c.Node(n, pool, {.type = "size-16"});
      ProviderDrift(c, n);
    }
  }
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(r.method(), "static-drift");
  std::map<std::string, int> per_pool;
  for (const v1::DisruptionCommand& cmd : r.commands()) {
    ASSERT_EQ(cmd.candidates_size(), 1);
    ++per_pool[cmd.candidates(0).node_pool()];
  }
  EXPECT_THAT(per_pool,
              ElementsAre(std::pair<const std::string, int>("nodepool-1", 2),
                          std::pair<const std::string, int>("nodepool-3", 2)));
  for (const char* pool : {"nodepool-1", "nodepool-2", "nodepool-3"}) {
    for (const v1::BudgetAllowance& b : r.budgets()) {
      if (b.node_pool() == pool && b.reason() == "Drifted") {
        EXPECT_EQ(b.allowed(), 2) << pool;
      }
    }
  }
}

}  // namespace
}  // namespace nodeplan::testing
