// Deterministic outcomes of Karpenter's NodeClaim disruption and expiration
// controllers (pkg/controllers/nodeclaim/disruption: drift_test.go,
// consolidation_test.go; pkg/controllers/nodeclaim/expiration/suite_test.go),
// restated on the conditions and expirations of nodeplan's Disrupt. Each test
// names the behaviour Karpenter asserts. Not translated: NodeClaims "not
// managed by this instance of Karpenter" (which NodeClass kinds the provider
// serves is not part of a request) and metrics.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nodeplan/hash.h"

namespace nodeplan::testing {
namespace {

constexpr char kTwoHoursAgo[] = "2026-12-02T08:00:00Z";
constexpr char kHashKey[] = "karpenter.sh/nodepool-hash";
constexpr char kHashVersionKey[] = "karpenter.sh/nodepool-hash-version";

const v1::NodeClaimConditions& Conditions(const v1::DisruptResponse& r,
                                          const std::string& claim) {
  for (const v1::NodeClaimConditions& c : r.conditions()) {
    if (c.node_claim() == claim) return c;
  }
  ADD_FAILURE() << "no conditions for " << claim;
  static const v1::NodeClaimConditions* none = new v1::NodeClaimConditions();
  return *none;
}

std::string Drifted(Cluster& c, const std::string& node = "n1") {
  v1::DisruptResponse r = c.Disrupt();
  const v1::ConditionResult& d = Conditions(r, node + "-claim").drifted();
  return d.status() == "True" ? d.reason() : "";
}

void SetCondition(v1::NodeClaim& nc, const std::string& type,
                  const std::string& status,
                  const std::string& since = kHourAgo) {
  v1::Condition* cond = nullptr;
  for (v1::Condition& c : *nc.mutable_status()->mutable_conditions()) {
    if (c.type() == type) cond = &c;
  }
  if (cond == nullptr) cond = nc.mutable_status()->add_conditions();
  cond->set_type(type);
  cond->set_status(status);
  cond->set_reason(type);
  cond->set_last_transition_time(since);
}

v1::InstanceType* CatalogType(Cluster& c, const std::string& name) {
  for (v1::InstanceType& t :
       *c.request().mutable_catalog()->mutable_instance_types()) {
    if (t.name() == name) return &t;
  }
  ADD_FAILURE() << "no type " << name;
  return nullptr;
}

// ---------------------------------------------------------------------------
// drift_test.go, Describe "Drift".

// "should detect drift": the provider's answer, when nothing else drifted.
TEST(KarpenterDriftConditionTest, DetectsProviderDrift) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  ProviderDrift(c, "n1", "drifted");
  EXPECT_EQ(Drifted(c), "drifted");
}

// "should detect stale instance type drift if the instance type label
// doesn't exist", "... if the instance type doesn't exist", "... if the
// instance type offerings doesn't exist" and "... if the instance type
// offerings aren't compatible with the nodeclaim": checked once the NodeClaim
// is over an hour old.
TEST(KarpenterDriftConditionTest, StaleInstanceTypesDriftAfterAnHour) {
  const std::vector<std::string> cases = {"no label", "no type", "no offerings",
                                          "incompatible offerings"};
  for (const std::string& k : cases) {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default", {.created = kTwoHoursAgo});
    if (k == "no label") {
      c.ClaimOf("n1").mutable_metadata()->mutable_labels()->erase(
          "node.kubernetes.io/instance-type");
    } else if (k == "no type") {
      *c.request().mutable_catalog() = SizedCatalog({1, 2, 8, 16});
    } else if (k == "no offerings") {
      CatalogType(c, "size-4")->clear_offerings();
    } else {
      int i = 0;
      for (v1::Offering& o : *CatalogType(c, "size-4")->mutable_offerings()) {
        o.set_zone(absl::StrCat("elsewhere-", i++));
      }
    }
    EXPECT_EQ(Drifted(c), "InstanceTypeNotFound") << k;
  }
}

// drift.go's instanceTypeNotFound reads every offering the provider lists,
// available or not (its comment: "even if they're temporarily
// unavailable"), and matches them allowing undefined well-known labels: an
// offering out of capacity, or a NodeClaim without a zone label, is no
// instance-type drift.
TEST(KarpenterDriftConditionTest, UnavailableOfferingsAndMissingZonesMatch) {
  for (const std::string k : {"unavailable", "ice", "no zone"}) {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default", {.created = kTwoHoursAgo});
    if (k == "unavailable") {
      for (v1::Offering& o : *CatalogType(c, "size-4")->mutable_offerings()) {
        o.set_available(false);
      }
    } else if (k == "ice") {
      for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
        v1::UnavailableOffering* u = c.request().add_unavailable_offerings();
        u->set_instance_type("size-4");
        u->set_zone(z);
        u->set_capacity_type("on-demand");
      }
    } else {
      c.ClaimOf("n1").mutable_metadata()->mutable_labels()->erase(
          "topology.kubernetes.io/zone");
    }
    EXPECT_EQ(Drifted(c), "") << k;
  }
}

