// Resource vectors (Karpenter pkg/utils/resources, Kubernetes
// component-helpers resource.PodRequests).

#include "nodeplan/resources.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/quantity.h"

namespace nodeplan {
namespace {

constexpr absl::string_view kNames[kFixedResources] = {"cpu", "memory", "pods",
                                                       "ephemeral-storage"};

std::optional<Resource> FixedResource(absl::string_view name) {
  for (int i = 0; i < kFixedResources; ++i) {
    if (name == kNames[i]) return static_cast<Resource>(i);
  }
  return std::nullopt;
}

bool IsHugePages(absl::string_view name) {
  return absl::StartsWith(name, "hugepages-");
}

// Combines two vectors resource by resource over the union of keys.
template <typename F>
ResourceVector Combine(const ResourceVector& a, const ResourceVector& b,
                       F&& f) {
  ResourceVector out;
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    if (a.Present(r) && b.Present(r)) {
      out.Set(r, f(a.Get(r), b.Get(r)));
    } else if (a.Present(r)) {
      out.Set(r, a.Get(r));
    } else if (b.Present(r)) {
      out.Set(r, b.Get(r));
    }
  }
  auto ea = a.extended(), eb = b.extended();
  size_t i = 0, j = 0;
  while (i < ea.size() || j < eb.size()) {
    if (j == eb.size() || (i < ea.size() && ea[i].name < eb[j].name)) {
      out.SetExtended(ea[i].name, ea[i].milli);
      ++i;
    } else if (i == ea.size() || eb[j].name < ea[i].name) {
      out.SetExtended(eb[j].name, eb[j].milli);
      ++j;
    } else {
      out.SetExtended(ea[i].name, f(ea[i].milli, eb[j].milli));
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace

absl::string_view ResourceName(Resource r) {
  return kNames[static_cast<int>(r)];
}

std::optional<int64_t> ResourceVector::GetExtended(LabelKeyId name) const {
  auto it = std::lower_bound(
      extended_.begin(), extended_.end(), name,
      [](const Extended& e, LabelKeyId n) { return e.name < n; });
  if (it != extended_.end() && it->name == name) return it->milli;
  return std::nullopt;
}

void ResourceVector::SetExtended(LabelKeyId name, int64_t milli) {
  auto it = std::lower_bound(
      extended_.begin(), extended_.end(), name,
      [](const Extended& e, LabelKeyId n) { return e.name < n; });
  if (it != extended_.end() && it->name == name) {
    it->milli = milli;
  } else {
    extended_.insert(it, Extended{name, milli});
  }
}

// Combine(*this, other, SaturatingAdd) in place: it runs per pod (node sums,
// container sums), where building a vector and moving it over this one
// showed in profiles.
void ResourceVector::Add(const ResourceVector& other) {
  for (int i = 0; i < kFixedResources; ++i) {
    const Resource r = static_cast<Resource>(i);
    if (!other.Present(r)) continue;
    Set(r, Present(r) ? SaturatingAdd(Get(r), other.Get(r)) : other.Get(r));
  }
  for (const Extended& e : other.extended_) {
    const std::optional<int64_t> mine = GetExtended(e.name);
    SetExtended(e.name,
                mine.has_value() ? SaturatingAdd(*mine, e.milli) : e.milli);
  }
}

void ResourceVector::SubtractAll(const ResourceVector& other) {
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    if (other.Present(r)) Set(r, SaturatingSub(Get(r), other.Get(r)));
  }
  for (const Extended& e : other.extended_) {
    SetExtended(e.name,
                SaturatingSub(GetExtended(e.name).value_or(0), e.milli));
  }
}

namespace {

// The first malformed or negative quantity of `list` in name order (so the
// error does not depend on the map's per-instance iteration order), as
// ParseResourceList reports it.
absl::Status FirstQuantityError(
    const google::protobuf::Map<std::string, std::string>& list,
    absl::string_view field_path) {
  std::map<std::string, std::string> sorted(list.begin(), list.end());
  for (const auto& [name, text] : sorted) {
    std::optional<Resource> fixed = FixedResource(name);
    absl::StatusOr<int64_t> value =
        (fixed.has_value() && *fixed != Resource::kCpu)
            ? ParseQuantityValue(text)
            : ParseQuantityMilli(text);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field_path, "[", name, "]: ", value.status().message()));
    }
    // Capacity, overhead, requests and limits are never negative (the API
    // server refuses a negative request; a negative overhead would raise
    // allocatable above capacity).
    if (*value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field_path, "[", name, "]: Invalid value: \"", text,
                       "\": must be greater than or equal to 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ResourceVector> ParseResourceList(
    const google::protobuf::Map<std::string, std::string>& list,
    Interner& names, absl::string_view field_path) {
  ResourceVector out;
  for (const auto& [name, text] : list) {
    std::optional<Resource> fixed = FixedResource(name);
    absl::StatusOr<int64_t> value =
        (fixed.has_value() && *fixed != Resource::kCpu)
            ? ParseQuantityValue(text)
            : ParseQuantityMilli(text);
    if (!value.ok() || *value < 0) return FirstQuantityError(list, field_path);
    if (fixed.has_value()) {
      out.Set(*fixed, *value);
    } else {
      out.SetExtended(names.InternKey(name), *value);
    }
  }
  return out;
}

ResourceVector Merge(const ResourceVector& a, const ResourceVector& b) {
  return Combine(a, b, SaturatingAdd);
}

ResourceVector Subtract(const ResourceVector& lhs, const ResourceVector& rhs) {
  ResourceVector out;
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    if (lhs.Present(r)) out.Set(r, SaturatingSub(lhs.Get(r), rhs.Get(r)));
  }
  for (const ResourceVector::Extended& e : lhs.extended()) {
    out.SetExtended(
        e.name, SaturatingSub(e.milli, rhs.GetExtended(e.name).value_or(0)));
  }
  return out;
}

ResourceVector MaxResources(const ResourceVector& a, const ResourceVector& b) {
  return Combine(a, b, [](int64_t x, int64_t y) { return std::max(x, y); });
}

ResourceVector MinResources(const ResourceVector& a, const ResourceVector& b) {
  ResourceVector out;
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    if (a.Present(r) && b.Present(r)) out.Set(r, std::min(a.Get(r), b.Get(r)));
  }
  for (const ResourceVector::Extended& e : a.extended()) {
    if (std::optional<int64_t> other = b.GetExtended(e.name)) {
      out.SetExtended(e.name, std::min(e.milli, *other));
    }
  }
  return out;
}

bool Fits(const ResourceVector& candidate, const ResourceVector& total) {
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    if (total.Present(r) && total.Get(r) < 0) return false;
  }
  for (const ResourceVector::Extended& e : total.extended()) {
    if (e.milli < 0) return false;
  }
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    // An absent total reads 0.
    if (candidate.Present(r) && candidate.Get(r) > total.Get(r)) return false;
  }
  auto ce = candidate.extended(), te = total.extended();
  size_t j = 0;
  for (const ResourceVector::Extended& e : ce) {
    while (j < te.size() && te[j].name < e.name) ++j;
    const int64_t have =
        (j < te.size() && te[j].name == e.name) ? te[j].milli : 0;
    if (e.milli > have) return false;
  }
  return true;
}

