#include "disruption/clock.h"

#include "absl/strings/str_cat.h"
#include "nodeplan/quantity.h"

namespace nodeplan::disruption {

absl::StatusOr<absl::Time> ParseTimestamp(absl::string_view text,
                                          absl::string_view field_path) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field_path, ": \"", text,
                     "\" is not an RFC 3339 timestamp (", err, ")"));
  }
  return t;
}

absl::StatusOr<std::optional<absl::Time>> ParseOptionalTimestamp(
    absl::string_view text, absl::string_view field_path) {
  if (text.empty()) return std::optional<absl::Time>();
  absl::StatusOr<absl::Time> t = ParseTimestamp(text, field_path);
  if (!t.ok()) return t.status();
  return std::optional<absl::Time>(*t);
}

std::string FormatTimestamp(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%SZ",
                          absl::FromUnixSeconds(absl::ToUnixSeconds(t)),
                          absl::UTCTimeZone());
}

std::string GoDuration(absl::Duration d) {
  return FormatDuration(absl::ToInt64Nanoseconds(d));
}

}  // namespace nodeplan::disruption
