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

}  // namespace
}  // namespace nodeplan::testing
