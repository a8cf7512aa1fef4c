// The public entry points: Schedule and Snapshot (include/nodeplan/schedule.h).

#include "nodeplan/schedule.h"

#include "canonical/canonical_order.h"
#include "optimize/packing.h"
#include "scheduling/deleting_nodes.h"
#include "scheduling/gated_schedule.h"
#include "scheduling/model.h"
#include "scheduling/solver.h"

namespace nodeplan {
namespace {

// Karpenter's provisioning pass: the pending pods plus the pods deleting
// nodes give up (scheduling/deleting_nodes.h), then nodeplan's cost bound
// and packing (lib/optimize).
absl::Status SolveAndFinish(const scheduling::Compiled& c,
                            const v1::ScheduleRequest& request,
                            const v1::ScheduleRequest* base,
                            v1::ScheduleResponse* out) {
  const std::optional<v1::ScheduleRequest> moved =
      scheduling::WithDeletingNodesPodsPending(request);
  const v1::ScheduleRequest& r = moved ? *moved : request;
  // The Optimized packing reruns the round over the same pods: their
  // Deployment replicas and class signatures are prepared once for all.
  // Its Karpenter round is rendered only if no cheaper plan replaces it.
  if (r.options().packing() == "Optimized") {
    // Checked before PreparePods expands the Deployments (a replica count
    // past the limits is refused, not allocated); the rounds after it, gated
    // by a gate that restricts nothing, do not check again.
    if (auto s = scheduling::CheckRequestWorkload(r); !s.ok()) return s;
    const scheduling::PreparedPods prepared = scheduling::PreparePods(r);
    std::vector<TypeSet> types;
    for (const auto& pool : c.pools) types.push_back(pool.types);
    auto round = scheduling::SolveUnrendered(c, r, scheduling::NoGate(),
                                             &prepared, std::move(types));
    if (!round.ok()) return round.status();
    return optimize::FinishOptimized(c, r, base, **round, out, &prepared);
  }
  if (auto s = scheduling::Solve(c, r, out); !s.ok()) return s;
  return optimize::Finish(c, r, base, out);
}

class CompiledSnapshot : public Snapshot {
 public:
  CompiledSnapshot(scheduling::Compiled c, v1::ScheduleRequest base)
      : c_(std::move(c)), base_(std::move(base)) {}
  absl::StatusOr<v1::ScheduleResponse> Schedule(
      const v1::ScheduleRequest& state) const override {
    return canonical::InCanonicalOrder(
        state,
        [&](const v1::ScheduleRequest& r)
            -> absl::StatusOr<v1::ScheduleResponse> {
          v1::ScheduleResponse resp;
          if (auto s = Solve(r, &resp); !s.ok()) return s;
          return resp;
        });
  }

  absl::StatusOr<const v1::ScheduleResponse*> ScheduleOnArena(
      const v1::ScheduleRequest& state,
      google::protobuf::Arena* arena) const override {
    if (arena == nullptr)
      return absl::InvalidArgumentError(
          "Snapshot::ScheduleOnArena: arena is null");
    return canonical::InCanonicalOrder(
        state,
        [&](const v1::ScheduleRequest& r)
            -> absl::StatusOr<const v1::ScheduleResponse*> {
          auto* resp =
              google::protobuf::Arena::CreateMessage<v1::ScheduleResponse>(
                  arena);
          if (auto s = Solve(r, resp); !s.ok()) return s;
          return resp;
        });
  }

  // Disruption's consolidation simulations (scheduling/gated_schedule.h).
  absl::StatusOr<v1::ScheduleResponse> ScheduleGated(
      const v1::ScheduleRequest& state,
      const scheduling::DestinationGate& gate) const {
    v1::ScheduleResponse resp;
    if (auto s = Check(state); !s.ok()) return s;
    if (auto s = scheduling::Solve(c_, state, gate, &resp); !s.ok()) return s;
    // Disruption's Karpenter simulations never name a packing; its
    // optimized consolidation asks for the Optimized one.
    if (state.options().packing() == "Optimized") {
      if (auto s = optimize::Finish(c_, state, &base_, &resp, &gate); !s.ok())
        return s;
    }
    return resp;
  }

