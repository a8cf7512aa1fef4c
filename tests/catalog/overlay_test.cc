// NodeOverlays applied at compile time: price, priceAdjustment (percent and
// absolute), capacity, weight order, conflicts, validation.

#include "catalog/overlay.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "tests/catalog/catalog_test_util.h"

namespace nodeplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::NodeOverlay Overlay(const std::string& json) {
  v1::NodeOverlay overlay;
  auto status = google::protobuf::util::JsonStringToMessage(json, &overlay);
  EXPECT_TRUE(status.ok()) << status.message() << " in " << json;
  return overlay;
}

struct Compiled {
  Interner interner;
  std::shared_ptr<const CompiledCatalog> catalog;
  const CompiledInstanceType& type(absl::string_view name) const {
    return catalog->instance_type(catalog->Find(name));
  }
  // Prices of the type's offerings in catalog order.
  std::vector<double> prices(absl::string_view name) const {
    std::vector<double> out;
    for (const CompiledOffering& o : type(name).offerings) {
      out.push_back(o.price);
    }
    return out;
  }
  std::vector<std::string> skipped() const {
    std::vector<std::string> out;
    for (const SkippedOverlay& s : catalog->skipped_overlays()) {
      out.push_back(s.name + ":" + s.reason);
    }
    return out;
  }
};

std::unique_ptr<Compiled> CompileWith(std::vector<v1::NodeOverlay> overlays) {
  auto c = std::make_unique<Compiled>();
  CatalogCompileOptions options;
  options.overlays = overlays;
  c->catalog = testing_util::CompileAws(nullptr, c->interner, options);
  return c;
}

TEST(PriceChangeTest, ParsesAndAdjustsAsKarpenter) {
  struct Case {
    const char* text;
    bool adjustment;
    double base, want;
  } cases[] = {
      {"+10%", true, 0.096, 0.1056}, {"-5%", true, 0.096, 0.0912},
      {"-0.02", true, 0.096, 0.076}, {"+0.5", true, 1.0, 1.5},
      {"-5", true, 0.096, 0},        {"-100%", true, 0.5, 0},
      {"-150%", true, 0.5, 0},       {"0.0421", false, 0.096, 0.0421},
      {"7", false, 0.096, 7},        {"+.5%", true, 2, 2.01},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto change = c.adjustment ? catalog::ParsePriceAdjustment(c.text)
                               : catalog::ParsePrice(c.text);
    ASSERT_TRUE(change.ok()) << change.status();
    EXPECT_NEAR(catalog::AdjustedPrice(c.base, *change), c.want, 1e-12);
  }
  for (const char* bad :
       {"10%", "", "+", "+x", "+1e3", "+-1", "+1%%", "+nan", "+inf"}) {
    EXPECT_FALSE(catalog::ParsePriceAdjustment(bad).ok()) << bad;
  }
  for (const char* bad : {"-1", "+1", "1%", "abc", "", "1e3", "inf"}) {
    EXPECT_FALSE(catalog::ParsePrice(bad).ok()) << bad;
  }
}

