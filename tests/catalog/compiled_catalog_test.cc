// CompileCatalog: requirements, resources, offerings, unavailable offerings,
// validation errors, catalog file round trips.

#include "nodeplan/compiled_catalog.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "tests/catalog/catalog_test_util.h"

namespace nodeplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CompileCatalogTest, AwsCatalogAllocatableMatchesProviderDocs) {
  Interner interner;
  auto compiled = testing_util::CompileAws(nullptr, interner);
  ASSERT_EQ(compiled->size(), 1396);
  for (const testing_util::Golden& g : testing_util::kGolden) {
    SCOPED_TRACE(g.name);
    const int i = compiled->Find(g.name);
    ASSERT_GE(i, 0);
    const CompiledInstanceType& t = compiled->instance_type(i);
    EXPECT_EQ(t.allocatable.cpu_milli(), g.cpu_milli);
    EXPECT_EQ(t.allocatable.memory(), g.memory_mib << 20);
    EXPECT_EQ(t.allocatable.pods(), g.pods);
    EXPECT_EQ(t.allocatable.ephemeral_storage(), int64_t{17} << 30);
  }
  EXPECT_EQ(compiled->Find("no-such.type"), -1);
  EXPECT_EQ(compiled->region(), "us-east-1");
}

TEST(CompileCatalogTest, RequirementsCarryLabelsZonesAndCapacityTypes) {
  Interner interner;
  auto compiled = testing_util::CompileAws(nullptr, interner);
  const CompiledInstanceType& m5 =
      compiled->instance_type(compiled->Find("m5.large"));
  auto text = [&](absl::string_view key) {
    const Requirement* r = m5.requirements.Find(interner.FindKey(key));
    return r == nullptr ? std::string("<undefined>") : r->String(interner);
  };
  EXPECT_EQ(text("node.kubernetes.io/instance-type"),
            "node.kubernetes.io/instance-type In [m5.large]");
  EXPECT_EQ(
      text("topology.kubernetes.io/zone"),
      "topology.kubernetes.io/zone In [us-east-1a us-east-1b us-east-1c]");
  EXPECT_EQ(text("karpenter.sh/capacity-type"),
            "karpenter.sh/capacity-type In [on-demand spot]");
  EXPECT_EQ(text("eks.amazonaws.com/instance-generation"),
            "eks.amazonaws.com/instance-generation In [5]");
  EXPECT_EQ(text("karpenter.k8s.aws/instance-gpu-name"),
            "karpenter.k8s.aws/instance-gpu-name DoesNotExist");
  EXPECT_EQ(text("node.kubernetes.io/windows-build"),
            "node.kubernetes.io/windows-build DoesNotExist");
  EXPECT_EQ(text("topology.kubernetes.io/region"),
            "topology.kubernetes.io/region In [us-east-1]");

  ASSERT_EQ(m5.offerings.size(), 6u);
  const CompiledOffering& first = m5.offerings[0];
  EXPECT_EQ(interner.ValueText(first.zone.id), "us-east-1a");
  EXPECT_EQ(interner.ValueText(first.capacity_type.id), "on-demand");
  EXPECT_DOUBLE_EQ(first.price, 0.096);
  EXPECT_TRUE(first.available);
  EXPECT_FALSE(first.estimated_price);
  EXPECT_TRUE(m5.offerings[1].estimated_price);
  EXPECT_EQ(first.requirements->String(interner),
            "karpenter.sh/capacity-type In [on-demand], "
            "topology.kubernetes.io/zone In [us-east-1a]");
  EXPECT_DOUBLE_EQ(m5.cheapest_available_price, 0.0672);  // spot estimate

  // Well-known labels include the provider's keys.
  EXPECT_TRUE(
      compiled->well_known().Contains("eks.amazonaws.com/instance-category"));
  EXPECT_TRUE(compiled->well_known().Contains("topology.kubernetes.io/zone"));
}

TEST(CompileCatalogTest, GpuCapacityIsAnExtendedResource) {
  Interner interner;
  auto compiled = testing_util::CompileAws(nullptr, interner);
  const CompiledInstanceType& g5 =
      compiled->instance_type(compiled->Find("g5.xlarge"));
  const LabelKeyId gpu = interner.FindKey("nvidia.com/gpu");
  ASSERT_NE(gpu, kNoId);
  EXPECT_EQ(g5.capacity.GetExtended(gpu), 1000);  // milli-units
  EXPECT_EQ(g5.allocatable.GetExtended(gpu), 1000);
}

