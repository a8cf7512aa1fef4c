// The embedded AWS catalog: formulas, golden allocatable figures from the
// Karpenter AWS provider's generated docs page, labels, zones, EKS rules and
// offerings.

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "catalog/aws_csv.h"
#include "catalog/aws_formulas.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/quantity.h"
#include "tests/catalog/catalog_test_util.h"

namespace nodeplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const v1::InstanceType* FindType(const v1::Catalog& catalog,
                                 absl::string_view name) {
  for (const v1::InstanceType& type : catalog.instance_types()) {
    if (type.name() == name) return &type;
  }
  return nullptr;
}

int64_t Milli(const google::protobuf::Map<std::string, std::string>& map,
              const std::string& key) {
  auto it = map.find(key);
  if (it == map.end()) return 0;
  absl::StatusOr<int64_t> v = ParseQuantityMilli(it->second);
  EXPECT_TRUE(v.ok()) << key << "=" << it->second;
  return v.value_or(0);
}

int64_t Bytes(const google::protobuf::Map<std::string, std::string>& map,
              const std::string& key) {
  auto it = map.find(key);
  if (it == map.end()) return 0;
  absl::StatusOr<int64_t> v = ParseQuantityValue(it->second);
  EXPECT_TRUE(v.ok()) << key << "=" << it->second;
  return v.value_or(0);
}

// Allocatable cpu (milli) and memory (MiB) straight from the catalog proto:
// capacity - (kubeReserved + systemReserved + evictionThreshold).
struct Allocatable {
  int64_t cpu_milli;
  int64_t memory_mib;
  int64_t pods;
};
Allocatable AllocatableOf(const v1::InstanceType& type) {
  const v1::Overhead& o = type.overhead();
  const int64_t cpu =
      Milli(type.capacity(), "cpu") - Milli(o.kube_reserved(), "cpu") -
      Milli(o.system_reserved(), "cpu") - Milli(o.eviction_threshold(), "cpu");
  const int64_t memory = Bytes(type.capacity(), "memory") -
                         Bytes(o.kube_reserved(), "memory") -
                         Bytes(o.system_reserved(), "memory") -
                         Bytes(o.eviction_threshold(), "memory");
  EXPECT_EQ(memory % (1 << 20), 0) << type.name();
  return {cpu, memory >> 20, Bytes(type.capacity(), "pods")};
}

// ---- Formulas ---------------------------------------------------------------

TEST(AwsFormulasTest, KubeReservedCpuTiers) {
  // aws-instance-model.md §3.1: 1 vCPU 60m, 2 70m, 4 80m, 8 90m, 96 310m,
  // 192 550m.
  struct Case {
    int64_t vcpus, milli;
  } cases[] = {{1, 60},   {2, 70},   {3, 75},    {4, 80},    {8, 90},
               {36, 160}, {96, 310}, {192, 550}, {448, 1190}};
  for (const Case& c : cases) {
    EXPECT_EQ(catalog::AwsKubeReservedCpuMilli(c.vcpus), c.milli) << c.vcpus;
  }
}

TEST(AwsFormulasTest, MemoryCapacity) {
  // m5.large: 8192 - ceil(614.4) = 7577; a1.medium (arm64): 2048 - 64 = 1984,
  // - ceil(148.8) = 1835.
  EXPECT_EQ(catalog::AwsMemoryCapacityMib(8192, false), 7577);
  EXPECT_EQ(catalog::AwsMemoryCapacityMib(2048, true), 1835);
  // 15360 * 7.5% is exactly 1152: no rounding up.
  EXPECT_EQ(catalog::AwsMemoryCapacityMib(15360, false), 14208);
  EXPECT_EQ(catalog::AwsMemoryCapacityMib(8192, false, 0), 8192);
}

TEST(AwsFormulasTest, KubeReservedMemoryAndEviction) {
  EXPECT_EQ(catalog::AwsKubeReservedMemoryMib(29), 574);
  EXPECT_EQ(catalog::AwsKubeReservedMemoryMib(110), 1465);
  EXPECT_EQ(catalog::AwsEvictionEphemeralBytes(int64_t{20} << 30),
            2147483648);                                   // 2Gi
  EXPECT_EQ(catalog::AwsEvictionEphemeralBytes(101), 11);  // ceil(10.1)
  EXPECT_EQ(catalog::AwsEvictionEphemeralBytes(100), 10);
}

// ---- The embedded CSV -------------------------------------------------------

