// InstanceTypesForNodePool and minValues: which key falls short, by how much,
// checked against a direct count over the admitted types.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan {
namespace {

using ::testing::HasSubstr;

struct Catalog {
  Interner interner;
  std::shared_ptr<const CompiledCatalog> compiled;
};

const Catalog& EksCatalog() {
  static const Catalog* const catalog = [] {
    auto* c = new Catalog();
    v1::NodeClass node_class;
    node_class.set_api_version("eks.amazonaws.com/v1");
    node_class.mutable_metadata()->set_name("default");
    auto proto = SharedAwsCatalog(&node_class);
    EXPECT_TRUE(proto.ok());
    c->compiled = *CompileCatalog(**proto, {}, c->interner);
    return c;
  }();
  return *catalog;
}

struct Written {
  const char* key;
  const char* op;
  std::vector<std::string> values;
  int min_values;  // 0: not set
};

// The seed NodePool's requirements plus `extra`.
v1::NodePool Pool(const std::vector<Written>& extra) {
  v1::NodePool pool;
  pool.mutable_metadata()->set_name("general-purpose");
  auto* reqs = pool.mutable_spec()
                   ->mutable_template_()
                   ->mutable_spec()
                   ->mutable_requirements();
  const std::vector<Written> seed = {
      {"karpenter.sh/capacity-type", "In", {"on-demand"}, 0},
      {"eks.amazonaws.com/instance-category", "In", {"c", "m", "r"}, 0},
      {"eks.amazonaws.com/instance-generation", "Gt", {"4"}, 0},
      {"kubernetes.io/arch", "In", {"amd64"}, 0},
      {"kubernetes.io/os", "In", {"linux"}, 0}};
  for (const std::vector<Written>* list : {&seed, &extra}) {
    for (const Written& w : *list) {
      v1::NodeSelectorRequirement* r = reqs->Add();
      r->set_key(w.key);
      r->set_operator_(w.op);
      for (const std::string& v : w.values) r->add_values(v);
      if (w.min_values > 0) r->set_min_values(w.min_values);
    }
  }
  return pool;
}

// Reference: distinct values of `key` over the first n admitted types.
int DistinctValues(const NodePoolInstanceTypes& result, LabelKeyId key,
                   size_t n) {
  std::set<LabelValueId> seen;
  for (size_t i = 0; i < n && i < result.admitted.size(); ++i) {
    const Requirement* r = EksCatalog()
                               .compiled->instance_type(result.admitted[i].type)
                               .requirements.Find(key);
    if (r == nullptr) continue;
    for (const LabelValue& v : r->values()) seen.insert(v.id);
  }
  return static_cast<int>(seen.size());
}

struct Case {
  const char* name;
  std::vector<Written> extra;
  // Expected: met (types needed > 0) or the unmet key / floor / index.
  bool met;
  const char* unmet_key;
  int floor;
  int requirement_index;
  const char* text;  // substring of MinValuesText, when unmet
};

TEST(MinValuesQueryTest, ReportsUnmetMinValuesAgainstADirectCount) {
  const std::vector<Case> cases = {
      {"no minValues", {}, true, "", 0, -1, ""},
      {"families met",
       {{"eks.amazonaws.com/instance-family",
         "In",
         {"c5", "m5", "r5", "c6i", "m6i"},
         3}},
       true,
       "",
       0,
       -1,
       ""},
      {"two families cannot reach three",
       {{"eks.amazonaws.com/instance-family", "In", {"c5", "m5"}, 3}},
       false,
       "eks.amazonaws.com/instance-family",
       3,
       5,
       "eks.amazonaws.com/instance-family In [c5 m5] minValues 3: the "
       "admitted instance types offer 2 values (c5 m5)"},
      {"more types than the catalog has",
       {{"node.kubernetes.io/instance-type", "Exists", {}, 50}},
       true,
       "",
       0,
       -1,
       ""},
      {"the largest floor of a key wins",
       {{"eks.amazonaws.com/instance-family", "In", {"c5", "m5", "r5"}, 2},
        {"eks.amazonaws.com/instance-family", "NotIn", {"x1"}, 4}},
       false,
       "eks.amazonaws.com/instance-family",
       4,
       5,
       "minValues 2: the admitted instance types offer 3 values (c5 m5 r5)"},
      {"nothing admitted",
       {{"eks.amazonaws.com/instance-size", "In", {"no-such-size"}, 1}},
       false,
       "eks.amazonaws.com/instance-size",
       1,
       5,
       "offer 0 values"},
  };
  const Catalog& c = EksCatalog();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Interner call(&c.interner);
    absl::StatusOr<NodePoolInstanceTypes> result =
        InstanceTypesForNodePool(*c.compiled, Pool(tc.extra), call);
    ASSERT_TRUE(result.ok()) << result.status();
    const bool has_min_values = result->combined.HasMinValues();
    if (tc.met) {
      EXPECT_TRUE(result->unmet_min_values.empty());
      if (!has_min_values) {
        EXPECT_EQ(result->min_values_types_needed, 0);
        continue;
      }
      // The smallest price-ordered prefix meeting every floor.
      const int needed = result->min_values_types_needed;
      ASSERT_GT(needed, 0);
      for (const Requirement& r : result->combined) {
        if (!r.min_values().has_value()) continue;
        EXPECT_GE(DistinctValues(*result, r.key(), needed), *r.min_values());
      }
      bool shorter_meets = true;
      for (const Requirement& r : result->combined) {
        if (r.min_values().has_value() &&
            DistinctValues(*result, r.key(), needed - 1) < *r.min_values()) {
          shorter_meets = false;
        }
      }
      EXPECT_FALSE(shorter_meets);
      continue;
    }
    EXPECT_EQ(result->min_values_types_needed, 0);
    ASSERT_EQ(result->unmet_min_values.size(), 1u);
    const UnmetMinValues& unmet = result->unmet_min_values[0];
    EXPECT_EQ(call.KeyText(unmet.key), tc.unmet_key);
    EXPECT_EQ(unmet.min_values, tc.floor);
    EXPECT_EQ(unmet.requirement_index, tc.requirement_index);
    EXPECT_EQ(unmet.found,
              DistinctValues(*result, unmet.key, result->admitted.size()));
    EXPECT_LT(unmet.found, unmet.min_values);
    EXPECT_THAT(MinValuesText(*c.compiled, *result, unmet, call),
                HasSubstr(tc.text));
  }
}

TEST(MinValuesQueryTest, ManyValuesAreShortened) {
  const Catalog& c = EksCatalog();
  Interner call(&c.interner);
  absl::StatusOr<NodePoolInstanceTypes> result = InstanceTypesForNodePool(
      *c.compiled,
      Pool({{"eks.amazonaws.com/instance-family",
             "In",
             {"c5", "c5a", "c5n", "c6a", "c6i", "c6id", "m5"},
             50}}),
      call);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->unmet_min_values.size(), 1u);
  EXPECT_EQ(result->unmet_min_values[0].found, 7);
  EXPECT_THAT(
      MinValuesText(*c.compiled, *result, result->unmet_min_values[0], call),
      HasSubstr("offer 7 values (c5 c5a c5n c6a c6i and 2 others)"));
}

}  // namespace
}  // namespace nodeplan