// The same NodeClaim an hour old or younger is not checked yet.
TEST(KarpenterDriftConditionTest, InstanceTypesAreNotCheckedInTheFirstHour) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  *c.request().mutable_catalog() = SizedCatalog({1, 2, 8, 16});
  EXPECT_EQ(Drifted(c), "");
}

// "should detect static drift before cloud provider drift".
TEST(KarpenterDriftConditionTest, StaticDriftComesBeforeProviderDrift) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  (*np.mutable_metadata()->mutable_annotations())[kHashKey] = "test-123456789";
  (*np.mutable_metadata()->mutable_annotations())[kHashVersionKey] = "v3";
  c.Node("n1", "default");
  auto& a = *c.ClaimOf("n1").mutable_metadata()->mutable_annotations();
  a[kHashKey] = "test-123";
  a[kHashVersionKey] = "v3";
  ProviderDrift(c, "n1", "drifted");
  EXPECT_EQ(Drifted(c), "NodePoolDrifted");
}

// "should detect node requirement drift before cloud provider drift".
TEST(KarpenterDriftConditionTest, RequirementDriftComesBeforeProviderDrift) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  v1::NodeSelectorRequirement* r = np.mutable_spec()
                                       ->mutable_template_()
                                       ->mutable_spec()
                                       ->add_requirements();
  r->set_key("node.kubernetes.io/instance-type");
  r->set_operator_("DoesNotExist");
  c.Node("n1", "default");
  ProviderDrift(c, "n1", "drifted");
  EXPECT_EQ(Drifted(c), "RequirementsDrifted");
}

// "should remove the status condition from the nodeClaim when the nodeClaim
// launch condition is unknown" and "... is false".
TEST(KarpenterDriftConditionTest, NoDriftConditionUnlessLaunched) {
  for (const char* launched : {"Unknown", "False"}) {
    Cluster c;
    c.NodePool("default");
    c.Node("n1", "default");
    SetCondition(c.ClaimOf("n1"), "Drifted", "True");
    SetCondition(c.ClaimOf("n1"), "Launched", launched);
    ProviderDrift(c, "n1", "drifted");
    v1::DisruptResponse r = c.Disrupt();
    EXPECT_EQ(Conditions(r, "n1-claim").drifted().status(), "") << launched;
  }
}

// "should not detect drift if the nodePool does not exist".
TEST(KarpenterDriftConditionTest, NoDriftWithoutTheNodePool) {
  Cluster c;
  c.NodePool("other");
  c.Node("n1", "default");
  ProviderDrift(c, "n1", "drifted");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(Conditions(r, "n1-claim").drifted().status(), "");
}

