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

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
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

// A karpenter.sh/do-not-disrupt value other than "true" (which protects
// the pod for as long as it runs; callers test for it first) as the
// duration it protects the pod from its start: a positive Go duration.
// Anything else is invalid, with the reason Karpenter's warning gives
// ("Never" too: Go's time.ParseDuration refuses it), and protects nothing.
// The scheduler and the disruption engine both read the annotation here.
absl::StatusOr<absl::Duration> DoNotDisruptDuration(absl::string_view value);

}  // namespace nodeplan

#endif  // NODEPLAN_OBJECT_META_H_
