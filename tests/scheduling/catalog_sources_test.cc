// Where the scheduler's instance types come from: the shared CompileCatalog
// with the request's NodeOverlays and unavailable offerings, and, for
// catalogRef "aws", one embedded catalog per NodeClass.

#include "fixtures.h"
#include "gmock/gmock.h"

namespace nodeplan::testing {
namespace {

using ::testing::HasSubstr;

v1::NodeOverlay Overlay(const std::string& text) {
  return Parse<v1::NodeOverlay>(text);
}

TEST(CatalogSources, PriceOverlayChangesTheChosenType) {
  auto r = Request(3);
  *r.add_pods() = Pod("a", "1500m", "1Gi");
  auto before = MustSchedule(r);
  ASSERT_EQ(before.new_node_claims_size(), 1);
  EXPECT_EQ(before.new_node_claims(0).launch().instance_type(), "fake-it-1");
  // fake-it-2 at a fixed price far below fake-it-1's list price.
  *r.add_node_overlays() = Overlay(R"pb(metadata { name: "cheap-2" }
                   spec {
                     requirements {
                       key: "node.kubernetes.io/instance-type"
                       operator: "In"
                       values: "fake-it-2"
                     }
                     price: "0.01"
                   })pb");
  auto after = MustSchedule(r);
  ASSERT_EQ(after.new_node_claims_size(), 1);
  const auto& launch = after.new_node_claims(0).launch();
  EXPECT_EQ(launch.instance_type(), "fake-it-2");
  EXPECT_DOUBLE_EQ(launch.price(), 0.01);
  EXPECT_DOUBLE_EQ(after.cost(), 0.01);
}

TEST(CatalogSources, PriceAdjustmentOnOneCapacityTypeChangesTheLaunch) {
  auto r = Request(3);
  *r.add_pods() = Pod("a", "1500m", "1Gi");
  *r.add_node_overlays() = Overlay(R"pb(metadata { name: "od-discount" }
                                        spec {
                                          requirements {
                                            key: "karpenter.sh/capacity-type"
                                            operator: "In"
                                            values: "on-demand"
                                          }
                                          price_adjustment: "-50%"
                                        })pb");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  const auto& launch = resp.new_node_claims(0).launch();
  EXPECT_EQ(launch.instance_type(), "fake-it-1");
  EXPECT_EQ(launch.capacity_type(), "on-demand");
  EXPECT_NEAR(launch.price(), FakePrice(2, 4) / 2, 1e-9);
}

TEST(CatalogSources, CapacityOverlayChangesWhatFits) {
  auto r = Request(3);
  // One dongle on fake-it-0; the pod needs two.
  (*r.mutable_catalog()
        ->mutable_instance_types(0)
        ->mutable_capacity())["example.com/dongle"] = "1";
  *r.add_pods() = Pod("a", "500m", "1Gi",
                      R"pb(spec {
                 containers {
                   name: "c"
                   resources {
                     requests { key: "example.com/dongle" value: "2" }
                     limits { key: "example.com/dongle" value: "2" }
                   }
                 }
               })pb");
  auto without = MustSchedule(r);
  EXPECT_EQ(without.new_node_claims_size(), 0);
  *r.add_node_overlays() = Overlay(R"pb(metadata { name: "dongles" }
                   spec {
                     requirements {
                       key: "node.kubernetes.io/instance-type"
                       operator: "In"
                       values: "fake-it-2"
                     }
                     capacity { key: "example.com/dongle" value: "2" }
                   })pb");
  auto with = MustSchedule(r);
  ASSERT_EQ(with.new_node_claims_size(), 1);
  EXPECT_EQ(with.new_node_claims(0).launch().instance_type(), "fake-it-2");
}

TEST(CatalogSources, UnavailableOfferingsAreHonoured) {
  auto r = Request(3);
  *r.add_pods() = Pod("a", "1500m", "1Gi");
  // Every fake-it-1 offering (empty zone and capacity type match all).
  r.add_unavailable_offerings()->set_instance_type("fake-it-1");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  EXPECT_EQ(resp.new_node_claims(0).launch().instance_type(), "fake-it-2");
}

v1::NodeClass NodeClass(const std::string& name, const std::string& size,
                        const std::string& zone) {
  return Parse<v1::NodeClass>(absl::StrCat(
      R"pb(api_version: "eks.amazonaws.com/v1"
           kind: "NodeClass"
           metadata { name: ")pb",
      name, R"pb(" }
                 spec { ephemeral_storage { size: ")pb",
      size, R"pb(" } }
                 status { subnets { id: "subnet-)pb",
      zone, R"pb(" zone: ")pb", zone, R"pb(" } })pb"));
}

v1::NodePool AwsPool(const std::string& name, const std::string& node_class,
                     int weight) {
  v1::NodePool np = NodePool(name);
  np.mutable_spec()->set_weight(weight);
  np.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_node_class_ref()
      ->set_name(node_class);
  return np;
}

// small-disk (20Gi root volume, us-east-1a) is preferred by weight; big-disk
// (200Gi, us-east-1b) has its own catalog, so a pod that needs 100Gi of
// ephemeral storage lands there, in big-disk's zone.
v1::ScheduleRequest TwoNodeClasses() {
  v1::ScheduleRequest r;
  r.set_catalog_ref("aws");
  *r.add_node_classes() = NodeClass("small", "20Gi", "us-east-1a");
  *r.add_node_classes() = NodeClass("big", "200Gi", "us-east-1b");
  *r.add_node_pools() = AwsPool("small-disk", "small", 10);
  *r.add_node_pools() = AwsPool("big-disk", "big", 1);
  return r;
}

// Pod "disk" with a container asking 100Gi of ephemeral storage: never fits
// small's 20Gi volume, fits big's 200Gi. `pool`, when set, pins it there.
v1::Pod DiskPod(const std::string& cpu, const std::string& mem,
                const std::string& pool = "") {
  std::string selector;
  if (!pool.empty()) {
    selector = absl::StrCat(
        R"pb(node_selector { key: "karpenter.sh/nodepool" value: ")pb", pool,
        R"pb(" })pb");
  }
  return Pod("disk", cpu, mem, absl::StrCat("spec { ", selector, R"pb(
             containers {
               name: "c"
               resources {
                 requests { key: "ephemeral-storage" value: "100Gi" }
               }
             }
           })pb"));
}

