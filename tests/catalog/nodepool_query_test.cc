// InstanceTypesForNodePool: the seed NodePool over the embedded catalog, and
// the reasons given for rejected types.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "tests/catalog/catalog_test_util.h"

namespace nodeplan {
namespace {

using ::testing::HasSubstr;

// examples/workshop/nodepool-general-purpose.yaml, as JSON.
constexpr char kSeedNodePool[] = R"json({
  "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
  "metadata": {"name": "general-purpose"},
  "spec": {"template": {"metadata": {}, "spec": {
    "expireAfter": "336h",
    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
    "requirements": [
      {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
      {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c", "m", "r"]},
      {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["4"]},
      {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
      {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}],
    "terminationGracePeriod": "24h0m0s"}}}})json";

v1::NodePool NodePoolFromJson(const char* json) {
  v1::NodePool pool;
  auto status = google::protobuf::util::JsonStringToMessage(json, &pool);
  EXPECT_TRUE(status.ok()) << status.message();
  return pool;
}

// The seed NodeClass: an EKS NodeClass without status (default zones).
v1::NodeClass SeedNodeClass() {
  v1::NodeClass node_class;
  node_class.set_api_version("eks.amazonaws.com/v1");
  node_class.set_kind("NodeClass");
  node_class.mutable_metadata()->set_name("default");
  node_class.mutable_spec()->mutable_ephemeral_storage()->set_size("80Gi");
  return node_class;
}

struct Fixture {
  Interner interner;
  v1::Catalog proto;
  std::shared_ptr<const CompiledCatalog> catalog;
};

std::unique_ptr<Fixture> EksFixture(
    const std::vector<v1::UnavailableOffering>& unavailable = {}) {
  auto f = std::make_unique<Fixture>();
  v1::NodeClass node_class = SeedNodeClass();
  auto proto = AwsCatalog(&node_class);
  EXPECT_TRUE(proto.ok());
  f->proto = *proto;
  CatalogCompileOptions options;
  options.unavailable = unavailable;
  auto compiled = CompileCatalog(f->proto, options, f->interner);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  f->catalog = *compiled;
  return f;
}

// A simple reference straight from the proto labels: what the seed NodePool
// admits.
bool SeedAdmitsByReference(const v1::InstanceType& type) {
  const auto& l = type.labels();
  auto get = [&](const char* key) {
    auto it = l.find(key);
    return it == l.end() ? std::string() : it->second;
  };
  const std::string category = get("eks.amazonaws.com/instance-category");
  int64_t generation = 0;
  if (!absl::SimpleAtoi(get("eks.amazonaws.com/instance-generation"),
                        &generation)) {
    return false;
  }
  bool on_demand_available = false;
  for (const v1::Offering& o : type.offerings()) {
    if (o.capacity_type() == "on-demand" &&
        (!o.has_available() || o.available())) {
      on_demand_available = true;
    }
  }
  return (category == "c" || category == "m" || category == "r") &&
         generation > 4 && get("kubernetes.io/arch") == "amd64" &&
         get("kubernetes.io/os") == "linux" && on_demand_available;
}

TEST(NodePoolQueryTest, SeedNodePoolAdmitsOnDemandCmrGen5PlusAmd64) {
  auto f = EksFixture();
  auto result = InstanceTypesForNodePool(
      *f->catalog, NodePoolFromJson(kSeedNodePool), f->interner);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->requirements.size(), 6u);  // 5 written + nodepool name
  EXPECT_EQ(result->requirements.back().key(), "karpenter.sh/nodepool");

  EXPECT_EQ(result->admitted.size(), 676u);
  EXPECT_EQ(result->admitted.size() + result->rejected.size(),
            static_cast<size_t>(f->catalog->size()));
  std::vector<bool> admitted(f->catalog->size(), false);
  double last_price = 0;
  for (const AdmittedInstanceType& a : result->admitted) {
    admitted[a.type] = true;
    const CompiledInstanceType& t = f->catalog->instance_type(a.type);
    const CompiledOffering& o = t.offerings[a.offering];
    EXPECT_EQ(f->interner.ValueText(o.capacity_type.id), "on-demand") << t.name;
    EXPECT_EQ(o.price, a.price);
    EXPECT_GE(a.price, last_price) << t.name;  // price order
    last_price = a.price;
  }
  // Property: the same set as the reference filter over the proto labels.
  for (int i = 0; i < f->catalog->size(); ++i) {
    EXPECT_EQ(admitted[i], SeedAdmitsByReference(f->proto.instance_types(i)))
        << f->proto.instance_types(i).name();
  }
  auto name = [&](int k) {
    return f->catalog->instance_type(result->admitted[k].type).name;
  };
  EXPECT_EQ(name(0), "c6a.large");
  EXPECT_EQ(name(1), "c5a.large");
  EXPECT_DOUBLE_EQ(result->admitted[0].price, 0.0765);
}

TEST(NodePoolQueryTest, RejectedTypesNameTheirRequirement) {
  auto f = EksFixture();
  auto result = InstanceTypesForNodePool(
      *f->catalog, NodePoolFromJson(kSeedNodePool), f->interner);
  ASSERT_TRUE(result.ok());
  auto reason = [&](absl::string_view type) {
    const int i = f->catalog->Find(type);
    for (const RejectedInstanceType& r : result->rejected) {
      if (r.type == i) {
        return RejectionText(*f->catalog, *result, r, f->interner);
      }
    }
    return std::string("<admitted>");
  };
  EXPECT_EQ(reason("t3.medium"),
            "eks.amazonaws.com/instance-category In [c m r] (type has "
            "eks.amazonaws.com/instance-category In [t])");
  EXPECT_EQ(reason("c4.large"),
            "eks.amazonaws.com/instance-generation Gt [4] (type has "
            "eks.amazonaws.com/instance-generation In [4])");
  EXPECT_EQ(reason("m6g.large"),
            "kubernetes.io/arch In [amd64] (type has kubernetes.io/arch In "
            "[arm64])");
  EXPECT_EQ(reason("g5.xlarge"),
            "eks.amazonaws.com/instance-category In [c m r] (type has "
            "eks.amazonaws.com/instance-category In [g])");
  EXPECT_EQ(reason("m5.large"), "<admitted>");
  for (const RejectedInstanceType& r : result->rejected) {
    EXPECT_EQ(r.kind, RejectionKind::kRequirement);
    EXPECT_GE(r.requirement_index, 1);  // never capacity-type: all have OD
    EXPECT_LE(r.requirement_index, 3);
  }
}

TEST(NodePoolQueryTest, UnavailableOfferingsRejectAType) {
  std::vector<v1::UnavailableOffering> unavailable(1);
  unavailable[0].set_instance_type("c6a.large");
  unavailable[0].set_capacity_type("on-demand");
  auto f = EksFixture(unavailable);
  auto result = InstanceTypesForNodePool(
      *f->catalog, NodePoolFromJson(kSeedNodePool), f->interner);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->admitted.size(), 675u);
  EXPECT_EQ(f->catalog->instance_type(result->admitted[0].type).name,
            "c5a.large");
  const int c6a = f->catalog->Find("c6a.large");
  auto it = std::find_if(result->rejected.begin(), result->rejected.end(),
                         [&](const auto& r) { return r.type == c6a; });
  ASSERT_NE(it, result->rejected.end());
  EXPECT_EQ(it->kind, RejectionKind::kNoAvailableOffering);
  EXPECT_EQ(RejectionText(*f->catalog, *result, *it, f->interner),
            "no available offering compatible with karpenter.sh/capacity-type "
            "In [on-demand]");
}

TEST(NodePoolQueryTest, SpotAndZoneRequirementsPickTheOffering) {
  Interner interner;
  auto catalog = testing_util::CompileAws(nullptr, interner);
  auto result = InstanceTypesForNodePool(*catalog, NodePoolFromJson(R"json({
    "metadata": {"name": "spot"},
    "spec": {"template": {"spec": {"requirements": [
      {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
      {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1b"]},
      {"key": "node.kubernetes.io/instance-type", "operator": "In",
       "values": ["m5.large", "c7g-flex.large", "a1.medium"]}]}}}})json"),
                                         interner);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->admitted.size(), 2u);
  const CompiledInstanceType& a1 =
      catalog->instance_type(result->admitted[0].type);
  EXPECT_EQ(a1.name, "a1.medium");
  EXPECT_EQ(result->admitted[0].offering, 3);  // us-east-1b spot
  EXPECT_TRUE(a1.offerings[3].estimated_price);
  EXPECT_DOUBLE_EQ(result->admitted[0].price, 0.01785);
  // c7g-flex.large has no list price: its offerings are unavailable.
  const int flex = catalog->Find("c7g-flex.large");
  auto it = std::find_if(result->rejected.begin(), result->rejected.end(),
                         [&](const auto& r) { return r.type == flex; });
  ASSERT_NE(it, result->rejected.end());
  EXPECT_EQ(RejectionText(*catalog, *result, *it, interner),
            "no available offering (all unavailable)");
  // Everything else is rejected by the instance-type requirement.
  const int m5xl = catalog->Find("m5.xlarge");
  it = std::find_if(result->rejected.begin(), result->rejected.end(),
                    [&](const auto& r) { return r.type == m5xl; });
  ASSERT_NE(it, result->rejected.end());
  EXPECT_EQ(it->requirement_index, 2);
  EXPECT_THAT(RejectionText(*catalog, *result, *it, interner),
              HasSubstr("node.kubernetes.io/instance-type In [m5.large "
                        "c7g-flex.large a1.medium]"));
}

TEST(NodePoolQueryTest, TemplateLabelsAndCustomKeys) {
  Interner interner;
  auto catalog = testing_util::CompileAws(nullptr, interner);
  // A custom template label the types do not define does not reject them
  // (Intersects looks at keys both sides define).
  auto result = InstanceTypesForNodePool(*catalog, NodePoolFromJson(R"json({
    "metadata": {"name": "team"},
    "spec": {"template": {"metadata": {"labels": {"team": "a"}}, "spec": {
      "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                        "values": ["m5"]}]}}}})json"),
                                         interner);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->requirements.size(), 3u);
  EXPECT_EQ(result->requirements[1].key(), "team");
  EXPECT_EQ(result->admitted.size(), 9u);  // m5.large .. m5.metal
}

TEST(NodePoolQueryTest, MalformedRequirementIsAnError) {
  Interner interner;
  auto catalog = testing_util::CompileAws(nullptr, interner);
  auto result = InstanceTypesForNodePool(*catalog, NodePoolFromJson(R"json({
    "metadata": {"name": "broken"},
    "spec": {"template": {"spec": {"requirements": [
      {"key": "kubernetes.io/arch", "operator": "Sometimes", "values": ["amd64"]}]}}}})json"),
                                         interner);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("NodePool broken"));
}

}  // namespace
}  // namespace nodeplan
