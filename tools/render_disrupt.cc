#include "render_disrupt.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nodeplan/quantity.h"
#include "render.h"

namespace nodeplan::cli {
namespace {

constexpr double kHoursPerMonth = 730;

double Fraction(const v1::NodeCandidacy& c, const std::string& resource,
                bool milli) {
  auto req = c.requests().find(resource);
  auto alloc = c.allocatable().find(resource);
  if (alloc == c.allocatable().end()) return -1;
  absl::StatusOr<int64_t> a = milli ? ParseQuantityMilli(alloc->second)
                                    : ParseQuantityValue(alloc->second);
  if (!a.ok() || *a <= 0) return -1;
  if (req == c.requests().end()) return 0;
  absl::StatusOr<int64_t> r =
      milli ? ParseQuantityMilli(req->second) : ParseQuantityValue(req->second);
  if (!r.ok()) return -1;
  return static_cast<double>(*r) / static_cast<double>(*a);
}

std::string Bar(double fraction) {
  return fraction < 0 ? "-" : UtilizationBar(fraction, 8);
}

// What the pass does with a node, or the first reason it does not.
std::string Status(const v1::NodeCandidacy& c,
                   const std::map<std::string, std::string>& in_command) {
  if (auto it = in_command.find(c.node()); it != in_command.end()) {
    return it->second;
  }
  if (!c.graceful().eligible() && !c.eventual().eligible()) {
    return "blocked: " + c.graceful().message();
  }
  std::vector<std::string> eligible;
  for (const v1::MethodEligibility& m : c.methods()) {
    if (m.eligible()) eligible.push_back(m.method());
  }
  if (!eligible.empty()) {
    return absl::StrCat("candidate (", absl::StrJoin(eligible, ", "), ")");
  }
  // The most telling method message: consolidation's when the node has pods.
  for (const v1::MethodEligibility& m : c.methods()) {
    if (m.method() == "single-node-consolidation" && !c.pods().empty()) {
      return "kept: " + m.message();
    }
  }
  return "kept: " +
         (c.methods().empty() ? std::string() : c.methods(0).message());
}

std::string Money(double usd) { return absl::StrFormat("$%.4f", usd); }

// "$0.1234/hour ($90/month)".
std::string Saving(double usd) {
  return absl::StrCat(Money(usd), "/hour (",
                      absl::StrFormat("$%.0f", usd * kHoursPerMonth),
                      "/month)");
}

// "method (reason): decision node (type, capacity, $/hour), ... with
// type (capacity, $/hour, N options), ...".
std::string CommandText(const v1::DisruptionCommand& cmd) {
  std::string out;
  std::vector<std::string> nodes;
  for (const v1::CommandCandidate& c : cmd.candidates()) {
    nodes.push_back(absl::StrCat(c.node(), " (", c.instance_type(), ", ",
                                 c.capacity_type(), ", ", Money(c.price()),
                                 "/hour)"));
  }
  absl::StrAppend(&out, cmd.method(), " (", cmd.reason(), "): ", cmd.decision(),
                  " ", absl::StrJoin(nodes, ", "));
  std::vector<std::string> launches;
  for (const v1::NewNodeClaim& n : cmd.replacements()) {
    if (n.launch().instance_type().empty()) {
      launches.push_back(
          absl::StrCat("a NodeClaim of NodePool ", n.node_pool()));
    } else {
      launches.push_back(absl::StrCat(
          n.launch().instance_type(), " (", n.launch().capacity_type(), ", ",
          Money(n.launch().price()), "/hour, ",
          n.instance_types_size() + n.instance_type_indices_size(),
          " options)"));
    }
  }
  if (!launches.empty()) {
    absl::StrAppend(&out, " with ", absl::StrJoin(launches, ", "));
  }
  return out;
}

}  // namespace

std::string RenderDisruptTable(const v1::DisruptResponse& r) {
  std::string out;
  std::map<std::string, std::string> in_command;
  for (const v1::DisruptionCommand& cmd : r.commands()) {
    for (const v1::CommandCandidate& c : cmd.candidates()) {
      in_command[c.node()] =
          absl::StrCat(cmd.decision() == "delete" ? "→ delete" : "→ replace",
                       " (", cmd.method(), ")");
    }
  }
  std::vector<std::vector<std::string>> rows = {
      {"NODE", "NODEPOOL", "TYPE", "ZONE", "CAPACITY", "$/HOUR", "PODS", "CPU",
       "MEMORY", "DISRUPTION"}};
  for (const v1::NodeCandidacy& c : r.candidates()) {
    rows.push_back({c.node().empty() ? c.node_claim() : c.node(), c.node_pool(),
                    c.instance_type(), c.zone(), c.capacity_type(),
                    absl::StrFormat("%.4f", c.price()),
                    absl::StrCat(c.pods_size()), Bar(Fraction(c, "cpu", true)),
                    Bar(Fraction(c, "memory", false)), Status(c, in_command)});
  }
  if (rows.size() > 1) {
    out += FormatColumns(
        rows,
        {false, false, false, false, false, true, true, false, false, false},
        "");
  } else {
    out += "No managed nodes.\n";
  }
  out += "\n";
  if (r.commands().empty()) {
    out += "No disruption now.";
    if (!r.next_decision_at().empty()) {
      absl::StrAppend(&out, " The answer can change at ", r.next_decision_at(),
                      ".");
    }
    out += "\n";
  }
  for (const v1::DisruptionCommand& cmd : r.commands()) {
    absl::StrAppend(&out, "Command: ", CommandText(cmd), "\n  saves ",
                    Saving(cmd.savings_per_hour()), "\n");
  }
  if (r.has_optimized()) {
    const v1::OptimizedConsolidation& o = r.optimized();
    out += "\nnodeplan's optimized consolidation (not Karpenter's decision): ";
    if (o.has_command()) {
      absl::StrAppend(&out, CommandText(o.command()), "\n  saves ",
                      Saving(o.command().savings_per_hour()), " (at least ",
                      Money(o.guaranteed_savings_per_hour()), "/hour), ",
                      Money(o.savings_over_karpenter_per_hour()),
                      "/hour more than Karpenter's command\n");
    } else {
      absl::StrAppend(&out, "none (", o.reason(), ")\n");
    }
  }
  std::vector<std::string> expired;
  for (const v1::Expiration& e : r.expirations()) {
    if (e.action() == "delete") expired.push_back(e.node_claim());
  }
  if (!expired.empty()) {
    absl::StrAppend(&out, "Expired (deleted regardless of budgets): ",
                    absl::StrJoin(expired, ", "), "\n");
  }
  for (const v1::Drain& d : r.drains()) {
    absl::StrAppend(&out, "Draining ", d.node(), ": ", d.evict_size(),
                    " to evict, ", d.force_delete_size(), " to force-delete, ",
                    d.waiting_on_size(), " waiting",
                    d.node_removed() ? " (nothing left: node goes)" : "", "\n");
  }
  if (!r.budgets().empty()) {
    std::vector<std::vector<std::string>> b = {
        {"NODEPOOL", "EMPTY", "DRIFTED", "UNDERUTILIZED"}};
    std::map<std::string, std::vector<std::string>> by_pool;
    std::vector<std::string> order;
    for (const v1::BudgetAllowance& a : r.budgets()) {
      if (!by_pool.contains(a.node_pool())) order.push_back(a.node_pool());
      const std::string raw =
          a.raw() == 2147483647 ? "∞" : absl::StrCat(a.raw());
      by_pool[a.node_pool()].push_back(absl::StrCat(a.allowed(), " of ", raw));
    }
    for (const std::string& p : order) {
      std::vector<std::string> row = {p};
      for (const std::string& x : by_pool[p]) row.push_back(x);
      b.push_back(row);
    }
    out += "\nDisruptions allowed now (after nodes already disrupting):\n";
    out += FormatColumns(b, {false, true, true, true}, "  ");
  }
  return out;
}

}  // namespace nodeplan::cli
