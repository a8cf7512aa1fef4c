#include "nodeplan/dense_resources.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nodeplan/resources.h"

namespace nodeplan {
namespace {

using Map = google::protobuf::Map<std::string, std::string>;

Map List(std::vector<std::pair<std::string, std::string>> kv) {
  Map m;
  for (auto& [k, v] : kv) m[k] = v;
  return m;
}

TEST(ResourceQuantityTextTest, OnePrinterForEveryResource) {
  struct Case {
    const char* name;
    int64_t value;
    bool milli_units;
    const char* want;
  };
  const Case cases[] = {
      {"cpu", 1500, false, "1500m"},
      {"cpu", 2000, false, "2"},
      {"cpu", 2000000, false, "2k"},
      {"memory", int64_t{1} << 30, false, "1Gi"},
      {"memory", 1000, false, "1k"},
      {"ephemeral-storage", int64_t{20} << 30, false, "20Gi"},
      {"pods", 110, false, "110"},
      {"nvidia.com/gpu", 4, false, "4"},
      {"nvidia.com/gpu", 4000, true, "4"},
      {"nvidia.com/gpu", 500, true, "500m"},
      {"hugepages-2Mi", int64_t{4} << 20, false, "4Mi"},
      {"hugepages-2Mi", (int64_t{4} << 20) * 1000, true, "4Mi"},
      // Only the hugepages-* prefix is a size in bytes, as Kubernetes'
      // IsHugePageResourceName reads it.
      {"example.com/hugepages", 3, false, "3"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ResourceQuantityText(c.name, c.value, c.milli_units), c.want)
        << c.name << " " << c.value << " milli=" << c.milli_units;
  }
}

TEST(ResourceListStringTest, SortedCompactJson) {
  EXPECT_EQ(ResourceListString({}), "{}");
  EXPECT_EQ(
      ResourceListString({{"pods", "1"}, {"cpu", "1"}, {"memory", "1Gi"}}),
      R"({"cpu":"1","memory":"1Gi","pods":"1"})");
}

TEST(DenseResourcesTest, FromVectorProjectsAndPrintsAsTheSparseForm) {
  Interner names;
  ResourceDims dims;
  absl::StatusOr<ResourceVector> sparse =
      ParseResourceList(List({{"cpu", "1500m"},
                              {"memory", "1Gi"},
                              {"pods", "3"},
                              {"nvidia.com/gpu", "2"},
                              {"hugepages-2Mi", "4Mi"}}),
                        names);
  ASSERT_TRUE(sparse.ok()) << sparse.status();
  absl::StatusOr<DenseResources> dense =
      dims.FromVector(*sparse, names, [] { return std::string("x"); });
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ((*dense)[kDimCpu], 1500);
  EXPECT_EQ((*dense)[kDimMemory], int64_t{1} << 30);
  EXPECT_EQ((*dense)[kDimPods], 3);
  EXPECT_EQ((*dense)[dims.Find("nvidia.com/gpu")], 2);
  EXPECT_EQ((*dense)[dims.Find("hugepages-2Mi")], int64_t{4} << 20);
  // New names take dimensions in name order, whatever the interning order.
  EXPECT_LT(dims.Find("hugepages-2Mi"), dims.Find("nvidia.com/gpu"));
  // One printer: the dense and the sparse forms of a list print alike.
  EXPECT_EQ(dims.String(*dense), ResourcesString(*sparse, names));
}

TEST(DenseResourcesTest, FractionalExtendedResourcesRoundUpToWholeUnits) {
  Interner names;
  ResourceDims dims;
  absl::StatusOr<DenseResources> dense =
      dims.ParseList(List({{"example.com/foo", "1500m"}}), names, "spec");
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ((*dense)[dims.Find("example.com/foo")], 2);
}

TEST(DenseResourcesTest, ZeroEntriesPrintOnlyWhenMasked) {
  Interner names;
  ResourceDims dims;
  uint32_t present = 0;
  absl::StatusOr<DenseResources> dense = dims.ParseList(
      List({{"cpu", "0"}, {"memory", "1Gi"}}), names, "limits", &present);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ(dims.String(*dense), R"({"memory":"1Gi"})");
  EXPECT_EQ(dims.String(*dense, present), R"({"cpu":"0","memory":"1Gi"})");
}

TEST(DenseResourcesTest, TooManyNamesIsAnErrorNamingTheField) {
  Interner names;
  ResourceDims dims;
  std::vector<std::pair<std::string, std::string>> kv;
  for (int i = 0; i < kMaxResourceDims; ++i) {
    kv.emplace_back("example.com/r" + std::to_string(i), "1");
  }
  absl::StatusOr<DenseResources> dense =
      dims.ParseList(List(kv), names, "spec.containers[0].resources.requests");
  ASSERT_FALSE(dense.ok());
  EXPECT_TRUE(absl::StrContains(dense.status().message(),
                                "spec.containers[0].resources.requests["))
      << dense.status();
  EXPECT_TRUE(absl::StrContains(dense.status().message(), "more than 16"))
      << dense.status();
}

TEST(DenseResourcesTest, FitsComparesEveryDimension) {
  DenseResources need, have;
  need[kDimCpu] = 1000;
  have[kDimCpu] = 1000;
  EXPECT_TRUE(Fits(need, have));
  need[5] = 1;
  EXPECT_FALSE(Fits(need, have));
  have[5] = 1;
  EXPECT_TRUE(Fits(need, have));
  EXPECT_EQ(need + have, (DenseResources{{2000, 0, 0, 0, 0, 2}}));
}

}  // namespace
}  // namespace nodeplan
