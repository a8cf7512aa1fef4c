#ifndef NODEPLAN_LIB_DISRUPTION_CLOCK_H_
#define NODEPLAN_LIB_DISRUPTION_CLOCK_H_

// Time as disruption reads it: RFC 3339 timestamps from object fields and
// Go durations, as Kubernetes and Karpenter write them. Nothing here reads a
// clock: the decision time is DisruptRequest.now.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace nodeplan::disruption {

// Parses an RFC 3339 timestamp ("2026-12-02T10:00:00Z", fractional seconds
// and offsets allowed). `field_path` names the field in the error.
absl::StatusOr<absl::Time> ParseTimestamp(absl::string_view text,
                                          absl::string_view field_path);

// A timestamp field that may be empty: nullopt when empty; an unparsable
// value is an error naming `field_path`.
absl::StatusOr<std::optional<absl::Time>> ParseOptionalTimestamp(
    absl::string_view text, absl::string_view field_path);

// Go's time.Format(time.RFC3339) in UTC: whole seconds, "Z".
std::string FormatTimestamp(absl::Time t);

// Go's time.Duration.String() ("1h2m3s", "15s", "0s").
std::string GoDuration(absl::Duration d);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_CLOCK_H_