// "should remove the status condition from the nodeClaim if the nodeClaim is
// no longer drifted".
TEST(KarpenterDriftConditionTest, TheConditionGoesWhenNoLongerDrifted) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default");
  SetCondition(c.ClaimOf("n1"), "Drifted", "True");
  v1::DisruptResponse r = c.Disrupt();
  EXPECT_EQ(Conditions(r, "n1-claim").drifted().status(), "");
}

// Context "NodeRequirement Drift", the DescribeTable's entries: the NodeClaim
// (labels as Karpenter's test builds them) is not drifted under the old
// requirements and is (or is not) under the new ones.
TEST(KarpenterDriftConditionTest, NodeRequirementDrift) {
  using Req = std::vector<std::string>;  // key, operator, values...
  struct Case {
    std::string name;
    std::vector<Req> before, after;
    std::vector<std::pair<std::string, std::string>> labels;
    bool drifted;
  };
  const std::string ct = "karpenter.sh/capacity-type";
  const std::string os = "kubernetes.io/os";
  const std::string arch = "kubernetes.io/arch";
  const Req od = {ct, "In", "on-demand"};
  const std::vector<Case> cases = {
      {"the nodePool node requirement is updated",
       {od, {arch, "In", "amd64"}, {os, "In", "linux"}},
       {{ct, "In", "spot"}},
       {{ct, "on-demand"}, {arch, "amd64"}, {os, "linux"}},
       true},
      {"a new node requirement is added",
       {od, {os, "In", "linux"}},
       {od, {os, "In", "linux"}, {arch, "In", "amd64"}},
       {{ct, "on-demand"}, {os, "linux"}},
       true},
      {"a node requirement is reduced",
       {od, {os, "In", "linux", "windows"}},
       {od, {os, "In", "windows"}},
       {{ct, "on-demand"}, {os, "linux"}},
       true},
      {"a node requirement is expanded",
       {od, {os, "In", "linux"}},
       {od, {os, "In", "linux", "windows"}},
       {{ct, "on-demand"}, {os, "linux"}},
       false},
      {"a node requirement set to Exists",
       {od, {os, "In", "linux"}},
       {od, {os, "Exists"}},
       {{ct, "on-demand"}, {os, "linux"}},
       false},
      {"a node requirement set to DoesNotExists",
       {od, {os, "In", "linux"}},
       {od, {os, "DoesNotExist"}},
       {{ct, "on-demand"}, {os, "linux"}},
       true},
      {"a nodeClaim is greater then node requirement",
       {od, {"test-label", "Gt", "2"}},
       {od, {"test-label", "Gt", "10"}},
       {{ct, "on-demand"}, {"test-label", "5"}},
       true},
      {"a nodeClaim is less then node requirement",
       {od, {"test-label", "Lt", "5"}},
       {od, {"test-label", "Lt", "1"}},
       {{ct, "on-demand"}, {"test-label", "2"}},
       true},
  };
  auto set_requirements = [](v1::NodePool& np, const std::vector<Req>& reqs) {
    auto* spec = np.mutable_spec()->mutable_template_()->mutable_spec();
    spec->clear_requirements();
    for (const Req& q : reqs) {
      v1::NodeSelectorRequirement* r = spec->add_requirements();
      r->set_key(q[0]);
      r->set_operator_(q[1]);
      for (size_t i = 2; i < q.size(); ++i) r->add_values(q[i]);
    }
  };
  for (const Case& k : cases) {
    Cluster c;
    v1::NodePool& np = c.NodePool("default");
    c.Node("n1", "default");
    // Karpenter's test NodeClaim: its NodePool, instance type, zone and
    // capacity type, then the entry's labels.
    auto& labels = *c.ClaimOf("n1").mutable_metadata()->mutable_labels();
    labels.erase("kubernetes.io/arch");
    labels.erase("kubernetes.io/os");
    for (const auto& [key, value] : k.labels) labels[key] = value;
    set_requirements(np, k.before);
    EXPECT_EQ(Drifted(c), "") << k.name;
    set_requirements(*c.request().mutable_node_pools(0), k.after);
    EXPECT_EQ(Drifted(c), k.drifted ? "RequirementsDrifted" : "") << k.name;
  }
}

