// nodeplan::Explain on the workshop (examples/workshop/) plus
// tests/explain/testdata/cluster.yaml: a tainted NodePool of weight 10, a
// NodePool whose CPU limit no type fits under, a pod too big for any admitted
// type and a pod whose architecture no admitted type offers.

#include "nodeplan/explain.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nodeplan/c_api.h"
#include "nodeplan/digest.h"
#include "nodeplan/manifest.h"
#include "render_explain.h"

namespace nodeplan {
namespace {

using ::testing::HasSubstr;

std::string Source(const std::string& path) {
  return std::string(NODEPLAN_SOURCE_DIR) + "/" + path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

v1::ScheduleRequest Cluster() {
  v1::LoadOptions options;
  options.set_skip_unknown_kinds(true);
  absl::StatusOr<v1::ManifestSet> set = LoadManifestFiles(
      {Source("examples/workshop"), Source("tests/explain/testdata")}, options);
  EXPECT_TRUE(set.ok()) << set.status();
  v1::ScheduleRequest r;
  *r.mutable_node_pools() = set->node_pools();
  *r.mutable_node_classes() = set->node_classes();
  *r.mutable_pods() = set->pods();
  *r.mutable_deployments() = set->deployments();
  *r.mutable_daemon_sets() = set->daemon_sets();
  *r.mutable_nodes() = set->nodes();
  *r.mutable_node_claims() = set->node_claims();
  *r.mutable_persistent_volumes() = set->persistent_volumes();
  *r.mutable_persistent_volume_claims() = set->persistent_volume_claims();
  *r.mutable_storage_classes() = set->storage_classes();
  r.set_catalog_ref("aws");
  return r;
}

v1::PodExplanation ExplainPod(const std::string& pod) {
  v1::ExplainRequest request;
  *request.mutable_request() = Cluster();
  request.set_pod(pod);
  absl::StatusOr<v1::ExplainResponse> r = Explain(request);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->pod() : v1::PodExplanation();
}

// The failed check per NodePool, in the order reported.
std::vector<std::pair<std::string, std::string>> Checks(
    const v1::PodExplanation& e) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const v1::NodePoolCheck& c : e.node_pools()) {
    out.emplace_back(c.node_pool(), c.failed_check());
  }
  return out;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(ExplainPod, NodePoolsInTheSchedulersOrderWithTheFirstFailingCheck) {
  // Weight 10 first, then names descending: the order of the scheduler's
  // own unschedulable message.
  EXPECT_EQ(Checks(ExplainPod("default/big")),
            (Pairs{{"gpu", "taints"},
                   {"tiny", "resources"},
                   {"general-purpose", "requirements"},
                   {"default", "resources"}}));
  EXPECT_EQ(Checks(ExplainPod("default/arm")),
            (Pairs{{"gpu", "taints"},
                   {"tiny", "instance-types"},
                   {"general-purpose", "requirements"},
                   {"default", "instance-types"}}));
  EXPECT_EQ(Checks(ExplainPod("default/inflate-3")),
            (Pairs{{"gpu", "taints"},
                   {"tiny", "limits"},
                   {"general-purpose", "requirements"},
                   {"default", ""}}));
}

// Checks this module does not make itself (a volume's zone, topology) come
// from the scheduler's answer, the part about the NodePool alone.
TEST(ExplainPod, TheSchedulersOwnReason) {
  const v1::PodExplanation e = ExplainPod("default/db");
  EXPECT_EQ(e.outcome(), "unschedulable");
  EXPECT_EQ(Checks(e), (Pairs{{"gpu", "taints"},
                              {"tiny", "limits"},
                              {"general-purpose", "requirements"},
                              {"default", "scheduler"}}));
  EXPECT_THAT(e.node_pools(3).message(),
              HasSubstr("but the scheduler answers"));
  EXPECT_THAT(e.node_pools(3).message(),
              ::testing::Not(HasSubstr("nodepool \"gpu\"")));
}

TEST(ExplainPod, TheNearestMissInNumbers) {
  const v1::PodExplanation e = ExplainPod("default/big");
  EXPECT_EQ(e.outcome(), "unschedulable");
  const v1::NodePoolCheck& def = e.node_pools(3);
  EXPECT_EQ(def.message(),
            "needs 9 CPU; the largest admitted type, m5.xlarge, has 3920m "
            "allocatable");
  EXPECT_EQ(def.instance_type(), "m5.xlarge");
  EXPECT_EQ(def.needs().at("cpu"), "9");
  EXPECT_EQ(def.allocatable().at("cpu"), "3920m");
  EXPECT_EQ(def.admitted_types(), 4);
  EXPECT_EQ(def.fitting_types(), 0);
}

TEST(ExplainPod, WhereAPlacedPodGoes) {
  const v1::PodExplanation e = ExplainPod("default/inflate-3");
  EXPECT_EQ(e.outcome(), "NodeClaim");
  EXPECT_EQ(e.node_pool(), "default");
  EXPECT_EQ(e.launch().instance_type(), "m5.xlarge");
  EXPECT_THAT(e.node_pools(3).message(), HasSubstr("4 of 4 admitted types"));
  EXPECT_THAT(e.node_pools(1).message(),
              HasSubstr("cpu limit 1 CPU, 0 CPU used"));
}

TEST(ExplainPod, UnknownPodIsNotFound) {
  v1::ExplainRequest request;
  *request.mutable_request() = Cluster();
  request.set_pod("default/nope");
  absl::StatusOr<v1::ExplainResponse> r = Explain(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("default/nope"));
}

TEST(ExplainNodePool, AdmittedLimitsBudgetsAndPods) {
  v1::ExplainRequest request;
  *request.mutable_request() = Cluster();
  request.set_node_pool("default");
  absl::StatusOr<v1::ExplainResponse> r = Explain(request);
  ASSERT_TRUE(r.ok()) << r.status();
  const v1::NodePoolExplanation& e = r->node_pool();
  ASSERT_EQ(e.admitted_size(), 4);
  EXPECT_EQ(e.admitted(0).name(), "c5.large");
  ASSERT_EQ(e.limits_size(), 2);
  EXPECT_EQ(e.limits(0).resource(), "cpu");
  EXPECT_EQ(e.limits(0).left(), "1000");
  EXPECT_EQ(e.planned_pods_size(), 20);
  // The big pod targets it (it fails on resources, not on requirements);
  // the arm pod cannot.
  EXPECT_THAT(std::vector<std::string>(e.targeting_pods().begin(),
                                       e.targeting_pods().end()),
              ::testing::Contains("default/big"));
  EXPECT_THAT(std::vector<std::string>(e.targeting_pods().begin(),
                                       e.targeting_pods().end()),
              ::testing::Not(::testing::Contains("default/arm")));
}

// The same answer through the C ABI, as bytes another tool would parse.
TEST(ExplainCApi, SameAnswerAsTheLibrary) {
  v1::ExplainRequest request;
  *request.mutable_request() = Cluster();
  request.set_pod("default/big");
  const std::string bytes = request.SerializeAsString();
  void* out = nullptr;
  size_t len = 0;
  char* error = nullptr;
  ASSERT_EQ(nodeplan_explain(bytes.data(), bytes.size(), &out, &len, &error), 0)
      << (error ? error : "");
  v1::ExplainResponse response;
  ASSERT_TRUE(response.ParseFromArray(out, static_cast<int>(len)));
  nodeplan_free(out);
  absl::StatusOr<v1::ExplainResponse> direct = Explain(request);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(DeterministicBytes(response), DeterministicBytes(*direct));
  EXPECT_EQ(response.pod().node_pools(3).failed_check(), "resources");

  request.set_pod("default/nope");
  const std::string missing = request.SerializeAsString();
  EXPECT_EQ(
      nodeplan_explain(missing.data(), missing.size(), &out, &len, &error),
      static_cast<int>(absl::StatusCode::kNotFound));
  ASSERT_NE(error, nullptr);
  EXPECT_THAT(std::string(error), HasSubstr("default/nope"));
  nodeplan_free(error);
}

// The CLI's text, whole.
TEST(ExplainText, Goldens) {
  for (const std::string pod : {"big", "arm", "inflate-3", "db"}) {
    EXPECT_EQ(cli::RenderPodExplanation(ExplainPod("default/" + pod)),
              ReadFile(Source("tests/explain/testdata/pod-" + pod + ".txt")))
        << pod;
  }
  for (const std::string np : {"default", "tiny"}) {
    v1::ExplainRequest request;
    *request.mutable_request() = Cluster();
    request.set_node_pool(np);
    absl::StatusOr<v1::ExplainResponse> r = Explain(request);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(
        cli::RenderNodePoolExplanation(r->node_pool()),
        ReadFile(Source("tests/explain/testdata/nodepool-" + np + ".txt")))
        << np;
  }
}

}  // namespace
}  // namespace nodeplan
