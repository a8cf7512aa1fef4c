#ifndef NODEPLAN_TAINTS_H_
#define NODEPLAN_TAINTS_H_

// Taints and tolerations as Karpenter evaluates them (pkg/scheduling/
// taints.go, core/v1 Toleration.ToleratesTaint with comparison operators).
//
// Karpenter enforces EVERY effect, PreferNoSchedule included (its scheduler
// later relaxes a pod by adding an Exists/PreferNoSchedule toleration).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan {

using TaintList = google::protobuf::RepeatedPtrField<v1::Taint>;
using TolerationList = google::protobuf::RepeatedPtrField<v1::Toleration>;

namespace taints {
inline constexpr absl::string_view kNoSchedule = "NoSchedule";
inline constexpr absl::string_view kPreferNoSchedule = "PreferNoSchedule";
inline constexpr absl::string_view kNoExecute = "NoExecute";
inline constexpr absl::string_view kNotReady = "node.kubernetes.io/not-ready";
inline constexpr absl::string_view kUnreachable =
    "node.kubernetes.io/unreachable";
inline constexpr absl::string_view kCloudProviderUninitialized =
    "node.cloudprovider.kubernetes.io/uninitialized";
inline constexpr absl::string_view kDisrupted = "karpenter.sh/disrupted";
inline constexpr absl::string_view kUnregistered = "karpenter.sh/unregistered";
inline constexpr absl::string_view kReadinessPrefix = "readiness.k8s.io/";
// What a cordoned Node (spec.unschedulable) carries, NoSchedule.
inline constexpr absl::string_view kUnschedulable =
    "node.kubernetes.io/unschedulable";
}  // namespace taints

// Toleration.ToleratesTaint: a non-empty toleration effect must equal the
// taint's; a non-empty key must equal the taint's; operator "" or Equal
// compares values (so an empty key with Equal tolerates any key whose value
// matches); Exists matches any value; Lt / Gt parse both values as decimal
// int64 and tolerate when taint < toleration / taint > toleration (either
// unparseable: not tolerated); any other operator does not tolerate.
bool ToleratesTaint(const v1::Toleration& toleration, const v1::Taint& taint);

// Taints.Tolerates: true when every taint is tolerated by some toleration.
bool Tolerates(const TaintList& taints, const TolerationList& tolerations);
// The same over contiguous lists (the scheduler keeps a pod class's
// tolerations and a node's taints in vectors): the index of the first taint
// no toleration tolerates, or -1 when every taint is tolerated.
int FirstUntoleratedTaint(absl::Span<const v1::Taint> taints,
                          absl::Span<const v1::Toleration> tolerations);
// The toleration Karpenter's scheduler adds when it relaxes a pod, and
// Karpenter adds to DaemonSet pods when it computes their overhead:
// operator Exists, effect PreferNoSchedule, any key.
v1::Toleration PreferNoScheduleToleration();
// True for a toleration that tolerates every PreferNoSchedule taint (empty
// key, Exists, effect PreferNoSchedule).
bool IsPreferNoScheduleToleration(const v1::Toleration& toleration);

// Indices of the taints no toleration tolerates, in order.
std::vector<int> UntoleratedTaints(const TaintList& taints,
                                   const TolerationList& tolerations);
// The same check with Karpenter's error: one "did not tolerate taint" per
// untolerated taint, which Karpenter attaches as a structured value; here
// rendered as "did not tolerate taint (taint=<TaintText>)", joined with "; ".
// InvalidArgument on failure.
absl::Status TolerationStatus(const TaintList& taints,
                              const TolerationList& tolerations);

// pretty.Taint: "key=value:Effect", or "key:Effect" when value is empty.
std::string TaintText(const v1::Taint& taint);

// Taint.MatchTaint: same key and effect (values ignored).
bool MatchTaint(const v1::Taint& a, const v1::Taint& b);

// IsKnownEphemeralTaint: MatchTaint against not-ready:NoSchedule,
// not-ready:NoExecute, unreachable:NoSchedule,
// node.cloudprovider.kubernetes.io/uninitialized:NoSchedule,
// karpenter.sh/unregistered:NoExecute; or a key starting with
// "readiness.k8s.io/".
bool IsKnownEphemeralTaint(const v1::Taint& taint);

// The taints scheduling sees on an existing node (StateNode.Taints).
struct NodeTaintsInput {
  // The Node's spec.taints; nullptr when there is no Node object yet.
  const TaintList* node_taints = nullptr;
  // The NodeClaim's spec.taints / spec.startupTaints; nullptr when there is
  // no NodeClaim (unmanaged node).
  const TaintList* nodeclaim_taints = nullptr;
  const TaintList* nodeclaim_startup_taints = nullptr;
  // Karpenter-managed: the node has a NodeClaim (StateNode.Managed).
  bool managed = false;
  // Label karpenter.sh/registered=true on the node (StateNode.Registered).
  bool registered = false;
  // Label karpenter.sh/initialized=true on the node.
  bool initialized = false;
};
// Managed and not registered, or no Node: the NodeClaim's taints; otherwise
// the Node's. Managed and not initialized: drop known-ephemeral taints and
// taints matching (MatchTaint) a startup taint. Order preserved.
TaintList EffectiveNodeTaints(const NodeTaintsInput& input);

// Karpenter's StateNode for a Node and its NodeClaim. `claim` nullptr: an
// unmanaged Node; `node` nullptr: a NodeClaim in flight (no Node yet).
// Registered and initialized are read from the Node's labels.
//
// StateNode.Taints: EffectiveNodeTaints of the pair. A cordoned Node
// (spec.unschedulable) counts as carrying node.kubernetes.io/unschedulable:
// NoSchedule even when its manifest lacks it: Kubernetes' node lifecycle
// controller adds that taint, which is all Karpenter sees of a cordon, and
// the scheduler's NodeUnschedulable filter lets exactly the pods that
// tolerate it through.
TaintList StateNodeTaints(const v1::Node* node, const v1::NodeClaim* claim);
// StateNode.Initialized: true without a NodeClaim, else the Node exists and
// its label karpenter.sh/initialized is "true".
bool StateNodeInitialized(const v1::Node* node, const v1::NodeClaim* claim);
// StateNode.Registered: true without a NodeClaim, else the Node exists and
// its label karpenter.sh/registered is "true". Until then Karpenter names
// the node, and reads its labels, from the NodeClaim.
bool StateNodeRegistered(const v1::Node* node, const v1::NodeClaim* claim);

}  // namespace nodeplan

#endif  // NODEPLAN_TAINTS_H_