// "should return drifted only on NodeClaims that are drifted from an updated
// nodePool": dropping windows drifts only the windows NodeClaim.
TEST(KarpenterDriftConditionTest, OnlyTheNodeClaimsOutsideTheNewRequirements) {
  Cluster c;
  v1::NodePool& np = c.NodePool("default");
  auto* spec = np.mutable_spec()->mutable_template_()->mutable_spec();
  v1::NodeSelectorRequirement* os = spec->add_requirements();
  os->set_key("kubernetes.io/os");
  os->set_operator_("In");
  os->add_values("linux");
  os->add_values("windows");
  c.Node("linux", "default");
  c.Node("windows", "default");
  (*c.ClaimOf("windows")
        .mutable_metadata()
        ->mutable_labels())["kubernetes.io/os"] = "windows";
  EXPECT_EQ(Drifted(c, "linux"), "");
  EXPECT_EQ(Drifted(c, "windows"), "");
  c.request()
      .mutable_node_pools(0)
      ->mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_requirements(1)
      ->mutable_values()
      ->RemoveLast();
  EXPECT_EQ(Drifted(c, "linux"), "");
  EXPECT_EQ(Drifted(c, "windows"), "RequirementsDrifted");
}

// Context "NodePool Static Drift": a NodePool with template annotations,
// labels, taints, startup taints, expireAfter and terminationGracePeriod; the
// NodeClaim carries its hash at the current version.
struct StaticDrift {
  Cluster c;
  StaticDrift() {
    v1::NodePool& np = c.NodePool("default");
    auto& meta = *np.mutable_spec()->mutable_template_()->mutable_metadata();
    (*meta.mutable_annotations())["keyAnnotation"] = "valueAnnotation";
    (*meta.mutable_annotations())["keyAnnotation2"] = "valueAnnotation2";
    (*meta.mutable_labels())["keyLabel"] = "valueLabel";
    (*meta.mutable_labels())["keyLabel2"] = "valueLabel2";
    auto* spec = np.mutable_spec()->mutable_template_()->mutable_spec();
    v1::Taint* t = spec->add_taints();
    t->set_key("keyvalue1");
    t->set_effect("NoExecute");
    v1::Taint* s = spec->add_startup_taints();
    s->set_key("startupkeyvalue1");
    s->set_effect("NoExecute");
    spec->set_expire_after("5m");
    spec->set_termination_grace_period("5m");
    // Karpenter's test NodeClaim does not carry the template's labels:
    // requirements drift reads spec.requirements only.
    c.Node("n1", "default");
    absl::StatusOr<std::string> hash = NodePoolHash(np);
    EXPECT_TRUE(hash.ok()) << hash.status();
    auto& a = *c.ClaimOf("n1").mutable_metadata()->mutable_annotations();
    a[kHashKey] = hash.value_or("");
    a[kHashVersionKey] = "v3";
    (*np.mutable_metadata()->mutable_annotations())[kHashKey] =
        hash.value_or("");
    (*np.mutable_metadata()->mutable_annotations())[kHashVersionKey] = "v3";
  }
  v1::NodePool& pool() { return *c.request().mutable_node_pools(0); }
  v1::NodeClaimTemplateSpec& spec() {
    return *pool().mutable_spec()->mutable_template_()->mutable_spec();
  }
};