TEST(OverlayTest, PercentAdjustmentOnSelectedOfferingsOnly) {
  auto c = CompileWith({Overlay(R"({
    "metadata": {"name": "od-markup"},
    "spec": {"requirements": [
               {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
               {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]}],
             "priceAdjustment": "+10%"}})")});
  EXPECT_THAT(c->skipped(), ElementsAre());
  std::vector<double> p = c->prices("m5.large");
  ASSERT_EQ(p.size(), 6u);
  for (int j : {0, 2, 4}) EXPECT_NEAR(p[j], 0.1056, 1e-12);  // on-demand
  for (int j : {1, 3, 5}) EXPECT_NEAR(p[j], 0.0672, 1e-12);  // spot untouched
  EXPECT_TRUE(c->type("m5.large").offerings[0].price_overlaid);
  EXPECT_FALSE(c->type("m5.large").offerings[1].price_overlaid);
  EXPECT_NEAR(c->prices("m5.xlarge")[0], 0.192, 1e-12);  // not selected
  EXPECT_FALSE(c->type("m5.xlarge").offerings[0].price_overlaid);
}

TEST(OverlayTest, AbsoluteAdjustmentAndPriceOverride) {
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "discount"},
                   "spec": {"requirements": [{"key": "eks.amazonaws.com/instance-family",
                                              "operator": "In", "values": ["c6a"]}],
                            "priceAdjustment": "-0.02"}})"),
                        Overlay(R"({"metadata": {"name": "real-spot"},
                   "spec": {"requirements": [
                      {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]},
                      {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                      {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1b"]}],
                            "price": "0.0321"}})")});
  EXPECT_THAT(c->skipped(), ElementsAre());
  EXPECT_NEAR(c->prices("c6a.large")[0], 0.0765 - 0.02, 1e-12);
  EXPECT_NEAR(c->prices("c6a.large")[1], 0.05355 - 0.02, 1e-12);
  EXPECT_NEAR(c->prices("m5.large")[3], 0.0321, 1e-12);  // us-east-1b spot
  EXPECT_NEAR(c->prices("m5.large")[1], 0.0672, 1e-12);  // us-east-1a spot
  // cheapest_available_price follows the overlaid prices.
  EXPECT_NEAR(c->type("m5.large").cheapest_available_price, 0.0321, 1e-12);
}

TEST(OverlayTest, HigherWeightWinsThenNameOrder) {
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "low"},
                   "spec": {"weight": 1, "priceAdjustment": "-50%"}})"),
                        Overlay(R"({"metadata": {"name": "high"},
                   "spec": {"weight": 10,
                            "requirements": [{"key": "eks.amazonaws.com/instance-category",
                                              "operator": "In", "values": ["m"]}],
                            "priceAdjustment": "+100%"}})")});
  EXPECT_THAT(c->skipped(), ElementsAre());
  EXPECT_NEAR(c->prices("m5.large")[0], 0.192, 1e-12);   // high
  EXPECT_NEAR(c->prices("c5.large")[0], 0.0425, 1e-12);  // low
}

TEST(OverlayTest, SameWeightOverlapIsAConflictAndTheLaterIsSkipped) {
  // Equal weights order by name descending: "beta" before "alpha"; alpha
  // overlaps beta on m5.large on-demand and is skipped entirely (even where
  // it would not overlap).
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "alpha"},
                   "spec": {"requirements": [{"key": "eks.amazonaws.com/instance-category",
                                              "operator": "In", "values": ["m", "c"]}],
                            "priceAdjustment": "+1"}})"),
                        Overlay(R"({"metadata": {"name": "beta"},
                   "spec": {"requirements": [{"key": "node.kubernetes.io/instance-type",
                                              "operator": "In", "values": ["m5.large"]}],
                            "priceAdjustment": "+2"}})")});
  EXPECT_THAT(c->skipped(), ElementsAre("alpha:Conflict"));
  EXPECT_THAT(c->catalog->skipped_overlays()[0].message, HasSubstr("m5.large"));
  EXPECT_NEAR(c->prices("m5.large")[0], 2.096, 1e-12);
  EXPECT_NEAR(c->prices("c5.large")[0], 0.085, 1e-12);  // alpha not applied
}