namespace {

absl::StatusOr<ResourceVector> ContainerRequests(const v1::Container& c,
                                                 absl::string_view spec_path,
                                                 const char* list, int i,
                                                 Interner& names) {
  const auto& requests = c.resources().requests();
  // API-server defaulting: a limit without a request requests the limit.
  // Copy the map only then (most containers have no such limit).
  bool defaulted = false;
  for (const auto& [name, limit] : c.resources().limits()) {
    if (requests.find(name) == requests.end()) defaulted = true;
  }
  google::protobuf::Map<std::string, std::string> merged;
  if (defaulted) {
    merged = requests;
    for (const auto& [name, limit] : c.resources().limits()) {
      if (merged.find(name) == merged.end()) merged[name] = limit;
    }
  }
  const auto& effective = defaulted ? merged : requests;
  absl::StatusOr<ResourceVector> r = ParseResourceList(effective, names, "");
  if (r.ok()) return r;
  // The field path is built only for an error (this runs per pod), naming
  // the list that holds the bad quantity.
  const std::string at =
      absl::StrCat(spec_path, ".", list, "[", i, "].resources.");
  absl::Status s = FirstQuantityError(requests, absl::StrCat(at, "requests"));
  if (s.ok()) s = FirstQuantityError(c.resources().limits(), at + "limits");
  return s.ok() ? r.status() : s;
}

}  // namespace

