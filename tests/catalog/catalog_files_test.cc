// Catalog files through the manifest loader (YAML and JSON), and the seed
// manifests end to end: NodeClass -> AWS catalog -> compile -> NodePool query.

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

using ::testing::HasSubstr;

constexpr char kCatalogYaml[] = R"yaml(
apiVersion: nodeplan.dev/v1
kind: Catalog
region: eu-west-1
wellKnownLabels: [example.com/tier]
instanceTypes:
- name: box.small
  labels:
    example.com/tier: small
    kubernetes.io/arch: amd64
  requirements:
  - key: example.com/accelerator
    operator: DoesNotExist
  capacity: {cpu: "2", memory: 4Gi, pods: "20", ephemeral-storage: 50Gi}
  overhead:
    kubeReserved: {cpu: 70m, memory: 300Mi}
    evictionThreshold: {memory: 100Mi, ephemeral-storage: 5Gi}
  offerings:
  - {zone: eu-west-1a, capacityType: on-demand, price: 0.05}
  - {zone: eu-west-1a, capacityType: spot, price: 0.02, available: false}
  - zone: eu-west-1b
    capacityType: reserved
    price: 0.0000001
    reservationID: cr-0abc
    reservationCapacity: 3
- name: box.gpu
  labels: {example.com/tier: large, kubernetes.io/arch: amd64}
  capacity: {cpu: "16", memory: 64Gi, pods: "50", nvidia.com/gpu: "2"}
  offerings:
  - {zone: eu-west-1b, capacityType: on-demand, price: 2.5}
)yaml";

TEST(CatalogFilesTest, YamlCatalogLoadsAndCompiles) {
  absl::StatusOr<v1::ManifestSet> set =
      LoadManifests(kCatalogYaml, v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->catalogs_size(), 1);
  const v1::Catalog& catalog = set->catalogs(0);
  EXPECT_EQ(catalog.region(), "eu-west-1");
  ASSERT_EQ(catalog.instance_types_size(), 2);
  EXPECT_EQ(catalog.instance_types(0).offerings(2).reservation_id(), "cr-0abc");

  Interner interner;
  auto compiled = CompileCatalog(catalog, {}, interner);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const CompiledInstanceType& small = (*compiled)->instance_type(0);
  EXPECT_EQ(small.allocatable.cpu_milli(), 1930);
  EXPECT_EQ(small.allocatable.memory(), int64_t{4096 - 400} << 20);
  EXPECT_EQ(small.allocatable.ephemeral_storage(), int64_t{45} << 30);
  EXPECT_FALSE(small.offerings[1].available);
  EXPECT_EQ(small.offerings[2].reservation_capacity, 3);
  const CompiledInstanceType& gpu = (*compiled)->instance_type(1);
  EXPECT_EQ(gpu.allocatable.GetExtended(interner.FindKey("nvidia.com/gpu")),
            2000);
  EXPECT_TRUE((*compiled)->well_known().Contains("example.com/tier"));
}

TEST(CatalogFilesTest, EmbeddedCatalogRoundTripsThroughTheLoader) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok());
  std::string json;
  ASSERT_TRUE(
      google::protobuf::util::MessageToJsonString(*catalog, &json).ok());
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(json, v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->catalogs_size(), 1);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      set->catalogs(0), *catalog));
}

TEST(CatalogFilesTest, SeedManifestsEndToEnd) {
  // The seed's two objects, not the whole workshop (which adds a NodePool).
  const std::string workshop =
      std::string(NODEPLAN_SOURCE_DIR) + "/examples/workshop/";
  absl::StatusOr<v1::ManifestSet> set =
      LoadManifestFiles({workshop + "nodepool-general-purpose.yaml",
                         workshop + "nodeclass-default.yaml"},
                        v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->node_pools_size(), 1);
  ASSERT_EQ(set->node_classes_size(), 1);
  AwsCatalogStats stats;
  absl::StatusOr<v1::Catalog> catalog =
      AwsCatalog(&set->node_classes(0), &stats);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_EQ(stats.instance_types, 1290);
  EXPECT_THAT(catalog->source(), HasSubstr("EKS Auto Mode"));

  Interner interner;
  auto compiled = CompileCatalog(*catalog, {}, interner);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  Interner call(&interner);
  auto result = InstanceTypesForNodePool(**compiled, set->node_pools(0), call);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->admitted.size(), 676u);
  const CompiledInstanceType& first =
      (*compiled)->instance_type(result->admitted[0].type);
  EXPECT_EQ(first.name, "c6a.large");
  // 80Gi NodeClass volume: 80 - 1 (kube-reserved) - 8 (10%) = 71Gi.
  EXPECT_EQ(first.allocatable.ephemeral_storage(), int64_t{71} << 30);
  EXPECT_EQ(first.allocatable.pods(), 29);
  // The per-call overlay interned nothing into the base.
  EXPECT_EQ(call.base(), &interner);
}

}  // namespace
}  // namespace nodeplan
