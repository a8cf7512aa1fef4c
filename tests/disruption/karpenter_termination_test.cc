// Deterministic outcomes of Karpenter's termination controller suites
// (pkg/controllers/node/termination/suite_test.go, Describe "Termination",
// Context "Reconciliation", and terminator/suite_test.go, Describe
// "Eviction/Queue"), restated on one drain pass of nodeplan's Disrupt. Each
// test names the behaviour Karpenter asserts; the eviction queue's own
// bookkeeping (UID keys, concurrency), metrics, volume attachments and the
// cloud provider's instance lookup are not translated.
//
// Karpenter's tests delete the Node, reconcile, then step the clock by twice
// the minimum drain time; here the Node was deleted at kDeleted, a minute
// before kNow, and its NodeClaim's Drained condition has been Unknown since
// then, unless a test says otherwise.

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
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr char kDeleted[] = "2026-12-02T09:59:00Z";

void SetDrained(v1::NodeClaim& nc, const std::string& status,
                const std::string& since) {
  v1::Condition* cond = nullptr;
  for (v1::Condition& c : *nc.mutable_status()->mutable_conditions()) {
    if (c.type() == "Drained") cond = &c;
  }
  if (cond == nullptr) cond = nc.mutable_status()->add_conditions();
  cond->set_type("Drained");
  cond->set_status(status);
  cond->set_reason(status == "Unknown" ? "Draining" : "Drained");
  cond->set_last_transition_time(since);
}

// A cluster whose node n1 is being deleted (see the header).
struct Terminating {
  Cluster c;
  Terminating() {
    c.NodePool("default");
    c.Node("n1", "default")
        .mutable_metadata()
        ->set_deletion_timestamp(kDeleted);
    SetDrained(c.ClaimOf("n1"), "Unknown", kDeleted);
  }
  v1::Drain Drain() {
    v1::DisruptResponse r = c.Disrupt();
    for (const v1::Drain& d : r.drains()) {
      if (d.node() == "n1") return d;
    }
    ADD_FAILURE() << "no drain for n1";
    return v1::Drain();
  }
  void Remove(const std::string& pod) {
    auto* pods = c.request().mutable_pods();
    for (int i = 0; i < pods->size(); ++i) {
      if (pods->Get(i).metadata().name() == pod) {
        pods->DeleteSubrange(i, 1);
        return;
      }
    }
    ADD_FAILURE() << "no pod " << pod;
  }
};

std::vector<std::string> WaitingPods(const v1::Drain& d) {
  std::vector<std::string> out;
  for (const v1::WaitingPod& w : d.waiting_on()) out.push_back(w.pod());
  return out;
}

std::string WaitingReason(const v1::Drain& d, const std::string& pod) {
  for (const v1::WaitingPod& w : d.waiting_on()) {
    if (w.pod() == pod) return w.reason();
  }
  return "";
}

void OwnedByDaemonSet(v1::Pod& p, const std::string& ds) {
  v1::OwnerReference* o = p.mutable_metadata()->mutable_owner_references(0);
  o->set_api_version("apps/v1");
  o->set_kind("DaemonSet");
  o->set_name(ds);
}

// A pod on n1 of the system-node-critical or system-cluster-critical class.
v1::Pod& CriticalPod(Cluster& c, const std::string& name,
                     const std::string& priority_class) {
  v1::Pod& p = c.Pod(name, "n1");
  p.mutable_spec()->set_priority_class_name(priority_class);
  return p;
}

void Tolerate(v1::Pod& p, const std::string& key, const std::string& op,
              const std::string& effect) {
  v1::Toleration* t = p.mutable_spec()->add_tolerations();
  t->set_key(key);
  t->set_operator_(op);
  t->set_effect(effect);
}

