// Scenarios translated from Karpenter's provisioning suite, Context "Volume
// Topology Requirements" (sigs.k8s.io/karpenter v1.14.1,
// pkg/controllers/provisioning/suite_test.go): which claims make a pod wait
// (Karpenter's ValidatePersistentVolumeClaims) and which zones a claim's
// volume or storage class leaves it. Karpenter's test helper marks a claim
// with a volumeName bound (the pv.kubernetes.io/bind-completed annotation);
// Claim() below does the same.

#include <string>
#include <vector>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"
#include "nodeplan/verify.h"

namespace nodeplan::testing {
namespace {

constexpr char kZone[] = "topology.kubernetes.io/zone";

// test.PersistentVolumeClaim: a storage class ("-" for none, as a nil
// pointer) and a volume name.
v1::PersistentVolumeClaim Claim(const std::string& name, const std::string& sc,
                                const std::string& volume = "") {
  v1::PersistentVolumeClaim c;
  c.mutable_metadata()->set_name(name);
  c.mutable_metadata()->set_namespace_("default");
  if (sc != "-") c.mutable_spec()->set_storage_class_name(sc);
  if (!volume.empty()) {
    c.mutable_spec()->set_volume_name(volume);
    (*c.mutable_metadata()
          ->mutable_annotations())["pv.kubernetes.io/bind-completed"] = "yes";
  }
  return c;
}

// test.PersistentVolume: in `zones` (none: no node affinity), a CSI volume
// unless `kind` is "local" or "hostPath".
v1::PersistentVolume Volume(const std::string& name, const std::string& sc,
                            std::vector<std::string> zones,
                            const std::string& kind = "csi") {
  v1::PersistentVolume pv;
  pv.mutable_metadata()->set_name(name);
  pv.mutable_spec()->set_storage_class_name(sc);
  if (kind == "local") pv.mutable_spec()->mutable_local()->set_path("/mnt");
  if (kind == "hostPath")
    pv.mutable_spec()->mutable_host_path()->set_path("/mnt");
  if (kind == "csi")
    pv.mutable_spec()->mutable_csi()->set_driver("test-driver");
  if (!zones.empty()) {
    auto* e = pv.mutable_spec()
                  ->mutable_node_affinity()
                  ->mutable_required()
                  ->add_node_selector_terms()
                  ->add_match_expressions();
    e->set_key(kZone);
    e->set_operator_("In");
    for (const auto& z : zones) e->add_values(z);
  }
  return pv;
}

// The suite's storage class: WaitForFirstConsumer in zones 2 and 3.
v1::StorageClass Zonal() {
  return Parse<v1::StorageClass>(
      R"pb(metadata { name: "zonal" } provisioner: "test-provisioner"
           volume_binding_mode: "WaitForFirstConsumer"
           allowed_topologies { match_label_expressions {
             key: "topology.kubernetes.io/zone" values: "test-zone-2" values: "test-zone-3" } })pb");
}

v1::Pod WithClaim(v1::Pod p, const std::string& claim) {
  auto* v = p.mutable_spec()->add_volumes();
  v->set_name("data");
  v->mutable_persistent_volume_claim()->set_claim_name(claim);
  return p;
}

// A pod with a generic ephemeral volume "data" of storage class `sc`; its
// claim is "<pod>-data".
v1::Pod WithEphemeral(v1::Pod p, const std::string& sc) {
  auto* v = p.mutable_spec()->add_volumes();
  v->set_name("data");
  v->mutable_ephemeral()
      ->mutable_volume_claim_template()
      ->mutable_spec()
      ->set_storage_class_name(sc);
  return p;
}

// "should not schedule if invalid pvc", "should (not) schedule with an empty
// / a missing storage class if the pvc is (not) bound" and "should schedule
// valid pods when a pod with an invalid pvc is encountered (pvc, storage
// class, volume name)": the pod with the claim waits or schedules, and a
// plain pod beside it always schedules.
TEST(KarpenterVolumes, WhichClaimsMakeAPodWait) {
  struct Case {
    const char* name;
    std::vector<v1::PersistentVolumeClaim> claims;
    std::vector<v1::PersistentVolume> volumes;
    bool scheduled;
  } cases[] = {
      {"invalid pvc", {}, {}, false},
      {"empty storage class, bound",
       {Claim("pvc", "", "test-volume")},
       {Volume("test-volume", "", {})},
       true},
      {"empty storage class, not bound", {Claim("pvc", "")}, {}, false},
      {"no storage class, not bound", {Claim("pvc", "-")}, {}, false},
      {"missing storage class, bound",
       {Claim("pvc", "missing-storage-class", "test-volume")},
       {Volume("test-volume", "missing-storage-class", {})},
       true},
      {"missing storage class, not bound",
       {Claim("pvc", "missing-storage-class")},
       {},
       false},
      {"invalid volume name",
       {Claim("pvc", "-", "invalid-volume-name")},
       {},
       false},
  };
  for (const Case& c : cases) {
    auto r = KRequest();
    for (const auto& x : c.claims) *r.add_persistent_volume_claims() = x;
    for (const auto& x : c.volumes) *r.add_persistent_volumes() = x;
    *r.add_pods() = WithClaim(Bare("with-claim"), "pvc");
    *r.add_pods() = Bare("plain");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), c.scheduled ? 0 : 1) << c.name;
    EXPECT_EQ(resp.new_node_claims_size(), 1) << c.name;
    if (!c.scheduled && resp.unschedulable_size() == 1) {
      EXPECT_EQ(resp.unschedulable(0).pod(), "default/with-claim") << c.name;
    }
  }
}

