#ifndef NODEPLAN_OBJECT_META_H_
#define NODEPLAN_OBJECT_META_H_

// Object metadata read the way Kubernetes and Karpenter read it.
//
// Owner references as Karpenter reads them (podutils.IsOwnedByDaemonSet,
// IsOwnedByNode, IsOwnedByStatefulSet): an owner matches on apiVersion and
// kind together, so a "DaemonSet" owner without apiVersion "apps/v1" is an
// ordinary owner. The scheduler, the disruption engine and the verifier all
// decide ownership here, so they cannot disagree about it.

#include <string>

#include "absl/strings/string_view.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan {

// The object's namespace, "default" when empty (as the API server defaults
// a namespaced object without one). A view of `meta`'s own string or of a
// literal: it lives as long as `meta`.
absl::string_view NamespaceOf(const v1::ObjectMeta& meta);

// "<namespace>/<name>" with NamespaceOf's default: how nodeplan names a
// namespaced object in its answers and messages.
std::string NamespacedName(const v1::ObjectMeta& meta);

// True when one of `meta`'s ownerReferences has exactly this apiVersion and
// kind.
bool IsOwnedBy(const v1::ObjectMeta& meta, absl::string_view api_version,
               absl::string_view kind);

inline bool IsOwnedByDaemonSet(const v1::Pod& pod) {
  return IsOwnedBy(pod.metadata(), "apps/v1", "DaemonSet");
}
inline bool IsOwnedByStatefulSet(const v1::Pod& pod) {
  return IsOwnedBy(pod.metadata(), "apps/v1", "StatefulSet");
}
// A mirror (static) pod: the kubelet names its Node as the owner.
inline bool IsOwnedByNode(const v1::Pod& pod) {
  return IsOwnedBy(pod.metadata(), "v1", "Node");
}

}  // namespace nodeplan

#endif  // NODEPLAN_OBJECT_META_H_
