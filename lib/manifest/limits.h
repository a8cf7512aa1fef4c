#ifndef NODEPLAN_LIB_MANIFEST_LIMITS_H_
#define NODEPLAN_LIB_MANIFEST_LIMITS_H_

// The manifest readers' share of nodeplan/limits.h, and the one error the
// three readers (JSON, fast YAML, libyaml) give alike for a document whose
// root cannot be an object, before they read further.

#include <cstddef>

#include "absl/status/status.h"
#include "nodeplan/limits.h"

namespace nodeplan::manifest {

inline constexpr size_t kMaxInputBytes = limits::kMaxManifestBytes;
inline constexpr size_t kMaxDocumentNodes = limits::kMaxDocumentNodes;

// "document N: a document must be a mapping (an object) (line L, column C)",
// as the loader words it for any root that is not a mapping.
absl::Status RootNotMapping(int document, uint32_t line, uint32_t column);

// "document N: more than kMaxDocumentNodes nodes ...": RESOURCE_EXHAUSTED.
absl::Status TooManyNodes(int document, uint32_t line, uint32_t column);

}  // namespace nodeplan::manifest

#endif  // NODEPLAN_LIB_MANIFEST_LIMITS_H_
