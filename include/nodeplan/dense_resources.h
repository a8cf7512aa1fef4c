#ifndef NODEPLAN_DENSE_RESOURCES_H_
#define NODEPLAN_DENSE_RESOURCES_H_

// Resource lists in dense form: nodeplan::ResourceVector (resources.h,
// which parses, sums and prints every list) projected onto a fixed-width
// array over the resource names one request uses, so that inner loops (the
// scheduler's fit index, per-pod sums, remaining capacity) add and compare
// without looking names up. CPU is held in millicores; every other resource
// (memory, pods, ephemeral-storage, extended resources) in whole units
// rounded up, as Kubernetes' Quantity.Value() does. A request may use at
// most kMaxResourceDims distinct names (an error names the one too many).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/map.h"
#include "nodeplan/interner.h"
#include "nodeplan/resources.h"

namespace nodeplan {

inline constexpr int kMaxResourceDims = 16;
// The first four dimensions are nodeplan::Resource's.
inline constexpr int kDimCpu = 0, kDimMemory = 1, kDimPods = 2,
                     kDimEphemeral = 3;

struct DenseResources {
  std::array<int64_t, kMaxResourceDims> v{};
  int64_t& operator[](int i) { return v[i]; }
  int64_t operator[](int i) const { return v[i]; }
  // Saturating, per dimension.
  DenseResources& operator+=(const DenseResources& o) {
    for (int i = 0; i < kMaxResourceDims; ++i)
      v[i] = SaturatingAdd(v[i], o.v[i]);
    return *this;
  }
  bool operator==(const DenseResources& o) const { return v == o.v; }
};
inline DenseResources operator+(DenseResources a, const DenseResources& b) {
  return a += b;
}
// Every entry of `need` at most the matching entry of `have`.
inline bool Fits(const DenseResources& need, const DenseResources& have) {
  for (int i = 0; i < kMaxResourceDims; ++i)
    if (need.v[i] > have.v[i]) return false;
  return true;
}

// Resource name <-> dimension.
class ResourceDims {
 public:
  ResourceDims();
  // The dimension of `name`, adding it; -1 when more than kMaxResourceDims
  // exist.
  int Dim(absl::string_view name);
  int Find(absl::string_view name) const;
  const std::string& Name(int dim) const { return names_[dim]; }
  int size() const { return static_cast<int>(names_.size()); }
  // Kubernetes quantity text of `value` in dimension `dim`
  // (ResourceQuantityText), as Karpenter prints a canonical Quantity.
  std::string Format(int dim, int64_t value) const;
  // A resource list parsed by nodeplan::ParseResourceList, in these
  // dimensions (FromVector); `path` names the field in errors and is built
  // only for one. `present_mask` gains the dimensions the list names.
  absl::StatusOr<DenseResources> ParseList(
      const google::protobuf::Map<std::string, std::string>& list,
      Interner& names, const std::string& path,
      uint32_t* present_mask = nullptr);
  absl::StatusOr<DenseResources> ParseList(
      const google::protobuf::Map<std::string, std::string>& list,
      Interner& names, absl::FunctionRef<std::string()> path,
      uint32_t* present_mask = nullptr);
  // `v` (nodeplan/resources.h) in these dimensions, adding the dimensions of
  // its extended resources (new ones in name order); an extended resource's
  // milli-units round up to whole units. `path` names the object in errors.
  absl::StatusOr<DenseResources> FromVector(
      const ResourceVector& v, const Interner& names,
      absl::FunctionRef<std::string()> path);
  // Karpenter's resources.String (ResourceListString): {"cpu":"1",
  // "memory":"1Gi"} sorted by name, non-zero entries (and entries in
  // `mask`) only.
  std::string String(const DenseResources& v, uint32_t mask = 0) const;

 private:
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, int> dims_;
};

}  // namespace nodeplan

#endif  // NODEPLAN_DENSE_RESOURCES_H_