// Claims kube-scheduler takes as unusable (Karpenter's
// ValidatePersistentVolumeClaims): being deleted, Lost, a volumeName without
// the binding annotation, and an unbound claim of an Immediate class.
TEST(KarpenterVolumes, ClaimsKubeSchedulerRejects) {
  v1::PersistentVolumeClaim deleting = Claim("pvc", "zonal");
  deleting.mutable_metadata()->set_deletion_timestamp("2026-01-01T00:00:00Z");
  v1::PersistentVolumeClaim lost = Claim("pvc", "zonal", "gone");
  lost.mutable_status()->set_phase("Lost");
  v1::PersistentVolumeClaim unannotated = Claim("pvc", "zonal", "pv");
  unannotated.mutable_metadata()->clear_annotations();
  v1::StorageClass immediate = Zonal();
  immediate.set_volume_binding_mode("Immediate");
  struct Case {
    const char* name;
    v1::PersistentVolumeClaim claim;
    v1::StorageClass sc;
    std::string reason;
  } cases[] = {
      {"deleting", deleting, Zonal(),
       "persistentvolumeclaim is being deleted (PersistentVolumeClaim=default/"
       "pvc)"},
      {"lost", lost, Zonal(),
       "persistentvolumeclaim bound to non-existent persistentvolume "
       "(PersistentVolume=gone, PersistentVolumeClaim=default/pvc)"},
      {"no bind-completed annotation", unannotated, Zonal(),
       "pvc is considered unbound because it does not contain annotation "
       "(PersistentVolume=pv, PersistentVolumeClaim=pvc, "
       "annotation=pv.kubernetes.io/bind-completed)"},
      {"immediate binding, unbound", Claim("pvc", "zonal"), immediate,
       "failed to validate pvc, pvc with immediate volume binding mode must "
       "be bound (PersistentVolumeClaim=default/pvc, StorageClass=zonal)"},
  };
  for (const Case& c : cases) {
    auto r = KRequest();
    *r.add_storage_classes() = c.sc;
    *r.add_persistent_volumes() = Volume("pv", "zonal", {"test-zone-3"});
    *r.add_persistent_volume_claims() = c.claim;
    *r.add_pods() = WithClaim(Bare("p"), "pvc");
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.unschedulable_size(), 1) << c.name;
    EXPECT_EQ(resp.unschedulable(0).reason(), c.reason) << c.name;
  }
}

