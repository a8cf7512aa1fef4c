#ifndef NODEPLAN_RESOURCES_H_
#define NODEPLAN_RESOURCES_H_

// Resource lists as fixed-width integer vectors (Karpenter
// pkg/utils/resources, Kubernetes component-helpers PodRequests).
//
// Units: cpu in milli-cores; memory and ephemeral-storage in bytes; pods as
// a count (Quantity.Value(), rounded up); extended resources
// (nvidia.com/gpu, hugepages-2Mi, vpc.amazonaws.com/pod-eni, ...) in
// milli-units (Quantity.MilliValue(), exact for fractional values), keyed by
// their name interned in the Interner's KEY space.
//
// A Kubernetes ResourceList distinguishes "absent" from "0" (Subtract keeps
// only lhs keys, MinResources keeps keys present everywhere, messages print
// present keys), so a ResourceVector records presence too.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "nodeplan/interner.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan {

// int64 sums and differences that clamp to the type's range instead of
// overflowing: a request of 2^63-1 bytes is a valid Quantity (Karpenter's
// arithmetic is unbounded), and a wrapped sum would read as small enough to
// fit. Clamped, it stays past any allocatable.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  return r;
}
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  return r;
}

enum class Resource : uint8_t { kCpu = 0, kMemory, kPods, kEphemeralStorage };
inline constexpr int kFixedResources = 4;
// "cpu", "memory", "pods", "ephemeral-storage".
absl::string_view ResourceName(Resource r);

class ResourceVector {
 public:
  struct Extended {
    LabelKeyId name = kNoId;
    int64_t milli = 0;
    friend bool operator==(const Extended&, const Extended&) = default;
  };

  ResourceVector() = default;

  int64_t Get(Resource r) const { return fixed_[static_cast<int>(r)]; }
  bool Present(Resource r) const {
    return (present_ >> static_cast<int>(r)) & 1;
  }
  void Set(Resource r, int64_t v) {
    fixed_[static_cast<int>(r)] = v;
    present_ |= uint8_t{1} << static_cast<int>(r);
  }
  int64_t cpu_milli() const { return Get(Resource::kCpu); }
  int64_t memory() const { return Get(Resource::kMemory); }
  int64_t pods() const { return Get(Resource::kPods); }
  int64_t ephemeral_storage() const { return Get(Resource::kEphemeralStorage); }

  // Extended resources, sorted by name id.
  absl::Span<const Extended> extended() const { return extended_; }
  // nullopt when absent.
  std::optional<int64_t> GetExtended(LabelKeyId name) const;
  void SetExtended(LabelKeyId name, int64_t milli);

  bool empty() const { return present_ == 0 && extended_.empty(); }

  // Merge: per-resource sums (present = present on either side).
  void Add(const ResourceVector& other);
  // SubtractFrom: this -= other for every resource of `other` (adds keys).
  void SubtractAll(const ResourceVector& other);

  friend bool operator==(const ResourceVector&,
                         const ResourceVector&) = default;

 private:
  int64_t fixed_[kFixedResources] = {0, 0, 0, 0};
  uint8_t present_ = 0;
  absl::InlinedVector<Extended, 2> extended_;
};

// Parses a map<string,string> of quantities. Well-known names use their
// units above; every other name is an extended resource interned in `names`.
// Errors name `field_path`[name] and the malformed quantity. Sums saturate
// instead of overflowing everywhere in this header.
absl::StatusOr<ResourceVector> ParseResourceList(
    const google::protobuf::Map<std::string, std::string>& list,
    Interner& names, absl::string_view field_path = "resources");

// Merge(a, b).
ResourceVector Merge(const ResourceVector& a, const ResourceVector& b);
// Subtract(lhs, rhs): lhs - rhs over the keys of lhs only.
ResourceVector Subtract(const ResourceVector& lhs, const ResourceVector& rhs);
// MaxResources: per-key max over the union of keys.
ResourceVector MaxResources(const ResourceVector& a, const ResourceVector& b);
// MinResources: per-key min over keys present in both.
ResourceVector MinResources(const ResourceVector& a, const ResourceVector& b);

