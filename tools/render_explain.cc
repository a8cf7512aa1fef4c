#include "render_explain.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "render.h"

namespace nodeplan::cli {
namespace {

// {"cpu": "250m", "memory": "256Mi"} -> "250m CPU, 256Mi memory".
std::string Quantities(
    const google::protobuf::Map<std::string, std::string>& list) {
  std::vector<std::string> parts;
  for (const char* key : {"cpu", "memory", "pods", "ephemeral-storage"}) {
    auto it = list.find(key);
    if (it == list.end()) continue;
    const std::string name = std::string(key) == "cpu" ? "CPU" : key;
    parts.push_back(absl::StrCat(it->second, " ", name));
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

// Up to `n` names, then "and N more".
std::string Some(const google::protobuf::RepeatedPtrField<std::string>& names,
                 int n) {
  std::vector<std::string> shown;
  for (int i = 0; i < names.size() && i < n; ++i) shown.push_back(names[i]);
  std::string out = absl::StrJoin(shown, ", ");
  if (names.size() > n)
    absl::StrAppend(&out, " and ", names.size() - n, " more");
  return out;
}

}  // namespace

std::string RenderPodExplanation(const v1::PodExplanation& e) {
  std::string out = absl::StrCat("Pod ", e.pod(), ": requests ",
                                 Quantities(e.requests()), "\n");
  if (e.outcome() == "NodeClaim") {
    absl::StrAppendFormat(&out,
                          "Goes to: new NodeClaim %s of NodePool %s (%s, %s, "
                          "%s, $%.4f/hour)\n",
                          e.target(), e.node_pool(), e.launch().instance_type(),
                          e.launch().zone(), e.launch().capacity_type(),
                          e.launch().price());
  } else if (e.outcome() == "unschedulable") {
    absl::StrAppend(&out, "Unschedulable: ", e.reason(), "\n");
  } else if (e.outcome() == "bound") {
    absl::StrAppend(&out, "Already bound to node ", e.target(),
                    " (not pending)\n");
  } else if (!e.outcome().empty()) {
    absl::StrAppend(&out, "Goes to: existing ", e.outcome(), " ", e.target(),
                    " (existing capacity is tried before new NodeClaims)\n");
  }
  absl::StrAppend(&out, "NodePools in the order the scheduler tries them:\n");
  int i = 0;
  for (const v1::NodePoolCheck& c : e.node_pools()) {
    absl::StrAppendFormat(
        &out, "  %d. %s (weight %d): %s%s\n", ++i, c.node_pool(), c.weight(),
        c.failed_check().empty() ? "" : absl::StrCat(c.failed_check(), ": "),
        c.message());
  }
  if (e.node_pools().empty()) out += "  (no NodePool in the input)\n";
  return out;
}

std::string RenderNodePoolExplanation(const v1::NodePoolExplanation& e) {
  std::string out = absl::StrFormat(
      "NodePool %s (weight %d): %d instance types admitted, %d "
      "rejected, %d NodeClaims now\n",
      e.node_pool(), e.weight(), e.admitted_size(), e.rejected_types(),
      e.nodes());
  if (!e.admitted().empty()) {
    std::vector<std::vector<std::string>> rows = {
        {"TYPE", "$/HOUR", "ZONE", "CAPACITY", "CPU", "MEMORY", "PODS"}};
    for (const v1::AdmittedType& t : e.admitted()) {
      auto get = [&](const char* k) {
        auto it = t.allocatable().find(k);
        return it == t.allocatable().end() ? std::string("-") : it->second;
      };
      rows.push_back({t.name(), absl::StrFormat("%.4f", t.price()), t.zone(),
                      t.capacity_type(), get("cpu"), get("memory"),
                      get("pods")});
    }
    out += FormatColumns(rows, {false, true, false, false, true, true, true},
                         "  ");
  }
  for (const std::string& m : e.min_values()) {
    absl::StrAppend(&out, "minValues not met: ", m, "\n");
  }
  if (e.limits().empty()) {
    out += "Limits: none\n";
  } else {
    out += "Limits:\n";
    std::vector<std::vector<std::string>> rows = {
        {"RESOURCE", "LIMIT", "USED", "LEFT"}};
    for (const v1::LimitUse& l : e.limits()) {
      rows.push_back({l.resource(), l.limit(), l.used(), l.left()});
    }
    out += FormatColumns(rows, {false, true, true, true}, "  ");
  }
  out += "Disruption budgets:\n";
  for (const v1::BudgetUse& b : e.budgets()) {
    absl::StrAppendFormat(
        &out, "  nodes %s%s%s: %d of %d nodes at once\n", b.nodes(),
        b.reasons().empty()
            ? ""
            : absl::StrCat(" for ", absl::StrJoin(b.reasons(), ", ")),
        b.schedule().empty()
            ? ""
            : absl::StrCat(" during ", b.schedule(), " for ", b.duration()),
        b.allowed(), e.nodes());
  }
  absl::StrAppend(&out,
                  "Pending pods that can target it: ", e.targeting_pods_size(),
                  e.targeting_pods().empty()
                      ? ""
                      : absl::StrCat(" (", Some(e.targeting_pods(), 10), ")"),
                  "\n");
  absl::StrAppend(&out, "Pods the plan puts on it: ", e.planned_pods_size(),
                  e.planned_pods().empty()
                      ? ""
                      : absl::StrCat(" (", Some(e.planned_pods(), 10), ")"),
                  "\n");
  return out;
}

}  // namespace nodeplan::cli