TEST(CompileCatalogTest, InterningDoesNotDependOnMapOrder) {
  // Two compiles of equal catalogs into fresh interners give equal ids,
  // whatever order protobuf's maps iterate in.
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  v1::Catalog copy = *catalog;  // different map instances
  Interner a, b;
  auto ca = CompileCatalog(*catalog, {}, a);
  auto cb = CompileCatalog(copy, {}, b);
  ASSERT_TRUE(ca.ok() && cb.ok());
  ASSERT_EQ(a.key_count(), b.key_count());
  ASSERT_EQ(a.value_count(), b.value_count());
  for (int i = 0; i < a.key_count(); ++i) {
    EXPECT_EQ(a.KeyText(i), b.KeyText(i));
  }
  for (int i = 0; i < a.value_count(); ++i) {
    EXPECT_EQ(a.ValueText(i), b.ValueText(i));
  }
  for (int i = 0; i < (*ca)->size(); ++i) {
    EXPECT_TRUE((*ca)->instance_type(i).requirements ==
                (*cb)->instance_type(i).requirements);
  }
}

TEST(CompileCatalogTest, UnavailableOfferingsAreRemovedFromConsideration) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  std::vector<v1::UnavailableOffering> unavailable(4);
  unavailable[0].set_instance_type("m5.large");
  unavailable[0].set_zone("us-east-1a");
  unavailable[0].set_capacity_type("spot");
  unavailable[1].set_instance_type("c6a.large");  // every offering
  unavailable[2].set_instance_type("r5.large");   // every spot offering
  unavailable[2].set_capacity_type("spot");
  unavailable[3].set_instance_type("no-such.type");  // ignored
  CatalogCompileOptions options;
  options.unavailable = unavailable;
  Interner interner;
  auto compiled = CompileCatalog(*catalog, options, interner);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const auto& c = **compiled;

  const CompiledInstanceType& m5 = c.instance_type(c.Find("m5.large"));
  std::vector<bool> available;
  for (const CompiledOffering& o : m5.offerings)
    available.push_back(o.available);
  EXPECT_THAT(available, ElementsAre(true, false, true, true, true, true));
  // Requirements are unchanged (the provider's zones do not shrink on ICE).
  EXPECT_TRUE(m5.requirements.Find(c.zone_key())
                  ->Has(*interner.FindValue("us-east-1a")));

  const CompiledInstanceType& c6a = c.instance_type(c.Find("c6a.large"));
  for (const CompiledOffering& o : c6a.offerings) EXPECT_FALSE(o.available);
  EXPECT_EQ(c6a.cheapest_available_price, kNoPrice);

  const CompiledInstanceType& r5 = c.instance_type(c.Find("r5.large"));
  EXPECT_DOUBLE_EQ(r5.cheapest_available_price, 0.126);  // on-demand now

  Requirements any;
  EXPECT_EQ(c.CheapestCompatibleOffering(c.Find("c6a.large"), any), -1);
  EXPECT_EQ(c.CheapestCompatibleOffering(c.Find("m5.large"), any), 3);
}

v1::Catalog SmallCatalog() {
  v1::Catalog catalog;
  const char* json = R"json({
    "region": "test-region",
    "wellKnownLabels": ["example.com/size"],
    "instanceTypes": [
      {
        "name": "small",
        "labels": {"example.com/size": "small", "kubernetes.io/arch": "amd64"},
        "requirements": [{"key": "example.com/special", "operator": "DoesNotExist"}],
        "capacity": {"cpu": "2", "memory": "4Gi", "pods": "10"},
        "overhead": {"kubeReserved": {"cpu": "100m", "memory": "10Mi"},
                     "systemReserved": {"memory": "5Mi"},
                     "evictionThreshold": {"memory": "100Mi"}},
        "offerings": [
          {"zone": "zone-1", "capacityType": "on-demand", "price": 0.2},
          {"zone": "zone-1", "capacityType": "spot", "price": 0.07},
          {"zone": "zone-2", "capacityType": "spot", "price": 0.06, "available": false},
          {"zone": "zone-2", "capacityType": "reserved", "price": 0.00000002,
           "reservationID": "cr-123", "reservationCapacity": 2}
        ]
      },
      {
        "name": "gpu",
        "labels": {"example.com/size": "large", "kubernetes.io/arch": "amd64",
                   "beta.kubernetes.io/os": "linux"},
        "capacity": {"cpu": "8", "memory": "32Gi", "pods": "58",
                     "nvidia.com/gpu": "1", "hugepages-2Mi": "1Gi"},
        "offerings": [{"zone": "zone-2", "capacityType": "on-demand", "price": 1.5}]
      }
    ]
  })json";
  auto status = google::protobuf::util::JsonStringToMessage(json, &catalog);
  EXPECT_TRUE(status.ok()) << status.message();
  return catalog;
}

