#ifndef NODEPLAN_LIB_DISRUPTION_ENGINE_H_
#define NODEPLAN_LIB_DISRUPTION_ENGINE_H_

// One pass of Karpenter's disruption controller (pkg/controllers/
// disruption/controller.go): candidates and budgets per method, then
// Emptiness, StaticDrift, Drift, MultiNodeConsolidation and
// SingleNodeConsolidation in that order; the first method that produces a
// command ends the pass.
//
// Deterministic rules where Karpenter's order is undefined (Go map order,
// unstable sorts):
//  - candidates with equal savings ratio (price / reschedule disruption
//    cost) keep node-name order;
//  - drift candidates with equal Drifted transition times keep node-name
//    order;
//  - single-node consolidation visits NodePools round-robin in name order;
//  - static drift visits NodePools in name order and their candidates in
//    node-name order;
//  - instance-type options of equal price keep the scheduler's order.
// Multi-node consolidation's one-minute timeout and single-node's
// three-minute timeout are not modelled: the searches always run to the end
// (at most about log2(100) simulations for multi-node, one per candidate for
// single-node). The 15-second validation wait is assumed to pass with the
// cluster unchanged (ValidateCommand checks a command against a later
// state).

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "disruption/budgets.h"
#include "disruption/candidates.h"
#include "disruption/cluster_view.h"
#include "disruption/conditions.h"
#include "disruption/simulator.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::disruption {

struct Command {
  Method method = Method::kEmptiness;
  std::vector<Candidate> candidates;
  // Static drift replaces from the NodePool's template (no simulation);
  // those replacements have no options.
  std::vector<SimulatedNodeClaim> replacements;
  // The simulation's placements of moved pods on existing capacity.
  std::vector<v1::ExistingNodePlacement> existing;
  double savings = 0;
  std::vector<v1::BalancedScore> scores;
  bool is_delete() const { return replacements.empty(); }
};

// Events in emission order, duplicates dropped.
class EventLog {
 public:
  void Add(absl::string_view kind, absl::string_view name,
           absl::string_view type, absl::string_view reason,
           absl::string_view message);
  // The event on the Node and on its NodeClaim (Karpenter publishes both).
  void AddForNode(const NodeView& node, absl::string_view reason,
                  absl::string_view message);
  std::vector<v1::DisruptionEvent> Take() { return std::move(events_); }

 private:
  std::vector<v1::DisruptionEvent> events_;
  // Karpenter's recorder drops repeats of an event; a set, since a pass
  // over thousands of blocked nodes adds thousands of events.
  absl::flat_hash_set<std::string> seen_;
};

// Per NodePool and reason.
struct BudgetState {
  int32_t allowed = 0;  // max(raw - disrupting, 0)
  Allowance allowance;
  int nodes = 0;
  int disrupting = 0;
};

class Engine {
 public:
  Engine(ClusterView& view, const ConditionsResult& conditions,
         Simulator& simulator, EventLog& events);

  // Budgets of every NodePool for `reason` (ClusterView::pools() order).
  const std::vector<BudgetState>& Budgets(Reason reason) const {
    return budgets_[static_cast<int>(reason)];
  }
  // NewCandidate per node and class (index: ClusterView::nodes()).
  const std::vector<CandidateCheck>& Checks(bool eventual) const {
    return eventual ? eventual_ : graceful_;
  }
  const std::vector<std::optional<Candidate>>& Candidates(bool eventual) const {
    return eventual ? eventual_candidates_ : graceful_candidates_;
  }

  // Runs the methods in order; returns the first method's commands (empty
  // when no method produced one) and sets *method.
  absl::StatusOr<std::vector<Command>> Run(std::optional<Method>* method);

  // One method on the current state (used by Run and by validation).
  absl::StatusOr<std::vector<Command>> RunMethod(Method method);

  // The candidates of `method`: NewCandidate of its class and its filter.
  std::vector<Candidate> MethodCandidates(Method method, bool emit_events);
  // The budget map of `reason`: allowed per NodePool.
  std::vector<int32_t> BudgetMap(Reason reason) const;

  // computeConsolidation over `candidates` (single- or multi-node).
  absl::StatusOr<std::optional<Command>> ComputeConsolidation(
      const std::vector<Candidate>& candidates, Method method);
  // Balanced policy: whether every Balanced NodePool of the command
  // approves; fills cmd.scores.
  bool Approve(Command& cmd);
  // The candidates' prices minus the replacements' cheapest launch prices.
  double EstimatedSavings(const Command& cmd) const;

 private:
  void BuildBudgets();
  void BuildChecks();
  absl::StatusOr<std::vector<Command>> Emptiness();
  absl::StatusOr<std::vector<Command>> StaticDrift();
  absl::StatusOr<std::vector<Command>> Drift();
  absl::StatusOr<std::vector<Command>> MultiNode();
  absl::StatusOr<std::vector<Command>> SingleNode();
  absl::StatusOr<std::optional<Command>> SpotToSpot(
      const std::vector<Candidate>& candidates, SimulationResult& results,
      double candidate_price, Method method);
  // RemoveInstanceTypeOptionsByPriceAndMinValues with the candidates'
  // summed price, and the "no cheaper node" outcome: false (with Karpenter's
  // Unconsolidatable event for a single candidate) when nothing is left.
  bool KeepCheaperOptions(const std::vector<Candidate>& candidates,
                          SimulatedNodeClaim& claim, double candidate_price);
  // filterOutSameInstanceType; false when minValues no longer hold.
  bool FilterOutSameInstanceType(SimulatedNodeClaim& replacement,
                                 const std::vector<Candidate>& candidates);
  bool CanPassThreshold(const Candidate& c) const;
  void ComputeTotals();
  void Unconsolidatable(const Candidate& c, const std::string& message);
  // Karpenter's NodePoolBlockedForDisruptionReason events.
  void BudgetBlockedEvents(Reason reason);

  ClusterView& view_;
  const ConditionsResult& conditions_;
  Simulator& simulator_;
  EventLog& events_;
  bool spot_to_spot_ = false;
  std::vector<BudgetState> budgets_[3];
  std::vector<CandidateCheck> graceful_, eventual_;
  std::vector<std::optional<Candidate>> graceful_candidates_,
      eventual_candidates_;
  struct Totals {
    double cost = 0, disruption = 0;
    bool present = false;
  };
  std::vector<Totals> totals_;  // per NodePool (graceful class)
};

// Savings ratio descending, then node name.
void SortBySavingsRatio(const ClusterView& view, std::vector<Candidate>& c);

// Karpenter's RemoveInstanceTypeOptionsByPriceAndMinValues: keeps the
// claim's options whose worst launch price is below `max_price`; false when
// its minValues then fail, with Karpenter's error text in *why.
bool RemoveByPrice(const ClusterView& view, SimulatedNodeClaim& claim,
                   double max_price, std::string* why = nullptr);

// Whether `reqs` admit capacity type `ct`; and the spot pin consolidation
// adds to a replacement that may launch spot.
bool AdmitsCapacityType(const Requirements& reqs, const ClusterView& view,
                        const CompiledCatalog& cat, absl::string_view ct);
void PinToSpot(ClusterView& view, SimulatedNodeClaim& claim);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_ENGINE_H_
