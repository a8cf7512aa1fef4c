// Optimized consolidation (DisruptOptions.packing "Optimized"): nodeplan's
// own proposal beside Karpenter's pass. Karpenter's answer keeps its bytes,
// the proposal is verified, never dearer than the cluster as it is, and
// never among the commands.

#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/manifest.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace nodeplan::testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// The response without its proposal, as bytes.
std::string KarpenterPart(v1::DisruptResponse r) {
  r.clear_optimized();
  return DeterministicBytes(r);
}

v1::DisruptResponse Optimized(v1::DisruptRequest req) {
  req.mutable_options()->set_packing("Optimized");
  absl::StatusOr<v1::DisruptResponse> r = Disrupt(req);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : v1::DisruptResponse();
}

std::vector<std::string> Violations(const v1::DisruptRequest& req,
                                    const v1::DisruptResponse& resp) {
  std::vector<std::string> out;
  for (const Violation& v : VerifyDisruption(req, resp)) {
    out.push_back(FormatViolation(v));
  }
  return out;
}

// Three on-demand size-16 nodes ($5.04/hour each) with nine 1-CPU pods
// each, in an on-demand NodePool.
// Karpenter can take one node away (its pods fit the other two), but not
// two or three: what remains after two needs one size-16 replacement, the
// candidates' own type, and all three need two new NodeClaims. Two nodes
// into 12 CPUs of smaller NodeClaims for the 11 CPUs the third cannot take
// save more ($6.29/hour), as do three into 28 CPUs (a tie: the smaller set
// wins). The fake catalog is priced linearly, so 8 + 4 and 4 + 4 + 4 cost
// the same; sizes 4, 8 and 16 only, or eleven size-1 nodes would do.
// The budget lets every node go (the default 10% allows one of three).
Cluster ThreeHalfFullNodes() {
  Cluster c;
  *c.request().mutable_catalog() = SizedCatalog({4, 8, 16});
  v1::NodePool& np = c.NodePool("default");
  np.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("100%");
  OnDemandOnly(np);
  for (const char* n : {"n1", "n2", "n3"}) {
    c.Node(n, "default", {.type = "size-16"});
    for (int i = 0; i < 9; ++i) c.Pod(absl::StrCat(n, "-p", i), n, "1");
  }
  return c;
}

TEST(OptimizedConsolidationTest, ThreeNodesIntoSeveralCheaperOnes) {
  Cluster c = ThreeHalfFullNodes();
  const v1::DisruptResponse karpenter = c.Disrupt();
  ASSERT_EQ(karpenter.commands_size(), 1);
  EXPECT_EQ(karpenter.method(), "single-node-consolidation");
  EXPECT_FALSE(karpenter.has_optimized());

  const v1::DisruptResponse r = Optimized(c.request());
  EXPECT_EQ(KarpenterPart(r), DeterministicBytes(karpenter));
  ASSERT_TRUE(r.optimized().has_command()) << r.optimized().reason();
  const v1::OptimizedConsolidation& o = r.optimized();
  const v1::DisruptionCommand& cmd = o.command();
  EXPECT_EQ(cmd.method(), "optimized-consolidation");
  EXPECT_EQ(cmd.reason(), "Underutilized");
  EXPECT_EQ(cmd.decision(), "replace");
  const std::vector<std::string> nodes = CandidateNodes(cmd);
  EXPECT_THAT(nodes, ElementsAre("n1", "n2"));
  EXPECT_GE(cmd.replacements_size(), 2);
  EXPECT_NEAR(cmd.savings_per_hour(),
              2 * FakePrice(16, 32) - 3 * FakePrice(4, 8), 1e-9);
  double launches = 0;
  int pods = 0;
  for (const v1::NewNodeClaim& n : cmd.replacements()) {
    launches += n.launch().price();
    pods += n.pods_size();
    EXPECT_EQ(n.node_pool(), "default");
  }
  for (const v1::ExistingNodePlacement& e : cmd.existing_nodes()) {
    pods += e.pods_size();
  }
  EXPECT_EQ(pods, 9 * static_cast<int>(nodes.size()));
  const double candidates = nodes.size() * FakePrice(16, 32);
  EXPECT_NEAR(cmd.savings_per_hour(), candidates - launches, 1e-9);
  EXPECT_NEAR(o.karpenter_savings_per_hour(),
              karpenter.commands(0).savings_per_hour(), 1e-12);
  EXPECT_NEAR(o.savings_over_karpenter_per_hour(),
              cmd.savings_per_hour() - o.karpenter_savings_per_hour(), 1e-12);
  EXPECT_GT(o.savings_over_karpenter_per_hour(), 0);
  EXPECT_GT(o.guaranteed_savings_per_hour(), 0);
  EXPECT_LE(o.guaranteed_savings_per_hour(), cmd.savings_per_hour() + 1e-12);
  // One node alone cannot save more than Karpenter's deletion of one: only
  // the sets of two and three are simulated.
  EXPECT_EQ(o.candidate_sets_tried(), 2);
  EXPECT_EQ(o.reason(), "");
  EXPECT_THAT(Violations(c.request(), r), IsEmpty());
  // Same request bytes, same response bytes.
  EXPECT_EQ(DeterministicBytes(Optimized(c.request())), DeterministicBytes(r));
}