// termination/suite_test.go, "should delete nodes": nothing on the node, the
// drain is done.
TEST(KarpenterTerminationTest, AnEmptyNodeIsRemoved) {
  Terminating t;
  v1::Drain d = t.Drain();
  EXPECT_EQ(d.node_claim(), "n1-claim");
  EXPECT_THAT(d.evict(), IsEmpty());
  EXPECT_TRUE(d.node_removed());
}

// "should delete nodes without nodeclaims": no NodeClaim, no minimum drain
// time to wait for.
TEST(KarpenterTerminationTest, ANodeWithoutNodeClaimIsRemoved) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default").mutable_metadata()->set_deletion_timestamp(kDeleted);
  c.request().clear_node_claims();
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.drains_size(), 1);
  EXPECT_EQ(r.drains(0).node_claim(), "");
  EXPECT_TRUE(r.drains(0).node_removed());
}

// termination/controller.go's finalize acts only on Nodes carrying
// karpenter.sh/termination (the suite's BeforeEach gives every Node that
// finalizer): a Node held by someone else's finalizer alone is not drained.
TEST(KarpenterTerminationTest, OnlyNodesWithTheTerminationFinalizerAreDrained) {
  for (bool ours : {true, false}) {
    Terminating t;
    v1::ObjectMeta& m = *t.c.request().mutable_nodes(0)->mutable_metadata();
    m.add_finalizers("example.com/protect");
    if (ours) m.add_finalizers("karpenter.sh/termination");
    t.c.Pod("p", "n1");
    v1::DisruptResponse r = t.c.Disrupt();
    ASSERT_EQ(r.drains_size(), ours ? 1 : 0) << ours;
    if (ours) {
      EXPECT_THAT(r.drains(0).evict(), ElementsAre("default/p"));
    }
  }
}

// "should delete nodes with duplicate nodeclaims": two NodeClaims with the
// Node's provider ID are no single source of truth; the Node is drained as if
// it had none, so no Drained condition is waited for.
TEST(KarpenterTerminationTest, ANodeWithDuplicateNodeClaimsIsRemoved) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default").mutable_metadata()->set_deletion_timestamp(kDeleted);
  v1::NodeClaim copy = c.ClaimOf("n1");
  copy.mutable_metadata()->set_name("n1-claim-2");
  *c.request().add_node_claims() = copy;
  v1::DisruptResponse r = c.Disrupt();
  ASSERT_EQ(r.drains_size(), 1);
  EXPECT_EQ(r.drains(0).node_claim(), "");
  EXPECT_TRUE(r.drains(0).node_removed());
}

// "should not evict pods that tolerate karpenter disruption taint with equal
// operator" and "... with exists operator".
TEST(KarpenterTerminationTest, PodsToleratingTheDisruptedTaintAreNotEvicted) {
  for (const char* op : {"Equal", "Exists"}) {
    Terminating t;
    t.c.Pod("evict", "n1");
    Tolerate(t.c.Pod("skip", "n1"), "karpenter.sh/disrupted", op, "NoSchedule");
    v1::Drain d = t.Drain();
    EXPECT_THAT(d.evict(), ElementsAre("default/evict")) << op;
    EXPECT_THAT(WaitingPods(d), IsEmpty()) << op;
    EXPECT_FALSE(d.node_removed()) << op;
    t.Remove("evict");
    d = t.Drain();
    EXPECT_THAT(d.evict(), IsEmpty()) << op;
    EXPECT_TRUE(d.node_removed()) << op;
  }
}

// The same rule (podutil.ToleratesDisruptedNoScheduleTaint) with a
// toleration of every taint (operator Exists, no key, no effect): such a pod
// is neither evicted nor waited for.
TEST(KarpenterTerminationTest, PodsToleratingEverythingAreNotEvicted) {
  Terminating t;
  t.c.Pod("evict", "n1");
  Tolerate(t.c.Pod("skip", "n1"), "", "Exists", "");
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), ElementsAre("default/evict"));
  EXPECT_THAT(WaitingPods(d), IsEmpty());
}

