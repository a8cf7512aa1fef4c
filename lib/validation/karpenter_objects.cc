#include "validation/karpenter_objects.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "nodeplan/labels.h"
#include "validation/k8s_validation.h"
#include "validation/requirement_rules.h"

namespace nodeplan::validation {
namespace {

using StringMap = google::protobuf::Map<std::string, std::string>;
using Taints = google::protobuf::RepeatedPtrField<v1::Taint>;

// Map keys in byte order: protobuf map iteration order must never reach the
// output.
std::vector<std::string> SortedKeys(const StringMap& m) {
  std::vector<std::string> keys;
  keys.reserve(m.size());
  for (const auto& [k, v] : m) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::string Key(absl::string_view path, absl::string_view key) {
  return absl::StrCat(path, "[", key, "]");
}

// Go's time.ParseDuration rejects what overflows int64 nanoseconds, even when
// the CRD pattern admits it.
bool DurationOverflows(absl::string_view s) {
  if (s == "Never") return false;
  unsigned __int128 total = 0;
  unsigned __int128 number = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      number = number * 10 + static_cast<unsigned>(c - '0');
      if (number > (static_cast<unsigned __int128>(1) << 64)) return true;
      continue;
    }
    const uint64_t unit = c == 'h'   ? 3600000000000ULL
                          : c == 'm' ? 60000000000ULL
                                     : 1000000000ULL;
    total += number * unit;
    number = 0;
    if (total > static_cast<unsigned __int128>(INT64_MAX)) return true;
  }
  return false;
}

void CheckDuration(absl::string_view path, const std::string& value,
                   bool allow_never, Violations* v) {
  if (value.empty()) return;
  const bool ok =
      allow_never ? MatchesDurationOrNever(value) : MatchesDuration(value);
  if (!ok) {
    v->Pattern(path, value,
               allow_never ? kDurationOrNeverPattern : kDurationPattern);
  } else if (DurationOverflows(value)) {
    v->Add(path, absl::StrCat("time: invalid duration \"", value, "\""));
  }
}

void CheckQuantities(absl::string_view path, const StringMap& quantities,
                     Violations* v) {
  for (const std::string& name : SortedKeys(quantities)) {
    const std::string& q = quantities.at(name);
    if (!MatchesQuantity(q)) v->Pattern(Key(path, name), q, kQuantityPattern);
  }
}

void CheckWeight(absl::string_view path, int64_t weight, int64_t max,
                 Violations* v) {
  if (weight < 1) v->Minimum(path, weight, 1);
  if (weight > max) v->Maximum(path, weight, max);
}

// Schema of core/v1 Taint as the CRDs embed it, plus Karpenter's run-time
// (key, effect) uniqueness across taints and startupTaints.
void CheckTaints(absl::string_view path, const Taints& taints,
                 std::set<std::pair<std::string, std::string>>* seen,
                 Violations* v) {
  for (int i = 0; i < taints.size(); ++i) {
    const v1::Taint& t = taints[i];
    const std::string at = absl::StrCat(path, "[", i, "]");
    if (t.key().empty()) {
      v->Required(absl::StrCat(at, ".key"));
    } else if (!MatchesQualifiedKey(t.key())) {
      v->Pattern(absl::StrCat(at, ".key"), t.key(), kQualifiedKeyPattern);
    }
    if (!t.value().empty() && !MatchesQualifiedKey(t.value())) {
      v->Pattern(absl::StrCat(at, ".value"), t.value(), kQualifiedKeyPattern);
    }
    if (t.effect().empty()) {
      v->Required(absl::StrCat(at, ".effect"));
    } else if (t.effect() != "NoSchedule" && t.effect() != "PreferNoSchedule" &&
               t.effect() != "NoExecute") {
      v->Unsupported(absl::StrCat(at, ".effect"), t.effect(),
                     {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    }
    if (!t.time_added().empty()) {
      absl::Time parsed;
      std::string err;
      if (!absl::ParseTime(absl::RFC3339_full, t.time_added(), &parsed, &err)) {
        const std::string p = absl::StrCat(at, ".timeAdded");
        v->Add(p, absl::StrCat("Invalid value: \"", t.time_added(), "\": ", p,
                               " in body must be of type date-time: \"",
                               t.time_added(), "\""));
      }
    }
    if (!seen->insert({t.key(), t.effect()}).second) {
      v->Add(at, absl::StrCat("duplicate taint Key/Effect pair ", t.key(), "=",
                              t.effect()));
    }
  }
}

void CheckNodeClassRef(absl::string_view path, bool present,
                       const v1::NodeClassReference& ref, Violations* v) {
  if (!present) {
    v->Required(path);
    return;
  }
  if (ref.group().empty()) {
    v->Required(absl::StrCat(path, ".group"));
  } else if (!MatchesGroup(ref.group())) {
    v->Pattern(absl::StrCat(path, ".group"), ref.group(), kGroupPattern);
  }
  if (ref.kind().empty()) v->Required(absl::StrCat(path, ".kind"));
  if (ref.name().empty()) v->Required(absl::StrCat(path, ".name"));
}

void CheckName(const v1::ObjectMeta& meta, Violations* v) {
  if (meta.name().empty() && meta.generate_name().empty()) {
    v->Add("metadata.name", "Required value: name or generateName is required");
  }
}

// The NodePool template's label rules (CRD + RuntimeValidate.validateLabels).
void CheckTemplateLabels(absl::string_view path, const StringMap& labels,
                         Violations* v) {
  if (labels.size() > 100) v->TooMany(path, labels.size(), 100);
  for (const std::string& key : SortedKeys(labels)) {
    const std::string at = Key(path, key);
    const std::string& value = labels.at(key);
    if (value.size() > 63) v->TooLong(at, 63);
    if (!MatchesLabelValue(value)) v->Pattern(at, value, kLabelValuePattern);
    if (key != labels::kCapacityType && key != labels::kNodePool &&
        absl::EndsWith(CelLabelDomain(key), "karpenter.sh")) {
      v->Add(at, "label domain \"karpenter.sh\" is restricted");
    }
    if (key == labels::kNodePool) {
      v->Add(at, "label \"karpenter.sh/nodepool\" is restricted");
    }
    if (key == labels::kHostname) {
      v->Add(at, "label \"kubernetes.io/hostname\" is restricted");
    }
    // The schema does not check label keys; Karpenter does at run time.
    for (const std::string& e : IsQualifiedName(key)) {
      v->Add(at, absl::StrCat("invalid key name \"", key, "\" in labels, \"", e,
                              "\""));
    }
  }
}

void CheckDisruption(absl::string_view path, const v1::Disruption& d,
                     Violations* v) {
  if (!d.consolidation_policy().empty() &&
      d.consolidation_policy() != "WhenEmpty" &&
      d.consolidation_policy() != "WhenEmptyOrUnderutilized" &&
      d.consolidation_policy() != "Balanced") {
    v->Unsupported(absl::StrCat(path, ".consolidationPolicy"),
                   d.consolidation_policy(),
                   {"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"});
  }
  CheckDuration(absl::StrCat(path, ".consolidateAfter"), d.consolidate_after(),
                /*allow_never=*/true, v);
  const std::string budgets = absl::StrCat(path, ".budgets");
  if (d.budgets_size() > 50) v->TooMany(budgets, d.budgets_size(), 50);
  for (int i = 0; i < d.budgets_size(); ++i) {
    const v1::Budget& b = d.budgets(i);
    const std::string at = absl::StrCat(budgets, "[", i, "]");
    // An absent `nodes` takes the CRD default "10%".
    if (!b.nodes().empty() && !MatchesBudgetNodes(b.nodes())) {
      v->Pattern(absl::StrCat(at, ".nodes"), b.nodes(), kBudgetNodesPattern);
    }
    if (!b.schedule().empty()) {
      const std::string p = absl::StrCat(at, ".schedule");
      if (!MatchesSchedulePattern(b.schedule())) {
        v->Pattern(p, b.schedule(), kSchedulePattern);
      } else if (std::string e = CronError(b.schedule()); !e.empty()) {
        // Admitted by the pattern, rejected by Karpenter's cron parser.
        v->Add(p, absl::StrCat("invalid cron, ", e));
      }
    }
    if (!b.duration().empty() && !MatchesBudgetDuration(b.duration())) {
      v->Pattern(absl::StrCat(at, ".duration"), b.duration(),
                 kBudgetDurationPattern);
    }
    if (b.schedule().empty() != b.duration().empty()) {
      v->Add(at, "'schedule' must be set with 'duration'");
    }
    const std::string reasons = absl::StrCat(at, ".reasons");
    if (b.reasons_size() > 50) v->TooMany(reasons, b.reasons_size(), 50);
    std::set<std::string> seen;
    for (int j = 0; j < b.reasons_size(); ++j) {
      const std::string& r = b.reasons(j);
      const std::string rp = absl::StrCat(reasons, "[", j, "]");
      if (r != "Underutilized" && r != "Empty" && r != "Drifted") {
        v->Unsupported(rp, r, {"Underutilized", "Empty", "Drifted"});
      }
      if (!seen.insert(r).second) v->Duplicate(rp, r);
    }
  }
}

}  // namespace

void CheckNodePool(const v1::NodePool& np, Violations* v) {
  CheckName(np.metadata(), v);
  if (!np.has_spec() || !np.spec().has_template_()) {
    v->Required("spec.template");
    return;
  }
  const v1::NodePoolSpec& spec = np.spec();
  const v1::NodeClaimTemplate& tmpl = spec.template_();
  CheckTemplateLabels("spec.template.metadata.labels", tmpl.metadata().labels(),
                      v);
  if (!tmpl.has_spec()) {
    v->Required("spec.template.spec");
  } else {
    const v1::NodeClaimTemplateSpec& ts = tmpl.spec();
    constexpr absl::string_view kSpec = "spec.template.spec";
    std::set<std::pair<std::string, std::string>> seen;
    CheckTaints(absl::StrCat(kSpec, ".taints"), ts.taints(), &seen, v);
    CheckTaints(absl::StrCat(kSpec, ".startupTaints"), ts.startup_taints(),
                &seen, v);
    const std::string reqs = absl::StrCat(kSpec, ".requirements");
    // The CRD requires the list to be present, not non-empty.
    if (ts.requirements().empty() &&
        !absl::c_linear_search(tmpl.present_empty_fields(),
                               "spec.requirements")) {
      v->Required(reqs);
    }
    CheckCrdRequirements(ts.requirements(), reqs, RequirementsOwner::kNodePool,
                         v);
    CheckWellKnownValues(ts.requirements(), reqs, v);
    CheckNodeClassRef(absl::StrCat(kSpec, ".nodeClassRef"),
                      ts.has_node_class_ref(), ts.node_class_ref(), v);
    CheckDuration(absl::StrCat(kSpec, ".expireAfter"), ts.expire_after(),
                  /*allow_never=*/true, v);
    CheckDuration(absl::StrCat(kSpec, ".terminationGracePeriod"),
                  ts.termination_grace_period(), /*allow_never=*/false, v);
  }
  CheckDisruption("spec.disruption", spec.disruption(), v);
  CheckQuantities("spec.limits", spec.limits(), v);
  if (spec.has_weight()) CheckWeight("spec.weight", spec.weight(), 100, v);
  if (spec.has_replicas()) {
    if (spec.replicas() < 0) v->Minimum("spec.replicas", spec.replicas(), 0);
    if (!(spec.limits().empty() ||
          (spec.limits().size() == 1 && spec.limits().contains("nodes")))) {
      v->Add("spec", "only 'limits.nodes' is supported on static NodePools");
    }
    if (spec.has_weight()) {
      v->Add("spec", "'weight' is not supported on static NodePools");
    }
  }
}

void CheckNodeClaim(const v1::NodeClaim& nc, Violations* v) {
  CheckName(nc.metadata(), v);
  if (!nc.has_spec()) {
    v->Required("spec");
    return;
  }
  const v1::NodeClaimSpec& spec = nc.spec();
  std::set<std::pair<std::string, std::string>> seen;
  CheckTaints("spec.taints", spec.taints(), &seen, v);
  CheckTaints("spec.startupTaints", spec.startup_taints(), &seen, v);
  if (spec.requirements().empty()) v->Required("spec.requirements");
  CheckCrdRequirements(spec.requirements(), "spec.requirements",
                       RequirementsOwner::kNodeClaim, v);
  CheckQuantities("spec.resources.requests", spec.resources().requests(), v);
  CheckNodeClassRef("spec.nodeClassRef", spec.has_node_class_ref(),
                    spec.node_class_ref(), v);
  CheckDuration("spec.expireAfter", spec.expire_after(), /*allow_never=*/true,
                v);
  CheckDuration("spec.terminationGracePeriod", spec.termination_grace_period(),
                /*allow_never=*/false, v);
}

void CheckNodeOverlay(const v1::NodeOverlay& o, Violations* v) {
  CheckName(o.metadata(), v);
  const v1::NodeOverlaySpec& spec = o.spec();
  if (spec.requirements().empty()) v->Required("spec.requirements");
  CheckCrdRequirements(spec.requirements(), "spec.requirements",
                       RequirementsOwner::kNodeOverlay, v);
  CheckWellKnownValues(spec.requirements(), "spec.requirements", v);
  if (!spec.price().empty() && !MatchesPrice(spec.price())) {
    v->Pattern("spec.price", spec.price(), kPricePattern);
  }
  if (!spec.price_adjustment().empty() &&
      !MatchesPriceAdjustment(spec.price_adjustment())) {
    v->Pattern("spec.priceAdjustment", spec.price_adjustment(),
               kPriceAdjustmentPattern);
  }
  if (!spec.price().empty() && !spec.price_adjustment().empty()) {
    v->Add("spec", "cannot set both 'price' and 'priceAdjustment'");
  }
  CheckQuantities("spec.capacity", spec.capacity(), v);
  for (const std::string& name : SortedKeys(spec.capacity())) {
    if (name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
        name == "pods") {
      v->Add(Key("spec.capacity", name), "invalid resource restricted");
    }
  }
  if (spec.has_weight()) CheckWeight("spec.weight", spec.weight(), 10000, v);
}

}  // namespace nodeplan::validation
