// Consolidation (pkg/controllers/disruption/consolidation.go,
// multinodeconsolidation.go, singlenodeconsolidation.go, balanced.go).

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "disruption/engine.h"
#include "disruption/pod_rules.h"
#include "disruption/pricing.h"

namespace nodeplan::disruption {
namespace {

constexpr int kMinSpotToSpotOptions = 15;
constexpr int kMultiNodeMax = 100;
constexpr int32_t kBalancedK = 2;

double SumPrices(const std::vector<Candidate>& c) {
  double sum = 0;
  for (const Candidate& x : c) sum += x.price;
  return sum;
}

std::vector<const Requirements*> TypeRequirements(const CompiledCatalog& cat,
                                                  const std::vector<int>& t) {
  std::vector<const Requirements*> out;
  out.reserve(t.size());
  for (int i : t) out.push_back(&cat.instance_type(i).requirements);
  return out;
}

}  // namespace

// The short keys in *why as Karpenter's structured error prints them:
// "(label(s)=[k1 k2])", sorted.
bool RemoveByPrice(const ClusterView& view, SimulatedNodeClaim& claim,
                   double max_price, std::string* why) {
  const CompiledCatalog& cat = *view.pools()[claim.pool].catalog;
  std::vector<int> kept;
  for (int t : claim.options) {
    if (WorstLaunchPrice(cat, t, claim.requirements, view.interner()) <
        max_price) {
      kept.push_back(t);
    }
  }
  claim.options = std::move(kept);
  std::vector<const Requirements*> reqs = TypeRequirements(cat, claim.options);
  const MinValuesResult result = SatisfiesMinValues(claim.requirements, reqs);
  if (!result.ok() && why != nullptr) {
    std::vector<absl::string_view> keys;
    for (const auto& [key, count] : result.unsatisfied) {
      keys.push_back(view.interner().KeyText(key));
    }
    std::sort(keys.begin(), keys.end());
    *why = absl::StrCat(
        "minValues requirement is not met for label(s) (label(s)=[",
        absl::StrJoin(keys, " "), "])");
  }
  return result.ok();
}

bool AdmitsCapacityType(const Requirements& reqs, const ClusterView& view,
                        const CompiledCatalog& cat, absl::string_view ct) {
  std::optional<LabelValue> v = view.interner().FindValue(ct);
  const Requirement* r = reqs.Find(cat.capacity_type_key());
  if (r == nullptr) return true;
  if (!v.has_value()) return r->complement();
  return r->Has(*v);
}

void PinToSpot(ClusterView& view, SimulatedNodeClaim& claim) {
  const CompiledCatalog& cat = *view.pools()[claim.pool].catalog;
  claim.requirements.Add(
      Requirement::In(cat.capacity_type_key(),
                      view.interner().InternValue(labels::kCapacityTypeSpot)));
}

namespace {

std::string CapitalizedFirst(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(s[0]));
  return s;
}

}  // namespace

double Engine::EstimatedSavings(const Command& cmd) const {
  double source = SumPrices(cmd.candidates);
  double dest = 0;
  for (const SimulatedNodeClaim& r : cmd.replacements) {
    if (r.pool < 0 || r.options.empty()) continue;
    const double p = CheapestAvailablePrice(*view_.pools()[r.pool].catalog,
                                            r.options.front(), r.requirements);
    if (p != kMaxPrice) dest += p;
  }
  return source - dest;
}

absl::StatusOr<std::optional<Command>> Engine::ComputeConsolidation(
    const std::vector<Candidate>& candidates, Method method) {
  std::vector<int> nodes;
  for (const Candidate& c : candidates) nodes.push_back(c.node);
  absl::StatusOr<SimulationResult> results =
      simulator_.Simulate(nodes, /*consolidation=*/true);
  if (!results.ok()) return results.status();
  const bool single = candidates.size() == 1;
  if (!results->all_non_pending_scheduled) {
    if (single) {
      Unconsolidatable(candidates[0], CapitalizedFirst(results->errors));
    }
    return std::optional<Command>();
  }
  Command cmd;
  cmd.method = method;
  cmd.candidates = candidates;
  cmd.existing = results->existing;
  if (results->new_claims.empty()) {
    cmd.savings = EstimatedSavings(cmd);
    return std::optional<Command>(std::move(cmd));
  }
  if (results->new_claims.size() != 1) {
    if (single) {
      Unconsolidatable(candidates[0],
                       absl::StrCat("Can't remove without creating ",
                                    results->new_claims.size(), " candidates"));
    }
    return std::optional<Command>();
  }
  const double candidate_price = SumPrices(candidates);
  bool all_spot = true;
  for (const Candidate& c : candidates) {
    if (view_.nodes()[c.node].capacity_type != labels::kCapacityTypeSpot) {
      all_spot = false;
    }
  }
  SimulatedNodeClaim& claim = results->new_claims[0];
  if (claim.pool < 0) return std::optional<Command>();
  const CompiledCatalog& cat = *view_.pools()[claim.pool].catalog;
  OrderByPrice(cat, claim.requirements, claim.options);
  if (all_spot && AdmitsCapacityType(claim.requirements, view_, cat,
                                     labels::kCapacityTypeSpot)) {
    return SpotToSpot(candidates, *results, candidate_price, method);
  }
  if (!KeepCheaperOptions(candidates, claim, candidate_price)) {
    return std::optional<Command>();
  }
  // OD -> [OD, spot]: pin the replacement to spot, as the price filter
  // assumed a spot launch.
  if (AdmitsCapacityType(claim.requirements, view_, cat,
                         labels::kCapacityTypeSpot) &&
      AdmitsCapacityType(claim.requirements, view_, cat,
                         labels::kCapacityTypeOnDemand)) {
    PinToSpot(view_, claim);
  }
  cmd.replacements.push_back(std::move(claim));
  cmd.savings = EstimatedSavings(cmd);
  return std::optional<Command>(std::move(cmd));
}