// "should evict pods that tolerate the node.kubernetes.io/unschedulable
// taint".
TEST(KarpenterTerminationTest, PodsToleratingUnschedulableAreEvicted) {
  Terminating t;
  Tolerate(t.c.Pod("evict", "n1"), "node.kubernetes.io/unschedulable", "Exists",
           "NoSchedule");
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), ElementsAre("default/evict"));
  EXPECT_FALSE(d.node_removed());
}

// "should delete nodes that have pods without an ownerRef".
TEST(KarpenterTerminationTest, PodsWithoutAnOwnerAreEvicted) {
  Terminating t;
  t.c.Pod("bare", "n1").mutable_metadata()->clear_owner_references();
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), ElementsAre("default/bare"));
  EXPECT_FALSE(d.node_removed());
  t.Remove("bare");
  EXPECT_TRUE(t.Drain().node_removed());
}

// "should delete nodes with terminal pods".
TEST(KarpenterTerminationTest, TerminalPodsDoNotHoldTheNode) {
  Terminating t;
  t.c.Pod("succeeded", "n1").mutable_status()->set_phase("Succeeded");
  t.c.Pod("failed", "n1").mutable_status()->set_phase("Failed");
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), IsEmpty());
  EXPECT_THAT(WaitingPods(d), IsEmpty());
  EXPECT_TRUE(d.node_removed());
}

// "should fail to evict pods that violate a PDB": minAvailable 1 over the one
// pod, so the eviction API refuses it until the pod is gone.
TEST(KarpenterTerminationTest, APdbViolationKeepsThePodAndTheNode) {
  Terminating t;
  t.c.Pod("guarded", "n1");
  v1::PodDisruptionBudget& pdb = t.c.Pdb("pdb", "test", 0);
  pdb.mutable_spec()->clear_max_unavailable();
  pdb.mutable_spec()->set_min_available("1");
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), IsEmpty());
  EXPECT_THAT(WaitingPods(d), ElementsAre("default/guarded"));
  EXPECT_THAT(WaitingReason(d, "default/guarded"),
              HasSubstr("evicting pod violates a PDB"));
  EXPECT_FALSE(d.node_removed());
  t.Remove("guarded");
  EXPECT_TRUE(t.Drain().node_removed());
}

// "should evict pods in order and wait until pods are fully deleted": the
// groups non-critical, non-critical DaemonSet, critical, critical DaemonSet go
// one after the other, and a group still terminating holds the next back.
TEST(KarpenterTerminationTest, EvictsGroupByGroupWaitingForEachToBeDeleted) {
  Terminating t;
  t.c.Pod("evict", "n1");
  OwnedByDaemonSet(t.c.Pod("ds-evict", "n1"), "ds");
  CriticalPod(t.c, "node-critical", "system-node-critical");
  CriticalPod(t.c, "cluster-critical", "system-cluster-critical");
  OwnedByDaemonSet(CriticalPod(t.c, "ds-node-critical", "system-node-critical"),
                   "ds-nc");
  OwnedByDaemonSet(
      CriticalPod(t.c, "ds-cluster-critical", "system-cluster-critical"),
      "ds-cc");

  const std::vector<std::vector<std::string>> groups = {
      {"evict"},
      {"ds-evict"},
      {"cluster-critical", "node-critical"},
      {"ds-cluster-critical", "ds-node-critical"}};
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> keys;
    for (const std::string& p : groups[g]) keys.push_back("default/" + p);
    v1::Drain d = t.Drain();
    EXPECT_EQ(std::vector<std::string>(d.evict().begin(), d.evict().end()),
              keys)
        << "group " << g;
    EXPECT_FALSE(d.node_removed());
    // Evicted: the group's pods terminate, and the next group still waits.
    for (v1::Pod& p : *t.c.request().mutable_pods()) {
      for (const std::string& name : groups[g]) {
        if (p.metadata().name() == name) {
          p.mutable_metadata()->set_deletion_timestamp("2026-12-02T09:59:50Z");
        }
      }
    }
    d = t.Drain();
    EXPECT_THAT(d.evict(), IsEmpty()) << "group " << g;
    for (const std::string& k : keys) {
      EXPECT_EQ(WaitingReason(d, k), "terminating") << k;
    }
    if (g + 1 < groups.size()) {
      EXPECT_THAT(WaitingReason(d, "default/" + groups[g + 1].front()),
                  HasSubstr("evicted after the pods of an earlier tier"));
    }
    for (const std::string& p : groups[g]) t.Remove(p);
  }
  EXPECT_TRUE(t.Drain().node_removed());
}

