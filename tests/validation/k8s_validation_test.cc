#include "validation/k8s_validation.h"

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nodeplan::validation {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Every hand-written matcher agrees with the CRD's own regular expression
// (run by std::regex on short strings, where its recursion is harmless) on
// random strings over the characters that matter for that pattern.
struct PatternCase {
  const char* name;
  absl::string_view pattern;
  bool (*matcher)(absl::string_view);
  std::string alphabet;
  std::vector<std::string> seeds;  // known matches, mutated too
};

std::string Mutate(const std::string& seed, const std::string& alphabet,
                   std::mt19937* rng) {
  std::string s = seed;
  std::uniform_int_distribution<int> op(0, 3);
  std::uniform_int_distribution<size_t> ch(0, alphabet.size() - 1);
  const int edits = std::uniform_int_distribution<int>(0, 3)(*rng);
  for (int e = 0; e < edits; ++e) {
    const size_t pos =
        s.empty() ? 0
                  : std::uniform_int_distribution<size_t>(0, s.size())(*rng);
    switch (op(*rng)) {
      case 0:
        s.insert(s.begin() + pos, alphabet[ch(*rng)]);
        break;
      case 1:
        if (pos < s.size()) s.erase(pos, 1);
        break;
      case 2:
        if (pos < s.size()) s[pos] = alphabet[ch(*rng)];
        break;
      default:
        break;
    }
  }
  return s;
}

TEST(Patterns, HandWrittenMatchersAgreeWithTheCrdRegex) {
  const PatternCase cases[] = {
      {"key",
       kQualifiedKeyPattern,
       MatchesQualifiedKey,
       "aZ09-_./",
       {"kubernetes.io/arch", "a", "example.com/My_Name.1", "a-b.c/d"}},
      {"label value",
       kLabelValuePattern,
       MatchesLabelValue,
       "aZ09-_./",
       {"", "on-demand", "A.b_c"}},
      {"duration or never",
       kDurationOrNeverPattern,
       MatchesDurationOrNever,
       "01smhNever",
       {"336h", "24h0m0s", "Never", "30s"}},
      {"duration",
       kDurationPattern,
       MatchesDuration,
       "01smhd",
       {"336h", "24h0m0s", "1m30s"}},
      {"budget duration",
       kBudgetDurationPattern,
       MatchesBudgetDuration,
       "012hms",
       {"10m", "1h30m", "8h0m0s", "2h0s"}},
      {"budget nodes",
       kBudgetNodesPattern,
       MatchesBudgetNodes,
       "0159%",
       {"10%", "100%", "5", "0"}},
      {"schedule",
       kSchedulePattern,
       MatchesSchedulePattern,
       "0*@ \t\nday",
       {"@daily", "0 9 * * 1-5", "* * * * *"}},
      {"quantity",
       kQuantityPattern,
       MatchesQuantity,
       "012.+-eEKiMmnu",
       {"100m", "1.5Gi", "2e3", "-.5", "+1E-2", "1E", "1Ei"}},
      {"group", kGroupPattern, MatchesGroup, "a./", {"eks.amazonaws.com"}},
      {"price", kPricePattern, MatchesPrice, "01.", {"0.0421", "3"}},
      {"price adjustment",
       kPriceAdjustmentPattern,
       MatchesPriceAdjustment,
       "0159.+-%",
       {"+10%", "-5%", "-0.02", "-100%", "+.5", "-15.5%"}},
  };
  std::mt19937 rng(20261129);
  for (const PatternCase& c : cases) {
    const std::regex re{std::string(c.pattern)};
    for (const std::string& seed : c.seeds) {
      ASSERT_TRUE(c.matcher(seed)) << c.name << ": " << seed;
    }
    for (int i = 0; i < 4000; ++i) {
      const std::string& seed = c.seeds[i % c.seeds.size()];
      const std::string s = Mutate(seed, c.alphabet, &rng);
      ASSERT_EQ(c.matcher(s), std::regex_search(s, re))
          << c.name << ": \"" << s << "\"";
    }
  }
}

TEST(Patterns, HugeInputsAreHandledWithoutRecursion) {
  const std::string long_value(1 << 20, 'a');
  EXPECT_TRUE(MatchesLabelValue(long_value));
  EXPECT_FALSE(MatchesSchedulePattern(long_value));
  EXPECT_FALSE(MatchesQuantity(long_value));
}

TEST(K8sValidators, QualifiedNameMessagesAreApimachinerys) {
  EXPECT_THAT(IsQualifiedName("example.com/MyName"), IsEmpty());
  EXPECT_THAT(
      IsQualifiedName("Bad_Domain/x"),
      ElementsAre(
          "prefix part a lowercase RFC 1123 subdomain must consist of "
          "lower case alphanumeric characters, '-' or '.', and must "
          "start and end with an alphanumeric character (e.g. "
          "'example.com', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9]"
          ")?)*')"));
  EXPECT_THAT(
      IsQualifiedName("-x"),
      ElementsAre("name part must consist of alphanumeric characters, '-', "
                  "'_' or '.', and must start and end with an alphanumeric "
                  "character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                  "regex used for validation is "
                  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
  EXPECT_THAT(IsQualifiedName("/x"),
              ElementsAre("prefix part must be non-empty"));
  EXPECT_EQ(IsQualifiedName("a/b/c").size(), 1u);
  EXPECT_THAT(IsQualifiedName(std::string(64, 'a')),
              ElementsAre("name part must be no more than 63 characters"));
  EXPECT_THAT(IsValidLabelValue(""), IsEmpty());
  EXPECT_THAT(IsValidLabelValue(std::string(64, 'a')),
              ElementsAre("must be no more than 63 characters"));
}

TEST(Cron, ParsesLikeRobfigParseStandard) {
  for (const char* ok :
       {"0 9 * * 1-5", "*/15 * * * *", "0 0 1 jan,jul *", "@daily", "@annually",
        "30 2 * * sun", "5/10 * * * ?"}) {
    EXPECT_EQ(CronError(ok), "") << ok;
  }
  EXPECT_EQ(CronError("61 * * * *"),
            "end of range (61) above maximum (59): 61");
  EXPECT_EQ(CronError("* * 0 * *"),
            "beginning of range (0) below minimum (1): 0");
  EXPECT_EQ(CronError("5-2 * * * *"),
            "beginning of range (5) beyond end of range (2): 5-2");
  EXPECT_EQ(CronError("* * * * * *"),
            "expected exactly 5 fields, found 6: [* * * * * *]");
  EXPECT_EQ(CronError("x * * * *"),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": "
            "invalid syntax");
  EXPECT_EQ(CronError("*/0 * * * *"),
            "step of range should be a positive number: */0");
  EXPECT_EQ(CronError("@fortnightly"), "unrecognized descriptor: @fortnightly");
}

TEST(Integers, NonNegativeLikeGoAtoi) {
  EXPECT_TRUE(IsNonNegativeInteger("4"));
  EXPECT_TRUE(IsNonNegativeInteger("+4"));
  EXPECT_TRUE(IsNonNegativeInteger("0"));
  EXPECT_FALSE(IsNonNegativeInteger("-1"));
  EXPECT_FALSE(IsNonNegativeInteger("4.5"));
  EXPECT_FALSE(IsNonNegativeInteger(" 4"));
  EXPECT_FALSE(IsNonNegativeInteger(""));
  EXPECT_FALSE(IsNonNegativeInteger("99999999999999999999"));
}

}  // namespace
}  // namespace nodeplan::validation
