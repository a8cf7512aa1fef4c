#ifndef NODEPLAN_LIB_SCHEDULING_GATED_SCHEDULE_H_
#define NODEPLAN_LIB_SCHEDULING_GATED_SCHEDULE_H_

// Snapshot::Schedule with a destination gate (solver.h DestinationGate), for
// disruption's consolidation simulations; not part of the public API.

#include "absl/status/statusor.h"
#include "nodeplan/schedule.h"
#include "scheduling/solver.h"

namespace nodeplan::scheduling {

// `snapshot` must come from Snapshot::Compile. The pods and deployments of
// `state` must already have passed validation::CheckWorkload (solver.h).
// With options.packing "Optimized" the plan is then improved as Schedule
// improves it (lib/optimize), the gate holding for every packing tried.
absl::StatusOr<v1::ScheduleResponse> ScheduleGated(
    const Snapshot& snapshot, const v1::ScheduleRequest& state,
    const DestinationGate& gate);

// The compiled model behind a Snapshot::Compile snapshot (nullptr for any
// other Snapshot).
const Compiled* CompiledOf(const Snapshot& snapshot);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_GATED_SCHEDULE_H_
