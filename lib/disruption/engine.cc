#include "disruption/engine.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "disruption/pod_rules.h"
#include "nodeplan/labels.h"
#include "nodeplan/quantity.h"
#include "nodeplan/resources.h"

namespace nodeplan::disruption {

void EventLog::Add(absl::string_view kind, absl::string_view name,
                   absl::string_view type, absl::string_view reason,
                   absl::string_view message) {
  std::string key =
      absl::StrCat(kind, "\x1f", name, "\x1f", reason, "\x1f", message);
  if (!seen_.insert(std::move(key)).second) return;
  v1::DisruptionEvent e;
  e.set_kind(std::string(kind));
  e.set_name(std::string(name));
  e.set_type(std::string(type));
  e.set_reason(std::string(reason));
  e.set_message(std::string(message));
  events_.push_back(std::move(e));
}

void EventLog::AddForNode(const NodeView& node, absl::string_view reason,
                          absl::string_view message) {
  if (node.node != nullptr) {
    Add("Node", node.node->metadata().name(), "Normal", reason, message);
  }
  if (node.claim != nullptr) {
    Add("NodeClaim", node.claim->metadata().name(), "Normal", reason, message);
  }
}

void SortBySavingsRatio(const ClusterView& view, std::vector<Candidate>& c) {
  std::stable_sort(
      c.begin(), c.end(), [&](const Candidate& a, const Candidate& b) {
        const double ra = a.SavingsRatio(), rb = b.SavingsRatio();
        if (ra != rb) return ra > rb;
        return view.nodes()[a.node].name < view.nodes()[b.node].name;
      });
}

Engine::Engine(ClusterView& view, const ConditionsResult& conditions,
               Simulator& simulator, EventLog& events)
    : view_(view),
      conditions_(conditions),
      simulator_(simulator),
      events_(events),
      spot_to_spot_(view.request().options().spot_to_spot_consolidation()) {
  BuildBudgets();
  BuildChecks();
  ComputeTotals();
}

void Engine::BuildBudgets() {
  const size_t np = view_.pools().size();
  std::vector<int> nodes(np, 0), disrupting(np, 0);
  for (const NodeView& n : view_.nodes()) {
    if (!n.managed || !n.initialized || n.instance_terminating) continue;
    if (n.pool < 0) continue;
    ++nodes[n.pool];
    if (!n.ready || n.marked_for_deletion) ++disrupting[n.pool];
  }
  for (Reason r : kReasons) {
    std::vector<BudgetState>& out = budgets_[static_cast<int>(r)];
    out.resize(np);
    for (size_t p = 0; p < np; ++p) {
      BudgetState& b = out[p];
      b.nodes = nodes[p];
      b.disrupting = disrupting[p];
      b.allowance = AllowedDisruptions(view_.pools()[p].budgets, view_.now(),
                                       nodes[p], r);
      b.allowed = std::max<int32_t>(
          0, static_cast<int32_t>(std::max<int64_t>(
                 INT32_MIN, int64_t{b.allowance.raw} - disrupting[p])));
    }
  }
}

std::vector<int32_t> Engine::BudgetMap(Reason reason) const {
  std::vector<int32_t> out;
  for (const BudgetState& b : Budgets(reason)) out.push_back(b.allowed);
  return out;
}

void Engine::BuildChecks() {
  const size_t n = view_.nodes().size();
  graceful_.resize(n);
  eventual_.resize(n);
  graceful_candidates_.resize(n);
  eventual_candidates_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (bool eventual : {false, true}) {
      // The eventual check only relaxes the graceful one (pods blocking
      // with a terminationGracePeriod set): a node eligible for graceful
      // disruption is the same candidate for eventual disruption.
      if (eventual && graceful_[i].eligible) {
        eventual_[i] = graceful_[i];
        eventual_candidates_[i] = graceful_candidates_[i];
        continue;
      }
      Candidate c;
      CandidateCheck check =
          CheckCandidate(view_, static_cast<int>(i), eventual, &c);
      (eventual ? eventual_ : graceful_)[i] = check;
      if (check.eligible) {
        (eventual ? eventual_candidates_ : graceful_candidates_)[i] = c;
      } else if (view_.nodes()[i].claim != nullptr) {
        events_.AddForNode(view_.nodes()[i], "DisruptionBlocked",
                           check.message);
      }
    }
  }
}

std::vector<Candidate> Engine::MethodCandidates(Method method,
                                                bool emit_events) {
  std::vector<Candidate> out;
  const auto& all = Candidates(IsEventual(method));
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i].has_value()) continue;
    std::string why = MethodFilter(view_, conditions_, method, *all[i]);
    if (why.empty()) {
      out.push_back(*all[i]);
      continue;
    }
    if (!emit_events) continue;
    // Karpenter publishes Unconsolidatable for these filter failures.
    const bool reported =
        why.find("consolidation disabled") != std::string::npos ||
        why.find("not found") != std::string::npos ||
        why.find("does not have label") != std::string::npos ||
        why.find("policy WhenEmpty") != std::string::npos;
    if (reported && method != Method::kDrift &&
        method != Method::kStaticDrift) {
      events_.AddForNode(view_.nodes()[i], "Unconsolidatable", why);
    }
  }
  return out;
}

absl::StatusOr<std::vector<Command>> Engine::RunMethod(Method method) {
  switch (method) {
    case Method::kEmptiness:
      return Emptiness();
    case Method::kStaticDrift:
      return StaticDrift();
    case Method::kDrift:
      return Drift();
    case Method::kMultiNodeConsolidation:
      return MultiNode();
    case Method::kSingleNodeConsolidation:
      return SingleNode();
  }
  return std::vector<Command>{};
}