TEST(OptimizedConsolidationTest, RespectsTheUnderutilizedBudget) {
  Cluster c = ThreeHalfFullNodes();
  c.request()
      .mutable_node_pools(0)
      ->mutable_spec()
      ->mutable_disruption()
      ->mutable_budgets(0)
      ->set_nodes("1");
  const v1::DisruptResponse r = Optimized(c.request());
  // One node: Karpenter's own deletion is the best there is, and a set of
  // one node is not even simulated.
  EXPECT_FALSE(r.optimized().has_command());
  EXPECT_THAT(r.optimized().reason(), HasSubstr("save as much"));
  EXPECT_EQ(r.optimized().candidate_sets_tried(), 0);
}

// A full spot node: Karpenter would replace spot only by spot, which
// SpotToSpotConsolidation (off) forbids, and so does the proposal.
TEST(OptimizedConsolidationTest, NothingToProposeSaysWhy) {
  Cluster c;
  c.NodePool("default");
  c.Node("full", "default", {.capacity_type = "spot"});
  for (int i = 0; i < 4; ++i) c.Pod(absl::StrCat("p", i), "full", "1");
  const v1::DisruptResponse r = Optimized(c.request());
  EXPECT_EQ(r.commands_size(), 0);
  EXPECT_FALSE(r.optimized().has_command());
  EXPECT_EQ(r.optimized().reason(),
            "no candidate set can move its pods onto cheaper capacity");
  EXPECT_EQ(r.optimized().karpenter_savings_per_hour(), 0);
}

TEST(OptimizedConsolidationTest, BadOptionsNameTheField) {
  Cluster c = ThreeHalfFullNodes();
  c.request().mutable_options()->set_packing("Cheapest");
  absl::StatusOr<v1::DisruptResponse> r = Disrupt(c.request());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("options.packing"));
  c.request().mutable_options()->set_packing("Optimized");
  c.request().mutable_options()->set_packing_budget(-1);
  r = Disrupt(c.request());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("options.packingBudget"));
}