TEST(CatalogSources, EachNodeClassGetsItsOwnAwsCatalog) {
  auto r = TwoNodeClasses();
  *r.add_pods() = Pod("small", "1", "1Gi");
  auto small = MustSchedule(r);
  ASSERT_EQ(small.new_node_claims_size(), 1);
  EXPECT_EQ(small.new_node_claims(0).node_pool(), "small-disk");
  EXPECT_EQ(small.new_node_claims(0).launch().zone(), "us-east-1a");
  // 100Gi never fits small-disk's 20Gi volume but fits big-disk's 200Gi.
  *r.add_pods() = DiskPod("1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.unschedulable_size(), 0) << ReasonFor(resp, "default/disk");
  bool found = false;
  for (const auto& c : resp.new_node_claims()) {
    for (const auto& p : c.pods()) {
      if (p != "default/disk") continue;
      found = true;
      EXPECT_EQ(c.node_pool(), "big-disk");
      EXPECT_EQ(c.launch().zone(), "us-east-1b");
    }
  }
  EXPECT_TRUE(found);
}

// An in-flight NodeClaim without status.allocatable takes its size from its
// own NodePool's catalog: m5.large exists in both NodeClass catalogs, with a
// 20Gi volume in small-disk's and 200Gi in big-disk's.
TEST(CatalogSources, InFlightNodeClaimSizedFromItsNodePoolsCatalog) {
  auto r = TwoNodeClasses();
  *r.add_node_claims() = Parse<v1::NodeClaim>(
      R"pb(metadata {
             name: "big-disk-inflight"
             labels { key: "karpenter.sh/nodepool" value: "big-disk" }
             labels { key: "node.kubernetes.io/instance-type" value: "m5.large" }
             labels { key: "topology.kubernetes.io/zone" value: "us-east-1b" }
             labels { key: "karpenter.sh/capacity-type" value: "on-demand" }
           })pb");
  *r.add_pods() = DiskPod("100m", "100Mi", "big-disk");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  ASSERT_EQ(resp.existing_nodes_size(), 1) << ReasonFor(resp, "default/disk");
  EXPECT_EQ(resp.existing_nodes(0).name(), "big-disk-inflight");
}

TEST(CatalogSources, ANodeClassCatalogDoesNotLeakIntoAnotherNodePool) {
  auto r = TwoNodeClasses();
  // Only small-disk may take the pod: 100Gi never fits its 20Gi volume.
  *r.add_pods() = DiskPod("1", "1Gi", "small-disk");
  auto resp = MustSchedule(r);
  EXPECT_EQ(resp.new_node_claims_size(), 0);
  EXPECT_THAT(ReasonFor(resp, "default/disk"), HasSubstr("small-disk"));
}

