#include "nodeplan/taints.h"

#include "gtest/gtest.h"

namespace nodeplan {
namespace {

v1::Taint T(const std::string& key, const std::string& value,
            const std::string& effect) {
  v1::Taint t;
  t.set_key(key);
  t.set_value(value);
  t.set_effect(effect);
  return t;
}
v1::Toleration Tol(const std::string& key, const std::string& op,
                   const std::string& value, const std::string& effect) {
  v1::Toleration t;
  t.set_key(key);
  t.set_operator_(op);
  t.set_value(value);
  t.set_effect(effect);
  return t;
}

TEST(TaintsTest, ToleratesTaintTable) {
  struct Case {
    v1::Toleration tol;
    v1::Taint taint;
    bool tolerates;
  };
  const Case cases[] = {
      {Tol("k", "Equal", "v", "NoSchedule"), T("k", "v", "NoSchedule"), true},
      {Tol("k", "", "v", "NoSchedule"), T("k", "v", "NoSchedule"), true},
      {Tol("k", "Equal", "v", "NoSchedule"), T("k", "w", "NoSchedule"), false},
      {Tol("k", "Equal", "v", "NoSchedule"), T("k", "v", "NoExecute"), false},
      {Tol("k", "Equal", "v", ""), T("k", "v", "PreferNoSchedule"), true},
      {Tol("k", "Exists", "", ""), T("k", "anything", "NoExecute"), true},
      {Tol("k", "Exists", "", "NoSchedule"), T("j", "", "NoSchedule"), false},
      {Tol("", "Exists", "", ""), T("any", "v", "NoExecute"), true},
      {Tol("", "Exists", "", "NoSchedule"), T("any", "v", "NoExecute"), false},
      // Empty key with Equal compares values only.
      {Tol("", "Equal", "v", ""), T("any", "v", "NoSchedule"), true},
      {Tol("", "Equal", "", ""), T("any", "v", "NoSchedule"), false},
      {Tol("k", "Lt", "10", ""), T("k", "5", "NoSchedule"), true},
      {Tol("k", "Lt", "10", ""), T("k", "10", "NoSchedule"), false},
      {Tol("k", "Gt", "10", ""), T("k", "11", "NoSchedule"), true},
      {Tol("k", "Gt", "10", ""), T("k", "x", "NoSchedule"), false},
      {Tol("k", "Gt", "y", ""), T("k", "11", "NoSchedule"), false},
      {Tol("k", "Bogus", "v", ""), T("k", "v", "NoSchedule"), false},
      // Lt/Gt values are Go integers (strconv.ParseInt): a sign is allowed,
      // space and out-of-range values are not (the scheduler once read them
      // with strtoll, which skips space and saturates).
      {Tol("k", "Gt", "3", ""), T("k", "+5", "NoSchedule"), true},
      {Tol("k", "Gt", "3", ""), T("k", " 5", "NoSchedule"), false},
      {Tol("k", "Gt", "3", ""), T("k", "99999999999999999999", "NoSchedule"),
       false},
      {Tol("k", "Lt", "-1", ""), T("k", "-2", "NoSchedule"), true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToleratesTaint(c.tol, c.taint), c.tolerates)
        << c.tol.ShortDebugString() << " vs " << c.taint.ShortDebugString();
  }
}

TEST(TaintsTest, ToleratesAllEffectsIncludingPreferNoSchedule) {
  TaintList taints;
  *taints.Add() = T("gpu", "true", "NoSchedule");
  *taints.Add() = T("spot", "", "PreferNoSchedule");
  TolerationList tolerations;
  *tolerations.Add() = Tol("gpu", "Equal", "true", "NoSchedule");
  EXPECT_FALSE(Tolerates(taints, tolerations));
  EXPECT_EQ(UntoleratedTaints(taints, tolerations), std::vector<int>{1});
  EXPECT_EQ(TolerationStatus(taints, tolerations).message(),
            "did not tolerate taint (taint=spot:PreferNoSchedule)");
  TolerationList none;
  EXPECT_EQ(TolerationStatus(taints, none).message(),
            "did not tolerate taint (taint=gpu=true:NoSchedule); did not "
            "tolerate taint (taint=spot:PreferNoSchedule)");
  *tolerations.Add() = Tol("", "Exists", "", "PreferNoSchedule");
  EXPECT_TRUE(Tolerates(taints, tolerations));
  EXPECT_TRUE(TolerationStatus(taints, tolerations).ok());
  EXPECT_TRUE(Tolerates(TaintList(), none));
}

TEST(TaintsTest, SpansAndThePreferNoScheduleToleration) {
  const std::vector<v1::Taint> taints = {T("gpu", "true", "NoSchedule"),
                                         T("spot", "", "PreferNoSchedule")};
  std::vector<v1::Toleration> tolerations = {
      Tol("gpu", "Equal", "true", "NoSchedule")};
  EXPECT_EQ(FirstUntoleratedTaint(taints, tolerations), 1);
  EXPECT_EQ(FirstUntoleratedTaint(taints, {}), 0);
  EXPECT_EQ(FirstUntoleratedTaint({}, {}), -1);
  EXPECT_FALSE(IsPreferNoScheduleToleration(tolerations[0]));
  tolerations.push_back(PreferNoScheduleToleration());
  EXPECT_TRUE(IsPreferNoScheduleToleration(tolerations[1]));
  EXPECT_EQ(FirstUntoleratedTaint(taints, tolerations), -1);
  EXPECT_EQ(FirstUntoleratedTaint({T("x", "", "NoSchedule")}, tolerations), 0);
}

TEST(TaintsTest, KnownEphemeralTaints) {
  EXPECT_TRUE(IsKnownEphemeralTaint(
      T("node.kubernetes.io/not-ready", "", "NoSchedule")));
  EXPECT_TRUE(IsKnownEphemeralTaint(
      T("node.kubernetes.io/not-ready", "", "NoExecute")));
  EXPECT_TRUE(IsKnownEphemeralTaint(
      T("node.kubernetes.io/unreachable", "", "NoSchedule")));
  EXPECT_FALSE(IsKnownEphemeralTaint(
      T("node.kubernetes.io/unreachable", "", "NoExecute")));
  // Values are not compared (MatchTaint).
  EXPECT_TRUE(
      IsKnownEphemeralTaint(T("node.cloudprovider.kubernetes.io/uninitialized",
                              "false", "NoSchedule")));
  EXPECT_TRUE(
      IsKnownEphemeralTaint(T("karpenter.sh/unregistered", "", "NoExecute")));
  EXPECT_TRUE(
      IsKnownEphemeralTaint(T("readiness.k8s.io/cni", "", "NoSchedule")));
  EXPECT_FALSE(
      IsKnownEphemeralTaint(T("karpenter.sh/disrupted", "", "NoSchedule")));
  EXPECT_EQ(TaintText(T("a", "", "NoSchedule")), "a:NoSchedule");
  EXPECT_EQ(TaintText(T("a", "b", "NoExecute")), "a=b:NoExecute");
  EXPECT_TRUE(MatchTaint(T("a", "x", "NoSchedule"), T("a", "y", "NoSchedule")));
  EXPECT_FALSE(MatchTaint(T("a", "x", "NoSchedule"), T("a", "x", "NoExecute")));
}

// Karpenter's StateNode (statenode.go): managed means "has a NodeClaim";
// registered and initialized are the Node's labels; a NodeClaim without a
// Node is neither.
TEST(TaintsTest, StateNodeReadsTheNodeAndItsNodeClaim) {
  v1::Node node;
  *node.mutable_spec()->add_taints() = T("node-only", "", "NoSchedule");
  *node.mutable_spec()->add_taints() =
      T("node.kubernetes.io/not-ready", "", "NoSchedule");
  v1::NodeClaim claim;
  *claim.mutable_spec()->add_taints() = T("claim-only", "", "NoSchedule");
  *claim.mutable_spec()->add_taints() = T("boot", "x", "NoSchedule");
  *claim.mutable_spec()->add_startup_taints() = T("boot", "y", "NoSchedule");
  auto keys = [](const TaintList& list) {
    std::vector<std::string> out;
    for (const v1::Taint& t : list) out.push_back(t.key());
    return out;
  };
  using Keys = std::vector<std::string>;
  // Unmanaged: initialized and registered whatever the labels say.
  EXPECT_TRUE(StateNodeInitialized(&node, nullptr));
  EXPECT_TRUE(StateNodeRegistered(&node, nullptr));
  EXPECT_EQ(keys(StateNodeTaints(&node, nullptr)),
            (Keys{"node-only", "node.kubernetes.io/not-ready"}));
  // Managed, neither label: the NodeClaim's taints, startup ones dropped.
  EXPECT_FALSE(StateNodeInitialized(&node, &claim));
  EXPECT_FALSE(StateNodeRegistered(&node, &claim));
  EXPECT_EQ(keys(StateNodeTaints(&node, &claim)), (Keys{"claim-only"}));
  // Registered, not initialized: the Node's, ephemeral ones dropped.
  auto& labels = *node.mutable_metadata()->mutable_labels();
  labels["karpenter.sh/registered"] = "true";
  EXPECT_TRUE(StateNodeRegistered(&node, &claim));
  EXPECT_EQ(keys(StateNodeTaints(&node, &claim)), (Keys{"node-only"}));
  // Initialized: every taint of the Node.
  labels["karpenter.sh/initialized"] = "true";
  EXPECT_TRUE(StateNodeInitialized(&node, &claim));
  EXPECT_EQ(keys(StateNodeTaints(&node, &claim)),
            (Keys{"node-only", "node.kubernetes.io/not-ready"}));
  // In flight (no Node): the NodeClaim's, uninitialized.
  EXPECT_FALSE(StateNodeInitialized(nullptr, &claim));
  EXPECT_FALSE(StateNodeRegistered(nullptr, &claim));
  EXPECT_EQ(keys(StateNodeTaints(nullptr, &claim)), (Keys{"claim-only"}));
}

TEST(TaintsTest, EffectiveNodeTaints) {
  TaintList node, claim, startup;
  *node.Add() = T("node.kubernetes.io/not-ready", "", "NoSchedule");
  *node.Add() = T("cilium/agent-not-ready", "", "NoExecute");
  *node.Add() = T("dedicated", "db", "NoSchedule");
  *claim.Add() = T("dedicated", "db", "NoSchedule");
  *claim.Add() = T("karpenter.sh/unregistered", "", "NoExecute");
  *startup.Add() = T("cilium/agent-not-ready", "other", "NoExecute");
  auto keys = [](const TaintList& l) {
    std::vector<std::string> out;
    for (const auto& t : l) out.push_back(t.key());
    return out;
  };
  NodeTaintsInput in{&node, &claim, &startup, true, true, false};
  // Managed, registered, not initialized: drop ephemeral and startup taints.
  EXPECT_EQ(keys(EffectiveNodeTaints(in)),
            std::vector<std::string>{"dedicated"});
  in.initialized = true;
  EXPECT_EQ(keys(EffectiveNodeTaints(in)).size(), 3u);
  // Not registered: the NodeClaim's taints (filtered while uninitialized).
  in.initialized = false;
  in.registered = false;
  EXPECT_EQ(keys(EffectiveNodeTaints(in)),
            std::vector<std::string>{"dedicated"});
  // No Node object yet.
  NodeTaintsInput no_node{nullptr, &claim, nullptr, true, true, true};
  EXPECT_EQ(keys(EffectiveNodeTaints(no_node)).size(), 2u);
  // Unmanaged: the Node's taints untouched.
  NodeTaintsInput unmanaged{&node, nullptr, nullptr, false, false, false};
  EXPECT_EQ(keys(EffectiveNodeTaints(unmanaged)).size(), 3u);
}

}  // namespace
}  // namespace nodeplan
