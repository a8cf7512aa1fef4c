// InstanceTypesForNodePool: which instance types a NodePool admits, in price
// order, and why the others are rejected.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan {
namespace {

std::string WrittenRequirementText(const v1::NodeSelectorRequirement& r) {
  std::string text = absl::StrCat(r.key(), " ", r.operator_());
  if (r.values_size() > 0) {
    absl::StrAppend(&text, " [", absl::StrJoin(r.values(), " "), "]");
  }
  if (r.has_min_values()) absl::StrAppend(&text, " minValues ", r.min_values());
  return text;
}

// The first written requirement on `key` that sets minValues.
int FirstMinValuesRequirement(const NodePoolInstanceTypes& result,
                              LabelKeyId key, const Interner& names) {
  for (int j = 0; j < static_cast<int>(result.requirements.size()); ++j) {
    const v1::NodeSelectorRequirement& r = result.requirements[j];
    if (r.has_min_values() &&
        names.FindKey(labels::NormalizeLabelKey(r.key())) == key) {
      return j;
    }
  }
  return -1;
}

// Fills min_values_types_needed and unmet_min_values from the admitted
// types (price order).
void CheckMinValues(const CompiledCatalog& catalog, const Interner& names,
                    NodePoolInstanceTypes& result) {
  if (!result.combined.HasMinValues()) return;
  std::vector<const Requirements*> admitted;
  admitted.reserve(result.admitted.size());
  for (const AdmittedInstanceType& a : result.admitted) {
    admitted.push_back(&catalog.instance_type(a.type).requirements);
  }
  MinValuesResult check = SatisfiesMinValues(result.combined, admitted);
  if (admitted.empty()) {
    // SatisfiesMinValues accepts an empty list; nothing meets a floor here.
    check.unsatisfied.clear();
    for (const Requirement& r : result.combined) {
      if (r.min_values().has_value())
        check.unsatisfied.emplace_back(r.key(), 0);
    }
  }
  if (check.ok()) {
    result.min_values_types_needed = check.needed;
    return;
  }
  for (const auto& [key, found] : check.unsatisfied) {
    const Requirement* r = result.combined.Find(key);
    result.unmet_min_values.push_back(
        {key, FirstMinValuesRequirement(result, key, names),
         r != nullptr ? r->min_values().value_or(0) : 0, found});
  }
}

}  // namespace

absl::StatusOr<NodePoolInstanceTypes> InstanceTypesForNodePool(
    const CompiledCatalog& catalog, const v1::NodePool& node_pool,
    Interner& interner) {
  NodePoolInstanceTypes result;
  const v1::NodeClaimTemplate& tmpl = node_pool.spec().template_();
  result.requirements.assign(tmpl.spec().requirements().begin(),
                             tmpl.spec().requirements().end());
  std::vector<std::pair<std::string, std::string>> template_labels(
      tmpl.metadata().labels().begin(), tmpl.metadata().labels().end());
  std::sort(template_labels.begin(), template_labels.end());
  for (const auto& [key, value] : template_labels) {
    v1::NodeSelectorRequirement& r = result.requirements.emplace_back();
    r.set_key(key);
    r.set_operator_("In");
    r.add_values(value);
  }
  {
    v1::NodeSelectorRequirement& r = result.requirements.emplace_back();
    r.set_key(std::string(labels::kNodePool));
    r.set_operator_("In");
    r.add_values(node_pool.metadata().name());
  }

  google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement> all(
      result.requirements.begin(), result.requirements.end());
  absl::StatusOr<Requirements> combined = RequirementsFromNodeSelector(
      all, interner, /*use_min_values=*/true,
      absl::StrCat("NodePool ", node_pool.metadata().name(),
                   ": spec.template.spec.requirements"));
  if (!combined.ok()) return combined.status();
  result.combined = *std::move(combined);

  // Per distinct key, in the order written: the types that pass it, from the
  // index (one query per key instead of a per-type walk).
  struct KeyCheck {
    int first_written = -1;
    TypeSet passing;
  };
  std::vector<KeyCheck> checks;
  std::vector<LabelKeyId> seen;
  for (int j = 0; j < static_cast<int>(result.requirements.size()); ++j) {
    const LabelKeyId key = interner.FindKey(
        labels::NormalizeLabelKey(result.requirements[j].key()));
    if (key == kNoId ||
        std::find(seen.begin(), seen.end(), key) != seen.end()) {
      continue;
    }
    seen.push_back(key);
    const Requirement* r = result.combined.Find(key);
    if (r == nullptr) continue;
    Requirements single;
    single.Add(*r);
    KeyCheck& check = checks.emplace_back();
    check.first_written = j;
    catalog.index().Intersecting(single, &check.passing);
  }

  const OfferingFilter offering_filter(catalog, result.combined);
  const int n = catalog.size();
  for (int i = 0; i < n; ++i) {
    int failed = -1;
    for (const KeyCheck& check : checks) {
      if (!check.passing.Test(i)) {
        failed = check.first_written;
        break;
      }
    }
    if (failed >= 0) {
      result.rejected.push_back({i, RejectionKind::kRequirement, failed});
      continue;
    }
    const int offering = catalog.CheapestCompatibleOffering(i, offering_filter);
    if (offering < 0) {
      result.rejected.push_back({i, RejectionKind::kNoAvailableOffering, -1});
      continue;
    }
    result.admitted.push_back(
        {i, offering, catalog.instance_type(i).offerings[offering].price});
  }
  std::stable_sort(
      result.admitted.begin(), result.admitted.end(),
      [](const AdmittedInstanceType& a, const AdmittedInstanceType& b) {
        return a.price < b.price;
      });
  CheckMinValues(catalog, interner, result);
  return result;
}