TEST(CompileCatalogTest, UserCatalogWithReservedOfferingsAndExtendedResources) {
  Interner interner;
  auto compiled = CompileCatalog(SmallCatalog(), {}, interner);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const auto& c = **compiled;
  EXPECT_EQ(c.region(), "test-region");
  EXPECT_TRUE(c.well_known().Contains("example.com/size"));
  EXPECT_TRUE(
      c.well_known().Contains("karpenter.k8s.aws/capacity-reservation-id"));

  const CompiledInstanceType& small = c.instance_type(0);
  EXPECT_EQ(small.allocatable.cpu_milli(), 1900);
  EXPECT_EQ(small.allocatable.memory(), (int64_t{4} << 30) - (115 << 20));
  EXPECT_EQ(small.allocatable.pods(), 10);
  EXPECT_EQ(small.overhead.memory(), int64_t{115} << 20);
  EXPECT_EQ(small.requirements.String(interner),
            "example.com/size In [small], example.com/special DoesNotExist, "
            "karpenter.k8s.aws/capacity-reservation-id In [cr-123], "
            "karpenter.sh/capacity-type In [on-demand reserved spot], "
            "kubernetes.io/arch In [amd64], "
            "node.kubernetes.io/instance-type In [small], "
            "topology.kubernetes.io/zone In [zone-1 zone-2]");
  const CompiledOffering& reserved = small.offerings[3];
  EXPECT_EQ(interner.ValueText(reserved.reservation_id.id), "cr-123");
  EXPECT_EQ(reserved.reservation_capacity, 2);
  EXPECT_FALSE(small.offerings[2].available);
  EXPECT_DOUBLE_EQ(small.cheapest_available_price, 0.00000002);

  // Offering compatibility with NodeClaim requirements.
  Requirements spot_only;
  spot_only.Add(
      Requirement::In(c.capacity_type_key(), {*interner.FindValue("spot")}));
  EXPECT_EQ(c.CheapestCompatibleOffering(0, spot_only),
            1);  // zone-2 spot unavailable
  Requirements other_reservation;
  other_reservation.Add(Requirement::In(c.reservation_id_key(),
                                        {interner.InternValue("cr-999")}));
  EXPECT_FALSE(c.OfferingCompatible(reserved, other_reservation));
  EXPECT_TRUE(c.OfferingCompatible(small.offerings[0], other_reservation));

  // Normalized keys; hugepages come out of allocatable memory.
  const CompiledInstanceType& gpu = c.instance_type(1);
  EXPECT_NE(gpu.requirements.Find(interner.FindKey("kubernetes.io/os")),
            nullptr);
  EXPECT_EQ(gpu.allocatable.memory(), int64_t{31} << 30);
  EXPECT_EQ(gpu.allocatable.GetExtended(interner.FindKey("nvidia.com/gpu")),
            1000);
}

