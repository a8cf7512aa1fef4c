#ifndef NODEPLAN_LIB_VALIDATION_WORKLOAD_CHECKS_H_
#define NODEPLAN_LIB_VALIDATION_WORKLOAD_CHECKS_H_

// What the API server would refuse in a request's pods, Deployments and
// NodePools before nodeplan ever sees them (maxSkew 0, an empty topologyKey,
// an affinity weight of 500, negative replicas, two pods of one name), and
// the size limits of nodeplan/limits.h that bound a request's work. Validate
// reports the violations; Schedule and Disrupt refuse such a request as a
// whole (INVALID_ARGUMENT, or RESOURCE_EXHAUSTED past a limit) instead of
// planning on nonsense.

#include "absl/status/status.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan::validation {

// The objects of a request that the checks read; null fields are skipped.
struct Workload {
  template <typename T>
  using List = const google::protobuf::RepeatedPtrField<T>*;
  List<v1::Pod> pods = nullptr;
  List<v1::Deployment> deployments = nullptr;
  List<v1::NodePool> node_pools = nullptr;
  // Checked for duplicate names only (the API server holds one object per
  // kind, namespace and name; two Nodes "n" would be planned as two).
  List<v1::NodeClass> node_classes = nullptr;
  List<v1::NodeOverlay> node_overlays = nullptr;
  List<v1::Node> nodes = nullptr;
  List<v1::NodeClaim> node_claims = nullptr;
  List<v1::DaemonSet> daemon_sets = nullptr;
  List<v1::PersistentVolumeClaim> persistent_volume_claims = nullptr;
  List<v1::PersistentVolume> persistent_volumes = nullptr;
  List<v1::StorageClass> storage_classes = nullptr;
  // Also checked for negative volume limits (spec.drivers[].allocatable).
  List<v1::CSINode> csi_nodes = nullptr;
  List<v1::Namespace> namespaces = nullptr;
  List<v1::PodDisruptionBudget> pod_disruption_budgets = nullptr;
  // Pending pods checked elsewhere (a cluster handle checks each pod when
  // it is stored): they count toward the pending-pod limit.
  int64_t pending_checked_elsewhere = 0;

  // The cluster objects of a request (ScheduleRequest or DisruptRequest):
  // every list above but pods, Deployments and NodePools.
  template <typename Request>
  void SetClusterObjects(const Request& r) {
    node_classes = &r.node_classes();
    node_overlays = &r.node_overlays();
    nodes = &r.nodes();
    node_claims = &r.node_claims();
    daemon_sets = &r.daemon_sets();
    persistent_volume_claims = &r.persistent_volume_claims();
    persistent_volumes = &r.persistent_volumes();
    storage_classes = &r.storage_classes();
    csi_nodes = &r.csi_nodes();
    namespaces = &r.namespaces();
  }

  // Every object of a DisruptRequest or of `nodeplan validate`'s manifests:
  // the cluster objects, pods, Deployments, NodePools and PDBs.
  template <typename Request>
  void SetAllObjects(const Request& r) {
    SetClusterObjects(r);
    pods = &r.pods();
    deployments = &r.deployments();
    node_pools = &r.node_pools();
    pod_disruption_budgets = &r.pod_disruption_budgets();
  }
};

// The limits first (cheap, before any copy or expansion):
// RESOURCE_EXHAUSTED naming the limit and the field. Then the API server's
// rules: INVALID_ARGUMENT listing the first violations, each as
// "<Kind> <ns/name>: <field path>: <message>".
absl::Status CheckWorkload(const Workload& workload);

// CheckWorkload's limits alone (the RESOURCE_EXHAUSTED half).
absl::Status CheckWorkloadLimits(const Workload& workload);

// Whether `pod` passes every rule CheckWorkload applies to a pod on its own:
// a name, its labels and spec, the spread-constraint limit. Uniqueness and
// the pending-pod limit are the caller's. For a caller that visits each pod
// anyway and checks it there, while it is in cache: CheckWorkload over the
// other objects, this per pod, uniqueness and CheckWorkloadLimits with the
// pending pods counted pass exactly when CheckWorkload over all of them
// does (to report an error, run CheckWorkload over all of them).
bool PodPassesChecks(const v1::Pod& pod);

// The same rules as violations (for Validate); limits are not reported here.
void AddWorkloadViolations(const Workload& workload, v1::ValidateResponse* out);

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_WORKLOAD_CHECKS_H_
