#ifndef NODEPLAN_LIB_SCHEDULING_NAMESPACES_H_
#define NODEPLAN_LIB_SCHEDULING_NAMESPACES_H_

// The namespaces a pod (anti-)affinity term covers, as Karpenter's
// buildNamespaceList (pkg/controllers/provisioning/scheduling/topology.go)
// computes them: neither `namespaces` nor `namespaceSelector` -> the pod's
// own namespace; only `namespaces` -> those; a `namespaceSelector` -> the
// namespaces whose labels it matches (`{}` matches all) plus the listed ones,
// without the pod's own unless selected.
//
// Karpenter lists Namespace objects from the API server. nodeplan knows the
// request's Namespace objects plus every namespace a pod of the request lives
// in (a cluster has those namespaces even when the caller did not send them);
// each carries `kubernetes.io/metadata.name: <name>`, which the API server
// sets on every namespace and selectors commonly use.

#include <string>
#include <utility>
#include <vector>

#include "nodeplan/interner.h"
#include "nodeplan/v1/k8s.pb.h"
#include "scheduling/pods.h"

namespace nodeplan::scheduling {

class KnownNamespaces {
 public:
  KnownNamespaces(
      const google::protobuf::RepeatedPtrField<v1::Namespace>& objects,
      const std::vector<std::string>& pod_namespaces, Interner& in);

  // Sorted, without duplicates.
  std::vector<std::string> Select(const v1::PodAffinityTerm& term,
                                  const std::string& pod_namespace,
                                  Interner& in) const;

 private:
  std::vector<std::pair<std::string, LabelSet>> by_name_;  // sorted by name
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_NAMESPACES_H_
