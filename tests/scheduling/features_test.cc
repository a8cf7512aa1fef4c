// minValues, reserved capacity, volumes, NodeClass zones, unavailable
// offerings.

#include "fixtures.h"
#include "gmock/gmock.h"

namespace nodeplan::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(MinValues, StrictFailsBestEffortRelaxes) {
  auto r = Request(4);
  r.mutable_node_pools(0)->MergeFrom(
      Parse<v1::NodePool>(R"pb(spec { template { spec {
      requirements { key: "node.kubernetes.io/instance-type" operator: "Exists" min_values: 3 } } } })pb"));
  *r.add_pods() = Pod("a", "3", "1Gi");  // only fake-it-3 fits
  auto strict = MustSchedule(r);
  EXPECT_EQ(strict.new_node_claims_size(), 0);
  EXPECT_THAT(ReasonFor(strict, "default/a"),
              HasSubstr("minValues requirement is not met for label(s) "
                        "(label(s)=[node.kubernetes.io/instance-type])"));
  r.mutable_options()->set_min_values_policy("BestEffort");
  auto relaxed = MustSchedule(r);
  ASSERT_EQ(relaxed.new_node_claims_size(), 1);
  const auto& nc = relaxed.new_node_claims(0).node_claim();
  EXPECT_EQ(nc.metadata().annotations().at(
                "karpenter.sh/nodeclaim-min-values-relaxed"),
            "true");
  const auto* it = FindReq(nc, "node.kubernetes.io/instance-type");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->min_values(), 1);
}

TEST(MinValues, SatisfiedKeepsFloor) {
  auto r = Request(6);
  r.mutable_node_pools(0)->MergeFrom(
      Parse<v1::NodePool>(R"pb(spec { template { spec {
      requirements { key: "node.kubernetes.io/instance-type" operator: "Exists" min_values: 3 } } } })pb"));
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_GE(resp.new_node_claims(0).instance_types_size(), 3);
  EXPECT_EQ(FindReq(resp.new_node_claims(0).node_claim(),
                    "node.kubernetes.io/instance-type")
                ->min_values(),
            3);
}

TEST(Reserved, ReservedOfferingFirstAndCapacityTracked) {
  auto r = Request(4);
  r.mutable_node_pools(0)
      ->mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->clear_requirements();
  r.mutable_node_pools(0)->MergeFrom(
      Parse<v1::NodePool>(R"pb(spec { template { spec {
      requirements { key: "karpenter.sh/capacity-type" operator: "In" values: "reserved" } } } })pb"));
  auto* o = r.mutable_catalog()->mutable_instance_types(3)->add_offerings();
  o->set_zone("test-zone-1");
  o->set_capacity_type("reserved");
  o->set_price(0.00001);
  o->set_reservation_id("cr-1");
  o->set_reservation_capacity(1);
  for (int i = 0; i < 2; ++i)
    *r.add_pods() = Pod(absl::StrCat("p", i), "3", "1Gi",
                        R"pb(metadata { labels { key: "app" value: "x" } }
        spec { affinity { pod_anti_affinity { required_during_scheduling_ignored_during_execution {
          topology_key: "kubernetes.io/hostname" label_selector { match_labels { key: "app" value: "x" } } } } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_GE(resp.new_node_claims_size(), 1);
  const auto& c = resp.new_node_claims(0);
  EXPECT_EQ(c.launch().capacity_type(), "reserved");
  EXPECT_EQ(c.launch().reservation_id(), "cr-1");
  const auto* ct = FindReq(c.node_claim(), "karpenter.sh/capacity-type");
  ASSERT_NE(ct, nullptr);
  EXPECT_THAT(ct->values(), ::testing::ElementsAre("reserved"));
  // The reservation holds one instance: the second pod is deferred.
  EXPECT_THAT(ReasonFor(resp, "default/p1"),
              HasSubstr("could not be reserved"));
}

// A reservation with no capacity left still lists its zone in the type's
// zone requirement (Karpenter's generic providers build it from
// Offerings.Available(), which does not look at reservation capacity), so
// that zone is a topology domain: with one type offered on demand in zones 1
// and 2 and reserved (exhausted) in zone 3, a DoNotSchedule zone spread of 4
// pods places 2 and leaves 2 unschedulable, as the Karpenter harness does
// for this input.
TEST(Reserved, AnExhaustedReservationsZoneIsStillADomain) {
  auto r = Request(1);
  auto& type = *r.mutable_catalog()->mutable_instance_types(0);
  type.clear_offerings();
  for (const char* z : {"test-zone-1", "test-zone-2"}) {
    auto* o = type.add_offerings();
    o->set_zone(z);
    o->set_capacity_type("on-demand");
    o->set_price(0.1);
  }
  auto* o = type.add_offerings();
  o->set_zone("test-zone-3");
  o->set_capacity_type("reserved");
  o->set_price(0.01);
  o->set_reservation_id("cr-1");
  o->set_reservation_capacity(0);
  r.mutable_node_pools(0)
      ->mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_requirements(0)
      ->add_values("reserved");
  AddZoneSpreadPods(r, 4, "700m", "64Mi");
  auto resp = MustSchedule(r);
  int placed = 0;
  for (const auto& c : resp.new_node_claims()) placed += c.pods_size();
  EXPECT_EQ(placed, 2);
  EXPECT_EQ(resp.unschedulable_size(), 2);
}

TEST(Volumes, BoundVolumeZoneConstrainsTheNodeClaim) {
  auto r = Request();
  *r.add_persistent_volume_claims() = Parse<v1::PersistentVolumeClaim>(
      R"pb(metadata {
             name: "data"
             namespace: "default"
             annotations { key: "pv.kubernetes.io/bind-completed" value: "yes" }
           }
           spec { volume_name: "pv-1" }
           status { phase: "Bound" })pb");
  *r.add_persistent_volumes() =
      Parse<v1::PersistentVolume>(R"pb(metadata { name: "pv-1" }
      spec { node_affinity { required { node_selector_terms { match_expressions {
        key: "topology.kubernetes.io/zone" operator: "In" values: "test-zone-2" } } } } })pb");
  *r.add_pods() = Pod(
      "a", "1", "1Gi",
      R"pb(spec { volumes { name: "v" persistent_volume_claim { claim_name: "data" } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-2");
}

TEST(Volumes, StorageClassTopologyAndMissingClaim) {
  auto r = Request();
  *r.add_storage_classes() = Parse<v1::StorageClass>(
      R"pb(metadata { name: "zonal" } volume_binding_mode: "WaitForFirstConsumer"
      allowed_topologies { match_label_expressions { key: "topology.kubernetes.io/zone" values: "test-zone-3" } })pb");
  *r.add_persistent_volume_claims() = Parse<v1::PersistentVolumeClaim>(
      R"pb(metadata { name: "data" namespace: "default" }
      spec { storage_class_name: "zonal" })pb");
  *r.add_pods() = Pod(
      "a", "1", "1Gi",
      R"pb(spec { volumes { name: "v" persistent_volume_claim { claim_name: "data" } } })pb");
  *r.add_pods() = Pod(
      "b", "1", "1Gi",
      R"pb(spec { volumes { name: "v" persistent_volume_claim { claim_name: "nope" } } })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-3");
  EXPECT_THAT(ReasonFor(resp, "default/b"),
              HasSubstr("persistentvolumeclaim \"nope\" not found"));
}

TEST(Offerings, NodeClassZonesAndUnavailableOfferings) {
  auto r = Request(3);
  *r.add_node_classes() = Parse<v1::NodeClass>(R"pb(metadata { name: "default" }
      status { subnets { id: "s-2" zone: "test-zone-2" } })pb");
  auto* u = r.add_unavailable_offerings();
  u->set_instance_type("fake-it-1");
  u->set_zone("test-zone-2");
  u->set_capacity_type("spot");
  *r.add_pods() = Pod("a", "1500m", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "test-zone-2");
  EXPECT_EQ(resp.new_node_claims(0).launch().instance_type(), "fake-it-1");
  EXPECT_EQ(resp.new_node_claims(0).launch().capacity_type(), "on-demand");
}

}  // namespace
}  // namespace nodeplan::testing

