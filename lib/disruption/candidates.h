#ifndef NODEPLAN_LIB_DISRUPTION_CANDIDATES_H_
#define NODEPLAN_LIB_DISRUPTION_CANDIDATES_H_

// Disruption candidates (Karpenter's NewCandidate, pkg/controllers/
// disruption/types.go and state/statenode.go) and the methods' filters
// (ShouldDisrupt of emptiness, drift, static drift and consolidation).

#include <optional>
#include <string>
#include <vector>

#include "disruption/budgets.h"
#include "disruption/cluster_view.h"
#include "disruption/conditions.h"

namespace nodeplan::disruption {

enum class Method {
  kEmptiness,
  kStaticDrift,
  kDrift,
  kMultiNodeConsolidation,
  kSingleNodeConsolidation,
};
inline constexpr Method kMethods[] = {
    Method::kEmptiness, Method::kStaticDrift, Method::kDrift,
    Method::kMultiNodeConsolidation, Method::kSingleNodeConsolidation};
// "emptiness", "static-drift", "drift", "multi-node-consolidation",
// "single-node-consolidation".
const char* MethodName(Method m);
Reason MethodReason(Method m);
// Drift and static drift are "eventual": a NodeClaim with a
// terminationGracePeriod is a candidate despite pods that block eviction.
bool IsEventual(Method m);

// A node that passed NewCandidate for a class.
struct Candidate {
  int node = -1;  // ClusterView::nodes() index
  int pool = -1;
  // Reschedulable pods (PodFacts::reschedulable), sorted by namespace/name.
  std::vector<int> reschedulable;
  double price = 0;
  // RescheduleDisruptionCost: 1 + positive eviction costs of reschedulable
  // pods.
  double disruption_cost = 1;
  double SavingsRatio() const { return price / disruption_cost; }
  // No reschedulable pod with a positive eviction cost.
  bool IsEmpty() const { return disruption_cost <= 1.0; }
};

struct CandidateCheck {
  bool eligible = false;
  // Why not, in Karpenter's words (the DisruptionBlocked event's message).
  std::string message;
};

// NewCandidate for `node` in the graceful (eventual = false) or eventual
// class. On success fills *out.
CandidateCheck CheckCandidate(const ClusterView& view, int node, bool eventual,
                              Candidate* out);

// The method's ShouldDisrupt. An empty message when it passes; otherwise the
// reason (Karpenter's Unconsolidatable wording where it has one).
std::string MethodFilter(const ClusterView& view,
                         const ConditionsResult& conditions, Method method,
                         const Candidate& c);

// Pods of `node` sorted by namespace/name (the order the API lists them).
std::vector<int> SortedPods(const ClusterView& view, int node);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_CANDIDATES_H_
