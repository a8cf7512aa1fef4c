#include "scheduling/daemonset_pod.h"

namespace nodeplan::scheduling {

bool ControlledBy(const v1::DaemonSet& ds, const v1::Pod& pod) {
  if (pod.metadata().namespace_() != ds.metadata().namespace_()) return false;
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (!ref.controller()) continue;
    // Only one controller reference is allowed: it decides.
    if (!ds.metadata().uid().empty()) return ref.uid() == ds.metadata().uid();
    return ref.kind() == "DaemonSet" && ref.name() == ds.metadata().name();
  }
  return false;
}

const v1::Pod* NewestDaemonSetPod(
    const v1::DaemonSet& ds,
    const google::protobuf::RepeatedPtrField<v1::Pod>& pods) {
  const v1::Pod* newest = nullptr;
  for (const v1::Pod& pod : pods) {
    if (!ControlledBy(ds, pod)) continue;
    if (newest == nullptr || pod.metadata().creation_timestamp() >
                                 newest->metadata().creation_timestamp()) {
      newest = &pod;
    }
  }
  return newest;
}

v1::PodSpec DaemonSetPodSpec(const v1::DaemonSet& ds, const v1::Pod* newest) {
  const v1::PodSpec& tmpl = ds.spec().template_().spec();
  if (newest == nullptr) return tmpl;
  v1::PodSpec spec = newest->spec();
  const v1::NodeAffinity& affinity = tmpl.affinity().node_affinity();
  if (affinity.has_required_during_scheduling_ignored_during_execution()) {
    *spec.mutable_affinity()
         ->mutable_node_affinity()
         ->mutable_required_during_scheduling_ignored_during_execution() =
        affinity.required_during_scheduling_ignored_during_execution();
  }
  return spec;
}

}  // namespace nodeplan::scheduling
