// Scenarios translated from Karpenter's scheduling suite, Describe "Deleting
// Nodes" (sigs.k8s.io/karpenter v1.14.1,
// pkg/controllers/provisioning/scheduling/suite_test.go): the provisioner
// schedules, beside pending pods, the pods of nodes being deleted that will
// need a new home (StateNodes.Deleting().CurrentlyReschedulablePods).
// Karpenter marks the node for deletion in its own state; here its NodeClaim
// carries a deletionTimestamp, which Karpenter's state reads the same way.
// The PodDisruptionBudget entries are not restated: a ScheduleRequest
// carries no PDBs (Disrupt's drain reads them).

#include <functional>
#include <memory>
#include <string>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"
#include "nodeplan/cluster.h"
#include "nodeplan/verify.h"

namespace nodeplan::testing {
namespace {

// A small-instance-type node from an earlier round, its NodeClaim being
// deleted, holding `pod`.
v1::ScheduleRequest DeletingNodeWith(v1::Pod pod) {
  auto r = KRequest();
  v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                     "2038Mi", "5", true);
  v1::NodeClaim c = LinkedClaim(n);
  c.mutable_metadata()->set_deletion_timestamp("2026-12-01T00:00:00Z");
  *r.add_node_claims() = c;
  *r.add_nodes() = n;
  *r.add_pods() = BoundTo(std::move(pod), "n1");
  return r;
}

v1::Pod Owned(const std::string& kind) {
  v1::Pod p = Pod("p", "0", "100M");
  if (!kind.empty()) {
    auto* o = p.mutable_metadata()->add_owner_references();
    o->set_api_version("apps/v1");
    o->set_kind(kind);
    o->set_name("owner");
    o->set_controller(true);
  }
  return p;
}

// "should re-schedule pods from a deleting node when pods are active", "should
// not re-schedule pods from a deleting node when pods are not active", "...
// owned by a DaemonSet", "should not reschedule pods from a deleting node
// when pods are not active and they are owned by a ReplicaSet" and "should
// reschedule pods from a deleting node when pods are not active and they are
// owned by a StatefulSet".
TEST(KarpenterDeletingNodes, WhichPodsOfADeletingNodeGetANewNode) {
  struct Case {
    const char* name;
    std::string owner;
    bool evicted;  // the eviction set the pod's deletionTimestamp
    bool new_node;
  } cases[] = {
      {"active", "", false, true},
      {"not active", "", true, false},
      {"DaemonSet", "DaemonSet", true, false},
      {"not active, ReplicaSet", "ReplicaSet", true, false},
      {"not active, StatefulSet", "StatefulSet", true, true},
      {"active, ReplicaSet", "ReplicaSet", false, true},
  };
  for (const Case& c : cases) {
    v1::Pod p = Owned(c.owner);
    if (c.evicted)
      p.mutable_metadata()->set_deletion_timestamp("2026-12-01T00:00:30Z");
    const v1::ScheduleRequest r = DeletingNodeWith(p);
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), c.new_node ? 1 : 0) << c.name;
    ExpectVerified(r, resp, c.name);
    if (c.new_node && resp.new_node_claims_size() == 1) {
      EXPECT_EQ(LaunchedType(resp), "small-instance-type") << c.name;
      EXPECT_THAT(resp.new_node_claims(0).pods(),
                  ::testing::ElementsAre("default/p"))
          << c.name;
    }
  }
}

