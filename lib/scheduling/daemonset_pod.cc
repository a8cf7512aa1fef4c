#include "scheduling/daemonset_pod.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

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

std::vector<std::vector<int>> PodsByDaemonSet(
    const google::protobuf::RepeatedPtrField<v1::DaemonSet>& daemon_sets,
    const google::protobuf::RepeatedPtrField<v1::Pod>& pods) {
  std::vector<std::vector<int>> out(daemon_sets.size());
  if (daemon_sets.empty()) return out;
  // ControlledBy's two rules as lookups: (namespace, uid) for DaemonSets
  // with a uid, (namespace, name) for those without.
  using Key = std::pair<absl::string_view, absl::string_view>;
  absl::flat_hash_map<Key, std::vector<int>> by_uid, by_name;
  for (int d = 0; d < daemon_sets.size(); ++d) {
    const v1::ObjectMeta& m = daemon_sets[d].metadata();
    if (m.uid().empty()) {
      by_name[Key(m.namespace_(), m.name())].push_back(d);
    } else {
      by_uid[Key(m.namespace_(), m.uid())].push_back(d);
    }
  }
  for (int i = 0; i < pods.size(); ++i) {
    const v1::ObjectMeta& m = pods[i].metadata();
    for (const v1::OwnerReference& ref : m.owner_references()) {
      if (!ref.controller()) continue;
      // Only one controller reference is allowed: it decides.
      if (auto it = by_uid.find(Key(m.namespace_(), ref.uid()));
          it != by_uid.end())
        for (int d : it->second) out[d].push_back(i);
      if (ref.kind() == "DaemonSet")
        if (auto it = by_name.find(Key(m.namespace_(), ref.name()));
            it != by_name.end())
          for (int d : it->second) out[d].push_back(i);
      break;
    }
  }
  return out;
}

const v1::Pod* NewestPod(
    const google::protobuf::RepeatedPtrField<v1::Pod>& pods,
    const std::vector<int>& indices) {
  const v1::Pod* newest = nullptr;
  for (int i : indices) {
    const v1::Pod& pod = pods[i];
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
