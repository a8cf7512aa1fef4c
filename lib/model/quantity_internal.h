#ifndef NODEPLAN_LIB_MODEL_QUANTITY_INTERNAL_H_
#define NODEPLAN_LIB_MODEL_QUANTITY_INTERNAL_H_

// The exact (slow) quantity parsers behind ParseQuantityMilli /
// ParseQuantityValue, without their fast path for plain integers and common
// suffixes. Exposed only so that a differential test can check that the fast
// path gives exactly the same results.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nodeplan::quantity_internal {

absl::StatusOr<int64_t> ParseQuantityMilliExact(absl::string_view text);
absl::StatusOr<int64_t> ParseQuantityValueExact(absl::string_view text);

}  // namespace nodeplan::quantity_internal

#endif  // NODEPLAN_LIB_MODEL_QUANTITY_INTERNAL_H_
