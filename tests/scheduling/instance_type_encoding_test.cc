// ScheduleOptions.instanceTypeEncoding "Indexed" and ExpandInstanceTypes:
// the option is validated, an Indexed response names each type once, and
// expanding it gives the Names response byte for byte (by value, on an
// arena, one call and snapshot, over random clusters).

#include <algorithm>
#include <string>
#include <vector>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"
#include "nodeplan/labels.h"
#include "nodeplan/schedule.h"
#include "nodeplan/validate.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

using ::nodeplan::testing::Bytes;
using ::nodeplan::testing::FindReq;
using ::nodeplan::testing::MustSchedule;
using ::nodeplan::testing::WithEncoding;
using ::testing::HasSubstr;

const std::string kInstanceType(labels::kInstanceType);

v1::NodeSelectorRequirement* MutableInstanceTypeReq(v1::NewNodeClaim& claim) {
  for (auto& r :
       *claim.mutable_node_claim()->mutable_spec()->mutable_requirements())
    if (r.key() == kInstanceType) return &r;
  return nullptr;
}

// The deterministic bytes of `indexed` once expanded (by value).
std::string ExpandedBytes(v1::ScheduleResponse indexed) {
  if (absl::Status s = ExpandInstanceTypes(&indexed); !s.ok())
    return std::string(s.message());
  return Bytes(indexed);
}