bool Engine::KeepCheaperOptions(const std::vector<Candidate>& candidates,
                                SimulatedNodeClaim& claim,
                                double candidate_price) {
  // Karpenter reports why only when a single node was considered.
  const bool single = candidates.size() == 1;
  std::string why;
  if (!RemoveByPrice(view_, claim, candidate_price, &why)) {
    if (single) {
      Unconsolidatable(candidates[0],
                       absl::StrCat("Filtering by price: ", why));
    }
    return false;
  }
  if (claim.options.empty()) {
    if (single) {
      Unconsolidatable(candidates[0], "Can't replace with a cheaper node");
    }
    return false;
  }
  return true;
}

absl::StatusOr<std::optional<Command>> Engine::SpotToSpot(
    const std::vector<Candidate>& candidates, SimulationResult& results,
    double candidate_price, Method method) {
  const bool single = candidates.size() == 1;
  if (!spot_to_spot_) {
    if (single) {
      Unconsolidatable(candidates[0],
                       "SpotToSpotConsolidation is disabled, can't replace a "
                       "spot node with a spot node");
    }
    return std::optional<Command>();
  }
  SimulatedNodeClaim& claim = results.new_claims[0];
  const CompiledCatalog& cat = *view_.pools()[claim.pool].catalog;
  PinToSpot(view_, claim);
  // InstanceTypes.Compatible: an available offering compatible with the
  // (now spot) requirements.
  std::vector<int> compatible;
  for (int t : claim.options) {
    if (CheapestAvailablePrice(cat, t, claim.requirements) != kMaxPrice) {
      compatible.push_back(t);
    }
  }
  claim.options = std::move(compatible);
  if (!KeepCheaperOptions(candidates, claim, candidate_price)) {
    return std::optional<Command>();
  }
  Command cmd;
  cmd.method = method;
  cmd.candidates = candidates;
  cmd.existing = results.existing;
  if (single) {
    if (static_cast<int>(claim.options.size()) < kMinSpotToSpotOptions) {
      Unconsolidatable(
          candidates[0],
          absl::StrCat("SpotToSpotConsolidation requires ",
                       kMinSpotToSpotOptions,
                       " cheaper instance type options than the current "
                       "candidate to consolidate, got ",
                       claim.options.size()));
      return std::optional<Command>();
    }
    size_t keep = kMinSpotToSpotOptions;
    if (claim.requirements.HasMinValues()) {
      std::vector<const Requirements*> reqs =
          TypeRequirements(cat, claim.options);
      keep = std::max<size_t>(
          keep, SatisfiesMinValues(claim.requirements, reqs).needed);
    }
    if (claim.options.size() > keep) claim.options.resize(keep);
  }
  cmd.replacements.push_back(std::move(claim));
  cmd.savings = EstimatedSavings(cmd);
  return std::optional<Command>(std::move(cmd));
}

