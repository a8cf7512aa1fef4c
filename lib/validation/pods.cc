#include "validation/pods.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nodeplan/labels.h"
#include "validation/requirement_rules.h"

namespace nodeplan::validation {
namespace {

constexpr absl::string_view kManagedLabelMessage =
    "configured to not run on a Karpenter provisioned node";

bool ExcludesKarpenter(const v1::NodeSelectorRequirement& r) {
  return NormalizeLabelKey(r.key()) == labels::kNodePool &&
         r.operator_() == "DoesNotExist";
}

// validateKarpenterManagedLabelCanExist: the pod's scheduling requirements
// are its nodeSelector, the first required term and the heaviest preferred
// term (the first of equal weights, as Karpenter's stable sort keeps them).
// Karpenter stops at the first such requirement.
bool CheckManagedLabel(const v1::PodSpec& spec, absl::string_view path,
                       Violations* v) {
  if (!spec.has_affinity() || !spec.affinity().has_node_affinity()) {
    return false;
  }
  const v1::NodeAffinity& na = spec.affinity().node_affinity();
  const std::string affinity = absl::StrCat(path, ".affinity.nodeAffinity");
  const auto& terms = na.required_during_scheduling_ignored_during_execution()
                          .node_selector_terms();
  if (!terms.empty()) {
    for (int j = 0; j < terms[0].match_expressions_size(); ++j) {
      if (ExcludesKarpenter(terms[0].match_expressions(j))) {
        v->Add(absl::StrCat(affinity,
                            ".requiredDuringSchedulingIgnoredDuringExecution."
                            "nodeSelectorTerms[0].matchExpressions[",
                            j, "]"),
               kManagedLabelMessage);
        return true;
      }
    }
  }
  const auto& preferred =
      na.preferred_during_scheduling_ignored_during_execution();
  int heaviest = -1;
  for (int i = 0; i < preferred.size(); ++i) {
    if (heaviest < 0 || preferred[i].weight() > preferred[heaviest].weight()) {
      heaviest = i;
    }
  }
  if (heaviest < 0) return false;
  const auto& exprs = preferred[heaviest].preference().match_expressions();
  for (int j = 0; j < exprs.size(); ++j) {
    if (ExcludesKarpenter(exprs[j])) {
      v->Add(absl::StrCat(affinity,
                          ".preferredDuringSchedulingIgnoredDuringExecution[",
                          heaviest, "].preference.matchExpressions[", j, "]"),
             kManagedLabelMessage);
      return true;
    }
  }
  return false;
}

}  // namespace

void CheckPodSpec(const v1::PodSpec& spec, absl::string_view path,
                  Violations* v) {
  CheckManagedLabel(spec, path, v);

  std::vector<std::string> keys;
  for (const auto& [k, value] : spec.node_selector()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    v1::NodeSelectorRequirement r;
    r.set_key(key);
    r.set_operator_("In");
    r.add_values(spec.node_selector().at(key));
    for (const std::string& e : KarpenterRequirementErrors(r)) {
      v->Add(absl::StrCat(path, ".nodeSelector[", key, "]"), e);
    }
  }

  if (!spec.has_affinity() || !spec.affinity().has_node_affinity()) return;
  const auto& terms = spec.affinity()
                          .node_affinity()
                          .required_during_scheduling_ignored_during_execution()
                          .node_selector_terms();
  for (int i = 0; i < terms.size(); ++i) {
    const std::string term = absl::StrCat(
        path,
        ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[",
        i, "]");
    if (!terms[i].match_fields().empty()) {
      v->Add(absl::StrCat(term, ".matchFields"),
             "node selector term with matchFields is not supported");
    }
    for (int j = 0; j < terms[i].match_expressions_size(); ++j) {
      for (const std::string& e :
           KarpenterRequirementErrors(terms[i].match_expressions(j))) {
        v->Add(absl::StrCat(term, ".matchExpressions[", j, "]"), e);
      }
    }
  }
}

}  // namespace nodeplan::validation
