// The public entry points: Schedule and Snapshot (include/nodeplan/schedule.h).

#include "nodeplan/schedule.h"

#include "absl/strings/str_cat.h"
#include "nodeplan/catalog.h"
#include "scheduling/model.h"
#include "scheduling/solver.h"

namespace nodeplan {
namespace {

class CompiledSnapshot : public Snapshot {
 public:
  explicit CompiledSnapshot(scheduling::Compiled c) : c_(std::move(c)) {}
  absl::StatusOr<v1::ScheduleResponse> Schedule(
      const v1::ScheduleRequest& state) const override {
    if (state.node_pools_size() || state.node_classes_size() ||
        state.has_catalog() || !state.catalog_ref().empty() ||
        state.node_overlays_size() || state.unavailable_offerings_size())
      return absl::InvalidArgumentError(
          "Snapshot::Schedule: nodePools, nodeClasses, catalog, catalogRef, "
          "nodeOverlays and unavailableOfferings belong to Snapshot::Compile");
    return scheduling::Solve(c_, state);
  }

 private:
  scheduling::Compiled c_;
};

// An explicit catalog wins; otherwise the embedded AWS catalog, built for
// the NodeClass of the first NodePool (its subnets' zones; per-NodePool zone
// restrictions are applied again at compile time from each NodeClass).
absl::StatusOr<v1::ScheduleRequest> ResolveCatalog(
    const v1::ScheduleRequest& base) {
  if (base.catalog().instance_types_size() > 0) return base;
  if (!base.catalog_ref().empty() && base.catalog_ref() != "aws")
    return absl::InvalidArgumentError(absl::StrCat(
        "catalogRef: \"", base.catalog_ref(), "\" is not a known catalog (aws)"));
  const v1::NodeClass* node_class = nullptr;
  if (base.node_pools_size() > 0) {
    const std::string& name =
        base.node_pools(0).spec().template_().spec().node_class_ref().name();
    for (const auto& nc : base.node_classes())
      if (nc.metadata().name() == name) node_class = &nc;
  }
  auto catalog = AwsCatalog(node_class);
  if (!catalog.ok()) return catalog.status();
  v1::ScheduleRequest out = base;
  *out.mutable_catalog() = std::move(*catalog);
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Snapshot>> Snapshot::Compile(
    const v1::ScheduleRequest& base) {
  if (base.nodes_size() || base.node_claims_size() || base.pods_size() ||
      base.daemon_sets_size() || base.persistent_volume_claims_size() ||
      base.persistent_volumes_size() || base.storage_classes_size() ||
      base.deployments_size())
    return absl::InvalidArgumentError(
        "Snapshot::Compile: cluster state (nodes, nodeClaims, pods, "
        "daemonSets, volumes, deployments) belongs to Snapshot::Schedule");
  auto resolved = ResolveCatalog(base);
  if (!resolved.ok()) return resolved.status();
  auto c = scheduling::CompileSnapshot(*resolved);
  if (!c.ok()) return c.status();
  return std::shared_ptr<const Snapshot>(
      std::make_shared<CompiledSnapshot>(std::move(*c)));
}

absl::StatusOr<v1::ScheduleResponse> Schedule(const v1::ScheduleRequest& request) {
  auto resolved = ResolveCatalog(request);
  if (!resolved.ok()) return resolved.status();
  auto c = scheduling::CompileSnapshot(*resolved);
  if (!c.ok()) return c.status();
  return scheduling::Solve(*c, request);
}

}  // namespace nodeplan