// "should detect drift on changes to the static fields", every entry:
// Annotations, Labels, Taints, StartupTaints, NodeClassRef Name, ExpireAfter,
// TerminationGracePeriod.
TEST(KarpenterDriftConditionTest, ChangesToStaticFieldsDrift) {
  const std::vector<std::string> fields = {"Annotations",
                                           "Labels",
                                           "Taints",
                                           "StartupTaints",
                                           "NodeClassRef Name",
                                           "ExpireAfter",
                                           "TerminationGracePeriod"};
  for (const std::string& f : fields) {
    StaticDrift s;
    EXPECT_EQ(Drifted(s.c), "") << f;
    auto& meta =
        *s.pool().mutable_spec()->mutable_template_()->mutable_metadata();
    if (f == "Annotations") {
      (*meta.mutable_annotations())["keyAnnotationTest"] =
          "valueAnnotationTest";
    } else if (f == "Labels") {
      (*meta.mutable_labels())["keyLabelTest"] = "valueLabelTest";
    } else if (f == "Taints") {
      s.spec().mutable_taints(0)->set_key("keytest2taint");
    } else if (f == "StartupTaints") {
      s.spec().mutable_startup_taints(0)->set_key("keytest2taint");
    } else if (f == "NodeClassRef Name") {
      s.spec().mutable_node_class_ref()->set_name("testName");
    } else if (f == "ExpireAfter") {
      s.spec().set_expire_after("100m");
    } else {
      s.spec().set_termination_grace_period("100m");
    }
    EXPECT_EQ(Drifted(s.c), "NodePoolDrifted") << f;
  }
}

// "should not return drifted if karpenter.sh/nodepool-hash annotation is not
// present on the NodePool", "... is not present on the NodeClaim", "... if
// the NodeClaim's karpenter.sh/nodepool-hash-version annotation does not
// match the NodePool's" and "... if karpenter.sh/nodepool-hash-version
// annotation is not present on the NodeClaim", with the annotations those
// tests give (their NodePool has none unless the test sets them: no hash
// controller ran). nodeplan runs the hash controller in the same pass, which
// re-stamps a NodeClaim without the current version; so even after a
// template change none of them is drifted.
TEST(KarpenterDriftConditionTest, NoStaticDriftWithoutComparableHashes) {
  for (int k = 0; k < 4; ++k) {
    StaticDrift s;
    auto& pool = *s.pool().mutable_metadata()->mutable_annotations();
    auto& claim = *s.c.ClaimOf("n1").mutable_metadata()->mutable_annotations();
    s.spec().set_expire_after("100m");  // the NodePool's hash moves on
    pool.clear();
    if (k == 0) {
      claim.erase(kHashVersionKey);
    } else if (k == 1) {
      claim.erase(kHashKey);
    } else if (k == 2) {
      pool[kHashKey] = "test-hash-1";
      pool[kHashVersionKey] = "test-version-1";
      claim[kHashKey] = "test-hash-2";
      claim[kHashVersionKey] = "test-version-2";
    } else {
      claim.clear();
      claim[kHashKey] = "test-hash-111111111";
    }
    EXPECT_EQ(Drifted(s.c), "") << k;
  }
}

// Context "Reserved Capacity", DescribeTable "InstanceTypeNotFound": a
// reserved NodeClaim is matched against reserved and on-demand offerings of
// its type, whatever its reservation.
TEST(KarpenterDriftConditionTest, ReservedNodeClaimsMatchReservedOrOnDemand) {
  struct Case {
    std::vector<std::string> capacity_types;
    bool drifted;
  };
  const std::vector<Case> cases = {{{"reserved", "on-demand"}, false},
                                   {{"reserved"}, false},
                                   {{"on-demand"}, false},
                                   {{"spot"}, true},
                                   {{}, true}};
  for (const Case& k : cases) {
    Cluster c;
    AllowReserved(c.NodePool("default"));
    c.Node("n1", "default",
           {.capacity_type = "reserved", .created = kTwoHoursAgo});
    (*c.ClaimOf("n1")
          .mutable_metadata()
          ->mutable_labels())["karpenter.k8s.aws/capacity-reservation-id"] =
        "cr-claim";
    v1::InstanceType* t = CatalogType(c, "size-4");
    v1::Offering reserved;
    reserved.set_zone("test-zone-1");
    reserved.set_capacity_type("reserved");
    reserved.set_price(0.01);
    reserved.set_reservation_id("cr-other");
    reserved.set_reservation_capacity(1);
    *t->add_offerings() = reserved;
    std::vector<v1::Offering> kept;
    for (const v1::Offering& o : t->offerings()) {
      for (const std::string& ct : k.capacity_types) {
        if (o.capacity_type() == ct) kept.push_back(o);
      }
    }
    t->clear_offerings();
    for (const v1::Offering& o : kept) *t->add_offerings() = o;
    const std::string what = absl::StrCat(k.capacity_types.size(), " types");
    EXPECT_EQ(Drifted(c), k.drifted ? "InstanceTypeNotFound" : "") << what;
  }
}

