// The compiled-cluster simulator (what Disrupt runs) against the request
// simulator (each simulation stated as a whole ScheduleRequest): over random
// disruption clusters and many candidate sets, the same result.

#include <string>
#include <vector>

#include "disruption/cluster_view.h"
#include "disruption/compiled_simulator.h"
#include "disruption/conditions.h"
#include "disruption/request_simulator.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"
#include "scheduling/cluster_model.h"
#include "scheduling/pods.h"

namespace nodeplan::disruption {
namespace {

std::string Describe(const absl::StatusOr<SimulationResult>& r) {
  if (!r.ok()) return "error: " + std::string(r.status().message());
  std::string out = r->all_non_pending_scheduled ? "ok\n" : "not all\n";
  out += r->errors + "\n";
  for (const v1::ExistingNodePlacement& e : r->existing)
    out += DeterministicBytes(e) + "\n";
  for (const SimulatedNodeClaim& c : r->new_claims) {
    out += DeterministicBytes(c.claim) + "|" + std::to_string(c.pool) + "|";
    for (int o : c.options) out += std::to_string(o) + ",";
    out += "\n";
  }
  return out;
}

// Candidate sets: each node alone, every other node, the first half, all.
std::vector<std::vector<int>> CandidateSets(int n) {
  std::vector<std::vector<int>> sets;
  for (int i = 0; i < n; ++i) sets.push_back({i});
  std::vector<int> odd, half, all;
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 1) odd.push_back(i);
    if (i < n / 2) half.push_back(i);
    all.push_back(i);
  }
  sets.push_back(odd);
  sets.push_back(half);
  sets.push_back(all);
  return sets;
}

void ExpectSameSimulations(const v1::DisruptRequest& req,
                           const std::string& what, int* compared) {
  absl::StatusOr<std::unique_ptr<ClusterView>> view = ClusterView::Build(req);
  ASSERT_TRUE(view.ok()) << what << ": " << view.status();
  ConditionsResult conditions = ComputeConditions(**view);
  RequestSimulator reference(**view, conditions);
  CompiledSimulator compiled(**view, conditions);
  const int n = static_cast<int>((*view)->nodes().size());
  int k = 0;
  for (const std::vector<int>& set : CandidateSets(n)) {
    const bool consolidation = (k++ % 2) == 0;
    std::string want = Describe(reference.Simulate(set, consolidation));
    std::string got = Describe(compiled.Simulate(set, consolidation));
    ASSERT_EQ(want, got) << what << ", candidates " << set.size()
                         << (set.empty() ? ""
                                         : " from " + std::to_string(set[0]));
    ++*compared;
  }
  // Falling back to the reference would make the comparison vacuous.
  EXPECT_LE(compiled.fallbacks() * 10, k) << what;
}

TEST(CompiledSimulatorTest, MatchesTheRequestSimulatorOnRandomClusters) {
  int compared = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    ExpectSameSimulations(workload::RandomDisruptionCluster(seed),
                          "seed " + std::to_string(seed), &compared);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(compared, 2000);
}

// A scheduling random cluster (spread, affinity, anti-affinity, host ports,
// DaemonSets, limits, existing nodes with bound pods) as a disruption
// request.
v1::DisruptRequest AsDisruptRequest(const v1::ScheduleRequest& s) {
  v1::DisruptRequest d;
  *d.mutable_node_pools() = s.node_pools();
  *d.mutable_node_classes() = s.node_classes();
  if (s.has_catalog()) *d.mutable_catalog() = s.catalog();
  d.set_catalog_ref(s.catalog_ref());
  *d.mutable_node_overlays() = s.node_overlays();
  *d.mutable_nodes() = s.nodes();
  *d.mutable_node_claims() = s.node_claims();
  *d.mutable_pods() = s.pods();
  *d.mutable_daemon_sets() = s.daemon_sets();
  *d.mutable_persistent_volume_claims() = s.persistent_volume_claims();
  *d.mutable_persistent_volumes() = s.persistent_volumes();
  *d.mutable_storage_classes() = s.storage_classes();
  *d.mutable_csi_nodes() = s.csi_nodes();
  *d.mutable_unavailable_offerings() = s.unavailable_offerings();
  *d.mutable_deployments() = s.deployments();
  *d.mutable_namespaces() = s.namespaces();
  d.set_now("2026-12-02T10:00:00Z");
  return d;
}

