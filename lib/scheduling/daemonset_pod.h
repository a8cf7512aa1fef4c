#ifndef NODEPLAN_LIB_SCHEDULING_DAEMONSET_POD_H_
#define NODEPLAN_LIB_SCHEDULING_DAEMONSET_POD_H_

// The pod whose requests count as a DaemonSet's overhead on a new NodeClaim,
// as Karpenter's provisioner picks it (getDaemonSetPods, provisioner.go, with
// Cluster.UpdateDaemonSet, state/cluster.go): the newest pod the DaemonSet
// controls, when the cluster has one — its requests may differ from the
// template's after admission webhooks or a vertical autoscaler — else the
// template. The DaemonSet controller pins each pod to its node with node
// affinity, so the template's required node affinity replaces the pod's.
//
// Deterministic rules: "controls" is a controller owner reference with the
// DaemonSet's uid in the DaemonSet's namespace (a DaemonSet without a uid,
// as hand-written manifests have, matches a reference of kind DaemonSet and
// its name); "newest" compares creationTimestamp as the API server writes it
// (RFC 3339, UTC), and of equally new pods the first in request order wins,
// where Karpenter keeps whichever its cache lists first.

#include <vector>

#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan::scheduling {

// Whether `ds` controls `pod` (the rule above).
bool ControlledBy(const v1::DaemonSet& ds, const v1::Pod& pod);

// Per DaemonSet of `daemon_sets`, the indices of the `pods` it controls
// (ControlledBy), in request order: one pass over the pods, whatever the
// number of DaemonSets.
std::vector<std::vector<int>> PodsByDaemonSet(
    const google::protobuf::RepeatedPtrField<v1::DaemonSet>& daemon_sets,
    const google::protobuf::RepeatedPtrField<v1::Pod>& pods);

// The newest of `pods[i]` for i in `indices` (the first of equally new
// ones), or nullptr when `indices` is empty.
const v1::Pod* NewestPod(
    const google::protobuf::RepeatedPtrField<v1::Pod>& pods,
    const std::vector<int>& indices);

// The spec Karpenter simulates for `ds`: `newest`'s spec (the result of
// NewestDaemonSetPod) with the template's required node affinity, or the
// template's spec when `newest` is nullptr.
v1::PodSpec DaemonSetPodSpec(const v1::DaemonSet& ds, const v1::Pod* newest);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_DAEMONSET_POD_H_
