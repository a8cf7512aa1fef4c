#ifndef NODEPLAN_LIB_MANIFEST_LIMITS_H_
#define NODEPLAN_LIB_MANIFEST_LIMITS_H_

#include <cstddef>

namespace nodeplan::manifest {

// The largest input LoadManifests accepts (and LoadManifestFiles reads per
// file): far above any cluster dump, far below what would exhaust memory.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;

}  // namespace nodeplan::manifest

#endif  // NODEPLAN_LIB_MANIFEST_LIMITS_H_
