// The hash of NodePools as the manifest loader reads them from YAML: the
// present-but-empty maps and lists it records must reach the hash.

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeplan/hash.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

std::string HashOfYaml(const std::string& yaml) {
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(yaml, v1::LoadOptions());
  EXPECT_TRUE(set.ok()) << set.status();
  if (!set.ok() || set->node_pools_size() != 1) return "";
  absl::StatusOr<std::string> h = NodePoolHash(set->node_pools(0));
  EXPECT_TRUE(h.ok()) << h.status();
  return h.ok() ? *h : "";
}

std::string Seed(const std::string& template_metadata,
                 const std::string& extra_spec = "") {
  return absl::StrCat(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general-purpose
spec:
  template:
    metadata: )",
                      template_metadata, R"(
    spec:
      expireAfter: 336h
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      terminationGracePeriod: 24h0m0s
)",
                      extra_spec);
}

TEST(NodePoolHashFromYaml, SeedFileMatchesItsAnnotation) {
  absl::StatusOr<v1::ManifestSet> set = LoadManifestFiles(
      {absl::StrCat(NODEPLAN_SOURCE_DIR,
                    "/examples/workshop/nodepool-general-purpose.yaml")},
      v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->node_pools_size(), 1);
  const v1::NodePool& np = set->node_pools(0);
  absl::StatusOr<std::string> h = NodePoolHash(np);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(*h, np.metadata().annotations().at("karpenter.sh/nodepool-hash"));
  EXPECT_EQ(*h, "4012513481623584108");
}

TEST(NodePoolHashFromYaml, ReferenceVectorsThroughTheLoader) {
  EXPECT_EQ(HashOfYaml(Seed("{}")), "4012513481623584108");
  EXPECT_EQ(HashOfYaml(Seed("{labels: {type: karpenter}}")),
            "1445944945662556359");
  EXPECT_EQ(HashOfYaml(
                Seed("{}",
                     "      taints:\n      - {key: example.com/special, value: "
                     "\"true\", effect: NoSchedule}\n")),
            "11255377023678766593");
}

TEST(NodePoolHashFromYaml, EmptyButPresentCollectionsCount) {
  const std::string seed = HashOfYaml(Seed("{}"));
  EXPECT_NE(HashOfYaml(Seed("{labels: {}}")), seed);
  EXPECT_NE(HashOfYaml(Seed("{}", "      taints: []\n")), seed);
  EXPECT_NE(HashOfYaml(Seed("{}", "      startupTaints: []\n")), seed);
}

}  // namespace
}  // namespace nodeplan