 private:
  static absl::Status Check(const v1::ScheduleRequest& state) {
    if (state.node_pools_size() || state.node_classes_size() ||
        state.has_catalog() || !state.catalog_ref().empty() ||
        state.node_overlays_size() || state.unavailable_offerings_size())
      return absl::InvalidArgumentError(
          "Snapshot::Schedule: nodePools, nodeClasses, catalog, catalogRef, "
          "nodeOverlays and unavailableOfferings belong to Snapshot::Compile");
    return absl::OkStatus();
  }

  absl::Status Solve(const v1::ScheduleRequest& state,
                     v1::ScheduleResponse* out) const {
    if (auto s = Check(state); !s.ok()) return s;
    return SolveAndFinish(c_, state, &base_, out);
  }

 public:
  const scheduling::Compiled& compiled() const { return c_; }

 private:
  scheduling::Compiled c_;
  // What Compile was given: the Optimized packing reschedules whole requests.
  v1::ScheduleRequest base_;
};

}  // namespace

namespace scheduling {

absl::StatusOr<v1::ScheduleResponse> ScheduleGated(
    const Snapshot& snapshot, const v1::ScheduleRequest& state,
    const DestinationGate& gate) {
  const auto* compiled = dynamic_cast<const CompiledSnapshot*>(&snapshot);
  if (compiled == nullptr) {
    return absl::InvalidArgumentError(
        "ScheduleGated: the snapshot is not one Snapshot::Compile built");
  }
  return compiled->ScheduleGated(state, gate);
}

const Compiled* CompiledOf(const Snapshot& snapshot) {
  const auto* compiled = dynamic_cast<const CompiledSnapshot*>(&snapshot);
  return compiled == nullptr ? nullptr : &compiled->compiled();
}

}  // namespace scheduling

absl::StatusOr<std::shared_ptr<const Snapshot>> Snapshot::Compile(
    const v1::ScheduleRequest& base) {
  if (base.nodes_size() || base.node_claims_size() || base.pods_size() ||
      base.daemon_sets_size() || base.persistent_volume_claims_size() ||
      base.persistent_volumes_size() || base.storage_classes_size() ||
      base.csi_nodes_size() || base.deployments_size())
    return absl::InvalidArgumentError(
        "Snapshot::Compile: cluster state (nodes, nodeClaims, pods, "
        "daemonSets, volumes, csiNodes, deployments) belongs to "
        "Snapshot::Schedule");
  return canonical::InCanonicalOrder(
      base,
      [](const v1::ScheduleRequest& r)
          -> absl::StatusOr<std::shared_ptr<const Snapshot>> {
        auto c = scheduling::CompileSnapshot(r);
        if (!c.ok()) return c.status();
        return std::shared_ptr<const Snapshot>(
            std::make_shared<CompiledSnapshot>(std::move(*c), r));
      });
}

absl::StatusOr<v1::ScheduleResponse> Schedule(
    const v1::ScheduleRequest& request) {
  return canonical::InCanonicalOrder(
      request,
      [](const v1::ScheduleRequest& r) -> absl::StatusOr<v1::ScheduleResponse> {
        auto c = scheduling::CompileSnapshot(r);
        if (!c.ok()) return c.status();
        v1::ScheduleResponse resp;
        if (auto s = SolveAndFinish(*c, r, nullptr, &resp); !s.ok()) return s;
        return resp;
      });
}

absl::StatusOr<const v1::ScheduleResponse*> ScheduleOnArena(
    const v1::ScheduleRequest& request, google::protobuf::Arena* arena) {
  if (arena == nullptr)
    return absl::InvalidArgumentError("ScheduleOnArena: arena is null");
  return canonical::InCanonicalOrder(
      request,
      [&](const v1::ScheduleRequest& r)
          -> absl::StatusOr<const v1::ScheduleResponse*> {
        auto c = scheduling::CompileSnapshot(r);
        if (!c.ok()) return c.status();
        auto* resp =
            google::protobuf::Arena::CreateMessage<v1::ScheduleResponse>(arena);
        if (auto s = SolveAndFinish(*c, r, nullptr, resp); !s.ok()) return s;
        return resp;
      });
}

}  // namespace nodeplan
