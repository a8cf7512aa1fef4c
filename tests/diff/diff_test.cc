// nodeplan::Diff: the workshop (examples/workshop/) before and after its
// default NodePool loses m5.xlarge, gets a longer expireAfter and a budget
// of one node (tests/diff/testdata/nodepool-default-changed.yaml).

#include "nodeplan/diff.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nodeplan/c_api.h"
#include "nodeplan/digest.h"
#include "nodeplan/manifest.h"
#include "render_diff.h"

namespace nodeplan {
namespace {

std::string Source(const std::string& path) {
  return std::string(NODEPLAN_SOURCE_DIR) + "/" + path;
}

v1::ManifestSet LoadSet(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) files.push_back(Source(p));
  v1::LoadOptions options;
  options.set_skip_unknown_kinds(true);
  absl::StatusOr<v1::ManifestSet> set = LoadManifestFiles(files, options);
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? *set : v1::ManifestSet();
}

v1::DisruptRequest Request(const v1::ManifestSet& set) {
  v1::DisruptRequest r;
  *r.mutable_node_pools() = set.node_pools();
  *r.mutable_node_classes() = set.node_classes();
  *r.mutable_nodes() = set.nodes();
  *r.mutable_node_claims() = set.node_claims();
  *r.mutable_pods() = set.pods();
  *r.mutable_deployments() = set.deployments();
  *r.mutable_daemon_sets() = set.daemon_sets();
  r.set_catalog_ref("aws");
  r.set_now("2026-12-02T12:00:00Z");
  return r;
}

// `set` with its default NodePool replaced by the edited one.
v1::ManifestSet Edited(v1::ManifestSet set) {
  const v1::ManifestSet change =
      LoadSet({"tests/diff/testdata/nodepool-default-changed.yaml"});
  for (v1::NodePool& np : *set.mutable_node_pools()) {
    if (np.metadata().name() == "default") np = change.node_pools(0);
  }
  return set;
}

v1::DiffResponse RunDiff(const std::vector<std::string>& paths) {
  const v1::ManifestSet set = LoadSet(paths);
  v1::DiffRequest request;
  *request.mutable_before() = Request(set);
  *request.mutable_after() = Request(Edited(set));
  absl::StatusOr<v1::DiffResponse> r = Diff(request);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : v1::DiffResponse();
}

TEST(Diff, PendingPodsPlannedOnSmallerTypes) {
  const v1::DiffResponse d = RunDiff({"examples/workshop"});
  EXPECT_EQ(d.before().new_node_claims_size(), 2);
  EXPECT_EQ(d.after().new_node_claims_size(), 3);
  EXPECT_DOUBLE_EQ(d.cost_before(), d.before().cost());
  EXPECT_DOUBLE_EQ(d.cost_after(), d.after().cost());
  ASSERT_EQ(d.removed_size(), 1);
  EXPECT_EQ(d.removed(0).instance_type(), "m5.xlarge");
  EXPECT_EQ(d.removed(0).count(), 1);
  ASSERT_EQ(d.added_size(), 1);
  EXPECT_EQ(d.added(0).instance_type(), "c5.large");
  EXPECT_EQ(d.added(0).count(), 2);
  EXPECT_TRUE(d.became_unschedulable().empty());
  EXPECT_TRUE(d.drifted().empty());  // nothing runs yet
}

TEST(Diff, RunningNodeClaimsDriftPacedByTheBudget) {
  const v1::DiffResponse d =
      RunDiff({"examples/workshop", "examples/workshop/scale-in"});
  ASSERT_EQ(d.drifted_size(), 2);
  for (const v1::DriftedNodeClaim& c : d.drifted()) {
    EXPECT_EQ(c.node_pool(), "default");
    EXPECT_EQ(c.reason(), "NodePoolDrifted");
    EXPECT_FALSE(c.node().empty());
  }
  ASSERT_EQ(d.drift_budgets_size(), 1);
  EXPECT_EQ(d.drift_budgets(0).node_pool(), "default");
  EXPECT_EQ(d.drift_budgets(0).allowed(), 1);  // budgets: nodes "1"
  EXPECT_EQ(d.drift_budgets(0).nodes(), 2);
}

TEST(Diff, NoChangeNoDifference) {
  const v1::ManifestSet set =
      LoadSet({"examples/workshop", "examples/workshop/scale-in"});
  v1::DiffRequest request;
  *request.mutable_before() = Request(set);
  *request.mutable_after() = Request(set);
  absl::StatusOr<v1::DiffResponse> d = Diff(request);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->added().empty());
  EXPECT_TRUE(d->removed().empty());
  EXPECT_TRUE(d->drifted().empty());
  EXPECT_EQ(d->cost_before(), d->cost_after());
}

TEST(Diff, ThroughTheCApi) {
  const v1::ManifestSet set =
      LoadSet({"examples/workshop", "examples/workshop/scale-in"});
  v1::DiffRequest request;
  *request.mutable_before() = Request(set);
  *request.mutable_after() = Request(Edited(set));
  const std::string bytes = request.SerializeAsString();
  void* out = nullptr;
  size_t len = 0;
  char* error = nullptr;
  ASSERT_EQ(nodeplan_diff(bytes.data(), bytes.size(), &out, &len, &error), 0)
      << (error ? error : "");
  v1::DiffResponse response;
  ASSERT_TRUE(response.ParseFromArray(out, static_cast<int>(len)));
  nodeplan_free(out);
  absl::StatusOr<v1::DiffResponse> direct = Diff(request);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(DeterministicBytes(response), DeterministicBytes(*direct));
}

TEST(Diff, NowIsRequired) {
  v1::DiffRequest request;
  absl::StatusOr<v1::DiffResponse> d = Diff(request);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), ::testing::HasSubstr("after.now"));
}

TEST(DiffText, Goldens) {
  for (const auto& [name, paths] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"pending", {"examples/workshop"}},
           {"running", {"examples/workshop", "examples/workshop/scale-in"}}}) {
    std::ifstream in(Source("tests/diff/testdata/" + name + ".txt"));
    std::stringstream golden;
    golden << in.rdbuf();
    EXPECT_EQ(cli::RenderDiff(RunDiff(paths)), golden.str()) << name;
  }
}

}  // namespace
}  // namespace nodeplan