// Karpenter's other rules for those pods (IsReschedulable, IsDisruptable,
// StateNode.Deleted): a do-not-disrupt pod stays (its node waits for it), as
// do mirror and terminal pods; a Node being deleted without a NodeClaim
// gives its pods up, while a Node whose NodeClaim is not being deleted does
// not count as deleting.
TEST(KarpenterDeletingNodes, KarpentersOtherRules) {
  struct Case {
    const char* name;
    std::function<void(v1::ScheduleRequest&)> edit;
    bool new_node;
  } cases[] = {
      {"do-not-disrupt",
       [](v1::ScheduleRequest& r) {
         (*r.mutable_pods(0)
               ->mutable_metadata()
               ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = "true";
       },
       false},
      {"nominated elsewhere (found by fuzz_schedule_request)",
       [](v1::ScheduleRequest& r) {
         r.mutable_pods(0)->mutable_status()->set_nominated_node_name("n2");
       },
       true},
      {"scheduling gate left on a running pod",
       [](v1::ScheduleRequest& r) {
         r.mutable_pods(0)->mutable_spec()->add_scheduling_gates()->set_name(
             "example.com/gate");
       },
       true},
      {"do-not-disrupt, Never (invalid for Go's ParseDuration)",
       [](v1::ScheduleRequest& r) {
         (*r.mutable_pods(0)
               ->mutable_metadata()
               ->mutable_annotations())["karpenter.sh/do-not-disrupt"] =
             "Never";
       },
       true},
      {"do-not-disrupt, a duration",
       [](v1::ScheduleRequest& r) {
         (*r.mutable_pods(0)
               ->mutable_metadata()
               ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = "1h";
       },
       false},
      {"do-not-disrupt, invalid value",
       [](v1::ScheduleRequest& r) {
         (*r.mutable_pods(0)
               ->mutable_metadata()
               ->mutable_annotations())["karpenter.sh/do-not-disrupt"] =
             "yes please";
       },
       true},
      {"mirror pod",
       [](v1::ScheduleRequest& r) {
         auto* o =
             r.mutable_pods(0)->mutable_metadata()->add_owner_references();
         o->set_api_version("v1");
         o->set_kind("Node");
         o->set_name("n1");
       },
       false},
      {"succeeded",
       [](v1::ScheduleRequest& r) {
         r.mutable_pods(0)->mutable_status()->set_phase("Succeeded");
       },
       false},
      {"node deleting, no NodeClaim",
       [](v1::ScheduleRequest& r) {
         r.clear_node_claims();
         r.mutable_nodes(0)->mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       true},
      {"node deleting, NodeClaim not",
       [](v1::ScheduleRequest& r) {
         r.mutable_node_claims(0)
             ->mutable_metadata()
             ->clear_deletion_timestamp();
         r.mutable_nodes(0)->mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       false},
      {"NodeClaim InstanceTerminating",
       [](v1::ScheduleRequest& r) {
         v1::NodeClaim* c = r.mutable_node_claims(0);
         c->mutable_metadata()->clear_deletion_timestamp();
         auto* cond = c->mutable_status()->add_conditions();
         cond->set_type("InstanceTerminating");
         cond->set_status("True");
       },
       true},
  };
  for (const Case& c : cases) {
    v1::ScheduleRequest r = DeletingNodeWith(Owned("ReplicaSet"));
    c.edit(r);
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), c.new_node ? 1 : 0) << c.name;
    ExpectVerified(r, resp, c.name);
  }
}

// Which existing capacity takes a pending pod: Karpenter schedules onto
// nodes.Active() only, which leaves out a node whose NodeClaim is being
// deleted or terminating even when it has no pod to give up, and an
// unmanaged Node being deleted; a managed Node's own deletionTimestamp does
// not make it inactive (StateNode.Deleted). An in-flight NodeClaim being
// deleted holds nothing either.
TEST(KarpenterDeletingNodes, DeletingCapacityTakesNoPendingPod) {
  struct Case {
    const char* name;
    std::function<void(v1::ScheduleRequest&)> edit;
    bool on_n1;
  } cases[] = {
      {"active", [](v1::ScheduleRequest&) {}, true},
      {"NodeClaim deleting, no pod to give up",
       [](v1::ScheduleRequest& r) {
         r.mutable_node_claims(0)->mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       false},
      {"NodeClaim InstanceTerminating",
       [](v1::ScheduleRequest& r) {
         auto* cond =
             r.mutable_node_claims(0)->mutable_status()->add_conditions();
         cond->set_type("InstanceTerminating");
         cond->set_status("True");
       },
       false},
      {"Node deleting, NodeClaim not",
       [](v1::ScheduleRequest& r) {
         r.mutable_nodes(0)->mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       true},
      {"unmanaged Node deleting",
       [](v1::ScheduleRequest& r) {
         r.clear_node_claims();
         r.mutable_nodes(0)->mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       false},
  };
  for (const Case& c : cases) {
    auto r = KRequest();
    v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                       "2038Mi", "5", true);
    *r.add_node_claims() = LinkedClaim(n);
    *r.add_nodes() = n;
    *r.add_pods() = Pod("p", "100m", "100M");
    c.edit(r);
    auto resp = MustSchedule(r);
    const bool on_n1 = resp.existing_nodes_size() == 1 &&
                       resp.existing_nodes(0).name() == "n1";
    EXPECT_EQ(on_n1, c.on_n1) << c.name;
    EXPECT_EQ(resp.new_node_claims_size(), c.on_n1 ? 0 : 1) << c.name;
    ExpectVerified(r, resp, c.name);
  }

  // An in-flight NodeClaim (no Node yet) being deleted.
  auto r = KRequest();
  v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                     "2038Mi", "5", true);
  v1::NodeClaim in_flight = LinkedClaim(n);
  in_flight.mutable_status()->clear_node_name();
  (*in_flight.mutable_metadata()
        ->mutable_labels())["node.kubernetes.io/instance-type"] =
      "small-instance-type";
  *r.add_node_claims() = in_flight;
  *r.add_pods() = Pod("p", "100m", "100M");
  auto live = MustSchedule(r);
  EXPECT_EQ(live.new_node_claims_size(), 0);
  r.mutable_node_claims(0)->mutable_metadata()->set_deletion_timestamp(
      "2026-12-01T00:00:00Z");
  auto deleting = MustSchedule(r);
  EXPECT_EQ(deleting.existing_nodes_size(), 0);
  EXPECT_EQ(deleting.new_node_claims_size(), 1);
}

// Nor does Karpenter charge such a node to its NodePool's limits (the
// scheduler subtracts the capacity of active nodes only): with a 2-CPU
// limit, a full 2-CPU node leaves no room while it is active, and all of it
// once its NodeClaim is being deleted.
TEST(KarpenterDeletingNodes, DeletingNodesAreNotChargedToLimits) {
  for (const bool deleting : {false, true}) {
    auto r = KRequest();
    (*Pool0(r).mutable_spec()->mutable_limits())["cpu"] = "2";
    v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                       "2038Mi", "5", true);
    (*n.mutable_status()->mutable_capacity())["cpu"] = "2";
    v1::NodeClaim c = LinkedClaim(n);
    if (deleting)
      c.mutable_metadata()->set_deletion_timestamp("2026-12-01T00:00:00Z");
    *r.add_node_claims() = c;
    *r.add_nodes() = n;
    // A DaemonSet's pod fills the node and stays with it.
    v1::Pod daemon = Owned("DaemonSet");
    daemon.mutable_metadata()->set_name("daemon");
    (*daemon.mutable_spec()
          ->mutable_containers(0)
          ->mutable_resources()
          ->mutable_requests())["cpu"] = "1800m";
    *r.add_pods() = BoundTo(daemon, "n1");
    *r.add_pods() = Pod("p", "500m", "100M");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.new_node_claims_size(), deleting ? 1 : 0) << deleting;
    EXPECT_EQ(resp.unschedulable_size(), deleting ? 0 : 1) << deleting;
    ExpectVerified(r, resp, deleting ? "deleting" : "not deleting");
  }
}

// The cluster handle answers as the one-shot call does (its compiled fast
// path steps aside while a deleting node gives pods up).
TEST(KarpenterDeletingNodes, ClusterHandleAgrees) {
  v1::ScheduleRequest r = DeletingNodeWith(Owned("ReplicaSet"));
  *r.add_pods() = Pod("pending", "100m", "100M");
  const v1::ScheduleResponse one_shot = MustSchedule(r);
  ASSERT_EQ(one_shot.new_node_claims_size(), 1);
  EXPECT_EQ(one_shot.new_node_claims(0).pods_size(), 2);

  v1::ClusterUpdate init;
  for (const auto& np : r.node_pools())
    *init.mutable_upserts()->add_node_pools() = np;
  *init.mutable_catalog() = r.catalog();
  for (const auto& n : r.nodes()) *init.mutable_upserts()->add_nodes() = n;
  for (const auto& c : r.node_claims())
    *init.mutable_upserts()->add_node_claims() = c;
  for (const auto& p : r.pods()) *init.mutable_upserts()->add_pods() = p;
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Create(init);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  absl::StatusOr<v1::ScheduleResponse> handle =
      (*cluster)->Schedule(v1::ScheduleRequest());
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_EQ(Bytes(*handle), Bytes(one_shot));
}

}  // namespace
}  // namespace nodeplan::testing