// "should evict non-critical pods first".
TEST(KarpenterTerminationTest, EvictsNonCriticalPodsFirst) {
  Terminating t;
  t.c.Pod("evict", "n1");
  CriticalPod(t.c, "node-critical", "system-node-critical");
  CriticalPod(t.c, "cluster-critical", "system-cluster-critical");
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), ElementsAre("default/evict"));
  EXPECT_THAT(WaitingPods(d), UnorderedElementsAre("default/node-critical",
                                                   "default/cluster-critical"));
  t.Remove("evict");
  d = t.Drain();
  EXPECT_THAT(d.evict(), UnorderedElementsAre("default/node-critical",
                                              "default/cluster-critical"));
}

// "should not evict static pods": a mirror pod is neither evicted nor
// waited for.
TEST(KarpenterTerminationTest, StaticPodsAreNotEvicted) {
  Terminating t;
  t.c.Pod("evict", "n1");
  v1::Pod& mirror = t.c.Pod("static", "n1");
  v1::OwnerReference* o =
      mirror.mutable_metadata()->mutable_owner_references(0);
  o->set_api_version("v1");
  o->set_kind("Node");
  o->set_name("n1");
  o->set_controller(false);
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), ElementsAre("default/evict"));
  EXPECT_THAT(WaitingPods(d), IsEmpty());
  t.Remove("evict");
  EXPECT_TRUE(t.Drain().node_removed());
}

// "should not delete nodes until all pods are deleted": evicted pods that
// are still terminating hold the node.
TEST(KarpenterTerminationTest, TerminatingPodsHoldTheNodeUntilDeleted) {
  Terminating t;
  for (const char* p : {"p0", "p1"}) {
    t.c.Pod(p, "n1").mutable_metadata()->set_deletion_timestamp(
        "2026-12-02T09:59:50Z");
  }
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), IsEmpty());
  EXPECT_THAT(WaitingPods(d), ElementsAre("default/p0", "default/p1"));
  EXPECT_FALSE(d.node_removed());
  t.Remove("p1");
  EXPECT_FALSE(t.Drain().node_removed());
  t.Remove("p0");
  EXPECT_TRUE(t.Drain().node_removed());
}

// "should bypass pods which are stuck terminating past their grace period":
// a pod whose deletion is more than a minute past no longer holds the node.
TEST(KarpenterTerminationTest, PodsStuckTerminatingAreBypassed) {
  Terminating t;
  t.c.Pod("stuck", "n1")
      .mutable_metadata()
      ->set_deletion_timestamp("2026-12-02T09:58:30Z");
  v1::Drain d = t.Drain();
  EXPECT_THAT(WaitingPods(d), IsEmpty());
  EXPECT_TRUE(d.node_removed());
}

// A NodeClaim terminationGracePeriod of 300s, its termination time annotated
// at `start` + 300s.
void GracePeriod(Cluster& c, const std::string& termination_time) {
  v1::NodeClaim& nc = c.ClaimOf("n1");
  nc.mutable_spec()->set_termination_grace_period("300s");
  (*nc.mutable_metadata()->mutable_annotations())
      ["karpenter.sh/nodeclaim-termination-timestamp"] = termination_time;
}

