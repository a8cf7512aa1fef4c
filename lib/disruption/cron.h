#ifndef NODEPLAN_LIB_DISRUPTION_CRON_H_
#define NODEPLAN_LIB_DISRUPTION_CRON_H_

// Cron schedules of NodePool disruption budgets, read as Karpenter reads them:
// robfig/cron v3's standard parser over "TZ=UTC <schedule>". Debian packages
// no maintained C++ cron library, so this is a small parser of that grammar:
//  - five whitespace-separated fields: minute (0-59), hour (0-23), day of
//    month (1-31), month (1-12 or jan-dec), day of week (0-6 or sun-sat;
//    names case-insensitive);
//  - each field a comma list of `*`, `?`, `n`, `a-b`, each optionally
//    `/step` (`n/step` means n through the field's maximum);
//  - the descriptors @yearly, @annually, @monthly, @weekly, @daily,
//    @midnight, @hourly, and `@every <Go duration>`.
// Day matching follows robfig: when either day field starts with `*` or `?`
// (and has no step above 1) a day must match both fields, otherwise either.
// Every schedule is evaluated in UTC.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace nodeplan::disruption {

class CronSchedule {
 public:
  // Errors carry robfig's wording (e.g. "expected exactly 5 fields, found 4:
  // [0 0 * *]", "end of range (60) above maximum (59): 0-60").
  static absl::StatusOr<CronSchedule> Parse(absl::string_view spec);

  // robfig's Schedule.Next: the first activation strictly after `t` (at a
  // whole second; for field schedules at second 0). When none exists within
  // five years (e.g. "0 0 30 2 *"), Go returns its zero time, year 1: so is
  // this function (absl::FromCivil of 0001-01-01T00:00:00 UTC).
  absl::Time Next(absl::Time t) const;

 private:
  bool every_ = false;
  absl::Duration delay_;  // @every
  uint64_t minute_ = 0, hour_ = 0, dom_ = 0, month_ = 0, dow_ = 0;
};

// The zero time Go's cron returns when nothing activates (0001-01-01 UTC).
absl::Time GoZeroTime();

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_CRON_H_