TEST(OptimizedConsolidationTest, TheVerifierCatchesABrokenProposal) {
  Cluster c = ThreeHalfFullNodes();
  const v1::DisruptResponse good = Optimized(c.request());
  ASSERT_TRUE(good.optimized().has_command());
  {
    // Its pods have nowhere to go without the replacements.
    v1::DisruptResponse bad = good;
    bad.mutable_optimized()->mutable_command()->clear_replacements();
    bad.mutable_optimized()->mutable_command()->set_decision("delete");
    EXPECT_THAT(Violations(c.request(), bad),
                Contains(HasSubstr("rescheduling")));
  }
  {
    // Dearer than the cluster as it is: empty copies of a replacement until
    // they cost more than the candidates.
    v1::DisruptResponse bad = good;
    v1::DisruptionCommand* cmd = bad.mutable_optimized()->mutable_command();
    v1::NewNodeClaim copy = cmd->replacements(0);
    copy.clear_pods();
    double price = 0;
    for (const v1::CommandCandidate& c : cmd->candidates()) price += c.price();
    for (double sum = 0; sum <= price; sum += copy.launch().price()) {
      *cmd->add_replacements() = copy;
    }
    EXPECT_THAT(Violations(c.request(), bad), Contains(HasSubstr("savings")));
  }
  {
    // Never among Karpenter's commands.
    v1::DisruptResponse bad = good;
    bad.clear_commands();
    *bad.add_commands() = good.optimized().command();
    EXPECT_THAT(Violations(c.request(), bad),
                Contains(HasSubstr("among Karpenter's commands")));
  }
  {
    // Budgets bind it as they bind a command.
    v1::DisruptResponse bad = good;
    for (v1::BudgetAllowance& b : *bad.mutable_budgets()) b.set_allowed(1);
    EXPECT_THAT(Violations(c.request(), bad), Contains(HasSubstr("budget")));
  }
}

// ---- ValidateCommand
// ---------------------------------------------------------

constexpr char kLater[] = "2026-12-02T10:00:15Z";

absl::StatusOr<v1::ValidateCommandResponse> ValidateLater(
    Cluster later, const v1::DisruptionCommand& cmd) {
  v1::ValidateCommandRequest v;
  *v.mutable_request() = later.request();
  *v.mutable_command() = cmd;
  return ValidateCommand(v);
}

