// RequirementsIndex against per-type evaluation on random inputs.

#include "nodeplan/requirements_index.h"

#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"

namespace nodeplan {
namespace {

using ::nodeplan::testing::Vocab;
using Op = SelectorOperator;

class Generator {
 public:
  // `extra_values` more values (v0, v1, ...) beyond the ten below make most
  // values rare: each held by a few types, as instance-type names are.
  explicit Generator(uint32_t seed, int extra_values = 0) : rng_(seed) {
    for (const char* k : {"topology.kubernetes.io/zone", "kubernetes.io/arch",
                          "family", "cpu", "team", "gpu"}) {
      keys_.push_back(vocab_.K(k));
    }
    for (const char* s : {"a", "b", "c", "d", "1", "2", "4", "8", "16", "x"}) {
      values_.push_back(vocab_.V(s));
    }
    for (int i = 0; i < extra_values; ++i) {
      values_.push_back(vocab_.V(i % 3 == 0 ? std::to_string(100 + i)
                                            : "v" + std::to_string(i)));
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
      return Requirement::In(key, {values_[U(0, Last())]});
    }
    const Op op = static_cast<Op>(U(0, 7));
    std::vector<LabelValue> vals;
    if (op == Op::kIn || op == Op::kNotIn) {
      for (int i = U(0, 3); i > 0; --i) vals.push_back(values_[U(0, Last())]);
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
  int Last() const { return static_cast<int>(values_.size()) - 1; }

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

// The index answers `query` as each type's own Intersects and
// IsCompatible(allow) do; reports the first type that disagrees.
void ExpectAgrees(Generator& gen, const RequirementsIndex& index,
                  const std::vector<Requirements>& types,
                  const Requirements& query, const WellKnownLabels* allow) {
  TypeSet got;
  index.Intersecting(query, &got);
  for (size_t i = 0; i < types.size(); ++i) {
    if (got.Test(i) != types[i].Intersects(query)) {
      ADD_FAILURE() << "Intersecting: type " << gen.vocab().Str(types[i])
                    << " query " << gen.vocab().Str(query);
      return;
    }
  }
  // One requirement at a time (AndIntersecting): each narrows the set as
  // that key's Intersects does, and all of them together give Intersecting.
  TypeSet narrowed(static_cast<int>(types.size()), true);
  for (const Requirement& q : query) {
    TypeSet one(static_cast<int>(types.size()), true);
    index.AndIntersecting(q, &one);
    Requirements single;
    single.Add(q);
    for (size_t i = 0; i < types.size(); ++i) {
      if (one.Test(i) != types[i].Intersects(single)) {
        ADD_FAILURE() << "AndIntersecting: type " << gen.vocab().Str(types[i])
                      << " requirement " << gen.vocab().Str(single);
        return;
      }
    }
    index.AndIntersecting(q, &narrowed);
  }
  EXPECT_EQ(narrowed, got) << "query " << gen.vocab().Str(query);
  const CompatibilityOptions options{allow};
  index.Compatible(query, options, &got);
  for (size_t i = 0; i < types.size(); ++i) {
    if (got.Test(i) != types[i].IsCompatible(query, options)) {
      ADD_FAILURE() << "Compatible: type " << gen.vocab().Str(types[i])
                    << " query " << gen.vocab().Str(query);
      return;
    }
  }
}

// Two indexes over the same types answer `query` alike.
void ExpectSameAnswers(const RequirementsIndex& a, const RequirementsIndex& b,
                       const Requirements& query,
                       const WellKnownLabels& well_known) {
  TypeSet from_a, from_b;
  a.Intersecting(query, &from_a);
  b.Intersecting(query, &from_b);
  EXPECT_EQ(from_a, from_b);
  const CompatibilityOptions options{&well_known};
  a.Compatible(query, options, &from_a);
  b.Compatible(query, options, &from_b);
  EXPECT_EQ(from_a, from_b);
}

TEST(RequirementsIndexTest, AgreesWithPerTypeEvaluation) {
  for (uint32_t seed = 1; seed <= 40 && !HasFailure(); ++seed) {
    SCOPED_TRACE(seed);
    Generator gen(seed);
    std::vector<Requirements> types;
    const int n = gen.U(1, 150);
    for (int i = 0; i < n; ++i) types.push_back(gen.RandomSet(true));
    RequirementsIndex index(types);
    ASSERT_EQ(index.size(), n);
    for (int q = 0; q < 200 && !HasFailure(); ++q) {
      Requirements query = gen.RandomSet(false);
      ExpectAgrees(gen, index, types, query, nullptr);
      ExpectAgrees(gen, index, types, query, &gen.well_known());
    }
  }
}

// Many distinct values and up to 400 types (several words per bitset): the
// values held by a few types are listed, the others kept as bit rows; both
// answer as the per-type evaluation.
TEST(RequirementsIndexTest, RareAndCommonValuesAgreeWithPerTypeEvaluation) {
  for (uint32_t seed = 200; seed <= 215 && !HasFailure(); ++seed) {
    SCOPED_TRACE(seed);
    Generator gen(seed, /*extra_values=*/seed % 2 == 0 ? 40 : 300);
    std::vector<Requirements> types;
    const int n = gen.U(60, 400);
    for (int i = 0; i < n; ++i) types.push_back(gen.RandomSet(true));
    RequirementsIndex index(types);
    for (int q = 0; q < 150 && !HasFailure(); ++q) {
      // Half the queries are types' own label sets (values that exist).
      Requirements query =
          q % 2 == 0 ? types[gen.U(0, n - 1)] : gen.RandomSet(false);
      ExpectAgrees(gen, index, types, query, &gen.well_known());
    }
  }
}

// RequirementsIndexBuilder (one type at a time) answers as the borrowing
// constructor; types it was never given are empty label sets.
TEST(RequirementsIndexTest, BuilderEqualsBorrowingConstructor) {
  for (uint32_t seed = 300; seed <= 305 && !HasFailure(); ++seed) {
    SCOPED_TRACE(seed);
    Generator gen(seed, 100);
    std::vector<Requirements> types;
    const int n = gen.U(1, 200);
    for (int i = 0; i < n; ++i) types.push_back(gen.RandomSet(true));
    std::vector<const Requirements*> pointers;
    for (const Requirements& r : types) pointers.push_back(&r);
    RequirementsIndex borrowing(absl::MakeConstSpan(pointers));
    RequirementsIndexBuilder builder(n);
    for (const Requirements* r : pointers) builder.Add(r);
    builder.Add(pointers[0]);  // beyond the declared size: ignored
    RequirementsIndex built = std::move(builder).Finish();
    ASSERT_EQ(built.size(), n);
    // Fewer types than declared: the rest are empty.
    RequirementsIndexBuilder partial(n + 3);
    for (const Requirements* r : pointers) partial.Add(r);
    RequirementsIndex padded = std::move(partial).Finish();
    ASSERT_EQ(padded.size(), n + 3);
    std::vector<Requirements> padded_types = types;
    padded_types.resize(n + 3);
    for (int q = 0; q < 100 && !HasFailure(); ++q) {
      Requirements query = gen.RandomSet(false);
      ExpectSameAnswers(borrowing, built, query, gen.well_known());
      ExpectAgrees(gen, padded, padded_types, query, &gen.well_known());
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

// The borrowing constructor answers exactly as the copying one, and keeps
// answering after the index is moved (the pointers stay valid).
TEST(RequirementsIndexTest, BorrowingAgreesWithCopyingAndSurvivesMoves) {
  for (uint32_t seed = 100; seed <= 110 && !HasFailure(); ++seed) {
    SCOPED_TRACE(seed);
    Generator gen(seed);
    std::vector<Requirements> types;
    const int n = gen.U(1, 150);
    for (int i = 0; i < n; ++i) types.push_back(gen.RandomSet(true));
    RequirementsIndex copying(types);
    std::vector<const Requirements*> pointers;
    for (const Requirements& r : types) pointers.push_back(&r);
    RequirementsIndex borrowed_then_moved(absl::MakeConstSpan(pointers));
    RequirementsIndex borrowing = std::move(borrowed_then_moved);
    ASSERT_EQ(borrowing.size(), n);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(&borrowing.type(i), &types[i]);
      ASSERT_EQ(copying.type(i), types[i]);
    }
    RequirementsIndex copying_moved = std::move(copying);
    for (int q = 0; q < 100 && !HasFailure(); ++q) {
      ExpectSameAnswers(borrowing, copying_moved, gen.RandomSet(false),
                        gen.well_known());
    }
  }
}

}  // namespace
}  // namespace nodeplan