// Fits(candidate, total): false if any quantity of `total` is negative;
// otherwise every candidate quantity must be <= total's, a resource absent
// from total counting as 0. Never allocates.
bool Fits(const ResourceVector& candidate, const ResourceVector& total);

// Pod requests as Kubernetes' PodRequests computes them for a pod the API
// server admitted: per container, a resource with a limit but no request
// requests its limit (API defaulting); app containers sum; each sidecar
// (init container with restartPolicy Always) adds to the running sum; each
// init container's footprint is its request plus the sidecars declared before
// it; the result is the per-resource max of the app sum and every init
// footprint. Pod-level resources (spec.resources, Kubernetes 1.34+) then
// replace that aggregate for cpu, memory and hugepages-*: a pod-level request
// as written, else (the API server's defaulting, only when pod-level limits
// exist) the pod-level limit, except that a hugepages-* resource the
// containers request keeps their aggregate. Other names at pod level are
// ignored here (validation refuses them). Then spec.overhead is added. No
// `pods` entry (see RequestsForPod). Errors name the field under
// `spec_path` (the PodSpec's own path, "spec" for a Pod's).
absl::StatusOr<ResourceVector> PodRequests(
    const v1::PodSpec& spec, Interner& names,
    absl::string_view spec_path = "spec");
// The resources pod-level resources may name: cpu, memory, hugepages-*
// (component-helpers IsSupportedPodLevelResource).
bool IsPodLevelResource(absl::string_view name);
// Karpenter's RequestsForPods for one pod: PodRequests plus pods = 1.
absl::StatusOr<ResourceVector> RequestsForPod(
    const v1::PodSpec& spec, Interner& names,
    absl::string_view spec_path = "spec");
// PodRequests' init/sidecar/app combination over already-parsed per-container
// requests (each element already limits-defaulted), for callers that cache
// container vectors. `init_is_sidecar[i]` flags init container i.
ResourceVector CombineContainerRequests(
    absl::Span<const ResourceVector> containers,
    absl::Span<const ResourceVector> init_containers,
    absl::Span<const bool> init_is_sidecar);

// Allocatable = capacity - (kube_reserved + system_reserved +
// eviction_threshold), per key of capacity; then memory is reduced by every
// hugepages-* capacity and floored at 0 (Karpenter's InstanceType
// allocatable).
ResourceVector Allocatable(const ResourceVector& capacity,
                           const ResourceVector& kube_reserved,
                           const ResourceVector& system_reserved,
                           const ResourceVector& eviction_threshold,
                           const Interner& names);
// The same from the overhead already merged:
// Merge(Merge(kube_reserved, system_reserved), eviction_threshold).
ResourceVector Allocatable(const ResourceVector& capacity,
                           const ResourceVector& overhead,
                           const Interner& names);

// Karpenter's resources.String: "{}" when empty, else compact JSON with
// sorted names and Kubernetes quantity text: {"cpu":"1500m","memory":"1Gi",
// "pods":"1"}. Extended resources print as whole units when integral
// (hugepages-* in binary-SI bytes), else as milli ("500m").
std::string ResourcesString(const ResourceVector& resources,
                            const Interner& names);

// The one quantity printer behind ResourcesString and every resource list
// nodeplan renders: the text of `value` for the resource `name`. cpu is in
// milli-cores ("1500m", "2"); with `milli_units` any other value is in
// milli-units and prints as milli when fractional ("500m"); otherwise (or
// once whole) memory, ephemeral-storage and hugepages-* print in binary-SI
// bytes ("1Gi") and the rest as an integer.
std::string ResourceQuantityText(absl::string_view name, int64_t value,
                                 bool milli_units);
// Karpenter's resources.String over (name, quantity text) entries: sorted by
// name, compact JSON, "{}" when there are none.
std::string ResourceListString(
    std::vector<std::pair<absl::string_view, std::string>> entries);

}  // namespace nodeplan

#endif  // NODEPLAN_RESOURCES_H_
