// A cordoned Node (spec.unschedulable): Kubernetes' node lifecycle
// controller taints it node.kubernetes.io/unschedulable:NoSchedule, which is
// all Karpenter's state sees of a cordon, and kube-scheduler's
// NodeUnschedulable filter admits exactly the pods that tolerate that taint.
// nodeplan takes a cordoned Node as carrying the taint whether or not the
// manifest lists it: it takes only tolerating pods, and it still counts
// toward its NodePool's limits (Karpenter subtracts every active node).

#include <functional>
#include <string>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"
#include "nodeplan/verify.h"

namespace nodeplan::testing {
namespace {

v1::Toleration TolerateCordon() {
  v1::Toleration t;
  t.set_key("node.kubernetes.io/unschedulable");
  t.set_operator_("Exists");
  t.set_effect("NoSchedule");
  return t;
}

TEST(CordonedNodes, TakeOnlyPodsThatTolerateTheCordon) {
  struct Case {
    const char* name;
    bool cordoned;
    bool taint_listed;  // the manifest lists the controller's taint
    bool tolerates;
    bool on_n1;
  } cases[] = {
      {"schedulable", false, false, false, true},
      {"cordoned", true, false, false, false},
      {"cordoned, taint listed", true, true, false, false},
      {"cordoned, tolerated", true, false, true, true},
      {"cordoned, taint listed, tolerated", true, true, true, true},
  };
  for (const Case& c : cases) {
    auto r = KRequest();
    v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                       "2038Mi", "5", true);
    n.mutable_spec()->set_unschedulable(c.cordoned);
    if (c.taint_listed) {
      v1::Taint* t = n.mutable_spec()->add_taints();
      t->set_key("node.kubernetes.io/unschedulable");
      t->set_effect("NoSchedule");
    }
    *r.add_node_claims() = LinkedClaim(n);
    *r.add_nodes() = n;
    v1::Pod p = Pod("p", "100m", "100M");
    if (c.tolerates) *p.mutable_spec()->add_tolerations() = TolerateCordon();
    *r.add_pods() = p;
    auto resp = MustSchedule(r);
    const bool on_n1 = resp.existing_nodes_size() == 1 &&
                       resp.existing_nodes(0).name() == "n1";
    EXPECT_EQ(on_n1, c.on_n1) << c.name;
    EXPECT_EQ(resp.new_node_claims_size(), c.on_n1 ? 0 : 1) << c.name;
    ExpectVerified(r, resp, c.name);
  }
}

// The verifier reads the cordon on its own: a plan that puts an intolerant
// pod on a cordoned node breaks the taints rule.
TEST(CordonedNodes, VerifierRefusesAnIntolerantPodThere) {
  auto r = KRequest();
  v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                     "2038Mi", "5", true);
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
  *r.add_pods() = Pod("p", "100m", "100M");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.existing_nodes_size(), 1);
  r.mutable_nodes(0)->mutable_spec()->set_unschedulable(true);
  bool found = false;
  for (const auto& v : Verify(r, resp)) found |= v.rule == "taints";
  EXPECT_TRUE(found);
}

// Still active: a cordoned node's capacity counts toward its NodePool's
// limits, so with a 2-CPU limit and a full 2-CPU cordoned node nothing is
// launched.
TEST(CordonedNodes, StillCountTowardLimits) {
  auto r = KRequest();
  (*Pool0(r).mutable_spec()->mutable_limits())["cpu"] = "2";
  v1::Node n = KNode("n1", "small-instance-type", "test-zone-1", "1900m",
                     "2038Mi", "5", true);
  (*n.mutable_status()->mutable_capacity())["cpu"] = "2";
  n.mutable_spec()->set_unschedulable(true);
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
  *r.add_pods() = Pod("p", "500m", "100M");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_EQ(resp.unschedulable_size(), 1);
}

}  // namespace
}  // namespace nodeplan::testing
