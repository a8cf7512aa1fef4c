#include "disruption/cron.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nodeplan/interner.h"
#include "nodeplan/quantity.h"

namespace nodeplan::disruption {
namespace {

constexpr uint64_t kStarBit = uint64_t{1} << 63;

struct Bounds {
  unsigned min, max;
  // Lower-case names and their values (months, weekdays).
  const std::pair<const char*, unsigned>* names;
  int name_count;
};

constexpr std::pair<const char*, unsigned> kMonthNames[] = {
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6},
    {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
constexpr std::pair<const char*, unsigned> kDowNames[] = {
    {"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
    {"thu", 4}, {"fri", 5}, {"sat", 6}};

constexpr Bounds kMinutes{0, 59, nullptr, 0};
constexpr Bounds kHours{0, 23, nullptr, 0};
constexpr Bounds kDom{1, 31, nullptr, 0};
constexpr Bounds kMonths{1, 12, kMonthNames, 12};
constexpr Bounds kDow{0, 6, kDowNames, 7};

uint64_t Bits(unsigned min, unsigned max, unsigned step) {
  uint64_t bits = 0;
  for (unsigned i = min; i <= max; i += step) bits |= uint64_t{1} << i;
  return bits;
}

uint64_t All(const Bounds& b) { return Bits(b.min, b.max, 1) | kStarBit; }

// strconv.Atoi, then robfig's non-negative check.
absl::StatusOr<unsigned> ParseInt(absl::string_view expr) {
  std::optional<int64_t> n = ParseGoInt(expr);
  if (!n.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("failed to parse int from ", expr,
                     ": strconv.Atoi: parsing \"", expr, "\": invalid syntax"));
  }
  if (*n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative number (", *n, ") not allowed: ", expr));
  }
  // Larger values fail the range checks below either way.
  return static_cast<unsigned>(std::min<int64_t>(*n, 1 << 20));
}

absl::StatusOr<unsigned> ParseIntOrName(absl::string_view expr,
                                        const Bounds& b) {
  std::string lower = absl::AsciiStrToLower(expr);
  for (int i = 0; i < b.name_count; ++i) {
    if (lower == b.names[i].first) return b.names[i].second;
  }
  return ParseInt(expr);
}

absl::StatusOr<uint64_t> ParseRange(absl::string_view expr, const Bounds& b) {
  std::vector<absl::string_view> range_and_step = absl::StrSplit(expr, '/');
  std::vector<absl::string_view> low_high =
      absl::StrSplit(range_and_step[0], '-');
  const bool single = low_high.size() == 1;
  unsigned start = 0, end = 0, step = 1;
  uint64_t extra = 0;
  if (low_high[0] == "*" || low_high[0] == "?") {
    start = b.min;
    end = b.max;
    extra = kStarBit;
  } else {
    absl::StatusOr<unsigned> s = ParseIntOrName(low_high[0], b);
    if (!s.ok()) return s.status();
    start = end = *s;
    if (low_high.size() == 2) {
      absl::StatusOr<unsigned> e = ParseIntOrName(low_high[1], b);
      if (!e.ok()) return e.status();
      end = *e;
    } else if (low_high.size() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("too many hyphens: ", expr));
    }
  }
  if (range_and_step.size() == 2) {
    absl::StatusOr<unsigned> s = ParseInt(range_and_step[1]);
    if (!s.ok()) return s.status();
    step = *s;
    if (single) end = b.max;
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat("too many slashes: ", expr));
  }
  if (start < b.min) {
    return absl::InvalidArgumentError(absl::StrCat("beginning of range (",
                                                   start, ") below minimum (",
                                                   b.min, "): ", expr));
  }
  if (end > b.max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "end of range (", end, ") above maximum (", b.max, "): ", expr));
  }
  if (start > end) {
    return absl::InvalidArgumentError(
        absl::StrCat("beginning of range (", start, ") beyond end of range (",
                     end, "): ", expr));
  }
  if (step == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("step of range should be a positive number: ", expr));
  }
  return Bits(start, end, step) | extra;
}

absl::StatusOr<uint64_t> ParseField(absl::string_view field, const Bounds& b) {
  uint64_t bits = 0;
  for (absl::string_view expr : absl::StrSplit(field, ',', absl::SkipEmpty())) {
    absl::StatusOr<uint64_t> r = ParseRange(expr, b);
    if (!r.ok()) return r.status();
    bits |= *r;
  }
  return bits;
}

}  // namespace

absl::Time GoZeroTime() {
  return absl::FromCivil(absl::CivilSecond(1, 1, 1, 0, 0, 0),
                         absl::UTCTimeZone());
}

