#include "scheduling/cluster_model.h"

#include <utility>

#include "scheduling/gated_schedule.h"

namespace nodeplan::scheduling {

absl::StatusOr<std::unique_ptr<ClusterModel>> ClusterModel::Build(
    std::shared_ptr<const Snapshot> snapshot, const v1::ScheduleRequest& state,
    absl::Span<const KnownPod> known, BoundPodLabels labels) {
  const Compiled* compiled =
      snapshot == nullptr ? nullptr : CompiledOf(*snapshot);
  if (compiled == nullptr)
    return absl::InvalidArgumentError(
        "ClusterModel::Build: the snapshot is not one Snapshot::Compile "
        "built");
  absl::StatusOr<Options> opt = ParseOptions(state.options());
  if (!opt.ok()) return opt.status();
  std::unique_ptr<ClusterModel> m(new ClusterModel());
  m->snapshot_ = std::move(snapshot);
  m->options_ = *opt;
  m->base_ = std::make_unique<Round>(*compiled, state, *opt);
  if (absl::Status s = m->base_->SetupCluster(known, labels); !s.ok()) return s;
  return m;
}

absl::Status ClusterModel::Simulate(const Simulation& sim,
                                    const DestinationGate* gate,
                                    v1::ScheduleResponse* out) const {
  Options opt = options_;
  opt.gate = gate;
  auto round = std::make_unique<Round>(*base_, sim, opt);
  if (absl::Status s = round->SetupSimulation(); !s.ok()) return s;
  round->Run();
  if (round->needed_skipped_labels())
    return absl::UnavailableError(
        "a pod's topology terms count bound pods whose labels the compiled "
        "cluster skipped");
  round->ReleasePlacementState();
  round->Render(out);
  return absl::OkStatus();
}

}  // namespace nodeplan::scheduling
