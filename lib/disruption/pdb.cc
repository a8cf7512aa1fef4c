#include "disruption/pdb.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "disruption/pod_rules.h"
#include "nodeplan/object_meta.h"

namespace nodeplan::disruption {
namespace {

bool PodNotReady(const v1::Pod& pod) {
  for (const v1::PodCondition& c : pod.status().conditions()) {
    if (c.type() == "Ready" && c.status() == "False") return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<PdbLimits> PdbLimits::Build(
    const google::protobuf::RepeatedPtrField<v1::PodDisruptionBudget>& pdbs,
    Interner& interner) {
  PdbLimits out;
  for (const v1::PodDisruptionBudget& pdb : pdbs) {
    Budget b;
    b.ns = std::string(NamespaceOf(pdb.metadata()));
    b.key = absl::StrCat(b.ns, "/", pdb.metadata().name());
    absl::StatusOr<CompiledLabelSelector> sel = CompiledLabelSelector::Compile(
        pdb.spec().has_selector() ? &pdb.spec().selector() : nullptr, interner,
        absl::StrCat("podDisruptionBudgets[", b.key, "].spec.selector"));
    if (!sel.ok()) return sel.status();
    b.selector = *std::move(sel);
    b.disruptions_allowed = pdb.status().disruptions_allowed();
    // int-or-string fields are kept as written: an integer 0 reads "0".
    const std::string& max_unavailable = pdb.spec().max_unavailable();
    b.fully_blocking = max_unavailable == "0" || max_unavailable == "0%" ||
                       pdb.spec().min_available() == "100%";
    b.always_allow_unhealthy =
        pdb.spec().unhealthy_pod_eviction_policy() == "AlwaysAllow";
    out.budgets_.push_back(std::move(b));
  }
  return out;
}

std::vector<const PdbLimits::Budget*> PdbLimits::Matching(
    const v1::Pod& pod, const LabelSet& labels) const {
  std::vector<const Budget*> out;
  if (budgets_.empty()) return out;
  const absl::string_view ns = NamespaceOf(pod.metadata());
  for (const Budget& b : budgets_) {
    if (b.ns == ns && b.selector.Matches(labels)) out.push_back(&b);
  }
  return out;
}

std::vector<std::string> PdbLimits::Blocking(const v1::Pod& pod,
                                             const LabelSet& labels,
                                             absl::Time now,
                                             Blocker blocker) const {
  if (budgets_.empty() || !IsEvictable(pod, now)) return {};
  std::vector<const Budget*> matching = Matching(pod, labels);
  std::vector<std::string> keys;
  if (matching.size() > 1) {
    for (const Budget* b : matching) keys.push_back(b->key);
    std::sort(keys.begin(), keys.end());
    return keys;
  }
  for (const Budget* b : matching) {
    if (b->always_allow_unhealthy && PodNotReady(pod)) return {};
    const bool blocks = blocker == Blocker::kZeroDisruptions
                            ? b->disruptions_allowed == 0
                            : b->fully_blocking;
    if (blocks) keys.push_back(b->key);
  }
  return keys;
}

std::vector<std::string> PdbLimits::BlockingForCandidacy(const v1::Pod& pod,
                                                         const LabelSet& labels,
                                                         absl::Time now) const {
  return Blocking(pod, labels, now, Blocker::kZeroDisruptions);
}

bool PdbLimits::FullyBlocked(const v1::Pod& pod, const LabelSet& labels,
                             absl::Time now) const {
  return !Blocking(pod, labels, now, Blocker::kFullyBlocking).empty();
}

EvictionBudget::EvictionBudget(const PdbLimits& limits) : limits_(limits) {
  for (const PdbLimits::Budget& b : limits.budgets()) {
    remaining_.push_back(b.disruptions_allowed);
  }
}

std::string EvictionBudget::Admit(const v1::Pod& pod, const LabelSet& labels) {
  std::vector<const PdbLimits::Budget*> matching =
      limits_.Matching(pod, labels);
  // The eviction API refuses a pod selected by several budgets outright.
  if (matching.size() > 1) return matching.front()->key;
  for (const PdbLimits::Budget* b : matching) {
    const size_t i = b - limits_.budgets().data();
    if (b->always_allow_unhealthy) {
      bool not_ready = false;
      for (const v1::PodCondition& c : pod.status().conditions()) {
        if (c.type() == "Ready" && c.status() == "False") not_ready = true;
      }
      if (not_ready) return "";
    }
    if (remaining_[i] <= 0) return b->key;
    --remaining_[i];
  }
  return "";
}

}  // namespace nodeplan::disruption
