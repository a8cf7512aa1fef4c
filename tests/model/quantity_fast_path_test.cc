// ParseQuantityMilli / ParseQuantityValue take a fast path for plain digits
// with common suffixes; these tests check it against the exact parser on
// random inputs (every status, code and message included) and at the int64
// boundaries where the fast path hands over.

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/quantity_internal.h"
#include "nodeplan/quantity.h"

namespace nodeplan {
namespace {

void ExpectSame(const std::string& text) {
  const absl::StatusOr<int64_t> value = ParseQuantityValue(text);
  const absl::StatusOr<int64_t> value_exact =
      quantity_internal::ParseQuantityValueExact(text);
  ASSERT_EQ(value.status(), value_exact.status()) << text;
  if (value.ok()) {
    ASSERT_EQ(*value, *value_exact) << text;
  }
  const absl::StatusOr<int64_t> milli = ParseQuantityMilli(text);
  const absl::StatusOr<int64_t> milli_exact =
      quantity_internal::ParseQuantityMilliExact(text);
  ASSERT_EQ(milli.status(), milli_exact.status()) << text;
  if (milli.ok()) {
    ASSERT_EQ(*milli, *milli_exact) << text;
  }
}

TEST(QuantityFastPathTest, MatchesExactParserOnRandomInputs) {
  // Suffixes the fast path handles, ones it leaves to the exact parser, and
  // malformed ones.
  const char* const kSuffixes[] = {
      "",  "m",  "k",  "M", "G", "T",   "Ki", "Mi",  "Gi", "Ti", "P",
      "E", "Pi", "Ei", "n", "u", "K",   "i",  "mi",  "ki", "e3", "E-2",
      "e", "Gb", "MM", " ", "x", "Mi ", "m0", "Kii", ".5", "-"};
  const char* const kPrefixes[] = {"", "", "", "", "+", "-", "0", "00", "."};
  std::mt19937_64 rng(20261129);
  for (int i = 0; i < 200000; ++i) {
    std::string text = kPrefixes[rng() % std::size(kPrefixes)];
    const int digits = static_cast<int>(rng() % 22);  // 0..21 digits
    for (int d = 0; d < digits; ++d) {
      text.push_back(static_cast<char>('0' + rng() % 10));
    }
    if (rng() % 8 == 0) absl::StrAppend(&text, ".", rng() % 1000);
    text += kSuffixes[rng() % std::size(kSuffixes)];
    ExpectSame(text);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(QuantityFastPathTest, MatchesExactParserAtBoundaries) {
  const std::string cases[] = {
      "0", "0m", "00Gi", "1", "1m", "999m", "1000m", "1001m", "7Ki", "16Mi",
      "80Gi", "3Ti", "250m", "4", "96", "128k", "1T",
      // 18 and 19 digits, int64 limits.
      "999999999999999999", "9223372036854775807", "9223372036854775808",
      "9223372036854775807m", "9223372036854775", "9223372036854776",
      "9223372036854775808m",
      // Largest values per suffix and the first overflow.
      "8388607Ti", "8388608Ti", "8589934591Gi", "8589934592Gi",
      "8796093022207Mi", "8796093022208Mi", "9007199254740991Ki",
      "9007199254740992Ki", "9223372Ti", "9223372036854775k",
      "9223372036854776k", "9223372036854M", "9223372036855M", "9223372036G",
      "9223373G", "9223372T", "9223373T",
      // Milli scale overflows 1,000 times sooner.
      "9223372036854775", "9223372036854776", "9223372036854775807k"};
  for (const std::string& text : cases) ExpectSame(text);
}

}  // namespace
}  // namespace nodeplan
