#ifndef NODEPLAN_LIB_DISRUPTION_BUDGETS_H_
#define NODEPLAN_LIB_DISRUPTION_BUDGETS_H_

// NodePool disruption budgets (karpenter.sh/v1 NodePool.spec.disruption
// .budgets), evaluated as Karpenter's NodePool.GetAllowedDisruptionsByReason
// and BuildDisruptionBudgetMapping do.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan::disruption {

enum class Reason { kEmpty, kDrifted, kUnderutilized };
inline constexpr Reason kReasons[] = {Reason::kEmpty, Reason::kDrifted,
                                      Reason::kUnderutilized};
const char* ReasonName(Reason r);  // "Empty", "Drifted", "Underutilized"

inline constexpr int32_t kUnbounded = 2147483647;

struct BudgetWindow {
  // Whether the budget is active at `now` (no schedule: always).
  bool active = true;
  // The budget failed to parse (cron or nodes): the NodePool allows nothing.
  bool malformed = false;
  std::string error;
  // The next time its activity changes (a window opening or closing).
  std::optional<absl::Time> changes_at;
};

// One budget at `now`: active iff some cron activation H has
// now - duration < H <= now (robfig Next(now - duration) <= now), in UTC.
BudgetWindow EvaluateBudgetWindow(const v1::Budget& budget, absl::Time now);

struct Allowance {
  // Minimum over the active budgets applying to the reason (an absent
  // `reasons` applies to all); kUnbounded when none applies; 0 when any
  // budget of the NodePool is malformed (Karpenter fails closed).
  int32_t raw = kUnbounded;
  // Per budget in list order.
  std::vector<bool> active;
  bool malformed = false;
  std::optional<absl::Time> changes_at;
};

// `budgets` are the NodePool's budgets with CRD defaults already applied
// (absent -> [{nodes: "10%"}]); `num_nodes` the nodes counted for
// percentages. Percentages round up; integers are used as given (Go's int32
// conversion of larger values included).
Allowance AllowedDisruptions(const std::vector<v1::Budget>& budgets,
                             absl::Time now, int num_nodes, Reason reason);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_BUDGETS_H_
