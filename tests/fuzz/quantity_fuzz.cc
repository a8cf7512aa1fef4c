// Quantities and durations: the fast and the exact quantity parsers agree
// on every text (value or error), errors are bounded in time by
// limits::kMaxQuantityChars, and a parsed duration formats back to text that
// parses to the same value.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "model/quantity_internal.h"
#include "nodeplan/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using nodeplan::quantity_internal::ParseQuantityMilliExact;
  using nodeplan::quantity_internal::ParseQuantityValueExact;
  absl::StatusOr<int64_t> milli = nodeplan::ParseQuantityMilli(text);
  absl::StatusOr<int64_t> milli_exact = ParseQuantityMilliExact(text);
  if (milli.ok() != milli_exact.ok()) std::abort();
  if (milli.ok() && *milli != *milli_exact) std::abort();
  absl::StatusOr<int64_t> value = nodeplan::ParseQuantityValue(text);
  absl::StatusOr<int64_t> value_exact = ParseQuantityValueExact(text);
  if (value.ok() != value_exact.ok()) std::abort();
  if (value.ok() && *value != *value_exact) std::abort();
  if (milli.ok()) (void)nodeplan::FormatMilli(*milli);
  if (value.ok()) (void)nodeplan::FormatBytes(*value);

  absl::StatusOr<int64_t> nanos = nodeplan::ParseDuration(text);
  if (nanos.ok()) {
    const std::string formatted = nodeplan::FormatDuration(*nanos);
    absl::StatusOr<int64_t> back = nodeplan::ParseDuration(formatted);
    if (!back.ok() || *back != *nanos) std::abort();
  }
  return 0;
}