// "should schedule to storage class zones if volume does not exist", "should
// not schedule if storage class zones are incompatible", "should schedule
// to volume zones if volume already bound", "should not schedule if volume
// zones are incompatible", each also with an ephemeral volume.
TEST(KarpenterVolumes, ZonesFromTheClassOrTheVolume) {
  struct Case {
    const char* name;
    bool bound;  // the claim names volume "pv" in zone-3
    std::vector<std::string> pod_zones;  // required node affinity (empty: none)
    std::string zone;  // the launch zone, "" when the pod waits
  } cases[] = {
      {"class zones", false, {"test-zone-1", "test-zone-3"}, "test-zone-3"},
      {"class zones incompatible", false, {"test-zone-1"}, ""},
      {"volume zones", true, {}, "test-zone-3"},
      {"volume zones incompatible", true, {"test-zone-1"}, ""},
  };
  for (const Case& c : cases) {
    for (bool ephemeral : {false, true}) {
      auto r = KRequest();
      *r.add_storage_classes() = Zonal();
      *r.add_persistent_volumes() = Volume("pv", "zonal", {"test-zone-3"});
      v1::Pod p = Bare("p");
      if (!c.pod_zones.empty())
        p.MergeFrom(Parse<v1::Pod>(Required({Expr(kZone, "In", c.pod_zones)})));
      p = ephemeral ? WithEphemeral(p, "zonal") : WithClaim(p, "pvc");
      *r.add_pods() = p;
      *r.add_persistent_volume_claims() =
          Claim(ephemeral ? "p-data" : "pvc", "zonal", c.bound ? "pv" : "");
      auto resp = MustSchedule(r);
      const std::string label =
          absl::StrCat(c.name, ephemeral ? " (ephemeral)" : "");
      if (c.zone.empty()) {
        EXPECT_EQ(resp.unschedulable_size(), 1) << label;
        EXPECT_EQ(resp.new_node_claims_size(), 0) << label;
        continue;
      }
      ASSERT_EQ(resp.new_node_claims_size(), 1) << label;
      EXPECT_EQ(resp.new_node_claims(0).launch().zone(), c.zone) << label;
    }
  }
}

// An ephemeral volume's claim is made by a controller after the pod; until
// it exists Karpenter cannot read it and leaves the pod.
TEST(KarpenterVolumes, EphemeralClaimNotYetCreated) {
  auto r = KRequest();
  *r.add_storage_classes() = Zonal();
  *r.add_pods() = WithEphemeral(Bare("p"), "zonal");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.unschedulable_size(), 1);
  EXPECT_THAT(
      resp.unschedulable(0).reason(),
      ::testing::HasSubstr("persistentvolumeclaim \"p-data\" not found"));
}

// "should ignore hostname affinity scheduling when using local path volumes"
// (local and hostPath, also ephemeral) and "should not ignore hostname
// affinity when using non-local path volumes": a volume pinned to a host
// that no longer exists.
TEST(KarpenterVolumes, HostnameOfALocalVolumeIsIgnored) {
  for (const char* kind : {"local", "hostPath", "csi"}) {
    for (bool ephemeral : {false, true}) {
      auto r = KRequest();
      *r.add_storage_classes() = Parse<v1::StorageClass>(
          R"pb(metadata { name: "local-path" } provisioner: "kubernetes.io/no-provisioner")pb");
      v1::PersistentVolume pv = Volume("pv", "local-path", {}, kind);
      auto* e = pv.mutable_spec()
                    ->mutable_node_affinity()
                    ->mutable_required()
                    ->add_node_selector_terms()
                    ->add_match_expressions();
      e->set_key("kubernetes.io/hostname");
      e->set_operator_("In");
      e->add_values("a-node-long-gone");
      *r.add_persistent_volumes() = pv;
      *r.add_persistent_volume_claims() =
          Claim(ephemeral ? "p-data" : "pvc", "local-path", "pv");
      *r.add_pods() = ephemeral ? WithEphemeral(Bare("p"), "local-path")
                                : WithClaim(Bare("p"), "pvc");
      auto resp = MustSchedule(r);
      const bool node_local = std::string(kind) != "csi";
      EXPECT_EQ(resp.new_node_claims_size(), node_local ? 1 : 0)
          << kind << ephemeral;
      EXPECT_EQ(resp.unschedulable_size(), node_local ? 0 : 1)
          << kind << ephemeral;
    }
  }
}