TEST(CompileCatalogTest, ErrorsNameTheInstanceTypeAndField) {
  struct Case {
    const char* name;
    std::function<void(v1::Catalog&)> mutate;
    const char* message;
  };
  const Case cases[] = {
      {"bad quantity",
       [](v1::Catalog& c) {
         (*c.mutable_instance_types(0)->mutable_capacity())["memory"] = "4Gb";
       },
       "instanceTypes[0] (small): capacity[memory]"},
      {"bad overhead",
       [](v1::Catalog& c) {
         (*c.mutable_instance_types(1)
               ->mutable_overhead()
               ->mutable_kube_reserved())["cpu"] = "x";
       },
       "instanceTypes[1] (gpu): overhead.kubeReserved"},
      {"capacity type",
       [](v1::Catalog& c) {
         c.mutable_instance_types(1)->mutable_offerings(0)->set_capacity_type(
             "preemptible");
       },
       "instanceTypes[1] (gpu): offerings[0]: capacityType: \"preemptible\""},
      {"negative price",
       [](v1::Catalog& c) {
         c.mutable_instance_types(1)->mutable_offerings(0)->set_price(-1);
       },
       "offerings[0]: price"},
      {"nan price",
       [](v1::Catalog& c) {
         c.mutable_instance_types(1)->mutable_offerings(0)->set_price(NAN);
       },
       "offerings[0]: price"},
      {"empty zone",
       [](v1::Catalog& c) {
         c.mutable_instance_types(1)->mutable_offerings(0)->clear_zone();
       },
       "offerings[0]: zone is empty"},
      {"duplicate offering",
       [](v1::Catalog& c) {
         *c.mutable_instance_types(1)->add_offerings() =
             c.instance_types(1).offerings(0);
       },
       "offerings[1]: duplicates offerings[0]"},
      {"duplicate name",
       [](v1::Catalog& c) { c.mutable_instance_types(1)->set_name("small"); },
       "instanceTypes[1] (small): duplicates instanceTypes[0]"},
      {"no name",
       [](v1::Catalog& c) { c.mutable_instance_types(0)->clear_name(); },
       "instanceTypes[0]: name is empty"},
      {"bad requirement",
       [](v1::Catalog& c) {
         c.mutable_instance_types(0)->mutable_requirements(0)->set_operator_(
             "Maybe");
       },
       "instanceTypes[0] (small): requirements"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::Catalog catalog = SmallCatalog();
    c.mutate(catalog);
    Interner interner;
    auto compiled = CompileCatalog(catalog, {}, interner);
    ASSERT_FALSE(compiled.ok());
    EXPECT_THAT(compiled.status().message(), HasSubstr(c.message));
  }
}

TEST(CompileCatalogTest, JsonRoundTripCompilesIdentically) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  std::string json;
  ASSERT_TRUE(
      google::protobuf::util::MessageToJsonString(*catalog, &json).ok());
  EXPECT_THAT(json, HasSubstr("\"instanceTypes\""));
  EXPECT_THAT(json, HasSubstr("\"estimatedPrice\":true"));
  v1::Catalog back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &back).ok());
  Interner a, b;
  auto ca = CompileCatalog(*catalog, {}, a);
  auto cb = CompileCatalog(back, {}, b);
  ASSERT_TRUE(ca.ok() && cb.ok());
  ASSERT_EQ((*ca)->size(), (*cb)->size());
  for (int i = 0; i < (*ca)->size(); ++i) {
    const CompiledInstanceType& x = (*ca)->instance_type(i);
    const CompiledInstanceType& y = (*cb)->instance_type(i);
    EXPECT_EQ(x.name, y.name);
    EXPECT_TRUE(x.allocatable == y.allocatable) << x.name;
    EXPECT_EQ(x.requirements.String(a), y.requirements.String(b));
    ASSERT_EQ(x.offerings.size(), y.offerings.size());
    for (size_t j = 0; j < x.offerings.size(); ++j) {
      EXPECT_EQ(x.offerings[j].price, y.offerings[j].price);
    }
  }
}

}  // namespace
}  // namespace nodeplan

namespace nodeplan {
namespace {

// Property: OfferingCompatible equals Karpenter's definition,
// reqs.IsCompatible(offering.Requirements, AllowUndefinedWellKnownLabels),
// over generated requirements on zone, capacity type and reservation id.
TEST(CompileCatalogTest, OfferingCompatibleMatchesRequirementsAlgebra) {
  Interner interner;
  auto compiled = CompileCatalog(SmallCatalog(), {}, interner);
  ASSERT_TRUE(compiled.ok());
  const CompiledCatalog& c = **compiled;
  const LabelKeyId keys[] = {c.zone_key(), c.capacity_type_key(),
                             c.reservation_id_key()};
  const std::vector<LabelValue> values[] = {
      {interner.InternValue("zone-1"), interner.InternValue("zone-2"),
       interner.InternValue("zone-3")},
      {interner.InternValue("spot"), interner.InternValue("on-demand"),
       interner.InternValue("reserved")},
      {interner.InternValue("cr-123"), interner.InternValue("cr-999")}};
  const SelectorOperator ops[] = {
      SelectorOperator::kIn, SelectorOperator::kNotIn,
      SelectorOperator::kExists, SelectorOperator::kDoesNotExist};
  CompatibilityOptions options;
  options.allow_undefined = &c.well_known();
  uint64_t state = 12345;
  auto next = [&](int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state >> 33) % n);
  };
  int checked = 0;
  for (int round = 0; round < 3000; ++round) {
    Requirements reqs;
    for (int k = 0; k < 3; ++k) {
      if (next(2) == 0) continue;  // key undefined
      std::vector<LabelValue> chosen;
      for (const LabelValue& v : values[k]) {
        if (next(2) == 0) chosen.push_back(v);
      }
      reqs.Add(Requirement::Make(keys[k], ops[next(4)], chosen));
    }
    const OfferingFilter filter(c, reqs);
    for (const CompiledInstanceType& t : c.instance_types()) {
      for (const CompiledOffering& o : t.offerings) {
        const bool want = reqs.IsCompatible(*o.requirements, options);
        EXPECT_EQ(c.OfferingCompatible(o, reqs), want)
            << reqs.String(interner) << " vs "
            << o.requirements->String(interner);
        EXPECT_EQ(filter.Compatible(o), want);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 3000 * 5);
}

}  // namespace
}  // namespace nodeplan