TEST(CatalogSources, NodePoolsSharingANodeClassShareItsCatalog) {
  auto r = TwoNodeClasses();
  *r.add_node_pools() = AwsPool("also-big", "big", 5);
  *r.add_pods() = DiskPod("1", "1Gi");
  auto resp = MustSchedule(r);
  ASSERT_EQ(resp.new_node_claims_size(), 1);
  // Heavier than big-disk, same NodeClass and so the same catalog.
  EXPECT_EQ(resp.new_node_claims(0).node_pool(), "also-big");
  EXPECT_EQ(resp.new_node_claims(0).launch().zone(), "us-east-1b");
}

TEST(CatalogSources, OverlaysApplyToEveryAwsCatalog) {
  auto r = TwoNodeClasses();
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto before = MustSchedule(r);
  ASSERT_EQ(before.new_node_claims_size(), 1);
  const std::string chosen = before.new_node_claims(0).launch().instance_type();
  v1::NodeOverlay* expensive = r.add_node_overlays();
  expensive->mutable_metadata()->set_name("expensive");
  auto* req = expensive->mutable_spec()->add_requirements();
  req->set_key("node.kubernetes.io/instance-type");
  req->set_operator_("In");
  req->add_values(chosen);
  expensive->mutable_spec()->set_price_adjustment("+1000%");
  auto after = MustSchedule(r);
  ASSERT_EQ(after.new_node_claims_size(), 1);
  EXPECT_NE(after.new_node_claims(0).launch().instance_type(), chosen);
  EXPECT_LE(after.cost(), before.cost() * 11);
}

// The AWS provider builds an instance type's zone requirement from the zones
// the type is offered in (and the NodeClass's subnets), whatever its ICE
// cache says, so a zone where the only type is out of capacity is still a
// topology domain. The same shape as Reserved.AnExhaustedReservationsZone-
// IsStillADomain (which the Karpenter harness confirms on a catalog of the
// request): 4 pods in a DoNotSchedule zone spread, two zones launchable,
// one listed but not: 2 placed, 2 unschedulable.
TEST(CatalogSources, AnIceZoneOfTheAwsCatalogIsStillADomain) {
  v1::ScheduleRequest r;
  r.set_catalog_ref("aws");
  v1::NodeClass node_class = NodeClass("default", "20Gi", "us-east-1a");
  for (const char* z : {"us-east-1b", "us-east-1c"}) {
    auto* subnet = node_class.mutable_status()->add_subnets();
    subnet->set_id(absl::StrCat("subnet-", z));
    subnet->set_zone(z);
  }
  *r.add_node_classes() = node_class;
  v1::NodePool pool = AwsPool("default", "default", 0);
  pool.MergeFrom(
      Parse<v1::NodePool>(R"pb(spec { template { spec { requirements {
      key: "node.kubernetes.io/instance-type" operator: "In" values: "m5.large" } } } })pb"));
  *r.add_node_pools() = pool;
  auto* ice = r.add_unavailable_offerings();
  ice->set_instance_type("m5.large");
  ice->set_zone("us-east-1c");
  AddZoneSpreadPods(r, 4, "1500m", "1Gi");
  auto resp = MustSchedule(r);
  int placed = 0;
  for (const auto& c : resp.new_node_claims()) {
    placed += c.pods_size();
    EXPECT_NE(c.launch().zone(), "us-east-1c");
  }
  EXPECT_EQ(placed, 2);
  EXPECT_EQ(resp.unschedulable_size(), 2);
}

TEST(CatalogSources, UnavailableOfferingsApplyToAwsCatalogs) {
  auto r = TwoNodeClasses();
  *r.add_pods() = Pod("a", "1", "1Gi");
  auto before = MustSchedule(r);
  ASSERT_EQ(before.new_node_claims_size(), 1);
  const auto& launch = before.new_node_claims(0).launch();
  auto* u = r.add_unavailable_offerings();
  u->set_instance_type(launch.instance_type());
  u->set_zone(launch.zone());
  u->set_capacity_type(launch.capacity_type());
  auto after = MustSchedule(r);
  ASSERT_EQ(after.new_node_claims_size(), 1);
  const auto& relaunch = after.new_node_claims(0).launch();
  EXPECT_FALSE(relaunch.instance_type() == launch.instance_type() &&
               relaunch.zone() == launch.zone() &&
               relaunch.capacity_type() == launch.capacity_type());
}

}  // namespace
}  // namespace nodeplan::testing
