#ifndef NODEPLAN_QUANTITY_H_
#define NODEPLAN_QUANTITY_H_

// Kubernetes quantities ("100m", "1.5", "2e3", "1Gi", "500M") and Go/metav1
// durations ("30s", "24h0m0s", "Never") as exact integers.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nodeplan {

// The quantity in thousandths of a unit ("100m" -> 100, "2" -> 2000), rounded
// up as Kubernetes' Quantity.MilliValue() does (away from zero: "0.5m" -> 1,
// "-0.5m" -> -1). Errors name the malformed text or an overflow of int64.
// Stricter than Kubernetes in three corners, each an error here: text without
// a digit ("m", ".", "-"), which Kubernetes' parser reads as 0 although its
// documented pattern rejects it; results outside int64, which Kubernetes
// clamps or wraps; decimal exponents outside int32.
absl::StatusOr<int64_t> ParseQuantityMilli(absl::string_view text);

// The quantity in whole units ("1Gi" -> 1073741824, "100m" -> 1), rounded up
// as Kubernetes' Quantity.Value() does.
absl::StatusOr<int64_t> ParseQuantityValue(absl::string_view text);

// Canonical text of a milli-quantity the way Kubernetes prints CPU ("1500m",
// "2", "1k") and of a byte count the way it prints memory ("1Gi", "1536Mi",
// "100", "1500"; below 1024 Kubernetes switches to decimal SI, so 1000 ->
// "1k").
std::string FormatMilli(int64_t milli);
std::string FormatBytes(int64_t bytes);

// A duration in nanoseconds, Go's time.ParseDuration syntax ("1h30m", "1.5h",
// "300ms", "-2s"). "Never" (Karpenter's NillableDuration) parses to
// kNeverDuration. Errors read like Go's: `invalid duration "x"`,
// `missing unit in duration "1"`, `unknown unit "d" in duration "1d"`.
inline constexpr int64_t kNeverDuration = INT64_MAX;
absl::StatusOr<int64_t> ParseDuration(absl::string_view text);
// Go's time.Duration.String(): "24h0m0s", "30s", "1m30s", "0s", "1.5ms";
// kNeverDuration prints as "Never" so the two functions round-trip.
std::string FormatDuration(int64_t nanos);

}  // namespace nodeplan

#endif  // NODEPLAN_QUANTITY_H_