TEST(AwsCsvTest, EmbeddedCsvParses) {
  absl::StatusOr<std::vector<catalog::AwsInstanceTypeRow>> rows =
      catalog::ParseAwsInstanceTypesCsv(catalog::EmbeddedAwsInstanceTypesCsv());
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->size(), 1432u);
  EXPECT_EQ(rows->front().name, "a1.medium");
  EXPECT_EQ(rows->front().arch, "arm64");
  EXPECT_EQ(rows->front().vcpu, 1);
  EXPECT_EQ(rows->front().memory_mib, 2048);
  EXPECT_EQ(rows->front().max_pods_eni, 8);
  EXPECT_DOUBLE_EQ(*rows->front().od_price_us_east_1, 0.0255);
}

TEST(AwsCsvTest, ErrorsNameLineAndColumn) {
  const std::string header =
      "name,category,family,generation,size,arch,vcpu,memory_mib,gpu_count,"
      "gpu_name,gpu_manufacturer,gpu_memory_mib,max_pods_eni,"
      "network_bandwidth_mbps,local_nvme_gib,hypervisor,od_price_us_east_1\n";
  auto bad = catalog::ParseAwsInstanceTypesCsv(
      header + "x.large,x,x,1,large,amd64,two,1024,0,,,,8,,0,nitro,0.1\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("line 2: column vcpu"));
  auto short_row = catalog::ParseAwsInstanceTypesCsv(header + "x.large,x\n");
  EXPECT_FALSE(short_row.ok());
  auto no_column = catalog::ParseAwsInstanceTypesCsv("name,vcpu\n");
  ASSERT_FALSE(no_column.ok());
  EXPECT_THAT(no_column.status().message(), HasSubstr("category"));
  auto bad_arch = catalog::ParseAwsInstanceTypesCsv(
      header + "x.large,x,x,1,large,s390x,2,1024,0,,,,8,,0,nitro,0.1\n");
  EXPECT_FALSE(bad_arch.ok());
}

// ---- Golden allocatable -----------------------------------------------------

TEST(AwsCatalogTest, AllocatableMatchesProviderDocs) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  for (const testing_util::Golden& g : testing_util::kGolden) {
    SCOPED_TRACE(g.name);
    const v1::InstanceType* type = FindType(*catalog, g.name);
    ASSERT_NE(type, nullptr);
    Allocatable a = AllocatableOf(*type);
    EXPECT_EQ(a.cpu_milli, g.cpu_milli);
    EXPECT_EQ(a.memory_mib, g.memory_mib);
    EXPECT_EQ(a.pods, g.pods);
    // 20Gi root volume - 1Gi kube-reserved - 2Gi (10%) eviction = 17Gi.
    const int64_t eph =
        Bytes(type->capacity(), "ephemeral-storage") -
        Bytes(type->overhead().kube_reserved(), "ephemeral-storage") -
        Bytes(type->overhead().eviction_threshold(), "ephemeral-storage");
    EXPECT_EQ(eph, int64_t{17} << 30);
  }
}

TEST(AwsCatalogTest, SkipsRowsWithoutCapacityAndCountsThem) {
  AwsCatalogStats stats;
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr, &stats);
  ASSERT_TRUE(catalog.ok());
  EXPECT_EQ(stats.rows, 1432);
  EXPECT_EQ(stats.skipped_without_capacity, 36);
  EXPECT_EQ(stats.skipped_by_eks_auto_mode, 0);
  EXPECT_EQ(stats.instance_types, 1396);
  EXPECT_EQ(catalog->instance_types_size(), 1396);
  EXPECT_EQ(FindType(*catalog, "c7i.32xlarge"), nullptr);  // sparse row
  // Catalog order is the CSV's order.
  EXPECT_EQ(catalog->instance_types(0).name(), "a1.medium");
  EXPECT_EQ(catalog->region(), "us-east-1");
  EXPECT_THAT(catalog->source(), HasSubstr("SYNTHETIC ESTIMATE"));
}

