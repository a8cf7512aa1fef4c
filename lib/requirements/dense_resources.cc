#include "nodeplan/dense_resources.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace nodeplan {

// The first four dimensions are nodeplan::Resource's.
static_assert(kDimCpu == static_cast<int>(Resource::kCpu) &&
              kDimMemory == static_cast<int>(Resource::kMemory) &&
              kDimPods == static_cast<int>(Resource::kPods) &&
              kDimEphemeral == static_cast<int>(Resource::kEphemeralStorage));
ResourceDims::ResourceDims() {
  for (const char* n : {"cpu", "memory", "pods", "ephemeral-storage"}) Dim(n);
}

int ResourceDims::Dim(absl::string_view name) {
  auto it = dims_.find(name);
  if (it != dims_.end()) return it->second;
  if (static_cast<int>(names_.size()) >= kMaxResourceDims) return -1;
  int d = static_cast<int>(names_.size());
  names_.emplace_back(name);
  dims_.emplace(std::string(name), d);
  return d;
}

int ResourceDims::Find(absl::string_view name) const {
  auto it = dims_.find(name);
  return it == dims_.end() ? -1 : it->second;
}

std::string ResourceDims::Format(int dim, int64_t value) const {
  return ResourceQuantityText(names_[dim], value, /*milli_units=*/false);
}

absl::StatusOr<DenseResources> ResourceDims::ParseList(
    const google::protobuf::Map<std::string, std::string>& list,
    Interner& names, const std::string& path, uint32_t* present_mask) {
  return ParseList(
      list, names, [&] { return path; }, present_mask);
}

absl::StatusOr<DenseResources> ResourceDims::ParseList(
    const google::protobuf::Map<std::string, std::string>& list,
    Interner& names, absl::FunctionRef<std::string()> path,
    uint32_t* present_mask) {
  absl::StatusOr<ResourceVector> parsed = ParseResourceList(list, names, "");
  // The field path is built only for an error.
  if (!parsed.ok()) parsed = ParseResourceList(list, names, path());
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<DenseResources> out = FromVector(*parsed, names, path);
  if (!out.ok() || present_mask == nullptr) return out;
  for (int r = 0; r < kFixedResources; ++r)
    if (parsed->Present(static_cast<Resource>(r))) *present_mask |= 1u << r;
  for (const ResourceVector::Extended& e : parsed->extended())
    *present_mask |= 1u << Find(names.KeyText(e.name));
  return out;
}

namespace {

// Whole units of a quantity held in milli-units, rounded away from zero as
// Quantity.Value() rounds the text.
int64_t WholeUnits(int64_t milli) {
  if (milli >= 0) return milli / 1000 + (milli % 1000 != 0 ? 1 : 0);
  return -WholeUnits(-milli);
}

}  // namespace

absl::StatusOr<DenseResources> ResourceDims::FromVector(
    const ResourceVector& v, const Interner& names,
    absl::FunctionRef<std::string()> path) {
  DenseResources out;
  out[kDimCpu] = v.cpu_milli();
  out[kDimMemory] = v.memory();
  out[kDimPods] = v.pods();
  out[kDimEphemeral] = v.ephemeral_storage();
  if (v.extended().empty()) return out;
  // Dimensions for new names in name order, so their numbering does not
  // depend on the order the names were interned in.
  std::vector<absl::string_view> fresh;
  for (const ResourceVector::Extended& e : v.extended()) {
    absl::string_view name = names.KeyText(e.name);
    if (Find(name) < 0) fresh.push_back(name);
  }
  std::sort(fresh.begin(), fresh.end());
  for (absl::string_view name : fresh) {
    if (Dim(name) < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(path(), "[", name, "]: more than ", kMaxResourceDims,
                       " distinct resource names are not supported"));
  }
  for (const ResourceVector::Extended& e : v.extended())
    out[Find(names.KeyText(e.name))] = WholeUnits(e.milli);
  return out;
}

std::string ResourceDims::String(const DenseResources& v, uint32_t mask) const {
  std::vector<std::pair<absl::string_view, std::string>> entries;
  for (int d = 0; d < size(); ++d)
    if (v[d] != 0 || (mask & (1u << d)))
      entries.emplace_back(names_[d], Format(d, v[d]));
  return ResourceListString(std::move(entries));
}

}  // namespace nodeplan