// The proposal on ThreeHalfFullNodes (n1 and n2 into three size-4 NodeClaims,
// n3 stays), re-validated fifteen seconds later on the cluster as it then is,
// as Karpenter re-validates a consolidation command before it runs it.
TEST(OptimizedValidationTest, ReValidatesAsKarpenterDoesAConsolidation) {
  Cluster before = ThreeHalfFullNodes();
  const v1::DisruptResponse r = Optimized(before.request());
  ASSERT_TRUE(r.optimized().has_command()) << r.optimized().reason();
  const v1::DisruptionCommand& cmd = r.optimized().command();
  ASSERT_THAT(CandidateNodes(cmd), ElementsAre("n1", "n2"));
  ASSERT_EQ(cmd.replacements_size(), 3);
  const std::string more_expensive = absl::StrFormat(
      "the scheduling simulation now launches $%.4f/hour of replacements, "
      "more than the command's $%.4f/hour",
      FakePrice(16, 32) + FakePrice(4, 8), 3 * FakePrice(4, 8));
  struct Case {
    std::string name;
    std::function<void(Cluster&)> change;
    bool valid;
    std::string reason;  // its beginning when not valid
  };
  const std::vector<Case> cases = {
      {"unchanged", [](Cluster&) {}, true, ""},
      {"a pod left n3: the replacements are still needed, no dearer",
       [](Cluster& c) {
         auto* pods = c.request().mutable_pods();
         for (int i = 0; i < pods->size(); ++i) {
           if (pods->Get(i).metadata().name() == "n3-p0") {
             pods->DeleteSubrange(i, 1);
             break;
           }
         }
       },
       true, ""},
      {"candidate gone: n1 is being deleted",
       [](Cluster& c) { c.request().add_marked_for_deletion("n1"); }, false,
       "1 candidates are no longer valid"},
      {"candidate gone: do-not-disrupt on n2",
       [](Cluster& c) {
         for (v1::Node& n : *c.request().mutable_nodes()) {
           if (n.metadata().name() == "n2") {
             (*n.mutable_metadata()
                   ->mutable_annotations())["karpenter.sh/do-not-disrupt"] =
                 "true";
           }
         }
       },
       false, "1 candidates are no longer valid"},
      {"candidate gone: a new pod on n1 restarts consolidateAfter",
       [](Cluster& c) {
         c.request()
             .mutable_node_pools(0)
             ->mutable_spec()
             ->mutable_disruption()
             ->set_consolidate_after("1m");
         c.ClaimOf("n1").mutable_status()->set_last_pod_event_time(
             "2026-12-02T10:00:10Z");
       },
       false, "1 candidates are no longer valid"},
      {"candidate gone: n2 nominated for a pending pod",
       [](Cluster& c) { c.request().add_nominated("n2"); }, false,
       "1 candidates are no longer valid"},
      {"budget exhausted: one node at a time now",
       [](Cluster& c) {
         c.request()
             .mutable_node_pools(0)
             ->mutable_spec()
             ->mutable_disruption()
             ->mutable_budgets(0)
             ->set_nodes("1");
       },
       false,
       "a candidate can no longer be disrupted without violating budgets"},
      {"budget exhausted: n3 is deleting and takes one of two",
       [](Cluster& c) {
         c.request()
             .mutable_node_pools(0)
             ->mutable_spec()
             ->mutable_disruption()
             ->mutable_budgets(0)
             ->set_nodes("2");
         c.request().add_marked_for_deletion("n3");
       },
       false,
       "a candidate can no longer be disrupted without violating budgets"},
      {"cheaper no longer possible: n3 filled up, 18 CPUs to replace",
       [](Cluster& c) { c.Pod("n3-big", "n3", "7"); }, false, more_expensive},
      {"pods no longer fit: the NodePool's CPU limit is reached",
       [](Cluster& c) {
         (*c.request()
               .mutable_node_pools(0)
               ->mutable_spec()
               ->mutable_limits())["cpu"] = "17";
       },
       false,
       "not all pods would schedule, default/n1-p7 => incompatible with "
       "nodepool \"default\", daemonset overhead={}, all available instance "
       "types exceed limits for nodepool"},
      {"the command no longer holds: a new pod on n1 it does not place",
       [](Cluster& c) { c.Pod("n1-new", "n1", "500m"); }, false,
       "the command no longer holds: rescheduling: pod default/n1-new: of "
       "node n1 has no place after the command"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cluster later = before;
    later.request().set_now(kLater);
    tc.change(later);
    absl::StatusOr<v1::ValidateCommandResponse> got = ValidateLater(later, cmd);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->valid(), tc.valid) << got->reason();
    if (tc.valid) {
      EXPECT_EQ(got->reason(), "");
    } else {
      // The scheduler's errors go on with the other pods.
      EXPECT_THAT(got->reason(), StartsWith(tc.reason));
    }
    // The command comes back as it was given.
    EXPECT_EQ(DeterministicBytes(got->command()), DeterministicBytes(cmd));
  }
}

TEST(OptimizedValidationTest, SameAnswerForIndexedOptionsAndInAnyOrder) {
  Cluster c = ThreeHalfFullNodes();
  c.request().mutable_options()->set_instance_type_encoding("Indexed");
  const v1::DisruptResponse r = Optimized(c.request());
  ASSERT_TRUE(r.optimized().has_command()) << r.optimized().reason();
  ASSERT_GT(r.optimized().command().instance_type_names_size(), 0);
  Cluster later = c;
  later.request().set_now(kLater);
  absl::StatusOr<v1::ValidateCommandResponse> got =
      ValidateLater(later, r.optimized().command());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->valid()) << got->reason();
  // An index past the names is a command that cannot run.
  v1::DisruptionCommand bad = r.optimized().command();
  bad.mutable_replacements(0)->add_instance_type_indices(
      bad.instance_type_names_size());
  got = ValidateLater(later, bad);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_FALSE(got->valid());
  EXPECT_EQ(got->reason(),
            "a replacement's instance type index is out of range");
  // The request's lists in reverse order: the same bytes.
  Cluster reversed = later;
  std::reverse(reversed.request().mutable_pods()->begin(),
               reversed.request().mutable_pods()->end());
  std::reverse(reversed.request().mutable_nodes()->begin(),
               reversed.request().mutable_nodes()->end());
  absl::StatusOr<v1::ValidateCommandResponse> a =
      ValidateLater(later, r.optimized().command());
  absl::StatusOr<v1::ValidateCommandResponse> b =
      ValidateLater(reversed, r.optimized().command());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*b));
}