TEST(AwsCatalogTest, LabelsUnderBothPrefixes) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  const v1::InstanceType* m5 = FindType(*catalog, "m5.large");
  ASSERT_NE(m5, nullptr);
  const auto& labels = m5->labels();
  EXPECT_EQ(labels.at("node.kubernetes.io/instance-type"), "m5.large");
  EXPECT_EQ(labels.at("kubernetes.io/arch"), "amd64");
  EXPECT_EQ(labels.at("kubernetes.io/os"), "linux");
  EXPECT_EQ(labels.at("topology.kubernetes.io/region"), "us-east-1");
  for (const char* prefix : {"karpenter.k8s.aws/", "eks.amazonaws.com/"}) {
    SCOPED_TRACE(prefix);
    auto label = [&](const char* suffix) {
      return labels.at(absl::StrCat(prefix, suffix));
    };
    EXPECT_EQ(label("instance-category"), "m");
    EXPECT_EQ(label("instance-generation"), "5");
    EXPECT_EQ(label("instance-family"), "m5");
    EXPECT_EQ(label("instance-size"), "large");
    EXPECT_EQ(label("instance-cpu"), "2");
    EXPECT_EQ(label("instance-memory"), "8192");
    EXPECT_EQ(label("instance-hypervisor"), "nitro");
    EXPECT_EQ(label("instance-capability-flex"), "false");
    EXPECT_EQ(label("instance-network-bandwidth"), "750");
  }
  // Keys the type has no value for are DoesNotExist, as in the provider.
  std::vector<std::string> dne;
  for (const v1::NodeSelectorRequirement& r : m5->requirements()) {
    EXPECT_EQ(r.operator_(), "DoesNotExist");
    dne.push_back(r.key());
  }
  EXPECT_THAT(dne, ::testing::UnorderedElementsAre(
                       "node.kubernetes.io/windows-build",
                       "karpenter.k8s.aws/instance-local-nvme",
                       "eks.amazonaws.com/instance-local-nvme",
                       "karpenter.k8s.aws/instance-gpu-name",
                       "eks.amazonaws.com/instance-gpu-name",
                       "karpenter.k8s.aws/instance-gpu-manufacturer",
                       "eks.amazonaws.com/instance-gpu-manufacturer",
                       "karpenter.k8s.aws/instance-gpu-count",
                       "eks.amazonaws.com/instance-gpu-count",
                       "karpenter.k8s.aws/instance-gpu-memory",
                       "eks.amazonaws.com/instance-gpu-memory"));
  // Well-known keys the provider adds.
  EXPECT_THAT(catalog->well_known_labels(),
              ::testing::Contains("eks.amazonaws.com/instance-generation"));
  EXPECT_THAT(catalog->well_known_labels(),
              ::testing::Contains("karpenter.k8s.aws/instance-family"));
}

TEST(AwsCatalogTest, GpuLabelsAndCapacity) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  const v1::InstanceType* g5 = FindType(*catalog, "g5.xlarge");
  ASSERT_NE(g5, nullptr);
  EXPECT_EQ(g5->labels().at("karpenter.k8s.aws/instance-gpu-name"), "a10g");
  EXPECT_EQ(g5->labels().at("eks.amazonaws.com/instance-gpu-manufacturer"),
            "nvidia");
  EXPECT_EQ(g5->labels().at("eks.amazonaws.com/instance-gpu-count"), "1");
  EXPECT_EQ(g5->labels().at("karpenter.k8s.aws/instance-gpu-memory"), "22888");
  EXPECT_EQ(g5->labels().at("karpenter.k8s.aws/instance-local-nvme"), "250");
  EXPECT_EQ(g5->capacity().at("nvidia.com/gpu"), "1");
  const v1::InstanceType* flex = FindType(*catalog, "m7i-flex.large");
  ASSERT_NE(flex, nullptr);
  EXPECT_EQ(flex->labels().at("eks.amazonaws.com/instance-capability-flex"),
            "true");
  EXPECT_EQ(flex->labels().at("karpenter.k8s.aws/instance-family"), "m7i-flex");
  const v1::InstanceType* metal = FindType(*catalog, "m5.metal");
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->labels().at("karpenter.k8s.aws/instance-hypervisor"), "");
}

TEST(AwsCatalogTest, OfferingsDefaultZonesAndSpotEstimate) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  const v1::InstanceType* c6a = FindType(*catalog, "c6a.large");
  ASSERT_NE(c6a, nullptr);
  ASSERT_EQ(c6a->offerings_size(), 6);
  std::vector<std::string> seen;
  for (const v1::Offering& o : c6a->offerings()) {
    seen.push_back(absl::StrCat(o.zone(), "/", o.capacity_type()));
    EXPECT_FALSE(o.has_available());  // absent = available
    if (o.capacity_type() == "on-demand") {
      EXPECT_DOUBLE_EQ(o.price(), 0.0765);
      EXPECT_FALSE(o.estimated_price());
    } else {
      EXPECT_DOUBLE_EQ(o.price(), 0.05355);  // 0.7 x 0.0765
      EXPECT_TRUE(o.estimated_price());
    }
  }
  EXPECT_THAT(seen, ElementsAre("us-east-1a/on-demand", "us-east-1a/spot",
                                "us-east-1b/on-demand", "us-east-1b/spot",
                                "us-east-1c/on-demand", "us-east-1c/spot"));
  // Every spot price is the labelled estimate.
  for (const v1::InstanceType& type : catalog->instance_types()) {
    const double od = type.offerings(0).price();
    EXPECT_NEAR(type.offerings(1).price(), od * kAwsSpotPriceFraction, 1e-6)
        << type.name();
  }
}

