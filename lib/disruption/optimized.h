#ifndef NODEPLAN_LIB_DISRUPTION_OPTIMIZED_H_
#define NODEPLAN_LIB_DISRUPTION_OPTIMIZED_H_

// Optimized consolidation (DisruptOptions.packing "Optimized",
// docs/OPTIMIZE.md): nodeplan's own proposal next to Karpenter's pass,
// never in place of it.
//
// The search: the consolidation candidates (multi-node consolidation's
// candidates and filter), in Karpenter's savings-ratio order, within the
// Underutilized budgets, at most 100; prefixes of that list (every size up
// to 4, then the whole list and its halvings; those whose nodes cost no
// more than the pass's commands save are skipped) are each simulated as
// Karpenter's consolidation simulation does (the consolidateAfter gate
// included) but packed by the Optimized packing and with any number of
// replacements. A simulation that moves every pod gives a proposal when
// its replacements can launch below the candidates' prices: each
// replacement keeps the options whose worst launch price is below its
// cheapest option's worst price plus an equal share of what is left of the
// candidates' price (minValues still met), so that the replacements
// together never cost more than the candidates; a replacement that may
// launch spot is pinned to spot, and spot candidates go to spot only with
// SpotToSpotConsolidation. Balanced NodePools must approve (as for
// Karpenter's commands).
//
// Deterministic ties: the largest estimated savings wins, then the smaller
// candidate set (the earlier prefix). The proposal is kept only when it
// saves more than the pass's commands and VerifyDisruption
// (nodeplan/verify.h) finds nothing wrong with it; otherwise the next best
// is verified, and without one OptimizedConsolidation.reason says why.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "disruption/cluster_view.h"
#include "disruption/conditions.h"
#include "disruption/engine.h"
#include "disruption/simulator.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::disruption {

// Fills out->optimized. `out` already holds the pass's commands and
// budgets; nothing else of it changes (no event is added). `pass_simulator`
// is the pass's: a set whose Karpenter simulation launches nothing
// (or leaves a pod without a place) is taken as it is, and only the others
// are simulated again with the Optimized packing.
absl::Status ProposeOptimized(ClusterView& view,
                              const ConditionsResult& conditions,
                              Engine& engine, Simulator& pass_simulator,
                              v1::DisruptResponse* out);

// ValidateCommand for an optimized-consolidation command, on the cluster at
// the later time. `cands` are the command's candidates, every one of them
// still a consolidation candidate, not nominated and within the
// Underutilized budgets (the caller checks that, as for Karpenter's
// consolidation commands). What is left to check is the rest of Karpenter's
// re-validation, for a command of that shape:
//  - the simulation of removing the candidates, run as the proposal's search
//    runs it (Karpenter's first; again with the Optimized packing when it
//    launches something), still moves every pod and still gives a proposal
//    by the same price rule (each replacement's dearest option, and all of
//    them together, below the candidates' price; spot and Balanced rules);
//  - that plan launches no more, at its cheapest launch prices, than the
//    command's replacements cost (a delete must stay a delete);
//  - the command as given still holds on this cluster (VerifyDisruption:
//    candidates eligible, budgets, every moved pod placed on what remains
//    plus the command's replacements under every scheduling rule, the
//    replacements cheaper than the candidates).
// Returns "" when the command may go ahead, else why not.
absl::StatusOr<std::string> RevalidateOptimized(
    ClusterView& view, const ConditionsResult& conditions, Engine& engine,
    Simulator& pass_simulator, std::vector<Candidate> cands,
    const v1::DisruptionCommand& cmd);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_OPTIMIZED_H_
