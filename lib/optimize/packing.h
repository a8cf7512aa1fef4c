#ifndef NODEPLAN_LIB_OPTIMIZE_PACKING_H_
#define NODEPLAN_LIB_OPTIMIZE_PACKING_H_

// The Optimized packing mode and the hook the public Schedule entry points
// call after Karpenter's round (docs/OPTIMIZE.md).

#include "absl/status/status.h"
#include "nodeplan/v1/schedule.pb.h"
#include "scheduling/model.h"
#include "scheduling/solver.h"

namespace nodeplan::optimize {

// Called by nodeplan::Schedule / Snapshot::Schedule after the Karpenter
// round rendered `out`. `state` is the request as handed to that entry
// point; `base` is the request the Snapshot was compiled from (null when
// `state` is a whole request). Fills out->cost_bound and out->packing, and
// in Optimized mode may replace the plan with a cheaper verified one.
// Errors: an unknown options.packing or options.costBound value. `gate`
// (disruption's consolidation simulations, may be null) holds for every
// alternative packing as it held for the Karpenter round. `prepared` (may
// be null) is PreparePods(state) when the caller has it.
absl::Status Finish(const scheduling::Compiled& snapshot,
                    const v1::ScheduleRequest& state,
                    const v1::ScheduleRequest* base, v1::ScheduleResponse* out,
                    const scheduling::DestinationGate* gate = nullptr,
                    const scheduling::PreparedPods* prepared = nullptr);

// Finish in Optimized mode (options.packing "Optimized", else an internal
// error) with the Karpenter round not rendered yet: `out` starts empty and
// only the plan kept is rendered into it (rendering thousands of
// placements is a large part of a round), so that the answer is the one
// Solve and Finish give.
absl::Status FinishOptimized(const scheduling::Compiled& snapshot,
                             const v1::ScheduleRequest& state,
                             const v1::ScheduleRequest* base,
                             scheduling::SolvedRound& karpenter,
                             v1::ScheduleResponse* out,
                             const scheduling::PreparedPods* prepared);

}  // namespace nodeplan::optimize

#endif  // NODEPLAN_LIB_OPTIMIZE_PACKING_H_
