#include "render_diff.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "render.h"

namespace nodeplan::cli {
namespace {

constexpr double kHoursPerMonth = 730;

void Shapes(const google::protobuf::RepeatedPtrField<v1::NodeClaimShape>& list,
            const char* sign, std::string& out) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::NodeClaimShape& s : list) {
    rows.push_back({absl::StrCat(sign, s.count()), s.node_pool(),
                    s.instance_type(), s.zone(), s.capacity_type(),
                    absl::StrFormat("$%.4f/hour", s.price())});
  }
  out += FormatColumns(rows, {true, false, false, false, false, true}, "  ");
}

void Pods(const google::protobuf::RepeatedPtrField<v1::PodChange>& list,
          std::string& out) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::PodChange& p : list) rows.push_back({p.pod(), p.detail()});
  out += FormatColumns(rows, {}, "  ");
}

}  // namespace

std::string RenderDiff(const v1::DiffResponse& d) {
  const double delta = d.cost_after() - d.cost_before();
  std::string out = absl::StrFormat(
      "Cost of new NodeClaims: $%.3f/hour -> $%.3f/hour (%s$%.3f/hour, "
      "%s$%.0f/month)\n",
      d.cost_before(), d.cost_after(), delta < 0 ? "-" : "+",
      delta < 0 ? -delta : delta, delta < 0 ? "-" : "+",
      (delta < 0 ? -delta : delta) * kHoursPerMonth);
  absl::StrAppend(&out, "New NodeClaims: ", d.before().new_node_claims_size(),
                  " -> ", d.after().new_node_claims_size(), "\n");
  if (!d.added().empty()) {
    out += "Added:\n";
    Shapes(d.added(), "+", out);
  }
  if (!d.removed().empty()) {
    out += "Removed:\n";
    Shapes(d.removed(), "-", out);
  }
  if (d.added().empty() && d.removed().empty()) {
    out += "The same NodeClaims (NodePool, type, zone, capacity type).\n";
  }
  if (!d.became_unschedulable().empty()) {
    absl::StrAppend(&out, "Pods that become unschedulable: ",
                    d.became_unschedulable_size(), "\n");
    Pods(d.became_unschedulable(), out);
  }
  if (!d.became_schedulable().empty()) {
    absl::StrAppend(&out, "Pods that become schedulable: ",
                    d.became_schedulable_size(), "\n");
    Pods(d.became_schedulable(), out);
  }
  if (d.drifted().empty()) {
    out += "No running NodeClaim drifts.\n";
  } else {
    absl::StrAppend(&out, "Running NodeClaims that drift: ", d.drifted_size(),
                    "\n");
    std::vector<std::vector<std::string>> rows = {
        {"NODECLAIM", "NODE", "NODEPOOL", "REASON"}};
    for (const v1::DriftedNodeClaim& c : d.drifted()) {
      rows.push_back({c.node_claim(), c.node().empty() ? "-" : c.node(),
                      c.node_pool(), c.reason()});
    }
    out += FormatColumns(rows, {}, "  ");
    out += "Replaced at the pace of the Drifted budgets:\n";
    for (const v1::BudgetAllowance& b : d.drift_budgets()) {
      absl::StrAppendFormat(
          &out, "  NodePool %s: %d of %d nodes at once%s\n", b.node_pool(),
          b.allowed(), b.nodes(),
          b.disrupting() > 0
              ? absl::StrCat(" (", b.disrupting(), " disrupting already)")
              : "");
    }
  }
  return out;
}

}  // namespace nodeplan::cli
