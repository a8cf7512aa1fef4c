#ifndef NODEPLAN_LIB_DISRUPTION_POD_RULES_H_
#define NODEPLAN_LIB_DISRUPTION_POD_RULES_H_

// Karpenter's pod predicates for disruption (pkg/utils/pod/scheduling.go,
// pkg/utils/disruption/disruption.go), over the proto Pod. Owners are
// matched as nodeplan/object_meta.h says.

#include <optional>
#include <string>

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

// The karpenter.sh/do-not-disrupt annotation of one pod, read once.
class DoNotDisrupt {
 public:
  static DoNotDisrupt Of(const v1::Pod& pod);
  // The protection at `now`: "true", or a positive Go duration measured
  // from status.startTime (no start time, or an unreadable one:
  // protected). Other values are ignored (Karpenter emits a warning event).
  bool ActiveAt(absl::Time now) const;
  // When a duration-valued annotation stops protecting the pod (nullopt for
  // "true", invalid values, or no start time).
  std::optional<absl::Time> Until() const;
  // The value is neither "true" nor a positive duration (what Karpenter's
  // InvalidDoNotDisruptAnnotation warning reports), with why.
  const std::optional<std::string>& invalid() const { return invalid_; }

 private:
  enum class Kind : uint8_t { kNone, kTrue, kDuration, kInvalid };
  Kind kind_ = Kind::kNone;
  // kDuration: the duration, and the start time when the pod has a readable
  // one.
  bool has_start_ = false;
  absl::Duration duration_;
  absl::Time start_;
  std::optional<std::string> invalid_;
};

// Tolerates karpenter.sh/disrupted:NoSchedule.
bool ToleratesDisruptedTaint(const v1::Pod& pod);
// Active, not tolerating the disrupted taint, not a mirror pod, no active
// do-not-disrupt: the pods Karpenter would evict (and check PDBs for).
bool IsEvictable(const v1::Pod& pod, absl::Time now);

// EvictionCost: clamp(1 + deletion-cost / 2^27 + priority / 2^25, -10, 10)
// from controller.kubernetes.io/pod-deletion-cost (unparsable: ignored) and
// spec.priority.
double EvictionCost(const v1::Pod& pod);

// What the disruption rules read of a pod, read in one visit (a cluster's
// pods are visited by many passes, and each first touch of a pod is a cache
// miss). Each member is the function above of the same name.
struct PodFacts {
  static PodFacts Of(const v1::Pod& pod);

  bool terminal = false;      // IsTerminal
  bool terminating = false;   // IsTerminating
  bool pending = false;       // IsPending
  bool daemon_set = false;    // IsOwnedByDaemonSet
  bool stateful_set = false;  // IsOwnedByStatefulSet
  bool mirror = false;        // IsOwnedByNode
  double eviction_cost = 1;   // EvictionCost
  DoNotDisrupt do_not_disrupt;

  bool active() const { return !terminal && !terminating; }  // IsActive
  // (Active, or a terminating StatefulSet pod) and not a DaemonSet or mirror
  // pod: the pods a disrupted node's replacement must hold.
  bool reschedulable() const;
  // Not active, or no active do-not-disrupt.
  bool disruptable(absl::Time now) const;
};

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_POD_RULES_H_