TEST(CompiledSimulatorTest, MatchesTheRequestSimulatorOnSchedulingClusters) {
  int compared = 0;
  workload::RandomClusterOptions options;
  options.max_existing_nodes = 8;
  options.max_daemon_sets = 3;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    ExpectSameSimulations(
        AsDisruptRequest(workload::RandomCluster(seed, options)),
        "scheduling seed " + std::to_string(seed), &compared);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(compared, 2000);
}

TEST(CompiledSimulatorTest, MatchesTheRequestSimulatorAtScale) {
  int compared = 0;
  ExpectSameSimulations(workload::ScaleDisruptionCluster(40, 30, 20),
                        "scale cluster", &compared);
}

// Bound pods with extended resources: the compiled model parses those
// itself (the view's parse names them in another interner) and takes the
// view's parse of the others; both must give the request simulator's
// answers.
TEST(CompiledSimulatorTest, MatchesTheRequestSimulatorWithExtendedResources) {
  v1::DisruptRequest req = workload::ScaleDisruptionCluster(12, 10, 20);
  for (v1::Node& n : *req.mutable_nodes())
    (*n.mutable_status()->mutable_allocatable())["example.com/dongle"] = "4";
  int k = 0;
  for (v1::Pod& p : *req.mutable_pods()) {
    if (p.spec().node_name().empty() || k++ % 3 != 0) continue;
    (*p.mutable_spec()
          ->mutable_containers(0)
          ->mutable_resources()
          ->mutable_requests())["example.com/dongle"] = "1";
  }
  int compared = 0;
  ExpectSameSimulations(req, "extended resources", &compared);
  EXPECT_GT(compared, 10);
}

// A compiled cluster that skips its bound pods' labels
// (scheduling::BoundPodLabels::kSkip) answers every simulation whose pods
// have no topology terms byte for byte as one that interns them, and calls
// Unavailable a simulation that would count bound pods by their labels, over
// random scheduling clusters (spread, pod affinity and anti-affinity, bound
// pods on existing nodes).
TEST(ClusterModelTest, SkippedBoundPodLabelsAnswerTheSameOrUnavailable) {
  workload::RandomClusterOptions options;
  options.max_existing_nodes = 6;
  int same = 0, unavailable = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE(seed);
    const v1::ScheduleRequest req = workload::RandomCluster(seed, options);
    v1::ScheduleRequest base;
    *base.mutable_node_pools() = req.node_pools();
    *base.mutable_node_classes() = req.node_classes();
    if (req.has_catalog()) *base.mutable_catalog() = req.catalog();
    base.set_catalog_ref(req.catalog_ref());
    auto snapshot = Snapshot::Compile(base);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    v1::ScheduleRequest state = req;
    state.clear_node_pools();
    state.clear_node_classes();
    state.clear_catalog();
    state.clear_deployments();
    bool any_bound = false;
    scheduling::Simulation plain, topology;
    for (const v1::Pod& p : req.pods()) {
      if (!p.spec().node_name().empty()) {
        any_bound = true;
        continue;
      }
      (scheduling::HasPodTopologyTerms(p.spec()) ? topology : plain)
          .pods.push_back({&p, false, nullptr});
    }
    auto interned = scheduling::ClusterModel::Build(*snapshot, state);
    auto skipped = scheduling::ClusterModel::Build(
        *snapshot, state, {}, scheduling::BoundPodLabels::kSkip);
    ASSERT_TRUE(interned.ok() && skipped.ok());
    v1::ScheduleResponse want, got;
    ASSERT_TRUE((*interned)->Simulate(plain, nullptr, &want).ok());
    ASSERT_TRUE((*skipped)->Simulate(plain, nullptr, &got).ok());
    EXPECT_EQ(DeterministicBytes(got), DeterministicBytes(want));
    ++same;
    if (topology.pods.empty() || !any_bound) continue;
    // Unavailable, unless no topology group had a bound pod to count (the
    // bound pods terminal, or the terms invalid): then the same answer.
    v1::ScheduleResponse with_labels, without;
    ASSERT_TRUE((*interned)->Simulate(topology, nullptr, &with_labels).ok());
    absl::Status s = (*skipped)->Simulate(topology, nullptr, &without);
    if (absl::IsUnavailable(s)) {
      ++unavailable;
    } else {
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(DeterministicBytes(without), DeterministicBytes(with_labels));
    }
  }
  EXPECT_GT(same, 150);
  EXPECT_GT(unavailable, 30);
}

}  // namespace
}  // namespace nodeplan::disruption