std::string RejectionText(const CompiledCatalog& catalog,
                          const NodePoolInstanceTypes& result,
                          const RejectedInstanceType& rejected,
                          const Interner& names) {
  const CompiledInstanceType& type = catalog.instance_type(rejected.type);
  if (rejected.kind == RejectionKind::kRequirement &&
      rejected.requirement_index >= 0 &&
      rejected.requirement_index <
          static_cast<int>(result.requirements.size())) {
    const v1::NodeSelectorRequirement& written =
        result.requirements[rejected.requirement_index];
    std::string text = WrittenRequirementText(written);
    const LabelKeyId key =
        names.FindKey(labels::NormalizeLabelKey(written.key()));
    if (const Requirement* has = type.requirements.Find(key); has != nullptr) {
      absl::StrAppend(&text, " (type has ", has->String(names), ")");
    }
    return text;
  }
  bool any_available = false;
  for (const CompiledOffering& o : type.offerings) {
    any_available = any_available || o.available;
  }
  if (!any_available) {
    return type.offerings.empty() ? "no offerings"
                                  : "no available offering (all unavailable)";
  }
  std::vector<std::string> parts;
  for (LabelKeyId key : {catalog.capacity_type_key(), catalog.zone_key(),
                         catalog.reservation_id_key()}) {
    if (const Requirement* r = result.combined.Find(key); r != nullptr) {
      parts.push_back(r->String(names));
    }
  }
  return absl::StrCat("no available offering compatible with ",
                      absl::StrJoin(parts, ", "));
}

std::string MinValuesText(const CompiledCatalog& catalog,
                          const NodePoolInstanceTypes& result,
                          const UnmetMinValues& unmet, const Interner& names) {
  std::string text =
      unmet.requirement_index >= 0 &&
              unmet.requirement_index <
                  static_cast<int>(result.requirements.size())
          ? WrittenRequirementText(result.requirements[unmet.requirement_index])
          : absl::StrCat(names.KeyText(unmet.key), " minValues ",
                         unmet.min_values);
  // The distinct values the admitted types offer for the key.
  std::vector<LabelValue> values;
  for (const AdmittedInstanceType& a : result.admitted) {
    const Requirement* r =
        catalog.instance_type(a.type).requirements.Find(unmet.key);
    if (r == nullptr) continue;
    values.insert(values.end(), r->values().begin(), r->values().end());
  }
  const std::vector<absl::string_view> found =
      Requirement::In(unmet.key, values).SortedValueTexts(names);
  absl::StrAppend(&text, ": the admitted instance types offer ", unmet.found,
                  unmet.found == 1 ? " value" : " values");
  if (!found.empty()) {
    constexpr size_t kShown = 5;
    absl::StrAppend(
        &text, " (",
        absl::StrJoin(found.begin(),
                      found.begin() + std::min(found.size(), kShown), " "));
    if (found.size() > kShown) {
      absl::StrAppend(&text, " and ", found.size() - kShown, " others");
    }
    absl::StrAppend(&text, ")");
  }
  return text;
}

}  // namespace nodeplan
