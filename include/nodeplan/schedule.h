#ifndef NODEPLAN_SCHEDULE_H_
#define NODEPLAN_SCHEDULE_H_

// The provisioning scheduler: which pending pods go onto existing capacity,
// which NodeClaims to launch, and which pods cannot be placed and why.

#include <memory>

#include "absl/status/statusor.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan {

// One call: compiles the request and schedules it. A pod that fits nowhere is
// an answer (ScheduleResponse.unschedulable), not an error; errors are bad
// input only, with the object and field path named.
absl::StatusOr<v1::ScheduleResponse> Schedule(const v1::ScheduleRequest& request);

// A compiled, immutable view of what changes rarely: the catalog (with
// overlays and unavailable offerings applied), NodeClasses and NodePools.
// Compile once, then Schedule the cluster state and pending pods as often as
// needed, from any number of threads at once.
class Snapshot {
 public:
  virtual ~Snapshot() = default;

  // `base` supplies nodePools, nodeClasses, catalog/catalogRef, nodeOverlays
  // and unavailableOfferings; its other fields must be empty.
  static absl::StatusOr<std::shared_ptr<const Snapshot>> Compile(
      const v1::ScheduleRequest& base);

  // `state` supplies nodes, nodeClaims, pods, daemonSets, volumes and options;
  // its snapshot fields must be empty.
  virtual absl::StatusOr<v1::ScheduleResponse> Schedule(
      const v1::ScheduleRequest& state) const = 0;
};

}  // namespace nodeplan

#endif  // NODEPLAN_SCHEDULE_H_
