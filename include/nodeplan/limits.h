#ifndef NODEPLAN_LIMITS_H_
#define NODEPLAN_LIMITS_H_

// The input limits nodeplan enforces, in one place (docs/LIMITS.md explains
// each). Every limit is far above what a real cluster needs and low enough
// that no input can make a call run for long or allocate without bound.
// Past a limit a call fails, quickly and before the work that would cost,
// with RESOURCE_EXHAUSTED (a size: bytes, objects, copies) or
// INVALID_ARGUMENT (a malformed value such as an oversized quantity); the
// message names the limit (its constant here) and the field. The C ABI
// returns the same status codes, and the Python and Go bindings raise them
// as their nodeplan errors.

#include <cstddef>
#include <cstdint>

namespace nodeplan::limits {

// ---- bytes in
// ----------------------------------------------------------------

// The largest manifest text LoadManifests accepts (and the CLI reads per
// file): far above any cluster dump, far below what would exhaust memory.
inline constexpr size_t kMaxManifestBytes = size_t{256} << 20;

// Nodes in the parsed form of one YAML or JSON document (one scalar, or one
// collection start or end, each). kubectl's YAML has about one node per 12
// bytes, so a 100 MiB cluster dump needs about 9 million; 16 Mi nodes cost
// 512 MiB. Past it: RESOURCE_EXHAUSTED.
inline constexpr size_t kMaxDocumentNodes = size_t{1} << 24;

// Deepest nesting of YAML or JSON collections (Kubernetes objects need about
// 20). Past it: INVALID_ARGUMENT.
inline constexpr int kMaxNestingDepth = 200;

// ---- objects
// -----------------------------------------------------------------

// Replicas of one Deployment that Schedule expands into pending pods, and
// pending pods of a request in all (pods plus every Deployment's replicas).
// Every pending pod is planned, so these bound a request's work. Past them:
// RESOURCE_EXHAUSTED naming the Deployment's spec.replicas or the pods.
inline constexpr int64_t kMaxReplicas = 100000;
inline constexpr int64_t kMaxPendingPods = 1000000;

// Topology spread constraints of one pod (Kubernetes has no limit; real pods
// carry a handful). Past it: RESOURCE_EXHAUSTED naming the pod's
// spec.topologySpreadConstraints.
inline constexpr int kMaxTopologySpreadConstraints = 1000;

// ---- values
// ------------------------------------------------------------------

// Characters in one resource quantity ("512Mi", "0.5"). An int64 quantity
// needs at most about 30. Past it: INVALID_ARGUMENT naming the field.
inline constexpr size_t kMaxQuantityChars = 128;

// Characters in one duration ("336h", "24h0m0s"). Past it: INVALID_ARGUMENT.
inline constexpr size_t kMaxDurationChars = 128;

// The highest offering price, in USD per hour, a catalog or a NodeOverlay may
// give (the most expensive instance today costs about 100). Keeps every sum
// of prices finite. Past it: INVALID_ARGUMENT naming the offering's price.
inline constexpr double kMaxPricePerHour = 1e6;

}  // namespace nodeplan::limits

#endif  // NODEPLAN_LIMITS_H_
