// Optimized packing: Karpenter's first-fit fills each new NodeClaim up to the
// largest instance type that still fits and then launches the cheapest type
// that holds what it packed, which can leave a large node and a small
// remainder where several medium nodes cost less. The Optimized mode reruns
// the same deterministic round with one NodePool's instance types capped at
// a node size the cost bound's linear program favours (types no larger than
// the cap in CPU and memory), so that first-fit packs nodes of that size,
// and keeps the cheapest result that places exactly the pods the Karpenter
// plan places and passes the independent verifier (nodeplan/verify.h).
// Every candidate is an ordinary Karpenter-semantics plan of a narrowed
// NodePool, so all pod constraints hold by construction and are checked
// again; the NodeClaims keep their real NodePool's name and
// karpenter.sh/nodepool-hash.

#include "optimize/packing.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/verify.h"
#include "optimize/plan_bound.h"
#include "scheduling/solver.h"

namespace nodeplan::optimize {
namespace {

constexpr int kDefaultBudget = 3;
// Restricts nothing.
const scheduling::DestinationGate& NoGate() {
  static const auto* gate = new scheduling::DestinationGate();
  return *gate;
}

struct Candidate {
  int pool = -1;
  int type = -1;  // index into Compiled::types: the size cap
  double weight = 0;
};

absl::flat_hash_set<std::string> Unschedulable(const v1::ScheduleResponse& r) {
  absl::flat_hash_set<std::string> s;
  for (const auto& u : r.unschedulable()) s.insert(u.pod());
  return s;
}

// The candidates: per column of the bound's solution that uses nodes, the
// column's instance type as a size cap of its NodePool, heaviest (price x
// nodes) first; then the remaining columns of NodePools the plan launches
// in, by reduced cost. Ties by column order (deterministic).
std::vector<Candidate> Candidates(const scheduling::Compiled& c,
                                  const PlanBound& b,
                                  const v1::ScheduleResponse& plan) {
  absl::flat_hash_set<std::string> launched;
  for (const auto& nc : plan.new_node_claims()) launched.insert(nc.node_pool());
  std::vector<std::pair<double, int>> used, rest;
  for (size_t k = 0; k < b.problem.columns.size(); ++k) {
    const BoundColumn& col = b.problem.columns[k];
    if (!launched.contains(c.pools[col.pool].name)) continue;
    double n = k < b.solution.nodes.size() ? b.solution.nodes[k] : 0;
    if (n > 1e-9)
      used.push_back({-n * col.price, static_cast<int>(k)});
    else if (k < b.solution.reduced.size())
      rest.push_back({b.solution.reduced[k], static_cast<int>(k)});
  }
  std::sort(used.begin(), used.end());
  std::sort(rest.begin(), rest.end());
  std::vector<Candidate> out;
  auto add = [&](int k, double w) {
    const BoundColumn& col = b.problem.columns[k];
    // The column's type: its name after "<pool>/".
    std::string type = col.name.substr(c.pools[col.pool].name.size() + 1);
    for (size_t t = 0; t < c.types.size(); ++t)
      if (c.types[t].name == type && c.pools[col.pool].types.Test(t)) {
        out.push_back({col.pool, static_cast<int>(t), w});
        return;
      }
  };
  for (auto [w, k] : used) add(k, w);
  for (auto [w, k] : rest) add(k, w);
  return out;
}

// NodePool `pool`'s instance types capped at type `cap`'s CPU and memory:
// the types no larger than the cap in both.
TypeSet CappedTypes(const scheduling::Compiled& c, int pool, int cap) {
  const scheduling::InstanceType& top = c.types[cap];
  TypeSet out = c.pools[pool].types;
  c.pools[pool].types.ForEach([&](int t) {
    const auto& it = c.types[t];
    if (it.allocatable[kDimCpu] > top.allocatable[kDimCpu] ||
        it.allocatable[kDimMemory] > top.allocatable[kDimMemory])
      out.Clear(t);
  });
  return out;
}

absl::Status Improve(const scheduling::Compiled& c,
                     const v1::ScheduleRequest& state,
                     const v1::ScheduleRequest& full, const PlanBound& bound,
                     int budget, const scheduling::DestinationGate* gate,
                     v1::ScheduleResponse* out) {
  v1::PackingReport rep;
  rep.set_mode("Optimized");
  rep.set_karpenter_cost(out->cost());
  const auto unsched = Unschedulable(*out);
  std::vector<Candidate> cands;
  if (bound.report.available()) cands = Candidates(c, bound, *out);
  // One cap per (pool, type), in candidate order. Each candidate is a round
  // over a copy of the compiled snapshot whose NodePool admits only the
  // capped types: nothing is recompiled, and the NodePool keeps its name,
  // requirements and karpenter.sh/nodepool-hash (the narrowing is the
  // plan's, not the pool's).
  absl::flat_hash_set<std::pair<int, int>> tried;
  std::vector<std::pair<v1::ScheduleResponse, std::string>> better;
  double best = out->cost();
  int n = 0;
  std::optional<scheduling::Compiled> narrowed;
  for (const auto& cand : cands) {
    if (n >= budget) break;
    if (!tried.insert({cand.pool, cand.type}).second) continue;
    ++n;
    if (!narrowed.has_value()) narrowed.emplace(c);
    for (size_t p = 0; p < c.pools.size(); ++p)
      narrowed->pools[p].types = c.pools[p].types;
    narrowed->pools[cand.pool].types = CappedTypes(c, cand.pool, cand.type);
    v1::ScheduleResponse r;
    // The gated Solve: `state` passed validation in the Karpenter round
    // (an empty gate restricts nothing and skips that check again).
    if (!scheduling::Solve(*narrowed, state, gate != nullptr ? *gate : NoGate(),
                           &r)
             .ok())
      continue;
    if (r.cost() >= best - 1e-9 || Unschedulable(r) != unsched) continue;
    best = r.cost();
    better.emplace_back(
        std::move(r),
        absl::StrCat("NodePool ", c.pools[cand.pool].name,
                     " capped at the size of ", c.types[cand.type].name));
  }
  rep.set_packings_tried(n);
  // The cheapest verified improvement (the list is in falling cost).
  for (auto it = better.rbegin(); it != better.rend(); ++it) {
    if (!Verify(full, it->first).empty()) continue;
    out->clear_new_node_claims();
    out->clear_existing_nodes();
    out->clear_unschedulable();
    out->clear_instance_type_names();
    out->MergeFrom(it->first);
    out->set_cost(it->first.cost());
    rep.set_improvement(it->second);
    break;
  }
  *out->mutable_packing() = rep;
  return absl::OkStatus();
}

}  // namespace

absl::Status Finish(const scheduling::Compiled& c,
                    const v1::ScheduleRequest& state,
                    const v1::ScheduleRequest* base, v1::ScheduleResponse* out,
                    const scheduling::DestinationGate* gate) {
  const auto& o = state.options();
  if (!o.packing().empty() && o.packing() != "Karpenter" &&
      o.packing() != "Optimized")
    return absl::InvalidArgumentError(
        absl::StrCat("options.packing: \"", o.packing(),
                     "\" is not one of Karpenter, Optimized"));
  if (!o.cost_bound().empty() && o.cost_bound() != "Compute" &&
      o.cost_bound() != "Skip")
    return absl::InvalidArgumentError(
        absl::StrCat("options.costBound: \"", o.cost_bound(),
                     "\" is not one of Compute, Skip"));
  if (o.packing_budget() < 0)
    return absl::InvalidArgumentError(
        "options.packingBudget: must not be negative");
  const bool optimized = o.packing() == "Optimized";
  // The bound is computed when asked for: it can double the time of a large
  // call (Karpenter's benchmark, 1,000 pods: 6.8 ms -> 33 ms).
  const bool skip = o.cost_bound() != "Compute";
  if (!optimized) out->mutable_packing()->set_mode("Karpenter");
  if (skip && !optimized) {
    out->mutable_cost_bound()->set_reason("options.costBound is not Compute");
    return absl::OkStatus();
  }
  auto solver = NewLpSolver();
  PlanBound bound = ComputePlanBound(c, state, *out, solver.get());
  if (optimized) {
    v1::ScheduleRequest full;
    if (base != nullptr) {
      full = *base;
      full.MergeFrom(state);
    }
    int budget = o.packing_budget() > 0 ? o.packing_budget() : kDefaultBudget;
    if (auto s =
            Improve(c, state, base ? full : state, bound, budget, gate, out);
        !s.ok())
      return s;
  }
  if (skip) {
    out->mutable_cost_bound()->set_reason("options.costBound is not Compute");
  } else {
    *out->mutable_cost_bound() = bound.report;
  }
  return absl::OkStatus();
}

}  // namespace nodeplan::optimize