// "should not relax an added volume topology zone node-selector away": the
// volume's zone holds in every node selector term, so relaxing the pod's
// first (impossible) term leaves the second one still in test-zone-3.
TEST(KarpenterVolumes, VolumeZoneSurvivesRelaxation) {
  auto r = KRequest();
  *r.add_storage_classes() = Zonal();
  *r.add_persistent_volumes() = Volume("pv", "zonal", {"test-zone-3"});
  *r.add_persistent_volume_claims() = Claim("pvc", "zonal", "pv");
  v1::Pod p = WithClaim(Bare("p"), "pvc");
  p.MergeFrom(Parse<v1::Pod>(R"pb(
    spec { affinity { node_affinity { required_during_scheduling_ignored_during_execution {
      node_selector_terms { match_expressions { key: "example.com/label" operator: "In" values: "unsupported" } }
      node_selector_terms { match_expressions { key: "karpenter.sh/capacity-type" operator: "In" values: "on-demand" } }
    } } } })pb"));
  *r.add_pods() = p;
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-3");
  EXPECT_EQ(resp.new_node_claims(0).launch().capacity_type(), "on-demand");
}

// ---------------------------------------------------------------------------
// CSI volume limits, from Karpenter's scheduling suite (sigs.k8s.io/karpenter
// v1.14.1, pkg/controllers/provisioning/scheduling/suite_test.go), Describe
// "VolumeUsage" and Context "CSIMigration". Each of Karpenter's cases
// provisions twice; here the first round is an existing node holding its
// bound pod, with the CSINode Karpenter's test applies for it.

constexpr char kCsiProvider[] = "fake.csi.provider";

// The suite's VolumeUsage catalog: one type of 1024 cores and 1024 pods.
v1::ScheduleRequest VolumeUsageRequest() {
  return KRequest("", KCatalog({KType("instance-type", 1024, 1024, 1024)}));
}

// The node of the first round (in test-zone-1, where the suite's storage
// classes allow volumes), with its NodeClaim and the pod it was launched
// for.
void AddFirstRoundNode(v1::ScheduleRequest& r, v1::Pod initial) {
  v1::Node n = KNode("node-1", "instance-type", "test-zone-1", "1024", "1024Gi",
                     "1024", /*initialized=*/true);
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
  *r.add_pods() = BoundTo(std::move(initial), "node-1");
}

v1::CSINode CsiNode(const std::string& node, const std::string& driver,
                    int count) {
  v1::CSINode c;
  c.set_api_version("storage.k8s.io/v1");
  c.set_kind("CSINode");
  c.mutable_metadata()->set_name(node);
  auto* d = c.mutable_spec()->add_drivers();
  d->set_name(driver);
  d->set_node_id("fake-node-id");
  d->mutable_allocatable()->set_count(count);
  return c;
}

v1::StorageClass ZoneOneClass(const std::string& name,
                              const std::string& provisioner,
                              const std::string& binding) {
  v1::StorageClass sc = Parse<v1::StorageClass>(
      R"pb(allowed_topologies { match_label_expressions {
             key: "topology.kubernetes.io/zone" values: "test-zone-1" } })pb");
  sc.mutable_metadata()->set_name(name);
  sc.set_provisioner(provisioner);
  sc.set_volume_binding_mode(binding);
  return sc;
}