bool Engine::FilterOutSameInstanceType(SimulatedNodeClaim& replacement,
                                       const std::vector<Candidate>& cands) {
  // Per candidate instance type: the cheapest offering compatible with the
  // candidate's labels.
  std::map<std::string, double> price_by_type;
  Interner local(&view_.interner());
  for (const Candidate& c : cands) {
    const NodeView& n = view_.nodes()[c.node];
    const CompiledCatalog& cat = *view_.pools()[c.pool].catalog;
    Requirements labels = RequirementsFromLabels(*n.labels, local);
    const double p = n.instance_type >= 0
                         ? CheapestCompatiblePrice(cat, n.instance_type, labels)
                         : kMaxPrice;
    if (p == kMaxPrice) {
      price_by_type.emplace(n.instance_type_name, kMaxPrice);
      continue;
    }
    auto [it, inserted] = price_by_type.emplace(n.instance_type_name, p);
    if (!inserted) it->second = std::min(it->second, p);
  }
  double max_price = kMaxPrice;
  const CompiledCatalog& rcat = *view_.pools()[replacement.pool].catalog;
  for (int t : replacement.options) {
    auto it = price_by_type.find(rcat.instance_type(t).name);
    if (it != price_by_type.end()) max_price = std::min(max_price, it->second);
  }
  return RemoveByPrice(view_, replacement, max_price);
}

