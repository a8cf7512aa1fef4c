// Optimized consolidation (disruption/optimized.h).

#include "disruption/optimized.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "disruption/pricing.h"
#include "disruption/render.h"
#include "disruption/request_simulator.h"
#include "nodeplan/labels.h"
#include "nodeplan/verify.h"

namespace nodeplan::disruption {
namespace {

constexpr char kMethod[] = "optimized-consolidation";
// Candidates considered at most (Karpenter's multi-node limit).
constexpr int kMaxCandidates = 100;
// Every prefix size up to this one is tried; longer prefixes by halving.
constexpr int kEverySize = 4;
constexpr double kEpsilon = 1e-9;

struct Proposal {
  Command cmd;
  double estimated = 0;   // against doing nothing, cheapest launches
  double guaranteed = 0;  // against doing nothing, dearest options
};

// Ascending: 1..min(n, kEverySize), then n, n/2, n/4, ... above kEverySize.
std::vector<int> PrefixSizes(int n) {
  std::set<int> sizes;
  for (int k = 1; k <= std::min(n, kEverySize); ++k) sizes.insert(k);
  for (int k = n; k > kEverySize; k /= 2) sizes.insert(k);
  return {sizes.begin(), sizes.end()};
}

// The proposal a simulation of removing `cands` gives, if any (see the
// header for the price rule).
std::optional<Proposal> Evaluate(ClusterView& view, Engine& engine,
                                 const std::vector<Candidate>& cands,
                                 SimulationResult result) {
  if (!result.all_non_pending_scheduled) return std::nullopt;
  double price = 0;
  bool all_spot = true;
  for (const Candidate& c : cands) {
    price += c.price;
    all_spot = all_spot &&
               view.nodes()[c.node].capacity_type == labels::kCapacityTypeSpot;
  }
  const bool spot_to_spot =
      view.request().options().spot_to_spot_consolidation();
  std::vector<double> floor;
  double floors = 0;
  for (SimulatedNodeClaim& claim : result.new_claims) {
    if (claim.pool < 0 || claim.options.empty()) return std::nullopt;
    const CompiledCatalog& cat = *view.pools()[claim.pool].catalog;
    OrderByPrice(cat, claim.requirements, claim.options);
    if (AdmitsCapacityType(claim.requirements, view, cat,
                           labels::kCapacityTypeSpot)) {
      if (all_spot && !spot_to_spot) return std::nullopt;
      PinToSpot(view, claim);
    }
    double f = kMaxPrice;
    for (int t : claim.options) {
      f = std::min(
          f, WorstLaunchPrice(cat, t, claim.requirements, view.interner()));
    }
    if (f == kMaxPrice) return std::nullopt;
    floor.push_back(f);
    floors += f;
  }
  if (floors >= price - kEpsilon) return std::nullopt;
  Proposal p;
  p.guaranteed = price;
  if (!result.new_claims.empty()) {
    const double share = (price - floors) / result.new_claims.size();
    for (size_t i = 0; i < result.new_claims.size(); ++i) {
      SimulatedNodeClaim& claim = result.new_claims[i];
      if (!RemoveByPrice(view, claim, floor[i] + share) ||
          claim.options.empty()) {
        return std::nullopt;
      }
      const CompiledCatalog& cat = *view.pools()[claim.pool].catalog;
      double worst = 0;
      for (int t : claim.options) {
        worst = std::max(worst, WorstLaunchPrice(cat, t, claim.requirements,
                                                 view.interner()));
      }
      p.guaranteed -= worst;
    }
  }
  p.cmd.method = Method::kMultiNodeConsolidation;  // rendered as kMethod
  p.cmd.candidates = cands;
  p.cmd.replacements = std::move(result.new_claims);
  p.cmd.existing = std::move(result.existing);
  p.estimated = engine.EstimatedSavings(p.cmd);
  p.cmd.savings = p.estimated;
  if (p.guaranteed <= kEpsilon || !engine.Approve(p.cmd)) return std::nullopt;
  return p;
}

v1::DisruptionCommand Render(ClusterView& view, const Proposal& p,
                             bool indexed) {
  v1::DisruptionCommand out = RenderCommand(view, p.cmd, indexed);
  out.set_method(kMethod);
  return out;
}

// The simulation the search runs for one candidate set: Karpenter's on the
// compiled cluster, then, when it launches something, the Optimized packing.
absl::StatusOr<SimulationResult> SimulateSet(ClusterView& view,
                                             const ConditionsResult& conditions,
                                             Simulator& pass_simulator,
                                             const std::vector<int>& nodes,
                                             RequestSimulator* optimized) {
  absl::StatusOr<SimulationResult> r =
      pass_simulator.Simulate(nodes, /*consolidation=*/true);
  if (r.ok() && r->all_non_pending_scheduled && !r->new_claims.empty()) {
    if (optimized != nullptr) return optimized->Simulate(nodes, true);
    RequestSimulator sim(view, conditions);
    sim.UsePacking("Optimized", view.request().options().packing_budget());
    return sim.Simulate(nodes, /*consolidation=*/true);
  }
  return r;
}

double LaunchCost(const v1::DisruptionCommand& cmd) {
  double cost = 0;
  for (const v1::NewNodeClaim& n : cmd.replacements()) {
    cost += n.launch().price();
  }
  return cost;
}

// `cmd` with every replacement's options as names (the verifier reads
// names), its instance-type requirement `In` without values (as an Indexed
// render leaves it) filled in too; nullopt when an index is out of range.
std::optional<v1::DisruptionCommand> WithNames(v1::DisruptionCommand cmd) {
  for (v1::NewNodeClaim& n : *cmd.mutable_replacements()) {
    if (n.instance_type_indices().empty()) continue;
    v1::NodeSelectorRequirement* unexpanded = nullptr;
    for (v1::NodeSelectorRequirement& r :
         *n.mutable_node_claim()->mutable_spec()->mutable_requirements()) {
      if (r.key() == labels::kInstanceType && r.operator_() == "In" &&
          r.values().empty()) {
        unexpanded = &r;
      }
    }
    for (int index : n.instance_type_indices()) {
      if (index < 0 || index >= cmd.instance_type_names_size()) {
        return std::nullopt;
      }
      n.add_instance_types(cmd.instance_type_names(index));
      if (unexpanded != nullptr) {
        unexpanded->add_values(cmd.instance_type_names(index));
      }
    }
    n.clear_instance_type_indices();
  }
  cmd.clear_instance_type_names();
  return cmd;
}

}  // namespace

absl::StatusOr<std::string> RevalidateOptimized(
    ClusterView& view, const ConditionsResult& conditions, Engine& engine,
    Simulator& pass_simulator, std::vector<Candidate> cands,
    const v1::DisruptionCommand& cmd) {
  // The order the search simulates a set in.
  SortBySavingsRatio(view, cands);
  std::vector<int> nodes;
  for (const Candidate& c : cands) nodes.push_back(c.node);
  absl::StatusOr<SimulationResult> r =
      SimulateSet(view, conditions, pass_simulator, nodes, nullptr);
  if (!r.ok()) return r.status();
  if (!r->all_non_pending_scheduled) {
    return r->errors.empty()
               ? std::string("the candidates' pods no longer all find a place")
               : r->errors;
  }
  std::optional<Proposal> p = Evaluate(view, engine, cands, *std::move(r));
  if (!p.has_value()) {
    return std::string(
        "the scheduling simulation no longer finds replacements cheaper "
        "than the candidates");
  }
  const double now_cost = LaunchCost(Render(view, *p, false));
  const double cmd_cost = LaunchCost(cmd);
  if (now_cost > cmd_cost + kEpsilon) {
    return absl::StrFormat(
        "the scheduling simulation now launches $%.4f/hour of replacements, "
        "more than the command's $%.4f/hour",
        now_cost, cmd_cost);
  }
  // The command as given, on the cluster as it is now.
  std::optional<v1::DisruptionCommand> named = WithNames(cmd);
  if (!named.has_value()) {
    return std::string("a replacement's instance type index is out of range");
  }
  v1::DisruptResponse check;
  RenderBudgets(view, engine, &check);
  *check.mutable_optimized()->mutable_command() = *std::move(named);
  std::vector<Violation> v = VerifyDisruption(view.request(), check);
  if (!v.empty()) {
    return absl::StrCat("the command no longer holds: ",
                        FormatViolation(v.front()));
  }
  return std::string();
}

absl::Status ProposeOptimized(ClusterView& view,
                              const ConditionsResult& conditions,
                              Engine& engine, Simulator& pass_simulator,
                              v1::DisruptResponse* out) {
  v1::OptimizedConsolidation rep;
  double karpenter = 0;
  for (const v1::DisruptionCommand& c : out->commands()) {
    karpenter += c.savings_per_hour();
  }
  rep.set_karpenter_savings_per_hour(karpenter);
  // Multi-node consolidation's candidates within the Underutilized budgets.
  std::vector<Candidate> cands =
      engine.MethodCandidates(Method::kMultiNodeConsolidation, false);
  SortBySavingsRatio(view, cands);
  std::vector<int32_t> budget = engine.BudgetMap(Reason::kUnderutilized);
  std::vector<Candidate> disruptable;
  for (const Candidate& c : cands) {
    if (budget[c.pool] == 0) continue;
    disruptable.push_back(c);
    --budget[c.pool];
    if (static_cast<int>(disruptable.size()) == kMaxCandidates) break;
  }
  const v1::DisruptOptions& o = view.request().options();
  RequestSimulator sim(view, conditions);
  sim.UsePacking("Optimized", o.packing_budget());
  std::vector<Proposal> found;
  int tried = 0, pruned = 0;
  for (int size : PrefixSizes(static_cast<int>(disruptable.size()))) {
    const std::vector<Candidate> prefix(disruptable.begin(),
                                        disruptable.begin() + size);
    // A set cannot save more than its nodes cost: one that cannot beat the
    // pass's commands is not simulated.
    double price = 0;
    for (const Candidate& c : prefix) price += c.price;
    if (price <= karpenter + kEpsilon) {
      ++pruned;
      continue;
    }
    std::vector<int> nodes;
    for (const Candidate& c : prefix) nodes.push_back(c.node);
    // Karpenter's simulation first (on the compiled cluster): when it
    // launches nothing, there is nothing to repack and the Optimized
    // packing would return the same plan.
    absl::StatusOr<SimulationResult> r =
        SimulateSet(view, conditions, pass_simulator, nodes, &sim);
    if (!r.ok()) return r.status();
    ++tried;
    if (std::optional<Proposal> p =
            Evaluate(view, engine, prefix, *std::move(r))) {
      found.push_back(*std::move(p));
    }
  }
  rep.set_candidate_sets_tried(tried);
  // Best first: estimated savings, then the smaller (earlier) set.
  std::stable_sort(found.begin(), found.end(),
                   [](const Proposal& a, const Proposal& b) {
                     return a.estimated > b.estimated + kEpsilon;
                   });
  const std::string save_as_much =
      absl::StrCat("this pass's commands save as much ($", karpenter, "/hour)");
  std::string why = disruptable.empty()
                        ? "no consolidation candidate within the "
                          "Underutilized budgets"
                    : pruned > 0 ? save_as_much
                                 : "no candidate set can move its pods onto "
                                   "cheaper capacity";
  const bool indexed = o.instance_type_encoding() == "Indexed";
  for (const Proposal& p : found) {
    if (p.estimated <= karpenter + kEpsilon) {
      why = save_as_much;
      break;
    }
    // The independent check, on the proposal alone (names, so that the
    // verifier reads every replacement's options).
    v1::DisruptResponse check;
    *check.mutable_budgets() = out->budgets();
    *check.mutable_optimized()->mutable_command() = Render(view, p, false);
    std::vector<Violation> v = VerifyDisruption(view.request(), check);
    if (!v.empty()) {
      why = absl::StrCat("the best proposal failed verification: ",
                         FormatViolation(v.front()));
      continue;
    }
    *rep.mutable_command() =
        indexed ? Render(view, p, true)
                : std::move(*check.mutable_optimized()->mutable_command());
    rep.set_savings_over_karpenter_per_hour(p.estimated - karpenter);
    rep.set_guaranteed_savings_per_hour(p.guaranteed);
    why.clear();
    break;
  }
  rep.set_reason(why);
  *out->mutable_optimized() = std::move(rep);
  return absl::OkStatus();
}

}  // namespace nodeplan::disruption