v1::Pod WithClaims(v1::Pod p, const std::vector<std::string>& claims) {
  for (size_t i = 0; i < claims.size(); ++i) {
    auto* v = p.mutable_spec()->add_volumes();
    v->set_name(absl::StrCat("vol-", i));
    v->mutable_persistent_volume_claim()->set_claim_name(claims[i]);
  }
  return p;
}

int PodsOn(const v1::ScheduleResponse& r, const std::string& node) {
  for (const auto& e : r.existing_nodes())
    if (e.name() == node) return e.pods_size();
  return 0;
}

// "should launch multiple nodes if required due to volume limits": six pods
// of two fresh claims each; the node's CSINode allows ten volumes of the
// driver, so five pods stay there and the sixth needs a second node.
TEST(KarpenterVolumeUsage, MultipleNodesDueToVolumeLimits) {
  auto r = VolumeUsageRequest();
  AddFirstRoundNode(r, Bare("initial"));
  *r.add_csi_nodes() = CsiNode("node-1", kCsiProvider, 10);
  *r.add_storage_classes() =
      ZoneOneClass("my-storage-class", kCsiProvider, "WaitForFirstConsumer");
  for (int i = 0; i < 6; ++i) {
    const std::string a = absl::StrCat("my-claim-a-", i);
    const std::string b = absl::StrCat("my-claim-b-", i);
    *r.add_persistent_volume_claims() = Claim(a, "my-storage-class");
    *r.add_persistent_volume_claims() = Claim(b, "my-storage-class");
    *r.add_pods() = WithClaims(Bare(absl::StrCat("pod-", i)), {a, b});
  }
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.unschedulable_size(), 0);
  EXPECT_EQ(PodsOn(resp, "node-1"), 5);
  ASSERT_EQ(resp.new_node_claims_size(), 1);  // two nodes in all
  EXPECT_EQ(resp.new_node_claims(0).pods_size(), 1);
  EXPECT_TRUE(Verify(r, resp).empty());

  // Without the CSINode the node has no limit and takes all six.
  r.clear_csi_nodes();
  resp = MustSchedule(r);
  EXPECT_EQ(PodsOn(resp, "node-1"), 6);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
}

// "should launch a single node if all pods use the same PVC": a hundred pods
// of one bound claim count it once.
TEST(KarpenterVolumeUsage, SingleNodeWhenAllPodsShareAClaim) {
  // The volume's driver is test.PersistentVolume's; a second pass gives it
  // the limited driver, and the shared claim still counts once.
  for (const std::string driver : {"test.driver", kCsiProvider}) {
    auto r = VolumeUsageRequest();
    AddFirstRoundNode(r, Bare("initial"));
    *r.add_csi_nodes() = CsiNode("node-1", kCsiProvider, 10);
    *r.add_storage_classes() =
        ZoneOneClass("my-storage-class", kCsiProvider, "");
    v1::PersistentVolume pv =
        Volume("my-volume", "my-storage-class", {"test-zone-1"});
    pv.mutable_spec()->mutable_csi()->set_driver(driver);
    *r.add_persistent_volumes() = pv;
    *r.add_persistent_volume_claims() =
        Claim("my-claim", "my-storage-class", "my-volume");
    for (int i = 0; i < 100; ++i)
      *r.add_pods() = WithClaims(Bare(absl::StrCat("pod-", i)), {"my-claim"});
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 0) << driver;
    EXPECT_EQ(PodsOn(resp, "node-1"), 100) << driver;
    EXPECT_EQ(resp.new_node_claims_size(), 0) << driver;
  }
}

