#ifndef NODEPLAN_LIB_OPTIMIZE_PLAN_BOUND_H_
#define NODEPLAN_LIB_OPTIMIZE_PLAN_BOUND_H_

// The cost bound of one scheduling answer: builds the BoundProblem of the
// pods a response places from the compiled snapshot and the request, solves
// it, and fills ScheduleResponse.cost_bound.

#include <string>

#include "absl/container/flat_hash_set.h"
#include "nodeplan/v1/schedule.pb.h"
#include "optimize/bound.h"
#include "scheduling/model.h"

namespace nodeplan::optimize {

struct PlanBound {
  BoundProblem problem;
  v1::CostBound report;
  BoundSolution solution;  // when report.available()
};

// `state` is the request's cluster state (pods, nodes, nodeClaims,
// daemonSets, deployments); `response` the plan whose placed pods are
// covered. Never fails: an unusable input or a missing solver is reported
// in CostBound.reason with available = false.
PlanBound ComputePlanBound(const scheduling::Compiled& snapshot,
                           const v1::ScheduleRequest& state,
                           const v1::ScheduleResponse& response,
                           const LpSolver* solver);
// The same for a plan not rendered yet: the pods it places
// ("namespace/name") and how many it leaves unschedulable.
PlanBound ComputePlanBound(const scheduling::Compiled& snapshot,
                           const v1::ScheduleRequest& state,
                           const absl::flat_hash_set<std::string>& placed,
                           int unschedulable, const LpSolver* solver);

// Whether narrowing NodePool `pool` to the instance types `types` leaves a
// covered pod nowhere to go, so that a round over the narrowed snapshot
// cannot place every pod `bound` covers: some class of the program with
// pods, no existing capacity (the request has no Nodes or NodeClaims) and
// admitted to columns of `pool` only (never to another NodePool: the
// program drops a NodePool or column only when no pod of the class can use
// it) fits none of `types` alone, by allocatable before DaemonSets. False
// when the bound is not available.
bool NarrowingStrandsAPod(const scheduling::Compiled& snapshot,
                          const PlanBound& bound, int pool,
                          const TypeSet& types);

}  // namespace nodeplan::optimize

#endif  // NODEPLAN_LIB_OPTIMIZE_PLAN_BOUND_H_
