#include "scheduling/resources.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/quantity.h"

namespace nodeplan::scheduling {
ResourceDims::ResourceDims() {
  for (const char* n : {"cpu", "memory", "pods", "ephemeral-storage"}) Dim(n);
}

int ResourceDims::Dim(absl::string_view name) {
  auto it = dims_.find(name);
  if (it != dims_.end()) return it->second;
  if (static_cast<int>(names_.size()) >= kMaxDims) return -1;
  int d = static_cast<int>(names_.size());
  names_.emplace_back(name);
  dims_.emplace(std::string(name), d);
  return d;
}

int ResourceDims::Find(absl::string_view name) const {
  auto it = dims_.find(name);
  return it == dims_.end() ? -1 : it->second;
}

absl::StatusOr<int64_t> ResourceDims::Parse(int dim,
                                            absl::string_view text) const {
  return dim == kCpu ? ParseQuantityMilli(text) : ParseQuantityValue(text);
}

std::string ResourceDims::Format(int dim, int64_t value) const {
  if (dim == kCpu) return FormatMilli(value);
  if (dim == kMemory || dim == kEphemeral ||
      absl::StrContains(names_[dim], "hugepages"))
    return FormatBytes(value);
  return absl::StrCat(value);
}

absl::StatusOr<ResVec> ResourceDims::ParseList(
    const google::protobuf::Map<std::string, std::string>& list,
    const std::string& path, uint32_t* present_mask) {
  return ParseList(
      list, [&] { return path; }, present_mask);
}

absl::StatusOr<ResVec> ResourceDims::ParseList(
    const google::protobuf::Map<std::string, std::string>& list,
    absl::FunctionRef<std::string()> path, uint32_t* present_mask) {
  ResVec out;
  // Fast path, in map order: every name already has a dimension and every
  // quantity parses (a sum does not depend on the order).
  bool fast = true;
  uint32_t mask = 0;
  for (const auto& [name, text] : list) {
    const int d = Find(name);
    if (d < 0) {
      fast = false;
      break;
    }
    absl::StatusOr<int64_t> q = Parse(d, text);
    if (!q.ok() || *q < 0) {
      fast = false;
      break;
    }
    out[d] += *q;
    mask |= 1u << d;
  }
  if (fast) {
    if (present_mask) *present_mask |= mask;
    return out;
  }
  // New names get dimensions in name order, and the first error is the
  // first in name order, so neither depends on the map's iteration order.
  out = ResVec{};
  std::vector<std::pair<std::string, std::string>> items(list.begin(),
                                                         list.end());
  std::sort(items.begin(), items.end());
  for (const auto& [name, text] : items) {
    int d = Dim(name);
    if (d < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(path(), "[", name, "]: more than ", kMaxDims,
                       " distinct resource names are not supported"));
    auto q = Parse(d, text);
    if (!q.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(path(), "[", name, "]: ", q.status().message()));
    if (*q < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(path(), "[", name, "]: Invalid value: \"", text,
                       "\": must be greater than or equal to 0"));
    out[d] += *q;
    if (present_mask) *present_mask |= 1u << d;
  }
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

absl::StatusOr<ResVec> ResourceDims::FromVector(
    const ResourceVector& v, const Interner& names,
    absl::FunctionRef<std::string()> path) {
  ResVec out;
  out[kCpu] = v.cpu_milli();
  out[kMemory] = v.memory();
  out[kPods] = v.pods();
  out[kEphemeral] = v.ephemeral_storage();
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
          absl::StrCat(path(), "[", name, "]: more than ", kMaxDims,
                       " distinct resource names are not supported"));
  }
  for (const ResourceVector::Extended& e : v.extended())
    out[Find(names.KeyText(e.name))] = WholeUnits(e.milli);
  return out;
}

std::string ResourceDims::String(const ResVec& v, uint32_t mask) const {
  std::vector<std::pair<std::string, std::string>> items;
  for (int d = 0; d < size(); ++d)
    if (v[d] != 0 || (mask & (1u << d)))
      items.emplace_back(names_[d], Format(d, v[d]));
  if (items.empty()) return "{}";
  std::sort(items.begin(), items.end());
  std::vector<std::string> parts;
  for (auto& [k, val] : items)
    parts.push_back(absl::StrCat("\"", k, "\":\"", val, "\""));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

}  // namespace nodeplan::scheduling