TEST(InstanceTypeEncodingTest, UnknownValuesAreRejectedNamingTheField) {
  for (const char* bad : {"names", "indexed", "Index", " Indexed", "Bogus"}) {
    auto response =
        Schedule(WithEncoding(workload::KarpenterBenchmark(5), bad));
    ASSERT_FALSE(response.ok()) << bad;
    EXPECT_EQ(response.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(response.status().message(),
              absl::StrCat("options.instanceTypeEncoding: \"", bad,
                           "\" is not one of Names, Indexed"));
  }
  // The snapshot path reads the same option from the state.
  v1::ScheduleRequest base = workload::KarpenterBenchmark(5), state;
  *state.mutable_pods() = base.pods();
  base.clear_pods();
  auto snap = Snapshot::Compile(base);
  ASSERT_TRUE(snap.ok()) << snap.status();
  auto response = (*snap)->Schedule(WithEncoding(state, "Bogus"));
  EXPECT_THAT(response.status().message(),
              HasSubstr("options.instanceTypeEncoding"));
}

TEST(InstanceTypeEncodingTest, NamesIsTheDefault) {
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(50);
  const v1::ScheduleResponse by_default = MustSchedule(request);
  EXPECT_EQ(Bytes(MustSchedule(WithEncoding(request, "Names"))),
            Bytes(by_default));
  EXPECT_TRUE(by_default.instance_type_names().empty());
  for (const v1::NewNodeClaim& claim : by_default.new_node_claims())
    EXPECT_TRUE(claim.instance_type_indices().empty());
}

// The table holds each referenced type once, in byte order; indices give
// instanceTypes in their order and, sorted, the requirement's values; the
// rest of the response is untouched.
TEST(InstanceTypeEncodingTest, IndexedNamesEachTypeOnceInByteOrder) {
  // 400 fake types: byte order (fake-it-10 < fake-it-2) is not price order.
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(100);
  v1::ScheduleResponse names = MustSchedule(request);
  v1::ScheduleResponse indexed = MustSchedule(WithEncoding(request, "Indexed"));
  ASSERT_EQ(indexed.new_node_claims_size(), names.new_node_claims_size());
  ASSERT_GT(names.new_node_claims_size(), 1);
  const auto& table = indexed.instance_type_names();
  ASSERT_FALSE(table.empty());
  EXPECT_TRUE(std::adjacent_find(table.begin(), table.end(),
                                 [](const std::string& a,
                                    const std::string& b) { return a >= b; }) ==
              table.end())
      << "not strictly ascending";
  std::vector<bool> referenced(table.size());
  for (int c = 0; c < names.new_node_claims_size(); ++c) {
    v1::NewNodeClaim& n = *names.mutable_new_node_claims(c);
    v1::NewNodeClaim& x = *indexed.mutable_new_node_claims(c);
    EXPECT_TRUE(x.instance_types().empty());
    std::vector<std::string> options, values;
    std::vector<int> sorted(x.instance_type_indices().begin(),
                            x.instance_type_indices().end());
    for (int i : sorted) {
      ASSERT_GE(i, 0);
      ASSERT_LT(i, table.size());
      options.push_back(table[i]);
      referenced[i] = true;
    }
    std::sort(sorted.begin(), sorted.end());
    for (int i : sorted) values.push_back(table[i]);
    EXPECT_THAT(options, ::testing::ElementsAreArray(n.instance_types()));
    const v1::NodeSelectorRequirement* nr =
        FindReq(n.node_claim(), kInstanceType);
    v1::NodeSelectorRequirement* xr = MutableInstanceTypeReq(x);
    ASSERT_NE(nr, nullptr);
    ASSERT_NE(xr, nullptr);
    EXPECT_THAT(values, ::testing::ElementsAreArray(nr->values()));
    EXPECT_EQ(xr->operator_(), "In");
    EXPECT_TRUE(xr->values().empty());
    // Everything else is the Names response's.
    n.clear_instance_types();
    x.clear_instance_type_indices();
    *xr->mutable_values() = nr->values();
    EXPECT_EQ(Bytes(x), Bytes(n)) << c;
  }
  EXPECT_EQ(std::count(referenced.begin(), referenced.end(), false), 0);
  names.clear_new_node_claims();
  indexed.clear_new_node_claims();
  indexed.clear_instance_type_names();
  EXPECT_EQ(Bytes(indexed), Bytes(names));
}

TEST(InstanceTypeEncodingTest, IndexedIsSmallerThanNames) {
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(500);
  const size_t names = MustSchedule(request).ByteSizeLong();
  const size_t indexed =
      MustSchedule(WithEncoding(request, "Indexed")).ByteSizeLong();
  EXPECT_LT(indexed * 4, names) << indexed << " vs " << names;
}

// minValues stays on the requirement; the option order is price order.
TEST(InstanceTypeEncodingTest, MinValuesAndPriceOrderSurviveExpansion) {
  v1::ScheduleRequest request = testing::Request(12);
  *request.mutable_node_pools(0)
       ->mutable_spec()
       ->mutable_template_()
       ->mutable_spec()
       ->add_requirements() = testing::Parse<v1::NodeSelectorRequirement>(
      R"pb(key: "node.kubernetes.io/instance-type" operator: "In"
           values: "fake-it-11" values: "fake-it-2" values: "fake-it-10"
           values: "fake-it-3" min_values: 3)pb");
  *request.add_pods() = testing::Pod("a", "1", "1Gi");
  const v1::ScheduleResponse names = MustSchedule(request);
  v1::ScheduleResponse indexed = MustSchedule(WithEncoding(request, "Indexed"));
  ASSERT_EQ(indexed.new_node_claims_size(), 1);
  EXPECT_THAT(indexed.instance_type_names(),
              ::testing::ElementsAre("fake-it-10", "fake-it-11", "fake-it-2",
                                     "fake-it-3"));
  EXPECT_THAT(indexed.new_node_claims(0).instance_type_indices(),
              ::testing::ElementsAre(2, 3, 0, 1));
  const auto* req =
      FindReq(indexed.new_node_claims(0).node_claim(), kInstanceType);
  ASSERT_NE(req, nullptr);
  EXPECT_EQ(req->min_values(), 3);
  EXPECT_EQ(ExpandedBytes(indexed), Bytes(names));
}

// An Indexed NodeClaim applied without expanding is refused, never widened.
TEST(InstanceTypeEncodingTest, UnexpandedNodeClaimFailsValidation) {
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(10);
  v1::ScheduleResponse indexed = MustSchedule(WithEncoding(request, "Indexed"));
  ASSERT_GT(indexed.new_node_claims_size(), 0);
  v1::ManifestSet unexpanded;
  *unexpanded.add_node_claims() = indexed.new_node_claims(0).node_claim();
  const v1::ValidateResponse refused = Validate(unexpanded);
  ASSERT_EQ(refused.violations_size(), 1);
  EXPECT_THAT(refused.violations(0).message(),
              HasSubstr("operator 'In' must have a value defined"));
  ASSERT_TRUE(ExpandInstanceTypes(&indexed).ok());
  v1::ManifestSet expanded;
  *expanded.add_node_claims() = indexed.new_node_claims(0).node_claim();
  EXPECT_EQ(Validate(expanded).violations_size(), 0);
}

// Where Names and expanded-Indexed bytes differ for one request, by path;
// "" when every path agrees.
std::string Disagreements(const v1::ScheduleRequest& request) {
  std::string out;
  auto expect = [&](const std::string& what, const std::string& names,
                    const std::string& expanded) {
    if (names != expanded) out += " " + what;
  };
  const v1::ScheduleRequest indexed = WithEncoding(request, "Indexed");
  const std::string names = Bytes(MustSchedule(request));
  const v1::ScheduleResponse by_value = MustSchedule(indexed);
  expect("one-call/value", names, ExpandedBytes(by_value));
  expect("one-call/value-on-arena", names,
         testing::ExpandedOnArena(by_value.SerializeAsString()));
  {
    google::protobuf::Arena arena;
    auto built = ScheduleOnArena(indexed, &arena);
    if (!built.ok()) return " one-call/arena: " + built.status().ToString();
    expect("one-call/arena", names,
           testing::ExpandedOnArena((*built)->SerializeAsString()));
  }
  v1::ScheduleRequest base, state;
  testing::SplitForSnapshot(request, &base, &state);
  auto snap = Snapshot::Compile(base);
  if (!snap.ok()) return " snapshot: " + snap.status().ToString();
  auto snap_names = (*snap)->Schedule(state);
  auto snap_indexed = (*snap)->Schedule(WithEncoding(state, "Indexed"));
  if (!snap_names.ok() || !snap_indexed.ok()) return " snapshot: failed";
  expect("snapshot/value", Bytes(*snap_names), ExpandedBytes(*snap_indexed));
  google::protobuf::Arena arena;
  auto snap_arena =
      (*snap)->ScheduleOnArena(WithEncoding(state, "Indexed"), &arena);
  if (!snap_arena.ok()) return " snapshot/arena: failed";
  expect("snapshot/arena", Bytes(*snap_names),
         testing::ExpandedOnArena((*snap_arena)->SerializeAsString()));
  return out;
}

TEST(InstanceTypeEncodingTest, RandomClustersExpandToNames) {
  // Six schedules per seed: 400 seeds take ~1 s here, ~40 s under ASan.
  constexpr uint64_t kSeeds = 400;
  int failing = 0, with_claims = 0;
  std::string report;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const v1::ScheduleRequest request = workload::RandomCluster(seed);
    const std::string found = Disagreements(request);
    if (!found.empty() && ++failing <= 10)
      report += absl::StrCat("seed ", seed, ":", found, "\n");
    with_claims += !MustSchedule(request).new_node_claims().empty();
  }
  EXPECT_EQ(failing, 0) << report;
  EXPECT_GT(with_claims, static_cast<int>(kSeeds / 2));  // not vacuous
}