v1::Pod& DoNotDisruptPod(Cluster& c, int64_t grace_seconds) {
  v1::Pod& p = c.Pod("p", "n1");
  (*p.mutable_metadata()
        ->mutable_annotations())["karpenter.sh/do-not-disrupt"] = "true";
  p.mutable_spec()->set_termination_grace_period_seconds(grace_seconds);
  return p;
}

// "should preemptively delete pods to satisfy their
// terminationGracePeriodSeconds": a do-not-disrupt pod whose 300s grace no
// longer fits before the node's termination time is deleted anyway, with
// the time left as its grace period.
TEST(KarpenterTerminationTest, PreemptivelyDeletesPodsToSatisfyTheirGrace) {
  Terminating t;
  t.c.request().set_now("2026-12-02T10:00:10Z");
  GracePeriod(t.c, "2026-12-02T10:05:00Z");
  DoNotDisruptPod(t.c, 300);
  v1::Drain d = t.Drain();
  EXPECT_EQ(d.termination_timestamp(), "2026-12-02T10:05:00Z");
  ASSERT_EQ(d.force_delete_size(), 1);
  EXPECT_EQ(d.force_delete(0).pod(), "default/p");
  EXPECT_EQ(d.force_delete(0).grace_period_seconds(), 290);
  EXPECT_FALSE(d.node_removed());
}

// "should only delete pods when their terminationGracePeriodSeconds is less
// than the the node's remaining terminationGracePeriod": a 60s pod is left
// alone 90s into a 300s window and deleted once fewer than 60s remain.
TEST(KarpenterTerminationTest, DeletesPodsOnlyOnceTheirGraceNoLongerFits) {
  Terminating t;
  t.c.request().set_now("2026-12-02T10:01:30Z");
  GracePeriod(t.c, "2026-12-02T10:05:00Z");
  DoNotDisruptPod(t.c, 60);
  v1::DisruptResponse r = t.c.Disrupt();
  ASSERT_EQ(r.drains_size(), 1);
  EXPECT_EQ(r.drains(0).force_delete_size(), 0);
  EXPECT_THAT(WaitingReason(r.drains(0), "default/p"),
              HasSubstr("do-not-disrupt"));
  // The pod is due at the termination time less its 60s.
  EXPECT_EQ(r.next_decision_at(), "2026-12-02T10:04:00Z");
  t.c.request().set_now("2026-12-02T10:04:25Z");
  v1::Drain d = t.Drain();
  ASSERT_EQ(d.force_delete_size(), 1);
  EXPECT_EQ(d.force_delete(0).grace_period_seconds(), 35);
}

// "should update deletion timestamp for terminating pods when it is after
// node deletion timestamp": a pod already terminating with a 6000s grace
// ends after the node's termination time, so it is deleted again with the
// time left.
TEST(KarpenterTerminationTest, ShortensTheGraceOfPodsTerminatingPastTheNode) {
  Terminating t;
  t.c.request().set_now("2026-12-02T10:01:30Z");
  GracePeriod(t.c, "2026-12-02T10:05:00Z");
  DoNotDisruptPod(t.c, 6000).mutable_metadata()->set_deletion_timestamp(
      "2026-12-02T11:40:00Z");
  v1::Drain d = t.Drain();
  ASSERT_EQ(d.force_delete_size(), 1);
  EXPECT_EQ(d.force_delete(0).pod(), "default/p");
  EXPECT_EQ(d.force_delete(0).grace_period_seconds(), 210);
}