// "should not fail for NFS volumes": a volume of no CSI driver (NFS: neither
// spec.csi nor an in-tree EBS source) is not counted; five pods mounting one
// such claim twice stay on the node. The suite applies no CSINode here; a
// second pass adds one with a zero limit, which the claim still escapes.
TEST(KarpenterVolumeUsage, NfsVolumesAreNotCounted) {
  for (bool with_csi_node : {false, true}) {
    auto r = VolumeUsageRequest();
    AddFirstRoundNode(r, Bare("initial"));
    if (with_csi_node) *r.add_csi_nodes() = CsiNode("node-1", kCsiProvider, 0);
    *r.add_persistent_volumes() =
        Volume("my-volume", "nfs", {"test-zone-1"}, "nfs");
    *r.add_persistent_volume_claims() = Claim("my-claim", "", "my-volume");
    for (int i = 0; i < 5; ++i)
      *r.add_pods() =
          WithClaims(Bare(absl::StrCat("pod-", i)), {"my-claim", "my-claim"});
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 0) << with_csi_node;
    EXPECT_EQ(PodsOn(resp, "node-1"), 5) << with_csi_node;
    EXPECT_EQ(resp.new_node_claims_size(), 0) << with_csi_node;
  }
}

// "should launch nodes for pods with non-dynamic PVC using a migrated
// PVC/PV": claims of the in-tree EBS class count against ebs.csi.aws.com,
// whose CSINode limit of one the first pod's claim already takes. Karpenter's
// case leaves the first claim unbound (its class's provisioner is
// translated); a second pass binds it to the in-tree EBS volume (the
// volume's source is translated).
TEST(KarpenterVolumeUsage, MigratedInTreeClaimCountsAgainstEbs) {
  for (bool bound : {false, true}) {
    auto r = KRequest();
    *r.add_storage_classes() =
        ZoneOneClass("in-tree-storage-class", "kubernetes.io/aws-ebs",
                     "WaitForFirstConsumer");
    v1::PersistentVolume pv =
        Volume("my-volume", "in-tree-storage-class", {"test-zone-1"}, "ebs");
    pv.mutable_spec()->mutable_aws_elastic_block_store()->set_volume_id(
        "vol-0123");
    *r.add_persistent_volumes() = pv;
    *r.add_persistent_volume_claims() =
        Claim("first-claim", "in-tree-storage-class", bound ? "my-volume" : "");
    *r.add_persistent_volume_claims() =
        Claim("second-claim", "in-tree-storage-class");
    v1::Node n = KNode("node-1", "default-instance-type", "test-zone-1",
                       "3900m", "3Gi", "5", /*initialized=*/true);
    *r.add_node_claims() = LinkedClaim(n);
    *r.add_nodes() = n;
    *r.add_pods() =
        BoundTo(WithClaim(Bare("initial"), "first-claim"), "node-1");
    *r.add_csi_nodes() = CsiNode("node-1", "ebs.csi.aws.com", 1);
    *r.add_pods() = WithClaim(Bare("pod"), "second-claim");
    auto resp = MustSchedule(r);
    EXPECT_EQ(resp.unschedulable_size(), 0) << bound;
    EXPECT_EQ(PodsOn(resp, "node-1"), 0) << bound;
    ASSERT_EQ(resp.new_node_claims_size(), 1) << bound;
    EXPECT_EQ(resp.new_node_claims(0).pods(0), "default/pod") << bound;
    EXPECT_TRUE(Verify(r, resp).empty()) << bound;
  }
}

