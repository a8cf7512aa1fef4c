// Schedule over the random disruption clusters (workload::
// RandomDisruptionCluster), which hold NodeClaims and Nodes being deleted
// with pods bound to them: every plan passes the independent verifier
// (which reads the deleting-node rule on its own, include/nodeplan/verify.h),
// the same request gives the same bytes, the pods a deleting node gives up
// are all accounted for, and the cluster handle answers the same.

#include <memory>
#include <set>
#include <string>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "nodeplan/cluster.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace nodeplan::testing {
namespace {

v1::ScheduleRequest StateOf(const v1::DisruptRequest& d) {
  v1::ScheduleRequest r;
  *r.mutable_node_pools() = d.node_pools();
  *r.mutable_node_classes() = d.node_classes();
  if (d.has_catalog()) *r.mutable_catalog() = d.catalog();
  r.set_catalog_ref(d.catalog_ref());
  *r.mutable_nodes() = d.nodes();
  *r.mutable_node_claims() = d.node_claims();
  *r.mutable_pods() = d.pods();
  *r.mutable_daemon_sets() = d.daemon_sets();
  *r.mutable_persistent_volume_claims() = d.persistent_volume_claims();
  *r.mutable_persistent_volumes() = d.persistent_volumes();
  *r.mutable_storage_classes() = d.storage_classes();
  *r.mutable_namespaces() = d.namespaces();
  return r;
}

// The pods a response places or reports unschedulable.
std::set<std::string> Answered(const v1::ScheduleResponse& resp) {
  std::set<std::string> out;
  for (const auto& c : resp.new_node_claims())
    out.insert(c.pods().begin(), c.pods().end());
  for (const auto& e : resp.existing_nodes())
    out.insert(e.pods().begin(), e.pods().end());
  for (const auto& u : resp.unschedulable()) out.insert(u.pod());
  return out;
}

TEST(DeletingNodesProperty, RandomDisruptionClustersScheduleAndVerify) {
  int with_deleting = 0, moved = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const v1::ScheduleRequest r =
        StateOf(workload::RandomDisruptionCluster(seed));
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_TRUE(resp.ok()) << seed << ": " << resp.status();
    for (const Violation& v : Verify(r, *resp))
      ADD_FAILURE() << "seed " << seed << ": " << FormatViolation(v);
    absl::StatusOr<v1::ScheduleResponse> again = Schedule(r);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(Bytes(*again), Bytes(*resp)) << seed;

    // Count the clusters that exercise the rule, and check the bound pods
    // answered are exactly ones on nodes being deleted.
    std::set<std::string> deleting;
    std::set<std::string> claimed;
    for (const auto& c : r.node_claims()) {
      if (c.status().node_name().empty()) continue;
      claimed.insert(c.status().node_name());
      if (!c.metadata().deletion_timestamp().empty())
        deleting.insert(c.status().node_name());
    }
    for (const auto& n : r.nodes())
      if (!claimed.contains(n.metadata().name()) &&
          !n.metadata().deletion_timestamp().empty())
        deleting.insert(n.metadata().name());
    if (!deleting.empty()) ++with_deleting;
    const std::set<std::string> answered = Answered(*resp);
    for (const auto& p : r.pods()) {
      if (p.spec().node_name().empty()) continue;
      const std::string key =
          absl::StrCat(p.metadata().namespace_(), "/", p.metadata().name());
      if (!answered.contains(key)) continue;
      ++moved;
      EXPECT_TRUE(deleting.contains(p.spec().node_name()))
          << seed << ": " << key << " on " << p.spec().node_name();
    }
  }
  // The generator makes such clusters; the property must not hold vacuously.
  EXPECT_GT(with_deleting, 10);
  EXPECT_GT(moved, 10);
}

TEST(DeletingNodesProperty, ClusterHandleAgreesOnRandomClusters) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const v1::ScheduleRequest r =
        StateOf(workload::RandomDisruptionCluster(seed));
    absl::StatusOr<v1::ScheduleResponse> one_shot = Schedule(r);
    ASSERT_TRUE(one_shot.ok()) << seed << ": " << one_shot.status();
    v1::ClusterUpdate init;
    v1::ManifestSet& u = *init.mutable_upserts();
    *u.mutable_node_pools() = r.node_pools();
    *u.mutable_node_classes() = r.node_classes();
    *u.mutable_nodes() = r.nodes();
    *u.mutable_node_claims() = r.node_claims();
    *u.mutable_pods() = r.pods();
    *u.mutable_daemon_sets() = r.daemon_sets();
    *u.mutable_namespaces() = r.namespaces();
    if (r.has_catalog()) *init.mutable_catalog() = r.catalog();
    init.set_catalog_ref(r.catalog_ref());
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Create(init);
    ASSERT_TRUE(cluster.ok()) << seed << ": " << cluster.status();
    absl::StatusOr<v1::ScheduleResponse> handle =
        (*cluster)->Schedule(v1::ScheduleRequest());
    ASSERT_TRUE(handle.ok()) << seed << ": " << handle.status();
    EXPECT_EQ(Bytes(*handle), Bytes(*one_shot)) << seed;
  }
}

}  // namespace
}  // namespace nodeplan::testing