// A changed proposal is checked as what it is: a command that claims fewer
// replacements than its pods need, or a shape the method does not have.
TEST(OptimizedValidationTest, ATamperedCommandIsNotValid) {
  Cluster c = ThreeHalfFullNodes();
  const v1::DisruptResponse r = Optimized(c.request());
  ASSERT_TRUE(r.optimized().has_command()) << r.optimized().reason();
  Cluster later = c;
  later.request().set_now(kLater);
  {
    // A delete: the simulation still needs replacements.
    v1::DisruptionCommand del = r.optimized().command();
    del.clear_replacements();
    del.set_decision("delete");
    absl::StatusOr<v1::ValidateCommandResponse> got = ValidateLater(later, del);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_FALSE(got->valid());
    EXPECT_THAT(got->reason(), HasSubstr("more than the command's $0.0000"));
  }
  {
    v1::DisruptionCommand other = r.optimized().command();
    other.set_reason("Drifted");
    absl::StatusOr<v1::ValidateCommandResponse> got =
        ValidateLater(later, other);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_FALSE(got->valid());
    EXPECT_THAT(got->reason(), HasSubstr("the command no longer holds"));
  }
  // Karpenter's own command on the same cluster is validated as before.
  ASSERT_EQ(r.commands_size(), 1);
  absl::StatusOr<v1::ValidateCommandResponse> karpenter =
      ValidateLater(later, r.commands(0));
  ASSERT_TRUE(karpenter.ok()) << karpenter.status();
  EXPECT_TRUE(karpenter->valid()) << karpenter->reason();
  // An unknown method names every method ValidateCommand takes.
  v1::DisruptionCommand unknown = r.optimized().command();
  unknown.set_method("cheapest-consolidation");
  absl::StatusOr<v1::ValidateCommandResponse> err =
      ValidateLater(later, unknown);
  ASSERT_FALSE(err.ok());
  EXPECT_THAT(err.status().message(), HasSubstr("optimized-consolidation"));
}

// Generated clusters: Karpenter's answer keeps its bytes, every proposal
// passes the checker and saves more than the pass's commands.
TEST(OptimizedConsolidationTest, RandomClustersKeepKarpentersBytes) {
  constexpr int kClusters = 60;
  int proposed = 0;
  for (uint64_t seed = 0; seed < kClusters; ++seed) {
    v1::DisruptRequest req = workload::RandomDisruptionCluster(seed);
    absl::StatusOr<v1::DisruptResponse> karpenter = Disrupt(req);
    ASSERT_TRUE(karpenter.ok())
        << "seed " << seed << ": " << karpenter.status();
    const v1::DisruptResponse r = Optimized(req);
    EXPECT_EQ(KarpenterPart(r), DeterministicBytes(*karpenter))
        << "seed " << seed;
    EXPECT_THAT(Violations(req, r), IsEmpty()) << "seed " << seed;
    const v1::OptimizedConsolidation& o = r.optimized();
    if (!o.has_command()) {
      EXPECT_NE(o.reason(), "") << "seed " << seed;
      continue;
    }
    ++proposed;
    EXPECT_GT(o.savings_over_karpenter_per_hour(), 0) << "seed " << seed;
    EXPECT_GT(o.guaranteed_savings_per_hour(), 0) << "seed " << seed;
    for (const v1::DisruptionCommand& k : r.commands()) {
      EXPECT_NE(k.method(), "optimized-consolidation");
    }
  }
  std::cout << proposed << " of " << kClusters
            << " generated clusters have a proposal\n";
}

}  // namespace
}  // namespace nodeplan::testing