TEST(InstanceTypeEncodingTest, SeedNodePoolOnAwsExpandsToNames) {
  EXPECT_EQ(Disagreements(workload::SeedNodePoolWorkload(300)), "");
}

TEST(ExpandInstanceTypesTest, NamesResponsesAndExpandedOnesAreLeftAsTheyAre) {
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(20);
  v1::ScheduleResponse names = MustSchedule(request);
  const std::string before = Bytes(names);
  ASSERT_TRUE(ExpandInstanceTypes(&names).ok());
  EXPECT_EQ(Bytes(names), before);
  v1::ScheduleResponse indexed = MustSchedule(WithEncoding(request, "Indexed"));
  ASSERT_TRUE(ExpandInstanceTypes(&indexed).ok());
  ASSERT_TRUE(ExpandInstanceTypes(&indexed).ok());  // twice: nothing left
  EXPECT_EQ(Bytes(indexed), before);
  EXPECT_EQ(ExpandInstanceTypes(nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ExpandInstanceTypesTest, MalformedResponsesAreRejectedUnchanged) {
  const v1::ScheduleResponse good =
      MustSchedule(WithEncoding(workload::KarpenterBenchmark(20), "Indexed"));
  ASSERT_GE(good.new_node_claims_size(), 2);
  ASSERT_GE(good.new_node_claims(1).instance_type_indices_size(), 2);
  struct Case {
    const char* name;
    void (*corrupt)(v1::ScheduleResponse*);
    const char* message;
  } cases[] = {
      {"past the table",
       [](v1::ScheduleResponse* r) {
         r->mutable_new_node_claims(1)->add_instance_type_indices(
             r->instance_type_names_size());
       },
       "is not a position in instanceTypeNames"},
      {"negative",
       [](v1::ScheduleResponse* r) {
         r->mutable_new_node_claims(1)->set_instance_type_indices(0, -1);
       },
       "newNodeClaims[1].instanceTypeIndices[0]: -1 is not a position"},
      {"listed twice",
       [](v1::ScheduleResponse* r) {
         auto* claim = r->mutable_new_node_claims(1);
         claim->set_instance_type_indices(1, claim->instance_type_indices(0));
       },
       "newNodeClaims[1].instanceTypeIndices[1]: "},
      {"names and indices",
       [](v1::ScheduleResponse* r) {
         r->mutable_new_node_claims(1)->add_instance_types("fake-it-0");
       },
       "newNodeClaims[1]: has both instanceTypes and instanceTypeIndices"},
      {"no requirement to fill",
       [](v1::ScheduleResponse* r) {
         r->mutable_new_node_claims(1)
             ->mutable_node_claim()
             ->mutable_spec()
             ->clear_requirements();
       },
       "newNodeClaims[1].nodeClaim.spec.requirements: no "
       "node.kubernetes.io/instance-type requirement"},
  };
  for (const Case& c : cases) {
    v1::ScheduleResponse bad = good;
    c.corrupt(&bad);
    const std::string before = Bytes(bad);
    absl::Status s = ExpandInstanceTypes(&bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.message)) << c.name;
    EXPECT_EQ(Bytes(bad), before) << c.name << ": changed";
  }
}

}  // namespace
}  // namespace nodeplan