namespace nodeplan::testing {
namespace {

// A resource that no instance type in the catalog carries (here a GPU on a
// CPU-only catalog) fits nowhere, as in Karpenter: the pod is unschedulable,
// not launched onto a type without the resource.
TEST(ExtendedResources, ResourceNoTypeHasIsUnschedulable) {
  auto r = Request(4);
  *r.add_pods() = Pod(
      "gpu", "1", "1Gi",
      R"pb(spec { containers { name: "g" resources { limits { key: "nvidia.com/gpu" value: "1" } } } })pb");
  *r.add_pods() = Pod("plain", "1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_THAT(resp.new_node_claims(0).pods(),
              ::testing::ElementsAre("default/plain"));
  EXPECT_THAT(ReasonFor(resp, "default/gpu"),
              HasSubstr("no instance type has enough resources"));
}

// Requests at the edge of int64 (2^63-1 bytes is a valid Quantity, and
// Karpenter's arithmetic is unbounded) fit nowhere: sums with other pods, a
// DaemonSet's overhead or bound pods clamp instead of wrapping round to a
// small number that would fit. Both modes, next to a NodeClaim and on an
// existing node.
TEST(ExtendedResources, RequestsAtTheEdgeOfInt64FitNowhere) {
  constexpr char kMax[] = "9223372036854775807";
  for (const char* packing : {"Karpenter", "Optimized"}) {
    auto r = Request(4);
    r.mutable_options()->set_packing(packing);
    *r.add_daemon_sets() = Parse<v1::DaemonSet>(
        R"pb(metadata { name: "agent" namespace: "kube-system" }
             spec { template { spec { containers { name: "a" resources {
               requests { key: "memory" value: "100Mi" } } } } } })pb");
    *r.add_nodes() = Parse<v1::Node>(
        R"pb(metadata { name: "n1" labels { key: "kubernetes.io/hostname" value: "n1" } }
             status { allocatable { key: "cpu" value: "4" }
                      allocatable { key: "memory" value: "16Gi" }
                      allocatable { key: "pods" value: "110" } })pb");
    v1::Pod bound = Pod("bound", "100m", "14Gi");
    bound.mutable_spec()->set_node_name("n1");
    *r.add_pods() = bound;
    *r.add_pods() = Pod("small", "100m", "1Gi");
    *r.add_pods() = Pod("huge", "100m", kMax);
    *r.add_pods() =
        Pod("huge-pods", "100m", "1Gi",
            absl::StrCat(R"pb(spec { overhead { key: "memory" value: ")pb",
                         kMax, R"pb(" } })pb"));
    auto resp = MustSchedule(r);
    EXPECT_THAT(ReasonFor(resp, "default/huge"), Not(IsEmpty())) << packing;
    EXPECT_THAT(ReasonFor(resp, "default/huge-pods"), Not(IsEmpty()))
        << packing;
    EXPECT_EQ(resp.unschedulable_size(), 2) << packing;
    ExpectVerified(r, resp, packing);
  }
}

}  // namespace
}  // namespace nodeplan::testing
