#ifndef NODEPLAN_LIB_SCHEDULING_RESOURCES_H_
#define NODEPLAN_LIB_SCHEDULING_RESOURCES_H_

// The scheduler's dense form of nodeplan::ResourceVector (nodeplan/
// resources.h, which parses and sums every list): a fixed-width array over
// the resource names one request uses, so that the inner loops add and
// compare without looking names up. CPU is held in millicores; every other
// resource (memory, pods, ephemeral-storage, extended resources) in whole
// units rounded up, as Kubernetes' Quantity.Value() does.

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

namespace nodeplan::scheduling {

inline constexpr int kMaxDims = 16;
inline constexpr int kCpu = 0, kMemory = 1, kPods = 2, kEphemeral = 3;

struct ResVec {
  std::array<int64_t, kMaxDims> v{};
  int64_t& operator[](int i) { return v[i]; }
  int64_t operator[](int i) const { return v[i]; }
  ResVec& operator+=(const ResVec& o) {
    for (int i = 0; i < kMaxDims; ++i) v[i] += o.v[i];
    return *this;
  }
  bool operator==(const ResVec& o) const { return v == o.v; }
};
inline ResVec operator+(ResVec a, const ResVec& b) { return a += b; }
// Every entry of `need` at most the matching entry of `have`.
inline bool Fits(const ResVec& need, const ResVec& have) {
  for (int i = 0; i < kMaxDims; ++i)
    if (need.v[i] > have.v[i]) return false;
  return true;
}

// Resource name <-> dimension.
class ResourceDims {
 public:
  ResourceDims();
  // The dimension of `name`, adding it; -1 when more than kMaxDims exist.
  int Dim(absl::string_view name);
  int Find(absl::string_view name) const;
  const std::string& Name(int dim) const { return names_[dim]; }
  int size() const { return static_cast<int>(names_.size()); }
  // Kubernetes quantity text (nodeplan/quantity.h FormatMilli for cpu,
  // FormatBytes for memory, ephemeral-storage and hugepages-*, a plain
  // integer otherwise), as Karpenter prints a canonical Quantity.
  std::string Format(int dim, int64_t value) const;
  // A resource list parsed by nodeplan::ParseResourceList, in these
  // dimensions (FromVector); `path` names the field in errors and is built
  // only for one. `present_mask` gains the dimensions the list names.
  absl::StatusOr<ResVec> ParseList(
      const google::protobuf::Map<std::string, std::string>& list,
      Interner& names, const std::string& path,
      uint32_t* present_mask = nullptr);
  absl::StatusOr<ResVec> ParseList(
      const google::protobuf::Map<std::string, std::string>& list,
      Interner& names, absl::FunctionRef<std::string()> path,
      uint32_t* present_mask = nullptr);
  // `v` (nodeplan/resources.h) in these dimensions, adding the dimensions of
  // its extended resources (new ones in name order); an extended resource's
  // milli-units round up to whole units. `path` names the object in errors.
  absl::StatusOr<ResVec> FromVector(const ResourceVector& v,
                                    const Interner& names,
                                    absl::FunctionRef<std::string()> path);
  // Karpenter's resources.String: {"cpu":"1","memory":"1Gi"} sorted by name,
  // non-zero entries (and entries in `mask`) only.
  std::string String(const ResVec& v, uint32_t mask = 0) const;

 private:
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, int> dims_;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_RESOURCES_H_
