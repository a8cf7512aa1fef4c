#ifndef NODEPLAN_LIB_SCHEDULING_PODS_H_
#define NODEPLAN_LIB_SCHEDULING_PODS_H_

// Pods compiled for scheduling. Pods whose scheduling inputs are identical
// (namespace, labels, requests, selectors, affinities, tolerations, spreads,
// ports, volumes) share one PodClass: requirement sets, topology groups and
// relaxation steps are computed once per class, not once per pod.

#include <string>
#include <utility>
#include <vector>

#include "nodeplan/dense_resources.h"
#include "nodeplan/interner.h"
#include "nodeplan/label_selector.h"
#include "nodeplan/labels.h"
#include "nodeplan/requirements.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan::scheduling {

// True when `tols` tolerate every taint (nodeplan/taints.h: all effects
// count, PreferNoSchedule included, as in Karpenter). On failure *err names
// the first taint not tolerated.
bool Tolerates(const std::vector<v1::Taint>& taints,
               const std::vector<v1::Toleration>& tols, std::string* err);
// The same key, operator, value and effect, entry by entry (what scheduling
// reads of a toleration).
bool SameTolerations(const std::vector<v1::Toleration>& a,
                     const std::vector<v1::Toleration>& b);
std::vector<v1::Toleration> CompileTolerations(
    const google::protobuf::RepeatedPtrField<v1::Toleration>& t);

struct HostPort {
  std::string ip;  // "0.0.0.0" when unspecified
  int32_t port = 0;
  std::string protocol;
  bool operator==(const HostPort&) const = default;
};
bool PortsConflict(const std::vector<HostPort>& a,
                   const std::vector<HostPort>& b);
std::vector<HostPort> CompileHostPorts(const v1::PodSpec& spec);

// Whether `spec` has topology spread constraints or pod affinity or
// anti-affinity terms (required or preferred): the terms whose topology
// groups count the pods already placed, by their labels.
bool HasPodTopologyTerms(const v1::PodSpec& spec);

// Phase Succeeded or Failed: the pod holds nothing any more.
bool IsTerminal(const v1::Pod& pod);

// A term's label selector: nodeplan::CompiledLabelSelector, an invalid one
// (unknown operator, values where none belong) selecting nothing, as
// Karpenter's LabelSelectorAsSelector error leaves it.
CompiledLabelSelector CompileSelector(const v1::LabelSelector* sel,
                                      Interner& in);
// Stable text of a selector for group identity.
std::string SelectorSignature(const v1::LabelSelector* sel);

struct PodClass {
  std::string ns;
  LabelValueId ns_id = kNoId;
  LabelSet labels;
  const v1::Pod* example = nullptr;  // first pod of the class
  DenseResources requests;
  Requirements node_selector;
  std::vector<Requirements> required_terms;
  std::vector<std::pair<int32_t, Requirements>> preferred_node;  // heaviest
                                                                 // first
  std::vector<v1::Toleration> tolerations;
  std::vector<v1::TopologySpreadConstraint> spreads;
  int anyway_spreads = 0;  // of `spreads`, those with ScheduleAnyway
  std::vector<v1::PodAffinityTerm> req_affinity, req_anti;
  std::vector<std::pair<int32_t, v1::PodAffinityTerm>> pref_affinity,
      pref_anti;  // heaviest first (stable)
  std::vector<HostPort> ports;
  // Alternative requirement sets from volume topology (empty: none).
  std::vector<Requirements> volume_alts;
  // Set when the pod is rejected before scheduling.
  std::string invalid;
};

// nodeplan::RequestsForPod (nodeplan/resources.h: sidecar-aware init
// containers, limits defaulting requests, pod-level resources, overhead,
// pods: 1) in the scheduler's dimensions; `path` (the spec's field path)
// prefixes errors.
absl::StatusOr<DenseResources> PodRequests(const v1::PodSpec& spec,
                                           Interner& names, ResourceDims& dims,
                                           const std::string& path);
// The same, with `path` built only for an error.
absl::StatusOr<DenseResources> PodRequests(
    const v1::PodSpec& spec, Interner& names, ResourceDims& dims,
    absl::FunctionRef<std::string()> path);

// PodRequests of a pod whose nodeplan::PodRequests a caller already
// computed (`requests`, its extended resources named in `names`).
absl::StatusOr<DenseResources> KnownPodRequests(
    const ResourceVector& requests, Interner& names, ResourceDims& dims,
    absl::FunctionRef<std::string()> path);

// Karpenter's provisioner Validate: empty when the pod may be scheduled.
std::string ValidatePod(const v1::Pod& pod);

// The identity that breaks ties between otherwise equal pending pods (as
// Karpenter breaks them by UID): metadata.uid, or "<namespace>/<name>" for a
// pod without one (hand-written manifests, `kubectl apply` input), an empty
// namespace read as "default". Deterministic, so the order of tied pods does
// not depend on the order of the input; a caller that runs Karpenter on the
// same pods hands it these UIDs to compare like with like.
std::string PodIdentity(const v1::ObjectMeta& metadata);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_PODS_H_
