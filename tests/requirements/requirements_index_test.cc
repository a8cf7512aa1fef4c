// RequirementsIndex against per-type evaluation on random inputs.

#include "nodeplan/requirements_index.h"

#include <random>

#include "gtest/gtest.h"
#include "test_util.h"

namespace nodeplan {
namespace {

using ::nodeplan::testing::Vocab;
using Op = SelectorOperator;

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {
    for (const char* k : {"topology.kubernetes.io/zone", "kubernetes.io/arch",
                          "family", "cpu", "team", "gpu"}) {
      keys_.push_back(vocab_.K(k));
    }
    for (const char* s : {"a", "b", "c", "d", "1", "2", "4", "8", "16", "x"}) {
      values_.push_back(vocab_.V(s));
    }
    wk_ = std::make_unique<WellKnownLabels>(vocab_.names());
  }
  Vocab& vocab() { return vocab_; }
  const WellKnownLabels& well_known() const { return *wk_; }
  int U(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }

  Requirement Random(LabelKeyId key, bool label_like) {
    // Instance types are mostly single-valued labels.
    if (label_like && U(0, 3) != 0) {
      return Requirement::In(key, {values_[U(0, 9)]});
    }
    const Op op = static_cast<Op>(U(0, 7));
    std::vector<LabelValue> vals;
    if (op == Op::kIn || op == Op::kNotIn) {
      for (int i = U(0, 3); i > 0; --i) vals.push_back(values_[U(0, 9)]);
    } else if (op >= Op::kGt) {
      vals.push_back(vocab_.V(std::to_string(U(-1, 17))));
    }
    Requirement r = Requirement::Make(key, op, vals);
    // Sometimes a second constraint on the same key (bounded NotIn, ranges).
    if (U(0, 4) == 0) r = r.Intersection(Random(key, false));
    return r;
  }
  Requirements RandomSet(bool label_like) {
    Requirements out;
    for (LabelKeyId k : keys_) {
      if (U(0, 2) != 0) out.Add(Random(k, label_like));
    }
    return out;
  }

 private:
  std::mt19937 rng_;
  Vocab vocab_;
  std::vector<LabelKeyId> keys_;
  std::vector<LabelValue> values_;
  std::unique_ptr<WellKnownLabels> wk_;
};

TEST(TypeSetTest, Basics) {
  TypeSet s(130, true);
  EXPECT_EQ(s.Count(), 130);
  s.Clear(0);
  s.Clear(129);
  EXPECT_EQ(s.Count(), 128);
  EXPECT_FALSE(s.Test(129));
  TypeSet t(130, false);
  EXPECT_TRUE(t.None());
  t.Set(5);
  t.Set(64);
  EXPECT_EQ(t.ToVector(), (std::vector<int>{5, 64}));
  s.AndWith(t);
  EXPECT_EQ(s.ToVector(), (std::vector<int>{5, 64}));
  s.AndNotWith(t);
  EXPECT_TRUE(s.None());
  s.OrWith(t);
  EXPECT_EQ(s, t);
}

TEST(RequirementsIndexTest, AgreesWithPerTypeEvaluation) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Generator gen(seed);
    std::vector<Requirements> types;
    const int n = gen.U(1, 150);
    for (int i = 0; i < n; ++i) types.push_back(gen.RandomSet(true));
    RequirementsIndex index(types);
    ASSERT_EQ(index.size(), n);
    TypeSet got;
    for (int q = 0; q < 200; ++q) {
      Requirements query = gen.RandomSet(false);
      index.Intersecting(query, &got);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(got.Test(i), types[i].Intersects(query))
            << "seed " << seed << " type " << gen.vocab().Str(types[i])
            << " query " << gen.vocab().Str(query);
      }
      for (const WellKnownLabels* allow :
           {static_cast<const WellKnownLabels*>(nullptr), &gen.well_known()}) {
        CompatibilityOptions options{allow};
        index.Compatible(query, options, &got);
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(got.Test(i), types[i].IsCompatible(query, options))
              << "seed " << seed << " type " << gen.vocab().Str(types[i])
              << " query " << gen.vocab().Str(query);
        }
      }
    }
  }
}

TEST(RequirementsIndexTest, EmptyIndexAndUnknownKeys) {
  Vocab v;
  RequirementsIndex empty(std::vector<Requirements>{});
  TypeSet out;
  empty.Intersecting(v.Reqs({v.Make("k", "In", {"a"})}), &out);
  EXPECT_EQ(out.size(), 0);
  std::vector<Requirements> types = {v.Reqs({v.Make("k", "In", {"a"})}),
                                     v.Reqs({})};
  RequirementsIndex index(types);
  index.Compatible(v.Reqs({v.Make("unknown", "In", {"a"})}), {}, &out);
  EXPECT_TRUE(out.None());
  index.Compatible(v.Reqs({v.Make("unknown", "NotIn", {"a"})}), {}, &out);
  EXPECT_EQ(out.Count(), 2);
  index.Compatible(v.Reqs({v.Make("k", "In", {"a"})}), {}, &out);
  EXPECT_EQ(out.ToVector(), (std::vector<int>{0}));
  index.Intersecting(v.Reqs({v.Make("k", "In", {"b"})}), &out);
  EXPECT_EQ(out.ToVector(), (std::vector<int>{1}));
}

}  // namespace
}  // namespace nodeplan
