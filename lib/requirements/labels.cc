#include "nodeplan/labels.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeplan {
namespace labels {
namespace {

// Sorted in Go string order (sets.List).
const absl::string_view kWellKnown[] = {
    kCapacityType, kNodePool,     kArch,   kOs,
    kInstanceType, kWindowsBuild, kRegion, kZone,
};
const absl::string_view kRestricted[] = {kHostname};
const absl::string_view kSimulation[] = {kInitialized, kRegistered};

struct Alias {
  absl::string_view from;
  absl::string_view to;
};
const Alias kAliases[] = {
    {kZoneBeta, kZone},
    {kRegionBeta, kRegion},
    {kArchBeta, kArch},
    {kOsBeta, kOs},
    {kInstanceTypeBeta, kInstanceType},
};

}  // namespace

absl::Span<const absl::string_view> KarpenterWellKnownLabels() {
  return kWellKnown;
}
absl::Span<const absl::string_view> RestrictedLabels() { return kRestricted; }
absl::Span<const absl::string_view> SchedulingSimulationKeys() {
  return kSimulation;
}

absl::string_view NormalizeLabelKey(absl::string_view key) {
  // Every alias contains "beta.kubernetes.io/": a cheap filter for the hot
  // path of ordinary keys.
  if (!absl::StrContains(key, "beta.kubernetes.io/")) return key;
  for (const Alias& a : kAliases) {
    if (key == a.from) return a.to;
  }
  return key;
}

absl::string_view LabelDomain(absl::string_view key) {
  size_t slash = key.find('/');
  if (slash == absl::string_view::npos) return "";
  return key.substr(0, slash);
}

}  // namespace labels

void LabelKeySet::Insert(LabelKeyId id) {
  if (id < 0) return;
  const size_t word = static_cast<size_t>(id) / 64;
  if (word >= bits_.size()) bits_.resize(word + 1, 0);
  const uint64_t mask = uint64_t{1} << (id % 64);
  if ((bits_[word] & mask) == 0) {
    bits_[word] |= mask;
    ++count_;
  }
}

std::vector<LabelKeyId> LabelKeySet::Ids() const {
  std::vector<LabelKeyId> out;
  out.reserve(count_);
  for (size_t w = 0; w < bits_.size(); ++w) {
    uint64_t b = bits_[w];
    while (b != 0) {
      out.push_back(static_cast<LabelKeyId>(w * 64 + __builtin_ctzll(b)));
      b &= b - 1;
    }
  }
  return out;
}

WellKnownLabels::WellKnownLabels(Interner& interner) {
  for (absl::string_view k : labels::KarpenterWellKnownLabels()) {
    Add(interner, k);
  }
  Finish();
}

WellKnownLabels::WellKnownLabels(Interner& interner,
                                 absl::Span<const std::string> extra) {
  for (absl::string_view k : labels::KarpenterWellKnownLabels()) {
    Add(interner, k);
  }
  for (const std::string& k : extra) Add(interner, k);
  Finish();
}

void WellKnownLabels::Add(Interner& interner, absl::string_view key) {
  LabelKeyId id = interner.InternKey(key);
  if (keys_.Contains(id)) return;
  keys_.Insert(id);
  names_.emplace_back(key);
  ids_.push_back(id);
}

void WellKnownLabels::Finish() {
  std::vector<std::pair<std::string, LabelKeyId>> sorted;
  sorted.reserve(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    sorted.emplace_back(std::move(names_[i]), ids_[i]);
  }
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    names_[i] = std::move(sorted[i].first);
    ids_[i] = sorted[i].second;
  }
}

bool WellKnownLabels::Contains(absl::string_view key) const {
  return std::binary_search(names_.begin(), names_.end(), key);
}

bool IsRestrictedLabelDomain(absl::string_view key) {
  absl::string_view domain = labels::LabelDomain(key);
  return domain == labels::kRestrictedDomain ||
         absl::EndsWith(domain, absl::StrCat(".", labels::kRestrictedDomain));
}

absl::Status IsRestrictedLabel(absl::string_view key,
                               const WellKnownLabels& well_known) {
  if (well_known.Contains(key)) return absl::OkStatus();
  bool restricted = IsRestrictedLabelDomain(key);
  for (absl::string_view r : labels::RestrictedLabels()) {
    if (key == r) restricted = true;
  }
  if (!restricted) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "using label ", key,
      " is not allowed as it might interfere with the internal provisioning "
      "logic; specify a well known label: [",
      absl::StrJoin(well_known.sorted_names(), " "),
      "], or a custom label that does not use a restricted domain: [",
      labels::kRestrictedDomain, "]"));
}

LabelSet LabelSet::FromMap(
    const google::protobuf::Map<std::string, std::string>& labels,
    Interner& interner) {
  LabelSet set;
  set.entries_.reserve(labels.size());
  for (const auto& [k, v] : labels) {
    set.entries_.emplace_back(interner.InternKey(k), interner.InternValue(v));
  }
  std::sort(set.entries_.begin(), set.entries_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return set;
}

LabelSet LabelSet::FromPairs(
    absl::Span<const std::pair<std::string, std::string>> labels,
    Interner& interner) {
  LabelSet set;
  for (const auto& [k, v] : labels) {
    set.Set(interner.InternKey(k), interner.InternValue(v));
  }
  return set;
}

void LabelSet::Set(LabelKeyId key, LabelValue value) {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), key,
                       [](const auto& e, LabelKeyId k) { return e.first < k; });
  if (it != entries_.end() && it->first == key) {
    it->second = value;
  } else {
    entries_.emplace(it, key, value);
  }
}

const LabelValue* LabelSet::Find(LabelKeyId key) const {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), key,
                       [](const auto& e, LabelKeyId k) { return e.first < k; });
  if (it != entries_.end() && it->first == key) return &it->second;
  return nullptr;
}

}  // namespace nodeplan