absl::StatusOr<std::vector<Command>> Engine::Run(
    std::optional<Method>* method) {
  for (Method m : kMethods) {
    absl::StatusOr<std::vector<Command>> cmds = RunMethod(m);
    if (!cmds.ok()) return cmds.status();
    if (!cmds->empty()) {
      *method = m;
      return cmds;
    }
  }
  method->reset();
  return std::vector<Command>{};
}

absl::StatusOr<std::vector<Command>> Engine::Emptiness() {
  std::vector<Candidate> cands = MethodCandidates(Method::kEmptiness, true);
  if (cands.empty()) return std::vector<Command>{};
  BudgetBlockedEvents(Reason::kEmpty);
  std::vector<int32_t> budget = BudgetMap(Reason::kEmpty);
  SortBySavingsRatio(view_, cands);
  Command cmd;
  cmd.method = Method::kEmptiness;
  for (const Candidate& c : cands) {
    if (!c.IsEmpty()) continue;
    if (budget[c.pool] == 0) continue;
    cmd.candidates.push_back(c);
    --budget[c.pool];
  }
  if (cmd.candidates.empty()) return std::vector<Command>{};
  cmd.savings = EstimatedSavings(cmd);
  return std::vector<Command>{std::move(cmd)};
}

absl::StatusOr<std::vector<Command>> Engine::StaticDrift() {
  std::vector<Candidate> cands = MethodCandidates(Method::kStaticDrift, true);
  if (cands.empty()) return std::vector<Command>{};
  BudgetBlockedEvents(Reason::kDrifted);
  std::vector<int32_t> budget = BudgetMap(Reason::kDrifted);
  // Candidates by NodePool, NodePools in name order, nodes in name order.
  std::map<std::string, std::vector<Candidate>> by_pool;
  for (const Candidate& c : cands) {
    by_pool[view_.pools()[c.pool].name].push_back(c);
  }
  std::vector<Command> out;
  for (auto& [name, group] : by_pool) {
    const int p = group.front().pool;
    const PoolView& pool = view_.pools()[p];
    if (budget[p] == 0) continue;
    // NodePoolState counts: active and deleting NodeClaims of the NodePool.
    int64_t active = 0, deleting = 0;
    for (const NodeView& n : view_.nodes()) {
      if (n.claim == nullptr) continue;
      auto it = n.claim->metadata().labels().find(labels::kNodePool);
      if (it == n.claim->metadata().labels().end() || it->second != name) {
        continue;
      }
      (n.marked_for_deletion ? deleting : active) += 1;
    }
    if (active > pool.replicas) continue;
    std::sort(group.begin(), group.end(),
              [&](const Candidate& a, const Candidate& b) {
                return view_.nodes()[a.node].name < view_.nodes()[b.node].name;
              });
    const int64_t wanted =
        std::min<int64_t>(budget[p], static_cast<int64_t>(group.size()));
    const int64_t limit = pool.node_limit.value_or(INT64_MAX);
    // Saturating: a limit near int64's minimum (a valid quantity) must not
    // wrap round to room for more nodes.
    const int64_t remaining = SaturatingSub(limit, active + deleting);
    if (remaining < 0) continue;
    const int64_t granted = std::min(wanted, remaining);
    for (int64_t i = 0; i < granted; ++i) {
      Command cmd;
      cmd.method = Method::kStaticDrift;
      cmd.candidates.push_back(group[i]);
      SimulatedNodeClaim replacement;
      replacement.pool = p;
      cmd.replacements.push_back(std::move(replacement));
      out.push_back(std::move(cmd));
    }
  }
  return out;
}

absl::StatusOr<std::vector<Command>> Engine::Drift() {
  std::vector<Candidate> cands = MethodCandidates(Method::kDrift, true);
  if (cands.empty()) return std::vector<Command>{};
  BudgetBlockedEvents(Reason::kDrifted);
  std::vector<int32_t> budget = BudgetMap(Reason::kDrifted);
  // Oldest Drifted transition first, then those with no reschedulable pod.
  std::stable_sort(
      cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
        const absl::Time ta = conditions_.nodes[a.node].drifted_since;
        const absl::Time tb = conditions_.nodes[b.node].drifted_since;
        if (ta != tb) return ta < tb;
        return view_.nodes()[a.node].name < view_.nodes()[b.node].name;
      });
  std::stable_partition(cands.begin(), cands.end(), [](const Candidate& c) {
    return c.reschedulable.empty();
  });
  for (const Candidate& c : cands) {
    if (budget[c.pool] == 0) continue;
    const int node = c.node;
    absl::StatusOr<SimulationResult> results =
        simulator_.Simulate({&node, 1}, /*consolidation=*/false);
    if (!results.ok()) return results.status();
    if (!results->all_non_pending_scheduled) {
      std::string msg = results->errors;
      if (!msg.empty()) msg[0] = static_cast<char>(std::toupper(msg[0]));
      events_.AddForNode(view_.nodes()[c.node], "DisruptionBlocked", msg);
      continue;
    }
    Command cmd;
    cmd.method = Method::kDrift;
    cmd.candidates.push_back(c);
    cmd.replacements = std::move(results->new_claims);
    cmd.existing = std::move(results->existing);
    cmd.savings = EstimatedSavings(cmd);
    return std::vector<Command>{std::move(cmd)};
  }
  return std::vector<Command>{};
}

void Engine::Unconsolidatable(const Candidate& c, const std::string& message) {
  events_.AddForNode(view_.nodes()[c.node], "Unconsolidatable", message);
}

}  // namespace nodeplan::disruption