ResourceVector CombineContainerRequests(
    absl::Span<const ResourceVector> containers,
    absl::Span<const ResourceVector> init_containers,
    absl::Span<const bool> init_is_sidecar) {
  ResourceVector sum;
  for (const ResourceVector& c : containers) sum.Add(c);
  ResourceVector sidecars;
  ResourceVector init_max;
  for (size_t i = 0; i < init_containers.size(); ++i) {
    const bool sidecar = i < init_is_sidecar.size() && init_is_sidecar[i];
    if (sidecar) {
      sum.Add(init_containers[i]);
      sidecars.Add(init_containers[i]);
      init_max = MaxResources(init_max, sidecars);
    } else {
      init_max = MaxResources(init_max, Merge(init_containers[i], sidecars));
    }
  }
  return MaxResources(sum, init_max);
}

namespace {

// The pod-level request of each supported resource after the API server's
// defaulting (core/v1 defaultPodRequests): with pod-level limits present, a
// hugepages-* resource the containers request defaults to their aggregate
// and any other limited resource without a request defaults to its limit.
// Without pod-level limits the requests stay as written.
absl::Status ApplyPodLevelRequests(const v1::PodSpec& spec,
                                   absl::string_view spec_path, Interner& names,
                                   ResourceVector& out) {
  const v1::ResourceRequirements& pod = spec.resources();
  if (pod.requests().empty() && pod.limits().empty()) return absl::OkStatus();
  absl::StatusOr<ResourceVector> requests = ParseResourceList(
      pod.requests(), names, absl::StrCat(spec_path, ".resources.requests"));
  if (!requests.ok()) return requests.status();
  absl::StatusOr<ResourceVector> limits = ParseResourceList(
      pod.limits(), names, absl::StrCat(spec_path, ".resources.limits"));
  if (!limits.ok()) return limits.status();
  auto take = [&](const ResourceVector& from, Resource r) {
    if (from.Present(r)) out.Set(r, from.Get(r));
  };
  for (Resource r : {Resource::kCpu, Resource::kMemory}) {
    take(*requests, r);
    if (!requests->Present(r)) take(*limits, r);
  }
  for (const ResourceVector::Extended& e : requests->extended()) {
    if (IsHugePages(names.KeyText(e.name))) out.SetExtended(e.name, e.milli);
  }
  for (const ResourceVector::Extended& e : limits->extended()) {
    // A hugepages request the containers make stays their aggregate (already
    // in `out`); one they do not make defaults to the pod-level limit.
    if (IsHugePages(names.KeyText(e.name)) &&
        !requests->GetExtended(e.name).has_value() &&
        !out.GetExtended(e.name).has_value()) {
      out.SetExtended(e.name, e.milli);
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsPodLevelResource(absl::string_view name) {
  return name == "cpu" || name == "memory" || IsHugePages(name);
}

absl::StatusOr<ResourceVector> PodRequests(const v1::PodSpec& spec,
                                           Interner& names,
                                           absl::string_view spec_path) {
  absl::InlinedVector<ResourceVector, 4> containers, inits;
  absl::InlinedVector<bool, 8> sidecar;
  for (int i = 0; i < spec.containers_size(); ++i) {
    absl::StatusOr<ResourceVector> r = ContainerRequests(
        spec.containers(i), spec_path, "containers", i, names);
    if (!r.ok()) return r.status();
    containers.push_back(*std::move(r));
  }
  for (int i = 0; i < spec.init_containers_size(); ++i) {
    absl::StatusOr<ResourceVector> r = ContainerRequests(
        spec.init_containers(i), spec_path, "initContainers", i, names);
    if (!r.ok()) return r.status();
    inits.push_back(*std::move(r));
    sidecar.push_back(spec.init_containers(i).restart_policy() == "Always");
  }
  ResourceVector out = CombineContainerRequests(containers, inits, sidecar);
  if (spec.has_resources()) {
    absl::Status s = ApplyPodLevelRequests(spec, spec_path, names, out);
    if (!s.ok()) return s;
  }
  if (!spec.overhead().empty()) {
    absl::StatusOr<ResourceVector> overhead = ParseResourceList(
        spec.overhead(), names, absl::StrCat(spec_path, ".overhead"));
    if (!overhead.ok()) return overhead.status();
    out.Add(*overhead);
  }
  return out;
}

absl::StatusOr<ResourceVector> RequestsForPod(const v1::PodSpec& spec,
                                              Interner& names,
                                              absl::string_view spec_path) {
  absl::StatusOr<ResourceVector> r = PodRequests(spec, names, spec_path);
  if (r.ok()) r->Set(Resource::kPods, 1);
  return r;
}

ResourceVector Allocatable(const ResourceVector& capacity,
                           const ResourceVector& kube_reserved,
                           const ResourceVector& system_reserved,
                           const ResourceVector& eviction_threshold,
                           const Interner& names) {
  return Allocatable(
      capacity,
      Merge(Merge(kube_reserved, system_reserved), eviction_threshold), names);
}

ResourceVector Allocatable(const ResourceVector& capacity,
                           const ResourceVector& overhead,
                           const Interner& names) {
  ResourceVector out = Subtract(capacity, overhead);
  for (const ResourceVector::Extended& e : capacity.extended()) {
    if (!IsHugePages(names.KeyText(e.name))) continue;
    // Hugepages quantities are whole bytes; extended values are milli.
    int64_t memory = SaturatingSub(out.memory(), e.milli / 1000);
    out.Set(Resource::kMemory, std::max<int64_t>(memory, 0));
  }
  return out;
}

std::string ResourceQuantityText(absl::string_view name, int64_t value,
                                 bool milli_units) {
  if (name == kNames[static_cast<int>(Resource::kCpu)]) {
    return FormatMilli(value);
  }
  if (milli_units) {
    if (value % 1000 != 0) return FormatMilli(value);
    value /= 1000;
  }
  if (name == kNames[static_cast<int>(Resource::kMemory)] ||
      name == kNames[static_cast<int>(Resource::kEphemeralStorage)] ||
      IsHugePages(name)) {
    return FormatBytes(value);
  }
  return absl::StrCat(value);
}

std::string ResourceListString(
    std::vector<std::pair<absl::string_view, std::string>> entries) {
  std::sort(entries.begin(), entries.end());
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ",";
    absl::StrAppend(&out, "\"", entries[i].first, "\":\"", entries[i].second,
                    "\"");
  }
  out += "}";
  return out;
}

std::string ResourcesString(const ResourceVector& resources,
                            const Interner& names) {
  std::vector<std::pair<absl::string_view, std::string>> entries;
  for (int i = 0; i < kFixedResources; ++i) {
    Resource r = static_cast<Resource>(i);
    if (!resources.Present(r)) continue;
    entries.emplace_back(kNames[i],
                         ResourceQuantityText(kNames[i], resources.Get(r),
                                              /*milli_units=*/false));
  }
  for (const ResourceVector::Extended& e : resources.extended()) {
    absl::string_view name = names.KeyText(e.name);
    entries.emplace_back(
        name, ResourceQuantityText(name, e.milli, /*milli_units=*/true));
  }
  return ResourceListString(std::move(entries));
}

}  // namespace nodeplan
