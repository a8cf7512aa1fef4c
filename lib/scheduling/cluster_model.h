#ifndef NODEPLAN_LIB_SCHEDULING_CLUSTER_MODEL_H_
#define NODEPLAN_LIB_SCHEDULING_CLUSTER_MODEL_H_

// A compiled cluster: the state of a cluster (its nodes, in-flight
// NodeClaims, bound pods, DaemonSets, volumes and namespaces) compiled once
// over a compiled snapshot, so that many simulations over it ("if these
// nodes go, where do their pods land, and what must be launched?", as
// disruption asks) do not rebuild anything that does not change: existing
// capacity with bound pods and DaemonSet overhead, NodePool state and
// limits, the topology domain universe, and the interned labels of every
// node and bound pod.
//
// A simulation takes nodes away (by their index in the state request) and
// names the pods to place, in request order; the pods of the removed nodes
// that are to be placed again come as "moved" pods (read as pending, see
// SimPod). It gives the same response as scheduling the request the
// simulation describes (the state without the removed nodes and their
// pods, plus the simulation's pods as pending) with Solve: the tests compare
// the two.
//
// Thread safety: Simulate is const and may run concurrently; it interns new
// strings in a per-call overlay and copies only what placement changes.

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "nodeplan/resources.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/schedule.pb.h"
#include "scheduling/round.h"
#include "scheduling/solver.h"

namespace nodeplan::scheduling {

class ClusterModel {
 public:
  // `snapshot` must come from Snapshot::Compile; `state` (cluster state and
  // options, no pending pods: those belong to simulations; its pods,
  // deployments and objects already validated, as for gated Solve) must
  // outlive the model, unchanged.
  //
  // `known`, when given, holds per pod of `state` what a caller already
  // read of it (KnownPod); the model reads that instead of the pod's
  // message again. Read during Build only.
  //
  // `labels`: BoundPodLabels::kSkip for a caller that knows its simulations'
  // pods have no topology spread or pod (anti-)affinity terms; a simulation
  // that has some anyway returns Unavailable.
  static absl::StatusOr<std::unique_ptr<ClusterModel>> Build(
      std::shared_ptr<const Snapshot> snapshot,
      const v1::ScheduleRequest& state, absl::Span<const KnownPod> known = {},
      BoundPodLabels labels = BoundPodLabels::kIntern);

  // Runs `sim` (with the destination gate `gate`, which may be null) and
  // renders its response into `out`. An Unavailable status means this
  // simulation cannot reuse the compiled cluster (see
  // Round::SetupSimulation, BoundPodLabels): run it as a whole request
  // instead.
  absl::Status Simulate(const Simulation& sim, const DestinationGate* gate,
                        v1::ScheduleResponse* out) const;

 private:
  ClusterModel() = default;
  std::shared_ptr<const Snapshot> snapshot_;
  Options options_;
  std::unique_ptr<Round> base_;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_CLUSTER_MODEL_H_
