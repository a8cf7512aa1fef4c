#ifndef NODEPLAN_LIB_DISRUPTION_POD_RULES_H_
#define NODEPLAN_LIB_DISRUPTION_POD_RULES_H_

// Karpenter's pod predicates for disruption (pkg/utils/pod/scheduling.go,
// pkg/utils/disruption/disruption.go), over the proto Pod. Owners are
// matched as nodeplan/object_meta.h says.

#include <optional>

#include "absl/time/time.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan::disruption {

bool IsTerminal(const v1::Pod& pod);     // phase Succeeded or Failed
bool IsTerminating(const v1::Pod& pod);  // deletionTimestamp set
bool IsActive(const v1::Pod& pod);       // neither
// Phase Pending (a bound pod whose containers have not started counts).
bool IsPending(const v1::Pod& pod);
// Pending and provisionable: unbound, PodScheduled=False with reason
// Unschedulable, not preempting (no nominatedNodeName), not owned by a
// DaemonSet or a Node.
bool IsProvisionable(const v1::Pod& pod);

// (Active, or a terminating StatefulSet pod) and not a DaemonSet or mirror
// pod: the pods a disrupted node's replacement must hold.
bool IsReschedulable(const v1::Pod& pod);

// The pod's karpenter.sh/do-not-disrupt protection at `now`: "true", or a
// positive Go duration measured from status.startTime (no start time:
// protected). Other values are ignored (Karpenter emits a warning event).
bool IsDoNotDisruptActive(const v1::Pod& pod, absl::Time now);
// When a duration-valued annotation stops protecting the pod (nullopt for
// "true", invalid values, or no start time).
std::optional<absl::Time> DoNotDisruptUntil(const v1::Pod& pod);
// The annotation's value is neither "true" nor a positive duration (what
// Karpenter's InvalidDoNotDisruptAnnotation warning reports), with why.
std::optional<std::string> InvalidDoNotDisrupt(const v1::Pod& pod);

// Not active, or no active do-not-disrupt.
bool IsDisruptable(const v1::Pod& pod, absl::Time now);
// Tolerates karpenter.sh/disrupted:NoSchedule.
bool ToleratesDisruptedTaint(const v1::Pod& pod);
// Active, not tolerating the disrupted taint, not a mirror pod, no active
// do-not-disrupt: the pods Karpenter would evict (and check PDBs for).
bool IsEvictable(const v1::Pod& pod, absl::Time now);

// EvictionCost: clamp(1 + deletion-cost / 2^27 + priority / 2^25, -10, 10)
// from controller.kubernetes.io/pod-deletion-cost (unparsable: ignored) and
// spec.priority.
double EvictionCost(const v1::Pod& pod);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_POD_RULES_H_