TEST(OverlayTest, CapacityAddsExtendedResourcesByWeight) {
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "fuse"},
                   "spec": {"requirements": [{"key": "eks.amazonaws.com/instance-family",
                                              "operator": "In", "values": ["m5", "c5"]}],
                            "capacity": {"example.com/fuse": "1", "example.com/dev": "2"}}})"),
                        Overlay(R"({"metadata": {"name": "fuse-m5-large"},
                   "spec": {"weight": 5,
                            "requirements": [{"key": "node.kubernetes.io/instance-type",
                                              "operator": "In", "values": ["m5.large"]}],
                            "capacity": {"example.com/fuse": "4",
                                         "hugepages-2Mi": "1Gi"}}})")});
  EXPECT_THAT(c->skipped(), ElementsAre());
  const LabelKeyId fuse = c->interner.FindKey("example.com/fuse");
  const LabelKeyId dev = c->interner.FindKey("example.com/dev");
  const CompiledInstanceType& m5 = c->type("m5.large");
  EXPECT_TRUE(m5.capacity_overlaid);
  EXPECT_EQ(m5.allocatable.GetExtended(fuse), 4000);  // weight 5 wins
  EXPECT_EQ(m5.allocatable.GetExtended(dev), 2000);   // merged from weight 0
  // Hugepages come out of allocatable memory: 6903Mi - 1Gi.
  EXPECT_EQ(m5.allocatable.memory(), int64_t{6903 - 1024} << 20);
  EXPECT_EQ(m5.allocatable.cpu_milli(), 1930);
  const CompiledInstanceType& c5 = c->type("c5.xlarge");
  EXPECT_EQ(c5.allocatable.GetExtended(fuse), 1000);
  EXPECT_EQ(c5.allocatable.memory(), int64_t{6584} << 20);
  const CompiledInstanceType& r5 = c->type("r5.large");
  EXPECT_FALSE(r5.capacity_overlaid);
  EXPECT_FALSE(r5.allocatable.GetExtended(fuse).has_value());
}

TEST(OverlayTest, CapacityConflictAtSameWeight) {
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "a"},
                   "spec": {"capacity": {"example.com/fuse": "1"}}})"),
                        Overlay(R"({"metadata": {"name": "b"},
                   "spec": {"requirements": [{"key": "kubernetes.io/arch",
                                              "operator": "In", "values": ["arm64"]}],
                            "capacity": {"example.com/fuse": "2"}}})"),
                        Overlay(R"({"metadata": {"name": "c"},
                   "spec": {"capacity": {"example.com/other": "3"}}})")});
  // Order: c, b, a. b and a both set example.com/fuse at weight 0.
  EXPECT_THAT(c->skipped(), ElementsAre("a:Conflict"));
  const LabelKeyId fuse = c->interner.FindKey("example.com/fuse");
  EXPECT_EQ(c->type("m6g.large").allocatable.GetExtended(fuse), 2000);
  EXPECT_FALSE(c->type("m5.large").allocatable.GetExtended(fuse).has_value());
}

TEST(OverlayTest, InvalidOverlaysAreSkippedNotFatal) {
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "both"},
                   "spec": {"price": "1", "priceAdjustment": "+1"}})"),
                        Overlay(R"({"metadata": {"name": "unsigned"},
                   "spec": {"priceAdjustment": "10%"}})"),
                        Overlay(R"({"metadata": {"name": "cpu"},
                   "spec": {"capacity": {"cpu": "1"}}})"),
                        Overlay(R"({"metadata": {"name": "bad-op"},
                   "spec": {"requirements": [{"key": "a", "operator": "Near"}],
                            "price": "1"}})")});
  EXPECT_THAT(
      c->skipped(),
      ElementsAre("unsigned:RuntimeValidation", "cpu:RuntimeValidation",
                  "both:RuntimeValidation", "bad-op:RuntimeValidation"));
  EXPECT_NEAR(c->prices("m5.large")[0], 0.096, 1e-12);
}

TEST(OverlayTest, UndefinedCustomKeysSelectNothingUnlessNegative) {
  auto c = CompileWith({Overlay(R"({"metadata": {"name": "team"},
                   "spec": {"requirements": [{"key": "example.com/team", "operator": "In",
                                              "values": ["a"]}],
                            "priceAdjustment": "+1"}})"),
                        Overlay(R"({"metadata": {"name": "not-team"},
                   "spec": {"weight": 1,
                            "requirements": [{"key": "example.com/team", "operator": "NotIn",
                                              "values": ["a"]},
                                             {"key": "node.kubernetes.io/instance-type",
                                              "operator": "In", "values": ["r5.large"]}],
                            "priceAdjustment": "+2"}})")});
  EXPECT_THAT(c->skipped(), ElementsAre());
  EXPECT_NEAR(c->prices("m5.large")[0], 0.096, 1e-12);
  EXPECT_NEAR(c->prices("r5.large")[0], 2.126, 1e-12);
}

}  // namespace
}  // namespace nodeplan