// "should not finish draining until minDrainTime has passed": with nothing
// to evict, the drain finishes only once the NodeClaim's Drained condition
// has been Unknown for five seconds (a NodeClaim without it gets it now).
TEST(KarpenterTerminationTest, DrainingLastsAtLeastTheMinimumDrainTime) {
  Terminating t;
  v1::NodeClaim& nc = t.c.ClaimOf("n1");
  nc.mutable_status()->mutable_conditions()->RemoveLast();  // Drained
  EXPECT_FALSE(t.Drain().node_removed());
  SetDrained(nc, "Unknown", "2026-12-02T09:59:57Z");
  v1::DisruptResponse r = t.c.Disrupt();
  ASSERT_EQ(r.drains_size(), 1);
  EXPECT_FALSE(r.drains(0).node_removed());
  EXPECT_EQ(r.next_decision_at(), "2026-12-02T10:00:02Z");
  SetDrained(nc, "Unknown", "2026-12-02T09:59:55Z");
  EXPECT_TRUE(t.Drain().node_removed());
  SetDrained(nc, "True", "2026-12-02T09:59:59Z");
  EXPECT_TRUE(t.Drain().node_removed());
}

// terminator/suite_test.go, "Eviction API": "should succeed with no event
// when there are PDBs that allow an eviction".
TEST(KarpenterEvictionTest, APdbThatAllowsAnEvictionLetsThePodGo) {
  Terminating t;
  t.c.Pod("p", "n1");
  t.c.Pdb("pdb", "test", 1);
  EXPECT_THAT(t.Drain().evict(), ElementsAre("default/p"));
}

// "should return a NodeDrainError event when a PDB is blocking".
TEST(KarpenterEvictionTest, ABlockingPdbRefusesTheEviction) {
  Terminating t;
  t.c.Pod("p", "n1");
  t.c.Pdb("pdb", "test", 0).mutable_spec()->set_max_unavailable("0");
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), IsEmpty());
  EXPECT_THAT(WaitingReason(d, "default/p"),
              HasSubstr("evicting pod violates a PDB"));
}

// "should return a NodeDrainError event when two PDBs refer to the same
// pod": refused whatever the budgets allow, in Karpenter's words.
TEST(KarpenterEvictionTest, TwoPdbsOnOnePodRefuseTheEviction) {
  Terminating t;
  t.c.Pod("p", "n1");
  t.c.Pdb("pdb", "test", 1);
  t.c.Pdb("pdb2", "test", 1);
  v1::Drain d = t.Drain();
  EXPECT_THAT(d.evict(), IsEmpty());
  EXPECT_THAT(WaitingReason(d, "default/p"),
              HasSubstr("eviction does not support multiple PDBs"));
}

// "Pod Deletion API": "should not delete a pod with no nodeTerminationTime",
// "should not delete a pod with terminationGracePeriodSeconds still remaining
// before nodeTerminationTime", "should delete a pod with less than
// terminationGracePeriodSeconds remaining before nodeTerminationTime" and
// "should clamp gracePeriodSeconds to >= 1 when nodeTerminationTime is in the
// past".
TEST(KarpenterEvictionTest, PodDeletionFollowsTheNodeTerminationTime) {
  struct Case {
    std::string termination;  // "" = none
    int64_t pod_grace;
    int64_t want;  // 0 = not deleted
  };
  const std::vector<Case> cases = {
      {"", 120, 0},
      {"2026-12-02T10:05:00Z", 60, 0},
      {"2026-12-02T10:01:00Z", 120, 60},
      {"2026-12-02T09:00:00Z", 120, 1},
  };
  for (const Case& k : cases) {
    Terminating t;
    if (!k.termination.empty()) GracePeriod(t.c, k.termination);
    t.c.Pod("p", "n1").mutable_spec()->set_termination_grace_period_seconds(
        k.pod_grace);
    v1::Drain d = t.Drain();
    const std::string what = absl::StrCat(k.termination, " ", k.pod_grace);
    if (k.want == 0) {
      EXPECT_EQ(d.force_delete_size(), 0) << what;
      EXPECT_THAT(d.evict(), ElementsAre("default/p")) << what;
    } else {
      ASSERT_EQ(d.force_delete_size(), 1) << what;
      EXPECT_EQ(d.force_delete(0).grace_period_seconds(), k.want) << what;
    }
  }
}

}  // namespace
}  // namespace nodeplan::testing
