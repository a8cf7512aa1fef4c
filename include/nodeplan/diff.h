#ifndef NODEPLAN_DIFF_H_
#define NODEPLAN_DIFF_H_

// What-if: two versions of a cluster compared. Both are planned (Schedule)
// and the answers compared: cost per hour, NodeClaims launched by one plan
// and not the other (by NodePool, type, zone, capacity type), pods that
// become unschedulable or schedulable. The running NodeClaims are judged by
// Disrupt's drift logic under both versions (NodePool hash, requirements,
// instance type gone): those that drift only under `after` are listed with
// the Drifted budget of their NodePool, which paces their replacement.

#include "absl/status/statusor.h"
#include "nodeplan/v1/diff.pb.h"

namespace nodeplan {

// Errors: those of Schedule and Disrupt on either version (after.now is
// required, as for Disrupt; before.now defaults to it).
absl::StatusOr<v1::DiffResponse> Diff(const v1::DiffRequest& request);

}  // namespace nodeplan

#endif  // NODEPLAN_DIFF_H_
