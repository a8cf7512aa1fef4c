#ifndef NODEPLAN_EXPLAIN_H_
#define NODEPLAN_EXPLAIN_H_

// Explanations of a plan: for one pod, every NodePool in the order the
// scheduler tries them with the first check that fails there (with the
// numbers of the nearest miss) or where the pod goes and why; for one
// NodePool, what it admits, its limits and budgets, and the pods that can
// land on it. The facts come from the public pieces a plan is made of (the
// compiled catalog, requirements, taints, resources) and from Schedule's
// own answer; they describe, never change, a scheduling decision.
//
// Checks, in the order they are reported for a pod and a NodePool:
//   taints          a NodePool template taint the pod does not tolerate
//   requirements    the pod's node selector / required affinity against the
//                   NodePool's requirements and labels
//   instance-types  no admitted type whose labels and offerings suit the pod
//   resources       no such type holds the pod with the DaemonSet overhead:
//                   the nearest miss (the type with the most of the short
//                   resource) in numbers
//   limits          every fitting type would exceed the NodePool's limits
//   min-values      the admitted types do not meet a minValues floor
//   scheduler       every check above passes but Schedule leaves the pod
//                   unschedulable: its reason (topology, a volume's zone...)

#include "absl/status/statusor.h"
#include "nodeplan/v1/explain.pb.h"

namespace nodeplan {

// Exactly one of request.pod and request.node_pool must be set. Errors: bad
// input (as Schedule's), an unknown pod or NodePool (NOT_FOUND naming it).
absl::StatusOr<v1::ExplainResponse> Explain(const v1::ExplainRequest& request);

}  // namespace nodeplan

#endif  // NODEPLAN_EXPLAIN_H_