// "should launch nodes for pods with ephemeral volume using a migrated
// PVC/PV": generic ephemeral volumes, each pod's claim "<pod>-<volume>" of
// the in-tree EBS class (the class is the cluster's default: the API server
// fills it into the claims); the second pod's claim exceeds the limit of one.
TEST(KarpenterVolumeUsage, MigratedEphemeralClaimCountsAgainstEbs) {
  auto r = KRequest();
  *r.add_storage_classes() = ZoneOneClass(
      "in-tree-storage-class", "kubernetes.io/aws-ebs", "WaitForFirstConsumer");
  auto ephemeral = [](v1::Pod p) {
    auto* v = p.mutable_spec()->add_volumes();
    v->set_name("tmp-ephemeral");
    v->mutable_ephemeral()
        ->mutable_volume_claim_template()
        ->mutable_spec()
        ->set_storage_class_name("in-tree-storage-class");
    return p;
  };
  for (const char* pod : {"initial", "pod"})
    *r.add_persistent_volume_claims() =
        Claim(absl::StrCat(pod, "-tmp-ephemeral"), "in-tree-storage-class");
  v1::Node n = KNode("node-1", "default-instance-type", "test-zone-1", "3900m",
                     "3Gi", "5", /*initialized=*/true);
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
  *r.add_pods() = BoundTo(ephemeral(Bare("initial")), "node-1");
  *r.add_csi_nodes() = CsiNode("node-1", "ebs.csi.aws.com", 1);
  *r.add_pods() = ephemeral(Bare("pod"));
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.unschedulable_size(), 0);
  EXPECT_EQ(PodsOn(resp, "node-1"), 0);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).pods(0), "default/pod");

  // A limit of two leaves room for the second claim.
  r.mutable_csi_nodes(0)
      ->mutable_spec()
      ->mutable_drivers(0)
      ->mutable_allocatable()
      ->set_count(2);
  resp = MustSchedule(r);
  EXPECT_EQ(PodsOn(resp, "node-1"), 1);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
}

// A node whose bound claims already exceed a limit takes no pod at all, as
// Karpenter checks the union of the node's and the pod's claims; a driver
// without allocatable sets no limit, and an in-flight NodeClaim (no Node,
// so no CSINode) has none.
TEST(KarpenterVolumeUsage, OverLimitNodeAndDriversWithoutCount) {
  auto r = VolumeUsageRequest();
  *r.add_storage_classes() =
      ZoneOneClass("my-storage-class", kCsiProvider, "WaitForFirstConsumer");
  *r.add_persistent_volume_claims() = Claim("a", "my-storage-class");
  *r.add_persistent_volume_claims() = Claim("b", "my-storage-class");
  AddFirstRoundNode(r, WithClaims(Bare("initial"), {"a", "b"}));
  *r.add_csi_nodes() = CsiNode("node-1", kCsiProvider, 1);
  *r.add_pods() = Bare("plain");
  auto resp = MustSchedule(r);
  EXPECT_EQ(PodsOn(resp, "node-1"), 0);
  EXPECT_EQ(resp.new_node_claims_size(), 1);

  r.mutable_csi_nodes(0)
      ->mutable_spec()
      ->mutable_drivers(0)
      ->clear_allocatable();
  resp = MustSchedule(r);
  EXPECT_EQ(PodsOn(resp, "node-1"), 1);
}

// The verifier counts claims on its own: a plan that puts a pod past the
// limit is a volume-limits violation in Karpenter's words.
TEST(KarpenterVolumeUsage, VerifierFlagsAPlanPastTheLimit) {
  auto r = VolumeUsageRequest();
  *r.add_storage_classes() =
      ZoneOneClass("my-storage-class", kCsiProvider, "WaitForFirstConsumer");
  *r.add_persistent_volume_claims() = Claim("a", "my-storage-class");
  *r.add_persistent_volume_claims() = Claim("b", "my-storage-class");
  AddFirstRoundNode(r, WithClaims(Bare("initial"), {"a"}));
  *r.add_csi_nodes() = CsiNode("node-1", kCsiProvider, 1);
  *r.add_pods() = WithClaims(Bare("pod"), {"b"});
  auto resp = MustSchedule(r);
  EXPECT_EQ(PodsOn(resp, "node-1"), 0);
  EXPECT_TRUE(Verify(r, resp).empty());
  v1::ScheduleResponse forged;
  auto* e = forged.add_existing_nodes();
  e->set_name("node-1");
  e->set_kind("Node");
  e->add_pods("default/pod");
  auto violations = Verify(r, forged);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].rule, "volume-limits");
  EXPECT_EQ(violations[0].subject, "node node-1");
  EXPECT_EQ(violations[0].message,
            "would exceed volume limit (provisioner=fake.csi.provider, "
            "volume-count=2, volume-limit=1)");
}

}  // namespace
}  // namespace nodeplan::testing
