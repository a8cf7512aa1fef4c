#include "nodeplan/interner.h"

#include <limits>

#include "gtest/gtest.h"

namespace nodeplan {
namespace {

TEST(ParseGoIntTest, MatchesStrconvAtoi) {
  struct Case {
    const char* text;
    std::optional<int64_t> strict;
    int64_t lenient;
  };
  const Case cases[] = {
      {"0", 0, 0},
      {"42", 42, 42},
      {"-7", -7, -7},
      {"+7", 7, 7},
      {"007", 7, 7},
      {"", std::nullopt, 0},
      {"+", std::nullopt, 0},
      {"-", std::nullopt, 0},
      {"1.5", std::nullopt, 0},
      {" 1", std::nullopt, 0},
      {"1_000", std::nullopt, 0},
      {"abc", std::nullopt, 0},
      {"9223372036854775807", std::numeric_limits<int64_t>::max(),
       std::numeric_limits<int64_t>::max()},
      {"-9223372036854775808", std::numeric_limits<int64_t>::min(),
       std::numeric_limits<int64_t>::min()},
      {"9223372036854775808", std::nullopt,
       std::numeric_limits<int64_t>::max()},
      {"-99999999999999999999", std::nullopt,
       std::numeric_limits<int64_t>::min()},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ParseGoInt(c.text), c.strict) << c.text;
    EXPECT_EQ(GoAtoiIgnoringError(c.text), c.lenient) << c.text;
  }
}

TEST(InternerTest, InternsOnceAndRemembersIntegers) {
  Interner in;
  LabelKeyId zone = in.InternKey("topology.kubernetes.io/zone");
  EXPECT_EQ(in.InternKey("topology.kubernetes.io/zone"), zone);
  EXPECT_EQ(in.FindKey("topology.kubernetes.io/zone"), zone);
  EXPECT_EQ(in.FindKey("missing"), kNoId);
  EXPECT_EQ(in.KeyText(zone), "topology.kubernetes.io/zone");

  LabelValue v = in.InternValue("16");
  EXPECT_TRUE(v.is_int);
  EXPECT_TRUE(v.canonical_int);
  EXPECT_EQ(v.int_value, 16);
  LabelValue padded = in.InternValue("016");
  EXPECT_TRUE(padded.is_int);
  EXPECT_FALSE(padded.canonical_int);
  EXPECT_NE(padded.id, v.id);
  LabelValue text = in.InternValue("m5.large");
  EXPECT_FALSE(text.is_int);
  EXPECT_EQ(in.Value(text.id).id, text.id);
  EXPECT_EQ(in.ValueText(text.id), "m5.large");
  EXPECT_EQ(in.ValueText(999), "");
  EXPECT_EQ(in.Value(-1).id, kNoId);
  // Keys and values are separate spaces.
  EXPECT_EQ(in.key_count(), 1);
  EXPECT_EQ(in.value_count(), 3);
}

TEST(InternerTest, OverlayContinuesAfterFrozenBase) {
  Interner base;
  LabelKeyId arch = base.InternKey("kubernetes.io/arch");
  LabelValue amd = base.InternValue("amd64");
  const Interner& frozen = base;

  Interner call(&frozen);
  EXPECT_EQ(call.InternKey("kubernetes.io/arch"), arch);
  EXPECT_EQ(call.InternValue("amd64").id, amd.id);
  LabelKeyId app = call.InternKey("app");
  EXPECT_EQ(app, frozen.key_count());
  LabelValue web = call.InternValue("web");
  EXPECT_EQ(web.id, frozen.value_count());
  EXPECT_EQ(call.KeyText(arch), "kubernetes.io/arch");
  EXPECT_EQ(call.KeyText(app), "app");
  EXPECT_EQ(call.ValueText(web.id), "web");
  // The base is untouched.
  EXPECT_EQ(frozen.FindKey("app"), kNoId);
  EXPECT_EQ(frozen.key_count(), 1);

  // Stacked overlays and moves keep ids and text.
  Interner inner(&call);
  EXPECT_EQ(inner.FindKey("app"), app);
  LabelKeyId team = inner.InternKey("team");
  EXPECT_EQ(team, call.key_count());
  Interner moved = std::move(inner);
  EXPECT_EQ(moved.KeyText(team), "team");
  EXPECT_EQ(moved.FindKey("team"), team);
}

TEST(InternerTest, ManyStringsStayStable) {
  Interner in;
  std::vector<LabelValueId> ids;
  for (int i = 0; i < 5000; ++i) {
    ids.push_back(in.InternValue("value-" + std::to_string(i)).id);
  }
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(in.ValueText(ids[i]), "value-" + std::to_string(i));
    ASSERT_EQ(in.FindValue("value-" + std::to_string(i))->id, ids[i]);
  }
}

TEST(InternerTest, ACopyOwnsItsStringsAndKeepsItsIds) {
  Interner base;
  LabelKeyId zone = base.InternKey("topology.kubernetes.io/zone");
  Interner call(&base);
  LabelValue a = call.InternValue("us-east-1a");
  LabelValue seven = call.InternValue("7");
  Interner copy;
  {
    Interner original(&base);
    original.InternValue("us-east-1a");
    original.InternValue("7");
    copy = original;
    original.InternValue("only-in-the-original");
  }  // the copy outlives the original it was made from
  EXPECT_EQ(copy.FindKey("topology.kubernetes.io/zone"), zone);
  EXPECT_EQ(copy.FindValue("us-east-1a")->id, a.id);
  EXPECT_EQ(copy.ValueText(seven.id), "7");
  EXPECT_TRUE(copy.Value(seven.id).is_int);
  EXPECT_EQ(copy.Value(seven.id).int_value, 7);
  EXPECT_FALSE(copy.FindValue("only-in-the-original").has_value());
  // Interning into the copy continues its own id space, not the original's.
  const LabelValueId b = copy.InternValue("us-east-1b").id;
  EXPECT_EQ(b, copy.value_count() - 1);
  EXPECT_EQ(copy.value_count(), base.value_count() + 3);
  Interner again(copy);
  EXPECT_EQ(again.FindValue("us-east-1b")->id, b);
}

}  // namespace
}  // namespace nodeplan