// ---------------------------------------------------------------------------
// consolidation_test.go, Describe "Underutilized": consolidateAfter 1m.

struct Underutilized {
  Cluster c;
  Underutilized() {
    c.NodePool("default")
        .mutable_spec()
        ->mutable_disruption()
        ->set_consolidate_after("1m");
    c.Node("n1", "default");
    c.ClaimOf("n1").mutable_status()->set_last_pod_event_time(
        "2026-12-02T09:55:00Z");
  }
  v1::ConditionResult Consolidatable() {
    v1::DisruptResponse r = c.Disrupt();
    return Conditions(r, "n1-claim").consolidatable();
  }
};

// "should mark NodeClaims as consolidatable": a pod event now, then a minute
// later.
TEST(KarpenterConsolidatableConditionTest, MarkedOnceConsolidateAfterPassed) {
  Underutilized u;
  u.c.ClaimOf("n1").mutable_status()->set_last_pod_event_time(kNow);
  v1::ConditionResult got = u.Consolidatable();
  EXPECT_EQ(got.status(), "");
  EXPECT_EQ(got.requeue_after(), "1m0s");
  u.c.request().set_now("2026-12-02T10:01:00Z");
  got = u.Consolidatable();
  EXPECT_EQ(got.status(), "True");
  EXPECT_EQ(got.last_transition_time(), "2026-12-02T10:01:00Z");
}

// "should mark NodeClaims as consolidatable based on the nodeclaim
// initialized time": no pod event yet.
TEST(KarpenterConsolidatableConditionTest, WithoutPodEventsFromInitialization) {
  Underutilized u;
  u.c.ClaimOf("n1").mutable_status()->clear_last_pod_event_time();
  u.c.request().set_now(kHourAgo);  // the Initialized transition
  EXPECT_EQ(u.Consolidatable().status(), "");
  u.c.request().set_now("2026-12-02T09:01:00Z");
  EXPECT_EQ(u.Consolidatable().status(), "True");
}

// "should remove the status condition from the nodeClaim when lastPodEvent
// is too recent", "... when consolidateAfter is never", "... when the
// nodeClaim initialization condition is unknown" and "... when the nodeClaim
// is not initialized".
TEST(KarpenterConsolidatableConditionTest, RemovedWhenNoLongerConsolidatable) {
  for (int k = 0; k < 4; ++k) {
    Underutilized u;
    v1::NodeClaim& nc = u.c.ClaimOf("n1");
    SetCondition(nc, "Consolidatable", "True");
    if (k == 0) {
      nc.mutable_status()->set_last_pod_event_time(kNow);
    } else if (k == 1) {
      u.c.request()
          .mutable_node_pools(0)
          ->mutable_spec()
          ->mutable_disruption()
          ->set_consolidate_after("Never");
    } else {
      SetCondition(nc, "Initialized", k == 2 ? "Unknown" : "False");
    }
    EXPECT_EQ(u.Consolidatable().status(), "") << k;
  }
}

// ---------------------------------------------------------------------------
// expiration/suite_test.go, Describe "Expiration".