TEST(AwsCatalogTest, TypesWithoutPriceHaveUnavailableOfferings) {
  AwsCatalogStats stats;
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr, &stats);
  ASSERT_TRUE(catalog.ok());
  const v1::InstanceType* flex = FindType(*catalog, "c7g-flex.large");
  ASSERT_NE(flex, nullptr);
  for (const v1::Offering& o : flex->offerings()) {
    EXPECT_TRUE(o.has_available());
    EXPECT_FALSE(o.available());
  }
  EXPECT_GT(stats.without_price, 0);
  EXPECT_LT(stats.without_price, 65);
}

TEST(AwsCatalogTest, ZonesComeFromNodeClassSubnets) {
  v1::NodeClass node_class;
  node_class.set_api_version("eks.amazonaws.com/v1");
  node_class.set_kind("NodeClass");
  for (const char* zone : {"us-west-2c", "us-west-2a", "us-west-2c"}) {
    node_class.mutable_status()->add_subnets()->set_zone(zone);
  }
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(&node_class);
  ASSERT_TRUE(catalog.ok());
  EXPECT_EQ(catalog->region(), "us-west-2");
  const v1::InstanceType* m5 = FindType(*catalog, "m5.large");
  ASSERT_NE(m5, nullptr);
  std::vector<std::string> zones;
  for (const v1::Offering& o : m5->offerings()) zones.push_back(o.zone());
  EXPECT_THAT(zones, ElementsAre("us-west-2a", "us-west-2a", "us-west-2c",
                                 "us-west-2c"));
  EXPECT_EQ(m5->labels().at("topology.kubernetes.io/region"), "us-west-2");
}

TEST(AwsCatalogTest, EksNodeClassCapsPodsAndUsesEphemeralSize) {
  v1::NodeClass node_class;
  node_class.set_api_version("eks.amazonaws.com/v1");
  node_class.set_kind("NodeClass");
  node_class.mutable_metadata()->set_name("default");
  AwsCatalogStats stats;
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(&node_class, &stats);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_GT(stats.skipped_by_eks_auto_mode, 0);

  const v1::InstanceType* big = FindType(*catalog, "m5.24xlarge");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->capacity().at("pods"), "110");  // 737 ENI-limited
  EXPECT_EQ(big->capacity().at("ephemeral-storage"), "80Gi");
  EXPECT_EQ(Bytes(big->overhead().eviction_threshold(), "ephemeral-storage"),
            8589934592);  // 10% of 80Gi
  // Kube-reserved memory from the capped count (assumption, see header).
  EXPECT_EQ(big->overhead().kube_reserved().at("memory"), "1465Mi");
  Allocatable a = AllocatableOf(*big);
  EXPECT_EQ(a.cpu_milli, 95690);
  EXPECT_EQ(a.memory_mib, 393216 - 29492 - 1465 - 100);

  // Small pods counts are untouched.
  const v1::InstanceType* m5 = FindType(*catalog, "m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->capacity().at("pods"), "29");
  EXPECT_EQ(AllocatableOf(*m5).memory_mib, 6903);

  // Auto Mode launches neither 1-vCPU nor nano/micro/small sizes, nor
  // families outside its allow-list.
  EXPECT_EQ(FindType(*catalog, "m7a.medium"), nullptr);
  EXPECT_EQ(FindType(*catalog, "t3.micro"), nullptr);
  EXPECT_EQ(FindType(*catalog, "t3.small"), nullptr);
  EXPECT_EQ(FindType(*catalog, "a1.large"), nullptr);
  EXPECT_EQ(FindType(*catalog, "u-6tb1.112xlarge"), nullptr);
  EXPECT_NE(FindType(*catalog, "t3.medium"), nullptr);
  EXPECT_NE(FindType(*catalog, "g5.xlarge"), nullptr);
  EXPECT_NE(FindType(*catalog, "inf2.xlarge"), nullptr);

  node_class.mutable_spec()->mutable_ephemeral_storage()->set_size("200Gi");
  catalog = AwsCatalog(&node_class);
  ASSERT_TRUE(catalog.ok());
  EXPECT_EQ(FindType(*catalog, "m5.large")->capacity().at("ephemeral-storage"),
            "200Gi");
}

TEST(AwsCatalogTest, RejectsBadEphemeralSize) {
  v1::NodeClass node_class;
  node_class.mutable_metadata()->set_name("broken");
  node_class.mutable_spec()->mutable_ephemeral_storage()->set_size("lots");
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(&node_class);
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(),
              HasSubstr("NodeClass broken: spec.ephemeralStorage.size"));
  node_class.mutable_spec()->mutable_ephemeral_storage()->set_size("0");
  EXPECT_FALSE(AwsCatalog(&node_class).ok());
}

TEST(AwsCatalogTest, Deterministic) {
  absl::StatusOr<v1::Catalog> a = AwsCatalog(nullptr);
  absl::StatusOr<v1::Catalog> b = AwsCatalog(nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*b));
}

}  // namespace
}  // namespace nodeplan