absl::StatusOr<std::vector<Command>> Engine::MultiNode() {
  std::vector<Candidate> cands =
      MethodCandidates(Method::kMultiNodeConsolidation, true);
  if (cands.empty()) return std::vector<Command>{};
  BudgetBlockedEvents(Reason::kUnderutilized);
  std::vector<int32_t> budget = BudgetMap(Reason::kUnderutilized);
  SortBySavingsRatio(view_, cands);
  std::vector<Candidate> disruptable;
  for (const Candidate& c : cands) {
    if (budget[c.pool] == 0) continue;
    disruptable.push_back(c);
    --budget[c.pool];
  }
  if (disruptable.size() < 2) return std::vector<Command>{};
  int lo = 1;
  int hi = std::min<int>(static_cast<int>(disruptable.size()), kMultiNodeMax);
  if (static_cast<int>(disruptable.size()) <= hi) {
    hi = static_cast<int>(disruptable.size()) - 1;
  }
  std::optional<Command> best;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    std::vector<Candidate> prefix(disruptable.begin(),
                                  disruptable.begin() + mid + 1);
    absl::StatusOr<std::optional<Command>> cmd =
        ComputeConsolidation(prefix, Method::kMultiNodeConsolidation);
    if (!cmd.ok()) return cmd.status();
    bool valid = false;
    if (cmd->has_value()) {
      Command& c = **cmd;
      valid = c.is_delete();
      if (!c.is_delete()) {
        valid = FilterOutSameInstanceType(c.replacements[0], prefix) &&
                !c.replacements[0].options.empty();
        c.savings = EstimatedSavings(c);
      }
      if (valid && !Approve(c)) valid = false;
    }
    if (valid) {
      best = std::move(**cmd);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (!best.has_value()) return std::vector<Command>{};
  return std::vector<Command>{std::move(*best)};
}

absl::StatusOr<std::vector<Command>> Engine::SingleNode() {
  std::vector<Candidate> cands =
      MethodCandidates(Method::kSingleNodeConsolidation, true);
  if (cands.empty()) return std::vector<Command>{};
  BudgetBlockedEvents(Reason::kUnderutilized);
  std::vector<int32_t> budget = BudgetMap(Reason::kUnderutilized);
  SortBySavingsRatio(view_, cands);
  // Round-robin over NodePools (in name order), each in ratio order.
  std::map<std::string, std::vector<Candidate>> by_pool;
  for (const Candidate& c : cands) {
    by_pool[view_.pools()[c.pool].name].push_back(c);
  }
  std::vector<Candidate> order;
  size_t longest = 0;
  for (const auto& [name, group] : by_pool) {
    longest = std::max(longest, group.size());
  }
  for (size_t i = 0; i < longest; ++i) {
    for (const auto& [name, group] : by_pool) {
      if (i < group.size()) order.push_back(group[i]);
    }
  }
  for (const Candidate& c : order) {
    if (budget[c.pool] == 0) continue;
    if (!CanPassThreshold(c)) continue;
    absl::StatusOr<std::optional<Command>> cmd =
        ComputeConsolidation({c}, Method::kSingleNodeConsolidation);
    if (!cmd.ok()) return cmd.status();
    if (!cmd->has_value()) continue;
    if (!Approve(**cmd)) continue;
    return std::vector<Command>{std::move(**cmd)};
  }
  return std::vector<Command>{};
}

void Engine::BudgetBlockedEvents(Reason reason) {
  const std::vector<BudgetState>& budgets = Budgets(reason);
  for (size_t p = 0; p < budgets.size(); ++p) {
    if (budgets[p].nodes != 0 && budgets[p].allowance.raw == 0) {
      events_.Add("NodePool", view_.pools()[p].name, "Normal",
                  "DisruptionBlocked",
                  absl::StrCat("No allowed disruptions for disruption reason ",
                               ReasonName(reason), " due to blocking budget"));
    }
  }
}

void Engine::ComputeTotals() {
  totals_.assign(view_.pools().size(), Totals{});
  std::vector<double> fallback(view_.pools().size(), 0);
  for (const auto& c : graceful_candidates_) {
    if (!c.has_value()) continue;
    totals_[c->pool].present = true;
    fallback[c->pool] += c->price;
  }
  // The cluster cost tracker: every NodeClaim with the labels it needs, at
  // its offering's price.
  std::vector<double> cost(view_.pools().size(), 0);
  for (const NodeView& n : view_.nodes()) {
    if (n.claim == nullptr) continue;
    const StringMap& l = n.claim->metadata().labels();
    auto get = [&](absl::string_view k) -> const std::string* {
      auto it = l.find(std::string_view(k.data(), k.size()));
      return it == l.end() ? nullptr : &it->second;
    };
    const std::string* pool = get(labels::kNodePool);
    const std::string* type = get(labels::kInstanceType);
    const std::string* zone = get(labels::kZone);
    const std::string* ct = get(labels::kCapacityType);
    if (!pool || !type || !zone || !ct) continue;
    const int p = view_.PoolIndex(*pool);
    if (p < 0) continue;
    const CompiledCatalog& cat = *view_.pools()[p].catalog;
    const int t = cat.Find(*type);
    if (t < 0) continue;
    for (const CompiledOffering& o : cat.instance_type(t).offerings) {
      if (view_.interner().ValueText(o.zone.id) == *zone &&
          view_.interner().ValueText(o.capacity_type.id) == *ct) {
        cost[p] += o.price;
        break;
      }
    }
  }
  for (size_t i = 0; i < view_.nodes().size(); ++i) {
    const NodeView& n = view_.nodes()[i];
    if (!n.has_pool_label || n.pool < 0) continue;
    double d = 1.0;
    if (graceful_candidates_[i].has_value()) {
      d = graceful_candidates_[i]->disruption_cost;
    } else {
      for (int p : n.pods) {
        const PodFacts& f = view_.pods()[p].facts;
        if (f.daemon_set || f.terminal) continue;
        const double e = f.eviction_cost;
        if (e > 0) d += e;
      }
    }
    totals_[n.pool].disruption += d;
  }
  for (size_t p = 0; p < totals_.size(); ++p) {
    totals_[p].cost = cost[p] > 0 ? cost[p] : fallback[p];
  }
}

namespace {

v1::BalancedScore Score(absl::string_view pool, double savings,
                        double disruption, double total_cost,
                        double total_disruption) {
  v1::BalancedScore s;
  s.set_node_pool(std::string(pool));
  s.set_threshold(1.0 / kBalancedK);
  if (total_cost > 0 && total_disruption > 0) {
    s.set_savings_fraction(savings / total_cost);
    s.set_disruption_fraction(disruption / total_disruption);
  }
  double score;
  if (s.savings_fraction() <= 0) {
    score = 0;
  } else if (s.disruption_fraction() == 0) {
    score = std::numeric_limits<double>::infinity();
  } else {
    score = s.savings_fraction() / s.disruption_fraction();
  }
  s.set_approved(score >= s.threshold());
  s.set_score(std::isinf(score) ? 1e308 : score);
  return s;
}

}  // namespace

bool Engine::CanPassThreshold(const Candidate& c) const {
  const PoolView& pool = view_.pools()[c.pool];
  if (pool.policy != ConsolidationPolicy::kBalanced) return true;
  const Totals& t = totals_[c.pool];
  if (!t.present || t.cost <= 0) return true;
  return Score(pool.name, c.price, c.disruption_cost, t.cost, t.disruption)
      .approved();
}

bool Engine::Approve(Command& cmd) {
  cmd.scores.clear();
  if (cmd.candidates.empty()) return false;
  const double savings = EstimatedSavings(cmd);
  const double total_price = SumPrices(cmd.candidates);
  std::map<std::string, std::vector<const Candidate*>> by_pool;
  for (const Candidate& c : cmd.candidates) {
    by_pool[view_.pools()[c.pool].name].push_back(&c);
  }
  bool all = true;
  for (const auto& [name, group] : by_pool) {
    const int p = group.front()->pool;
    if (view_.pools()[p].policy != ConsolidationPolicy::kBalanced) continue;
    double disruption = 0, price = 0;
    for (const Candidate* c : group) {
      disruption += c->disruption_cost;
      price += c->price;
    }
    double pool_savings = savings;
    if (total_price > 0 && by_pool.size() > 1) {
      pool_savings = savings * (price / total_price);
    }
    const Totals& t = totals_[p];
    v1::BalancedScore s =
        Score(name, pool_savings, disruption, t.present ? t.cost : 0,
              t.present ? t.disruption : 0);
    all = all && s.approved();
    cmd.scores.push_back(std::move(s));
  }
  return all;
}

}  // namespace nodeplan::disruption