absl::StatusOr<CronSchedule> CronSchedule::Parse(absl::string_view spec) {
  spec = absl::StripAsciiWhitespace(spec);
  if (spec.empty()) return absl::InvalidArgumentError("empty spec string");
  CronSchedule s;
  if (absl::StartsWith(spec, "@")) {
    auto set = [&](uint64_t minute, uint64_t hour, uint64_t dom, uint64_t month,
                   uint64_t dow) {
      s.minute_ = minute;
      s.hour_ = hour;
      s.dom_ = dom;
      s.month_ = month;
      s.dow_ = dow;
    };
    const uint64_t m0 = uint64_t{1} << kMinutes.min;
    const uint64_t h0 = uint64_t{1} << kHours.min;
    if (spec == "@yearly" || spec == "@annually") {
      set(m0, h0, uint64_t{1} << kDom.min, uint64_t{1} << kMonths.min,
          All(kDow));
    } else if (spec == "@monthly") {
      set(m0, h0, uint64_t{1} << kDom.min, All(kMonths), All(kDow));
    } else if (spec == "@weekly") {
      set(m0, h0, All(kDom), All(kMonths), uint64_t{1} << kDow.min);
    } else if (spec == "@daily" || spec == "@midnight") {
      set(m0, h0, All(kDom), All(kMonths), All(kDow));
    } else if (spec == "@hourly") {
      set(m0, All(kHours), All(kDom), All(kMonths), All(kDow));
    } else if (absl::StartsWith(spec, "@every ")) {
      absl::string_view text = spec.substr(7);
      absl::StatusOr<int64_t> nanos = ParseDuration(text);
      if (!nanos.ok() || *nanos == kNeverDuration) {
        return absl::InvalidArgumentError(absl::StrCat(
            "failed to parse duration ", spec, ": ",
            nanos.ok() ? "invalid duration" : nanos.status().message()));
      }
      // robfig's Every: at least one second, whole seconds.
      int64_t seconds = *nanos / 1000000000;
      s.every_ = true;
      s.delay_ = absl::Seconds(seconds < 1 ? 1 : seconds);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unrecognized descriptor: ", spec));
    }
    return s;
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(spec, absl::ByAnyChar(" \t\n\r\v\f"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected exactly 5 fields, found ", fields.size(), ": [",
                     absl::StrJoin(fields, " "), "]"));
  }
  const Bounds* bounds[] = {&kMinutes, &kHours, &kDom, &kMonths, &kDow};
  uint64_t* out[] = {&s.minute_, &s.hour_, &s.dom_, &s.month_, &s.dow_};
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<uint64_t> bits = ParseField(fields[i], *bounds[i]);
    if (!bits.ok()) return bits.status();
    *out[i] = *bits;
  }
  return s;
}

absl::Time CronSchedule::Next(absl::Time t) const {
  const absl::TimeZone utc = absl::UTCTimeZone();
  // The upcoming whole second.
  absl::Time start =
      absl::FromUnixSeconds(absl::ToUnixSeconds(t)) + absl::Seconds(1);
  if (every_) {
    // ConstantDelaySchedule: t + delay, sub-second part dropped.
    return absl::FromUnixSeconds(absl::ToUnixSeconds(t)) + delay_;
  }
  absl::CivilSecond c = absl::ToCivilSecond(start, utc);
  const int64_t year_limit = c.year() + 5;
  bool added = false;
  auto has = [](uint64_t bits, int v) { return (bits >> v) & 1; };
  auto day_matches = [&](const absl::CivilSecond& x) {
    const bool dom = has(dom_, x.day());
    const int weekday =
        static_cast<int>(absl::GetWeekday(absl::CivilDay(x))) + 1;  // Mon=1
    const bool dow = has(dow_, weekday % 7);                        // Sun=0
    if ((dom_ & kStarBit) != 0 || (dow_ & kStarBit) != 0) return dom && dow;
    return dom || dow;
  };
wrap:
  if (c.year() > year_limit) return GoZeroTime();
  while (!has(month_, c.month())) {
    if (!added) {
      added = true;
      c = absl::CivilSecond(c.year(), c.month(), 1, 0, 0, 0);
    }
    c = absl::CivilSecond(absl::CivilMonth(c) + 1);
    if (c.month() == 1) goto wrap;
  }
  while (!day_matches(c)) {
    if (!added) {
      added = true;
      c = absl::CivilSecond(c.year(), c.month(), c.day(), 0, 0, 0);
    }
    c = absl::CivilSecond(absl::CivilDay(c) + 1);
    if (c.day() == 1) goto wrap;
  }
  while (!has(hour_, c.hour())) {
    if (!added) {
      added = true;
      c = absl::CivilSecond(absl::CivilHour(c));
    }
    c = absl::CivilSecond(absl::CivilHour(c) + 1);
    if (c.hour() == 0) goto wrap;
  }
  while (!has(minute_, c.minute())) {
    if (!added) {
      added = true;
      c = absl::CivilSecond(absl::CivilMinute(c));
    }
    c = absl::CivilSecond(absl::CivilMinute(c) + 1);
    if (c.minute() == 0) goto wrap;
  }
  // Field schedules fire at second 0.
  while (c.second() != 0) {
    if (!added) added = true;
    c += 1;
    if (c.second() == 0) goto wrap;
  }
  return absl::FromCivil(c, utc);
}

}  // namespace nodeplan::disruption
