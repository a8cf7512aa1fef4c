// Requirement: construction per operator, Has, Intersection, HasIntersection,
// Any, String; property tests against a set-based reference.

#include <limits>
#include <random>

#include "gtest/gtest.h"
#include "nodeplan/requirements.h"
#include "test_util.h"

namespace nodeplan {
namespace {

using ::nodeplan::testing::Vocab;
using Op = SelectorOperator;

TEST(RequirementTest, ConstructionPerOperator) {
  Vocab v;
  struct Case {
    Op op;
    std::initializer_list<absl::string_view> values;
    const char* text;
    Op derived;
    int64_t len;
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const Case cases[] = {
      {Op::kIn, {"b", "a", "a"}, "k In [a b]", Op::kIn, 2},
      {Op::kNotIn, {"a"}, "k NotIn [a]", Op::kNotIn, kMax - 1},
      {Op::kExists, {}, "k Exists", Op::kExists, kMax},
      {Op::kDoesNotExist, {}, "k DoesNotExist", Op::kDoesNotExist, 0},
      {Op::kGt, {"5"}, "k Exists >=6", Op::kExists, kMax},
      {Op::kLt, {"5"}, "k Exists <=4", Op::kExists, kMax},
      {Op::kGte, {"5"}, "k Exists >=5", Op::kExists, kMax},
      {Op::kLte, {"5"}, "k Exists <=5", Op::kExists, kMax},
      // A non-integer operand reads as 0 (Karpenter ignores the parse error).
      {Op::kGt, {"abc"}, "k Exists >=1", Op::kExists, kMax},
      // Gt MaxInt matches nothing.
      {Op::kGt,
       {"9223372036854775807"},
       "k DoesNotExist",
       Op::kDoesNotExist,
       0},
      // Lt MinInt wraps around as Go's int does.
      {Op::kLt,
       {"-9223372036854775808"},
       "k Exists <=9223372036854775807",
       Op::kExists,
       kMax},
      {Op::kIn, {}, "k DoesNotExist", Op::kDoesNotExist, 0},
  };
  for (const Case& c : cases) {
    Requirement r = v.Make("k", c.op, c.values);
    EXPECT_EQ(v.Str(r), c.text) << SelectorOperatorName(c.op);
    EXPECT_EQ(r.Operator(), c.derived) << c.text;
    EXPECT_EQ(r.Len(), c.len) << c.text;
  }
}

TEST(RequirementTest, OperatorNames) {
  for (const char* name :
       {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}) {
    std::optional<Op> op = ParseSelectorOperator(name);
    ASSERT_TRUE(op.has_value()) << name;
    EXPECT_EQ(SelectorOperatorName(*op), name);
  }
  EXPECT_FALSE(ParseSelectorOperator("in").has_value());
  EXPECT_FALSE(ParseSelectorOperator("Equal").has_value());
}

TEST(RequirementTest, MinValuesAndTruncatedString) {
  Vocab v;
  Requirement r = v.Make("k", Op::kIn, {"g", "f", "e", "d", "c", "b", "a"}, 3);
  EXPECT_EQ(v.Str(r), "k In [a b c d e and 2 others] minValues 3");
  Requirement n = v.Make("k", Op::kNotIn, {"x"}, 2);
  EXPECT_EQ(v.Str(n), "k NotIn [x] minValues 2");
  // Gt MaxInt drops minValues with everything else.
  EXPECT_EQ(v.Str(v.Make("k", Op::kGt, {"9223372036854775807"}, 2)),
            "k DoesNotExist");
}

TEST(RequirementTest, Has) {
  Vocab v;
  struct Case {
    Requirement r;
    const char* value;
    bool has;
  };
  const Case cases[] = {
      {v.Make("k", "In", {"a", "b"}), "a", true},
      {v.Make("k", "In", {"a", "b"}), "c", false},
      {v.Make("k", "NotIn", {"a"}), "a", false},
      {v.Make("k", "NotIn", {"a"}), "c", true},
      {v.Make("k", "Exists"), "anything", true},
      {v.Make("k", "DoesNotExist"), "", false},
      {v.Make("k", "Gt", {"5"}), "6", true},
      {v.Make("k", "Gt", {"5"}), "5", false},
      {v.Make("k", "Gt", {"5"}), "abc", false},
      {v.Make("k", "Lt", {"5"}), "4", true},
      {v.Make("k", "Lt", {"5"}), "5", false},
      {v.Make("k", "Gte", {"5"}), "5", true},
      {v.Make("k", "Lte", {"5"}), "5", true},
      {v.Make("k", "Lte", {"5"}), "-100", true},
      {v.Make("k", "Lte", {"5"}), "+5", true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.r.Has(v.V(c.value)), c.has) << v.Str(c.r) << " " << c.value;
  }
}

TEST(RequirementTest, IntersectionTable) {
  Vocab v;
  struct Case {
    Requirement a;
    Requirement b;
    const char* result;
  };
  const Case cases[] = {
      {v.Make("k", "In", {"A"}), v.Make("k", "Gt", {"1"}), "k DoesNotExist"},
      {v.Make("k", "In", {"1", "9"}), v.Make("k", "Gt", {"1"}), "k In [9]"},
      {v.Make("k", "Gt", {"1"}), v.Make("k", "Lt", {"9"}), "k Exists >=2 <=8"},
      {v.Make("k", "Gt", {"5"}), v.Make("k", "Lt", {"5"}), "k DoesNotExist"},
      {v.Make("k", "Gte", {"5"}), v.Make("k", "Lte", {"5"}),
       "k Exists >=5 <=5"},
      {v.Make("k", "Exists"), v.Make("k", "In", {"x"}), "k In [x]"},
      {v.Make("k", "Exists"), v.Make("k", "NotIn", {"x"}), "k NotIn [x]"},
      {v.Make("k", "DoesNotExist"), v.Make("k", "Exists"), "k DoesNotExist"},
      {v.Make("k", "DoesNotExist"), v.Make("k", "NotIn", {"x"}),
       "k DoesNotExist"},
      {v.Make("k", "NotIn", {"A"}), v.Make("k", "In", {"A", "B"}), "k In [B]"},
      {v.Make("k", "NotIn", {"A"}), v.Make("k", "NotIn", {"B"}),
       "k NotIn [A B]"},
      {v.Make("k", "In", {"A", "B"}), v.Make("k", "In", {"B", "C"}),
       "k In [B]"},
      {v.Make("k", "In", {"A"}), v.Make("k", "In", {"B"}), "k DoesNotExist"},
      // Excluded values outside the bounds are dropped.
      {v.Make("k", "NotIn", {"1", "7", "x"}), v.Make("k", "Gt", {"5"}),
       "k NotIn [7] >=6"},
      {v.Make("k", "NotIn", {"1"}), v.Make("k", "Gt", {"5"}), "k Exists >=6"},
      {v.Make("k", "In", {"3", "7", "x"}), v.Make("k", "Lte", {"5"}),
       "k In [3]"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(v.Str(c.a.Intersection(c.b)), c.result)
        << v.Str(c.a) << " n " << v.Str(c.b);
    EXPECT_EQ(v.Str(c.b.Intersection(c.a)), c.result)
        << v.Str(c.b) << " n " << v.Str(c.a);
  }
}

TEST(RequirementTest, IntersectionKeepsMaxMinValues) {
  Vocab v;
  Requirement a = v.Make("k", Op::kIn, {"a", "b", "c"}, 2);
  Requirement b = v.Make("k", Op::kExists, {}, 3);
  EXPECT_EQ(a.Intersection(b).min_values(), 3);
  Requirement inverted =
      v.Make("k", Op::kGt, {"5"}, 4).Intersection(v.Make("k", Op::kLt, {"5"}));
  EXPECT_EQ(v.Str(inverted), "k DoesNotExist minValues 4");
}

TEST(RequirementTest, HasIntersectionQuirks) {
  Vocab v;
  // DoesNotExist intersects nothing, not even itself.
  EXPECT_FALSE(
      v.Make("k", "DoesNotExist").HasIntersection(v.Make("k", "DoesNotExist")));
  EXPECT_FALSE(
      v.Make("k", "DoesNotExist").HasIntersection(v.Make("k", "Exists")));
  // Two complements always intersect unless their bounds are inverted.
  EXPECT_TRUE(
      v.Make("k", "NotIn", {"1", "2", "3"})
          .HasIntersection(v.Make("k", "Gte", {"1"})
                               .Intersection(v.Make("k", "Lte", {"3"}))));
  EXPECT_FALSE(
      v.Make("k", "Gt", {"5"}).HasIntersection(v.Make("k", "Lt", {"3"})));
  EXPECT_TRUE(
      v.Make("k", "In", {"10"}).HasIntersection(v.Make("k", "Gt", {"5"})));
  EXPECT_FALSE(
      v.Make("k", "In", {"ten"}).HasIntersection(v.Make("k", "Gt", {"5"})));
}

TEST(RequirementTest, AnyIsDeterministic) {
  Vocab v;
  EXPECT_EQ(v.Make("k", "In", {"b", "a", "c"}).Any(v.names()), "a");
  EXPECT_EQ(v.Make("k", "DoesNotExist").Any(v.names()), "");
  EXPECT_EQ(v.Make("k", "Exists").Any(v.names()), "0");
  EXPECT_EQ(v.Make("k", "NotIn", {"0", "1", "x"}).Any(v.names()), "2");
  // "00" is not the text "0": 0 stays available.
  EXPECT_EQ(v.Make("k", "NotIn", {"00"}).Any(v.names()), "0");
  EXPECT_EQ(v.Make("k", "Gt", {"5"}).Any(v.names()), "6");
  EXPECT_EQ(v.Make("k", "Lt", {"-5"}).Any(v.names()), "-6");
  Requirement range =
      v.Make("k", "Gte", {"3"}).Intersection(v.Make("k", "Lte", {"4"}));
  EXPECT_EQ(range.Intersection(v.Make("k", "NotIn", {"3"})).Any(v.names()),
            "4");
}

// ---- properties --------------------------------------------------------

// Random requirements over a small vocabulary of strings and integers.
class RandomRequirements {
 public:
  explicit RandomRequirements(uint32_t seed) : rng_(seed) {
    for (const char* s :
         {"a", "b", "c", "1", "2", "5", "9", "10", "-3", "07"}) {
      universe_.push_back(vocab_.V(s));
    }
    // Values never listed by a requirement, for Has checks.
    for (const char* s : {"zz", "3", "100", "-50"}) {
      universe_.push_back(vocab_.V(s));
    }
    key_ = vocab_.K("k");
  }
  Vocab& vocab() { return vocab_; }
  const std::vector<LabelValue>& universe() const { return universe_; }

  Requirement Next() {
    const Op op = static_cast<Op>(Uniform(0, 7));
    std::vector<LabelValue> values;
    if (op == Op::kIn || op == Op::kNotIn) {
      int n = Uniform(0, 4);
      for (int i = 0; i < n; ++i) values.push_back(universe_[Uniform(0, 9)]);
    } else if (op >= Op::kGt) {
      values.push_back(vocab_.V(std::to_string(Uniform(-4, 11))));
    }
    std::optional<int32_t> min_values;
    if (Uniform(0, 3) == 0) min_values = Uniform(1, 3);
    return Requirement::Make(key_, op, values, min_values);
  }
  int Uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }

 private:
  std::mt19937 rng_;
  Vocab vocab_;
  std::vector<LabelValue> universe_;
  LabelKeyId key_;
};

TEST(RequirementPropertyTest, IntersectionAlgebra) {
  RandomRequirements gen(12345);
  for (int iter = 0; iter < 5000; ++iter) {
    Requirement a = gen.Next();
    Requirement b = gen.Next();
    Requirement c = gen.Next();
    Requirement ab = a.Intersection(b);
    ASSERT_EQ(ab, b.Intersection(a))
        << gen.vocab().Str(a) << " | " << gen.vocab().Str(b);
    ASSERT_EQ(ab.Intersection(c), a.Intersection(b.Intersection(c)))
        << gen.vocab().Str(a) << " | " << gen.vocab().Str(b) << " | "
        << gen.vocab().Str(c);
    for (const LabelValue& v : gen.universe()) {
      ASSERT_EQ(ab.Has(v), a.Has(v) && b.Has(v))
          << gen.vocab().Str(a) << " | " << gen.vocab().Str(b) << " value "
          << gen.vocab().names().ValueText(v.id);
    }
    ASSERT_EQ(a.HasIntersection(b), ab.Len() > 0)
        << gen.vocab().Str(a) << " | " << gen.vocab().Str(b);
    ASSERT_EQ(a.HasIntersection(b), b.HasIntersection(a));
    // Exists is the identity (minValues aside).
    Requirement e = Requirement::Exists(a.key());
    e.set_min_values(a.min_values());
    ASSERT_EQ(a.Intersection(e), a) << gen.vocab().Str(a);
  }
}

}  // namespace
}  // namespace nodeplan