const v1::Expiration* ExpirationOf(const v1::DisruptResponse& r,
                                   const std::string& claim) {
  for (const v1::Expiration& e : r.expirations()) {
    if (e.node_claim() == claim) return &e;
  }
  return nullptr;
}

// "should remove nodeclaims that are expired" and "should delete NodeClaims
// if the nodeClaim is expired but the node isn't": expireAfter 30s, a minute
// after the NodeClaim's creation (the Node's own age does not matter).
TEST(KarpenterExpirationControllerTest, ExpiredNodeClaimsAreDeleted) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.created = kNow});
  c.ClaimOf("n1").mutable_metadata()->set_creation_timestamp(
      "2026-12-02T09:59:00Z");
  c.ClaimOf("n1").mutable_spec()->set_expire_after("30s");
  v1::DisruptResponse r = c.Disrupt();
  const v1::Expiration* e = ExpirationOf(r, "n1-claim");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->action(), "delete");
  EXPECT_EQ(e->reason(), "Expired");
}

// The metrics test's setup: an expired NodeClaim whose NodePool does not
// exist is deleted all the same.
TEST(KarpenterExpirationControllerTest, ExpiryNeedsNoNodePool) {
  Cluster c;
  c.NodePool("other");
  c.Node("n1", "default", {.created = "2026-12-02T09:59:00Z"});
  c.ClaimOf("n1").mutable_spec()->set_expire_after("30s");
  v1::DisruptResponse r = c.Disrupt();
  const v1::Expiration* e = ExpirationOf(r, "n1-claim");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->action(), "delete");
}

// "should not remove the NodeClaims when expiration is disabled".
TEST(KarpenterExpirationControllerTest, NeverDisablesExpiration) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.created = "2026-01-01T00:00:00Z"});
  c.ClaimOf("n1").mutable_spec()->set_expire_after("Never");
  EXPECT_EQ(ExpirationOf(c.Disrupt(), "n1-claim"), nullptr);
}

// "should not remove non-expired NodeClaims" and "should return the requeue
// interval for the time between now and when the nodeClaim expires".
TEST(KarpenterExpirationControllerTest, RequeuesUntilTheExpiry) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.created = "2026-12-02T09:58:20Z"});
  c.ClaimOf("n1").mutable_spec()->set_expire_after("200s");
  v1::DisruptResponse r = c.Disrupt();
  const v1::Expiration* e = ExpirationOf(r, "n1-claim");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->action(), "requeue");
  EXPECT_EQ(e->requeue_after(), "1m40s");
  EXPECT_EQ(e->expires_at(), "2026-12-02T10:01:40Z");
}

// The controller reconciles NodeClaims, Node or not: one that never
// registered expires all the same.
TEST(KarpenterExpirationControllerTest, ANodeClaimWithoutANodeExpires) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.created = "2026-12-02T09:59:00Z"});
  c.ClaimOf("n1").mutable_spec()->set_expire_after("30s");
  c.request().clear_nodes();
  v1::DisruptResponse r = c.Disrupt();
  const v1::Expiration* e = ExpirationOf(r, "n1-claim");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->action(), "delete");
}

// "shouldn't expire the same NodeClaim multiple times": once deleting, an
// expired NodeClaim is left alone.
TEST(KarpenterExpirationControllerTest, ADeletingNodeClaimIsNotExpiredAgain) {
  Cluster c;
  c.NodePool("default");
  c.Node("n1", "default", {.created = "2026-12-02T09:59:00Z"});
  c.ClaimOf("n1").mutable_spec()->set_expire_after("30s");
  c.ClaimOf("n1").mutable_metadata()->set_deletion_timestamp(
      "2026-12-02T09:59:30Z");
  EXPECT_EQ(ExpirationOf(c.Disrupt(), "n1-claim"), nullptr);
}

}  // namespace
}  // namespace nodeplan::testing
