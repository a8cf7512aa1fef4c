#include "disruption/budgets.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "disruption/cron.h"
#include "nodeplan/interner.h"
#include "nodeplan/quantity.h"

namespace nodeplan::disruption {
namespace {

// intstr.GetScaledValueFromIntOrPercent(GetIntStrFromValue(nodes), n, true).
absl::StatusOr<int32_t> ScaledNodes(const std::string& nodes, int num_nodes) {
  if (std::optional<int64_t> n = ParseGoInt(nodes); n.has_value()) {
    return static_cast<int32_t>(static_cast<uint32_t>(*n));  // Go's int32()
  }
  if (!absl::EndsWith(nodes, "%")) {
    return absl::InvalidArgumentError(
        "invalid value for IntOrString: invalid type: string is not a "
        "percentage");
  }
  absl::string_view digits(nodes);
  digits.remove_suffix(1);
  std::optional<int64_t> pct = ParseGoInt(digits);
  if (!pct.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid value for IntOrString: invalid value \"", nodes,
        "\": strconv.Atoi: parsing \"", digits, "\": invalid syntax"));
  }
  double v = std::ceil(static_cast<double>(*pct) *
                       static_cast<double>(num_nodes) / 100.0);
  if (v > 2147483647.0) return kUnbounded;
  if (v < -2147483648.0) return static_cast<int32_t>(-2147483647 - 1);
  return static_cast<int32_t>(v);
}

// The first instant after `t` at which the window's activity can differ from
// its activity at `t`: the next cron hit (opening) or the end of the hit that
// keeps it open.
std::optional<absl::Time> NextChange(const CronSchedule& cron,
                                     absl::Duration duration, absl::Time now,
                                     bool active) {
  if (active) {
    // Open until the last hit H <= now plus duration; find that last hit by
    // walking hits from now - duration.
    absl::Time h = cron.Next(now - duration);
    absl::Time last = h;
    for (int i = 0; i < 100000 && h <= now; ++i) {
      last = h;
      absl::Time n = cron.Next(h);
      if (n <= h) break;
      h = n;
    }
    return last + duration;
  }
  absl::Time h = cron.Next(now);
  if (h == GoZeroTime()) return std::nullopt;
  return h;
}

}  // namespace

const char* ReasonName(Reason r) {
  switch (r) {
    case Reason::kEmpty:
      return "Empty";
    case Reason::kDrifted:
      return "Drifted";
    case Reason::kUnderutilized:
      return "Underutilized";
  }
  return "";
}

BudgetWindow EvaluateBudgetWindow(const v1::Budget& budget, absl::Time now) {
  BudgetWindow w;
  if (budget.schedule().empty() && budget.duration().empty()) return w;
  absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(budget.schedule());
  if (!cron.ok()) {
    w.active = false;
    w.malformed = true;
    w.error = absl::StrCat("invariant violated, invalid cron, ",
                           cron.status().message());
    return w;
  }
  absl::Duration duration;
  if (!budget.duration().empty()) {
    absl::StatusOr<int64_t> nanos = ParseDuration(budget.duration());
    if (!nanos.ok() || *nanos == kNeverDuration) {
      w.active = false;
      w.malformed = true;
      w.error = absl::StrCat("invalid duration \"", budget.duration(), "\"");
      return w;
    }
    duration = absl::Nanoseconds(*nanos);
  }
  const absl::Time next = cron->Next(now - duration);
  w.active = !(next > now);
  w.changes_at = NextChange(*cron, duration, now, w.active);
  return w;
}

Allowance AllowedDisruptions(const std::vector<v1::Budget>& budgets,
                             absl::Time now, int num_nodes, Reason reason) {
  Allowance out;
  const std::string reason_name = ReasonName(reason);
  for (const v1::Budget& b : budgets) {
    BudgetWindow w = EvaluateBudgetWindow(b, now);
    out.active.push_back(w.active);
    if (w.changes_at.has_value() &&
        (!out.changes_at.has_value() || *w.changes_at < *out.changes_at)) {
      out.changes_at = w.changes_at;
    }
    int32_t value = kUnbounded;
    if (w.malformed) {
      out.malformed = true;
      value = 0;
    } else if (w.active) {
      absl::StatusOr<int32_t> n =
          ScaledNodes(b.nodes().empty() ? "10%" : b.nodes(), num_nodes);
      if (n.ok()) {
        value = *n;
      } else {
        out.malformed = true;
        value = 0;
      }
    }
    // Absent reasons mean every reason; "reasons: []" means none.
    const bool all_reasons =
        b.reasons().empty() &&
        std::find(b.present_empty_fields().begin(),
                  b.present_empty_fields().end(),
                  "reasons") == b.present_empty_fields().end();
    const bool applies =
        all_reasons || std::find(b.reasons().begin(), b.reasons().end(),
                                 reason_name) != b.reasons().end();
    if (applies) out.raw = std::min(out.raw, value);
  }
  if (out.malformed) out.raw = 0;
  return out;
}

}  // namespace nodeplan::disruption
