#ifndef NODEPLAN_LIB_SCHEDULING_DELETING_NODES_H_
#define NODEPLAN_LIB_SCHEDULING_DELETING_NODES_H_

// Pods of nodes being deleted, which Karpenter's provisioner schedules with
// the pending pods (StateNodes.Deleting().CurrentlyReschedulablePods): a
// node is being deleted when its NodeClaim carries a deletionTimestamp or
// the InstanceTerminating condition, or, without a NodeClaim, when the Node
// itself carries a deletionTimestamp (Karpenter's StateNode.Deleted). Its
// pods that will need a new home are the active ones and the terminating
// ones a StatefulSet owns, neither a DaemonSet's nor a mirror pod, and not
// protected by an active karpenter.sh/do-not-disrupt annotation.
//
// A ScheduleRequest carries no clock and no PodDisruptionBudgets, so a
// duration-valued do-not-disrupt annotation counts as active and PDBs that
// block every eviction are not read (Disrupt's drain reads both).

#include <optional>

#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::scheduling {

// Whether the NodeClaim is being deleted: a deletionTimestamp or the
// InstanceTerminating condition.
bool NodeClaimDeleting(const v1::NodeClaim& claim);

// Karpenter's StateNode.Deleted for a Node and its NodeClaim (null when it
// has none): the NodeClaim's state decides; only an unmanaged Node's own
// deletionTimestamp counts. Such a node is no destination and, like
// Karpenter's nodes.Active(), not charged to its NodePool's limits.
bool NodeDeleting(const v1::Node& node, const v1::NodeClaim* claim);

// Whether `request` holds a pod that a deleting node will give up.
bool HasDeletingNodePods(const v1::ScheduleRequest& request);

// The request with those pods pending (nodeName, deletionTimestamp,
// nominatedNodeName and schedulingGates cleared, in place in the pod list). The
// round leaves deleting nodes out by NodeDeleting. nullopt when no node gives
// up a pod (the common case, at no copy).
std::optional<v1::ScheduleRequest> WithDeletingNodesPodsPending(
    const v1::ScheduleRequest& request);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_DELETING_NODES_H_
