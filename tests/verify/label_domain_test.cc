// The verifier's reading of numeric label values and bounds, which must be
// Karpenter's (Go's strconv.Atoi on 64 bits, Gt/Lt turned into inclusive
// bounds with Go's wrapping ints). A 19-digit label value used to read as
// no number at all (found by fuzz_schedule_request).

#include "verify/label_domain.h"

#include <string>

#include "gtest/gtest.h"

namespace nodeplan::verify_internal {
namespace {

TEST(ParseGoInt64, AsStrconvAtoi) {
  struct Case {
    const char* text;
    std::optional<int64_t> want;
  } cases[] = {
      {"0", 0},
      {"007", 7},
      {"+5", 5},
      {"-5", -5},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
      {"9223372036854775808", std::nullopt},
      {"-9223372036854775809", std::nullopt},
      {"", std::nullopt},
      {"-", std::nullopt},
      {" 5", std::nullopt},
      {"5 ", std::nullopt},
      {"1_000", std::nullopt},
      {"0x10", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(ParseGoInt64(c.text), c.want) << c.text;
}

TEST(LabelDomainBounds, AsKarpentersRequirement) {
  struct Case {
    const char* value;
    const char* op;
    const char* bound;
    bool passes;
  } cases[] = {
      {"9223372036854775807", "Gte", "6", true},
      {"9223372036854775807", "Gt", "9223372036854775806", true},
      {"9223372036854775807", "Gt", "9223372036854775807", false},
      {"9223372036854775807", "Lte", "9223372036854775807", true},
      // Lt MinInt wraps to Lte MaxInt in Karpenter's Go.
      {"5", "Lt", "-9223372036854775808", true},
      {"92233720368547758070", "Gte", "6", false},  // not an int64
      {"6", "Gte", "6", true},
      {"6", "Gt", "6", false},
  };
  for (const Case& c : cases) {
    const Domain d = Domain::Fixed(c.value);
    const Expr e{"nodeplan.test/generation", c.op, {c.bound}};
    EXPECT_EQ(d.Definitely(e), c.passes)
        << c.value << " " << c.op << " " << c.bound;
  }
}

}  // namespace
}  // namespace nodeplan::verify_internal
