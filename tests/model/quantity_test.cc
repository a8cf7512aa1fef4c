#include "nodeplan/quantity.h"

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace nodeplan {
namespace {

constexpr char kPattern[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

struct Good {
  const char* text;
  int64_t expected;
};

TEST(ParseQuantityMilliTest, GoodCases) {
  const Good cases[] = {
      {"0", 0},
      {"100m", 100},
      {"2", 2000},
      {"1.5", 1500},
      {".5", 500},
      {"1.", 1000},
      {"1.G", 1000000000000},
      {"+1", 1000},
      {"-1", -1000},
      {"-100m", -100},
      {"00012", 12000},
      {"0.000", 0},
      {"0e100000", 0},
      {"-0", 0},
      // Rounded away from zero, like Kubernetes' round-up to nano and
      // MilliValue().
      {"0.5m", 1},
      {"-0.5m", -1},
      {"0.0001", 1},
      {"100n", 1},
      {"1u", 1},
      {"1000u", 1},
      {"1001u", 2},
      {"1.5e-3", 2},
      {"1e-100", 1},
      // Decimal SI.
      {"1k", 1000000},
      {"1M", 1000000000},
      {"1G", 1000000000000},
      {"1T", 1000000000000000},
      {"1P", 1000000000000000000},
      {"9P", 9000000000000000000},
      {"123.456k", 123456000},
      // Binary SI.
      {"1Ki", 1024000},
      {"0.1Ki", 102400},
      {"1Mi", 1048576000},
      {"1Gi", 1073741824000},
      {"1.5Gi", 1610612736000},
      {"1Ti", 1099511627776000},
      {"8191Ti", 9006099743113216000},
      // Decimal exponents.
      {"1e3", 1000000},
      {"1E3", 1000000},
      {"2e+2", 200000},
      {"1e-3", 1},
      {"15e-1", 1500},
      // The int64 edge.
      {"9223372036854775807m", INT64_MAX},
      {"9223372036854775.807", INT64_MAX},
      {"-9223372036854775807m", -INT64_MAX},
  };
  for (const Good& c : cases) {
    absl::StatusOr<int64_t> got = ParseQuantityMilli(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(*got, c.expected) << c.text;
  }
}

TEST(ParseQuantityValueTest, GoodCases) {
  const Good cases[] = {
      {"0", 0},
      {"1", 1},
      {"100m", 1},
      {"1000m", 1},
      {"1001m", 2},
      {"1.5", 2},
      {"-1.5", -2},
      {"1e-9", 1},
      {"500M", 500000000},
      {"1Ki", 1024},
      {"1Gi", 1073741824},
      {"1.5Gi", 1610612736},
      {"0.1Ki", 103},
      {"80Gi", 85899345920},
      {"7Ei", 8070450532247928832},
      {"1E", 1000000000000000000},
      {"9E", 9000000000000000000},
      {"1e18", 1000000000000000000},
      {"9223372036854775807", INT64_MAX},
      {"110", 110},
  };
  for (const Good& c : cases) {
    absl::StatusOr<int64_t> got = ParseQuantityValue(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(*got, c.expected) << c.text;
  }
}

struct Bad {
  const char* text;
  std::string message;
};

TEST(ParseQuantityTest, BadCases) {
  const Bad cases[] = {
      {"", absl::StrCat("quantity \"\": ", kPattern)},
      {"1.2.3", absl::StrCat("quantity \"1.2.3\": ", kPattern)},
      {"1Gb", absl::StrCat("quantity \"1Gb\": ", kPattern)},
      {"m", absl::StrCat("quantity \"m\": ", kPattern)},
      {".", absl::StrCat("quantity \".\": ", kPattern)},
      {"-", absl::StrCat("quantity \"-\": ", kPattern)},
      {"Ki", absl::StrCat("quantity \"Ki\": ", kPattern)},
      {"abc", absl::StrCat("quantity \"abc\": ", kPattern)},
      {"--1", absl::StrCat("quantity \"--1\": ", kPattern)},
      {" 1", absl::StrCat("quantity \" 1\": ", kPattern)},
      {"1 ", absl::StrCat("quantity \"1 \": ", kPattern)},
      {"1KiB", absl::StrCat("quantity \"1KiB\": ", kPattern)},
      {"1e3m", absl::StrCat("quantity \"1e3m\": ", kPattern)},
      {"1e1.5", absl::StrCat("quantity \"1e1.5\": ", kPattern)},
      {"0x10", absl::StrCat("quantity \"0x10\": ", kPattern)},
      {"1K", "quantity \"1K\": unable to parse quantity's suffix \"K\""},
      {"1ki", "quantity \"1ki\": unable to parse quantity's suffix \"ki\""},
      {"1e", "quantity \"1e\": unable to parse quantity's suffix \"e\""},
      {"1e+", "quantity \"1e+\": unable to parse quantity's suffix \"e+\""},
      {"1Gi1", "quantity \"1Gi1\": unable to parse quantity's suffix \"Gi1\""},
      {"1mm", "quantity \"1mm\": unable to parse quantity's suffix \"mm\""},
      {"1e2147483648",
       "quantity \"1e2147483648\": unable to parse quantity's suffix "
       "\"e2147483648\""},
  };
  for (const Bad& c : cases) {
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(c.text);
    ASSERT_FALSE(milli.ok()) << c.text;
    EXPECT_EQ(milli.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(milli.status().message(), c.message);
    absl::StatusOr<int64_t> value = ParseQuantityValue(c.text);
    ASSERT_FALSE(value.ok()) << c.text;
    EXPECT_EQ(value.status().message(), c.message);
  }
}

TEST(ParseQuantityTest, Int64Overflow) {
  const char* milli_overflows[] = {"10Ei",
                                   "8Ei",
                                   "7Ei",
                                   "1E",
                                   "9223372036854775808m",
                                   "9223372036854775.8071",
                                   "-9223372036854775808m",
                                   "1e2147483647",
                                   "100000000000000000000000000000000"};
  for (const char* text : milli_overflows) {
    absl::StatusOr<int64_t> got = ParseQuantityMilli(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(got.status().message(),
              absl::StrCat("quantity \"", text,
                           "\": value in thousandths overflows int64"));
  }
  const char* value_overflows[] = {"10Ei",
                                   "8Ei",
                                   "10E",
                                   "1e19",
                                   "9223372036854775808",
                                   "9223372036854775807.1"};
  for (const char* text : value_overflows) {
    absl::StatusOr<int64_t> got = ParseQuantityValue(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().message(),
              absl::StrCat("quantity \"", text,
                           "\": value in units overflows int64"));
  }
}

// A simple reference: integer.fraction with a decimal SI suffix, computed in
// 128-bit arithmetic.
TEST(ParseQuantityTest, MatchesInt128Reference) {
  struct Suffix {
    const char* text;
    int exp10;
  };
  const Suffix suffixes[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},
                             {"k", 3},  {"M", 6},  {"G", 9}};
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t whole = rng() % 1000000;
    const int frac_len = static_cast<int>(rng() % 5);
    uint64_t frac = 0;
    std::string frac_text;
    for (int d = 0; d < frac_len; ++d) {
      int digit = static_cast<int>(rng() % 10);
      frac = frac * 10 + digit;
      frac_text.push_back(static_cast<char>('0' + digit));
    }
    const Suffix& s = suffixes[rng() % std::size(suffixes)];
    const bool negative = rng() % 4 == 0;
    std::string text = absl::StrCat(negative ? "-" : "", whole,
                                    frac_len ? "." : "", frac_text, s.text);
    __int128 pow_frac = 1;
    for (int d = 0; d < frac_len; ++d) pow_frac *= 10;
    __int128 numerator = static_cast<__int128>(whole) * pow_frac + frac;
    int exp = s.exp10 + 3;  // milli
    __int128 denominator = pow_frac;
    for (; exp > 0; --exp) numerator *= 10;
    for (; exp < 0; ++exp) denominator *= 10;
    __int128 magnitude = (numerator + denominator - 1) / denominator;
    int64_t expected = static_cast<int64_t>(negative ? -magnitude : magnitude);
    absl::StatusOr<int64_t> got = ParseQuantityMilli(text);
    ASSERT_TRUE(got.ok()) << text << ": " << got.status();
    ASSERT_EQ(*got, expected) << text;
  }
}

TEST(FormatQuantityTest, Milli) {
  const std::pair<int64_t, const char*> cases[] = {
      {0, "0"},        {100, "100m"},      {1500, "1500m"},
      {2000, "2"},     {-1500, "-1500m"},  {1500000, "1500"},
      {1000000, "1k"}, {1000000000, "1M"}, {INT64_MAX, "9223372036854775807m"},
  };
  for (const auto& [milli, text] : cases) {
    EXPECT_EQ(FormatMilli(milli), text);
  }
}

TEST(FormatQuantityTest, Bytes) {
  const std::pair<int64_t, const char*> cases[] = {
      {0, "0"},
      {100, "100"},
      {1000, "1k"},
      {1023, "1023"},
      {1024, "1Ki"},
      {1025, "1025"},
      {1500, "1500"},
      {1000000, "1000000"},
      {1073741824, "1Gi"},
      {1610612736, "1536Mi"},
      {-2048, "-2Ki"},
      {int64_t{1} << 60, "1Ei"},
      {int64_t{1} << 62, "4Ei"},
  };
  for (const auto& [bytes, text] : cases) {
    EXPECT_EQ(FormatBytes(bytes), text);
  }
}

TEST(FormatQuantityTest, RoundTrips) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    int64_t v = static_cast<int64_t>(rng() >> (rng() % 64));
    if (rng() % 2) v = -v;
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(FormatMilli(v));
    ASSERT_TRUE(milli.ok()) << FormatMilli(v) << " " << milli.status();
    ASSERT_EQ(*milli, v) << FormatMilli(v);
    absl::StatusOr<int64_t> bytes = ParseQuantityValue(FormatBytes(v));
    ASSERT_TRUE(bytes.ok()) << FormatBytes(v) << " " << bytes.status();
    ASSERT_EQ(*bytes, v) << FormatBytes(v);
  }
}

constexpr int64_t kSecond = 1000000000;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;

TEST(ParseDurationTest, GoodCases) {
  const Good cases[] = {
      {"0", 0},
      {"-0", 0},
      {"+0", 0},
      {"1s", kSecond},
      {"30s", 30 * kSecond},
      {"1h30m", 90 * kMinute},
      {"24h0m0s", 24 * kHour},
      {"336h", 336 * kHour},
      {"1.5h", 90 * kMinute},
      {".5s", kSecond / 2},
      {"1.s", kSecond},
      {"300ms", 300000000},
      {"1ns", 1},
      {"1us", 1000},
      {"1\xC2\xB5s", 1000},
      {"1\xCE\xBCs", 1000},
      {"-2s", -2 * kSecond},
      {"+5m", 5 * kMinute},
      {"1h1m1s1ms1us1ns", kHour + kMinute + kSecond + 1001001},
      {"39h9m14.425s", 39 * kHour + 9 * kMinute + int64_t{14425} * 1000000},
      {"52763797000ns", 52763797000},
      {"1.004s", 1004000000},
      {"1.000000000000000000000001s", kSecond},
      {"0.3333333333333333333h", 20 * kMinute},
      {"0.100000000000000000000h", 6 * kMinute},
      {"0.9223372036854775807h", 55 * kMinute + 20 * kSecond + 413933267},
      {"9223372036854775.807us", INT64_MAX},
      {"9.223372036854775807s", 9 * kSecond + 223372036},
      {"-9223372036854775808ns", INT64_MIN},
      {"2562047h", 2562047 * kHour},
      {"Never", kNeverDuration},
  };
  for (const Good& c : cases) {
    absl::StatusOr<int64_t> got = ParseDuration(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(*got, c.expected) << c.text;
  }
}

TEST(ParseDurationTest, BadCases) {
  const Bad cases[] = {
      {"", "invalid duration \"\""},
      {"-", "invalid duration \"-\""},
      {"s", "invalid duration \"s\""},
      {".", "invalid duration \".\""},
      {"-.", "invalid duration \"-.\""},
      {".s", "invalid duration \".s\""},
      {"+.s", "invalid duration \"+.s\""},
      {"never", "invalid duration \"never\""},
      {"3", "missing unit in duration \"3\""},
      {"1h1", "missing unit in duration \"1h1\""},
      {"1.5.5s", "missing unit in duration \"1.5.5s\""},
      {"1d", "unknown unit \"d\" in duration \"1d\""},
      {"1 s", "unknown unit \" s\" in duration \"1 s\""},
      {"1hm", "unknown unit \"hm\" in duration \"1hm\""},
      {"3000000h", "invalid duration \"3000000h\""},
      {"2562048h", "invalid duration \"2562048h\""},
      {"9223372036854775808ns", "invalid duration \"9223372036854775808ns\""},
      {"-9223372036854775809ns", "invalid duration \"-9223372036854775809ns\""},
      {"99999999999999999999s", "invalid duration \"99999999999999999999s\""},
  };
  for (const Bad& c : cases) {
    absl::StatusOr<int64_t> got = ParseDuration(c.text);
    ASSERT_FALSE(got.ok()) << c.text;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), c.message);
  }
}

TEST(FormatDurationTest, MatchesGo) {
  const std::pair<int64_t, const char*> cases[] = {
      {0, "0s"},
      {1, "1ns"},
      {-1, "-1ns"},
      {1000, "1\xC2\xB5s"},
      {1100, "1.1\xC2\xB5s"},
      {2200000, "2.2ms"},
      {int64_t{3300} * 1000000, "3.3s"},
      {30 * kSecond, "30s"},
      {90 * kSecond, "1m30s"},
      {4 * kMinute + 5 * kSecond, "4m5s"},
      {4 * kMinute + int64_t{5001} * 1000000, "4m5.001s"},
      {5 * kHour + 6 * kMinute + int64_t{7001} * 1000000, "5h6m7.001s"},
      {8 * kMinute + 1, "8m0.000000001s"},
      {24 * kHour, "24h0m0s"},
      {336 * kHour, "336h0m0s"},
      {INT64_MAX - 1, "2562047h47m16.854775806s"},
      {INT64_MIN, "-2562047h47m16.854775808s"},
      {kNeverDuration, "Never"},
  };
  for (const auto& [nanos, text] : cases) {
    EXPECT_EQ(FormatDuration(nanos), text) << nanos;
  }
}

TEST(FormatDurationTest, RoundTripsThroughParse) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    int64_t v = static_cast<int64_t>(rng() >> (rng() % 64));
    if (rng() % 2) v = -v;
    std::string text = FormatDuration(v);
    absl::StatusOr<int64_t> got = ParseDuration(text);
    ASSERT_TRUE(got.ok()) << text << ": " << got.status();
    ASSERT_EQ(*got, v) << text;
  }
}

}  // namespace
}  // namespace nodeplan
