// NodePool disruption budgets, after Karpenter's nodepool_budgets_test.go.

#include "disruption/budgets.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace nodeplan::disruption {
namespace {

absl::Time T(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s),
                         absl::UTCTimeZone());
}

v1::Budget B(const std::string& nodes, const std::string& schedule = "",
             const std::string& duration = "",
             std::vector<std::string> reasons = {}) {
  v1::Budget b;
  b.set_nodes(nodes);
  b.set_schedule(schedule);
  b.set_duration(duration);
  for (const std::string& r : reasons) b.add_reasons(r);
  return b;
}

// Karpenter's fixture: three budgets for every reason, two reason-specific
// ones and a weekly zero budget for all three reasons.
std::vector<v1::Budget> KarpenterBudgets() {
  return {B("10", "* * * * *", "1h"),
          B("100", "* * * * *", "1h"),
          B("100%", "* * * * *", "1h"),
          B("15", "* * * * *", "1h", {"Drifted", "Underutilized"}),
          B("5", "* * * * *", "1h", {"Drifted"}),
          B("0", "@weekly", "1h", {"Underutilized", "Drifted", "Empty"})};
}

const absl::Time kJune2000 = T(2000, 6, 15, 12, 30, 30);

TEST(BudgetsTest, MinimumOfActiveBudgetsPerReason) {
  std::vector<v1::Budget> b = KarpenterBudgets();
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 100, Reason::kEmpty).raw, 10);
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 100, Reason::kDrifted).raw, 5);
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 100, Reason::kUnderutilized).raw,
            10);
}

TEST(BudgetsTest, ActiveZeroBudgetForAllReasonsBlocksAll) {
  std::vector<v1::Budget> b = KarpenterBudgets();
  b[5].set_schedule("* * * * *");
  for (Reason r : kReasons) {
    EXPECT_EQ(AllowedDisruptions(b, kJune2000, 100, r).raw, 0) << ReasonName(r);
  }
}

TEST(BudgetsTest, NoActiveBudgetIsUnbounded) {
  std::vector<v1::Budget> b = KarpenterBudgets();
  for (v1::Budget& x : b) {
    x.set_schedule("@yearly");
    x.set_duration("1h");
  }
  for (Reason r : kReasons) {
    Allowance a = AllowedDisruptions(b, kJune2000, 100, r);
    EXPECT_EQ(a.raw, kUnbounded);
    EXPECT_EQ(a.active, std::vector<bool>(6, false));
  }
}

TEST(BudgetsTest, InactiveReasonBudgetsAreIgnored) {
  std::vector<v1::Budget> b = KarpenterBudgets();
  b[3].set_schedule("@yearly");
  b[4].set_schedule("@yearly");
  for (Reason r : kReasons) {
    EXPECT_EQ(AllowedDisruptions(b, kJune2000, 100, r).raw, 10);
  }
}

TEST(BudgetsTest, PercentagesRoundUp) {
  std::vector<v1::Budget> b = {B("10%")};
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 0, Reason::kEmpty).raw, 0);
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 1, Reason::kEmpty).raw, 1);
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 10, Reason::kEmpty).raw, 1);
  EXPECT_EQ(AllowedDisruptions(b, kJune2000, 11, Reason::kEmpty).raw, 2);
  EXPECT_EQ(AllowedDisruptions({B("100%")}, kJune2000, 7, Reason::kEmpty).raw,
            7);
  // Integers are used as given, even above the node count.
  EXPECT_EQ(AllowedDisruptions({B("25")}, kJune2000, 3, Reason::kEmpty).raw,
            25);
}

TEST(BudgetsTest, MalformedBudgetFailsClosedForEveryReason) {
  // A bad cron on a budget that applies to Drifted only still closes Empty.
  std::vector<v1::Budget> b = {B("10"), B("5", "@wrongly", "1h", {"Drifted"})};
  Allowance a = AllowedDisruptions(b, kJune2000, 100, Reason::kEmpty);
  EXPECT_TRUE(a.malformed);
  EXPECT_EQ(a.raw, 0);
  EXPECT_EQ(AllowedDisruptions({B("ten")}, kJune2000, 100, Reason::kEmpty).raw,
            0);
  EXPECT_EQ(AllowedDisruptions({B("5.5%")}, kJune2000, 100, Reason::kEmpty).raw,
            0);
}

TEST(BudgetsTest, MalformedNodesOnAnInactiveBudgetDoesNotMatter) {
  EXPECT_EQ(AllowedDisruptions({B("ten", "@yearly", "1h"), B("3")}, kJune2000,
                               100, Reason::kEmpty)
                .raw,
            3);
}

struct WindowCase {
  const char* name;
  absl::Time now;
  const char* schedule;
  const char* duration;
  bool active;
};

TEST(BudgetsTest, ScheduleWindows) {
  const WindowCase cases[] = {
      {"every minute for an hour", kJune2000, "* * * * *", "1h", true},
      {"yearly, not now", kJune2000, "@yearly", "1h", false},
      // UTC: 00:00 in a zone one hour ahead is 23:00 UTC the day before.
      {"daily in UTC", T(2000, 5, 31, 23, 0), "@daily", "30m", false},
      {"hit in the middle of the window", T(1000, 1, 1, 12, 0), "@yearly",
       "24h", true},
      {"window longer than the recurrence", T(2024, 1, 7, 0, 0), "@daily",
       "48h", true},
      {"hit after the window", T(2024, 1, 7, 0, 0), "30 6 * * SUN", "6h",
       false},
      // The window is (hit - duration, hit]: active exactly at the hit...
      {"at the hit", T(2026, 12, 2, 9, 0), "0 9 * * *", "1h", true},
      // ...and one duration later no longer.
      {"one duration after the hit", T(2026, 12, 2, 10, 0), "0 9 * * *", "1h",
       false},
      {"just before the end", T(2026, 12, 2, 9, 59, 59), "0 9 * * *", "1h",
       true},
      {"impossible date is always active (Go's zero time)", kJune2000,
       "0 0 30 2 *", "1h", true},
  };
  for (const WindowCase& c : cases) {
    BudgetWindow w =
        EvaluateBudgetWindow(B("0", c.schedule, c.duration), c.now);
    EXPECT_FALSE(w.malformed) << c.name << ": " << w.error;
    EXPECT_EQ(w.active, c.active) << c.name;
  }
}

TEST(BudgetsTest, CronErrorIsReported) {
  BudgetWindow w = EvaluateBudgetWindow(B("0", "0 0 * * tue-mon", "6h"),
                                        T(2024, 1, 7, 0, 0));
  EXPECT_TRUE(w.malformed);
  EXPECT_NE(w.error.find("beginning of range (2) beyond end of range (1)"),
            std::string::npos)
      << w.error;
}

TEST(BudgetsTest, ActiveWindowReportsWhenItCloses) {
  BudgetWindow w =
      EvaluateBudgetWindow(B("0", "0 9 * * *", "2h"), T(2026, 12, 2, 10, 0));
  ASSERT_TRUE(w.active);
  ASSERT_TRUE(w.changes_at.has_value());
  EXPECT_EQ(*w.changes_at, T(2026, 12, 2, 11, 0));
  BudgetWindow closed =
      EvaluateBudgetWindow(B("0", "0 9 * * *", "2h"), T(2026, 12, 2, 12, 0));
  ASSERT_FALSE(closed.active);
  EXPECT_EQ(*closed.changes_at, T(2026, 12, 3, 9, 0));
}

}  // namespace
}  // namespace nodeplan::disruption
