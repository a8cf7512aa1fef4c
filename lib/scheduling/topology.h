#ifndef NODEPLAN_LIB_SCHEDULING_TOPOLOGY_H_
#define NODEPLAN_LIB_SCHEDULING_TOPOLOGY_H_

// Topology spread, pod affinity and pod anti-affinity groups
// (Karpenter's topology.go / topologygroup.go / topologynodefilter.go).
//
// Deterministic rules where Karpenter iterates hash maps:
//  - spread: among valid domains with the lowest count, the domain whose
//    value sorts first (byte order) wins; when it was chosen over the
//    group's own domains (the NodeClaim names no values for the key) and a
//    new NodeClaim cannot launch in it, the next tied domain is tried
//    (Round::Add: Karpenter iterates that map, so some run makes each
//    choice);
//  - affinity bootstrap: the first domain in byte order is chosen;
//  - groups are visited in creation order.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/requirements.h"
#include "nodeplan/v1/k8s.pb.h"
#include "scheduling/pods.h"

namespace nodeplan::scheduling {

enum class GroupType { kSpread, kAffinity, kAntiAffinity };

struct NodeFilter {
  bool active = false;  // spread groups only
  bool honor_affinity = true;
  bool honor_taints = false;
  std::vector<Requirements> alternatives;
  std::vector<v1::Toleration> tolerations;
  bool Matches(const std::vector<v1::Taint>& taints, const Requirements& reqs,
               const WellKnownLabels* allow) const;
};

struct TopologyGroup {
  GroupType type;
  LabelKeyId key;
  std::vector<LabelValueId> namespaces;  // sorted
  CompiledLabelSelector selector;
  int32_t max_skew;
  int32_t min_domains = -1;
  NodeFilter filter;
  bool inverse = false;
  absl::flat_hash_map<LabelValueId, int32_t> counts;
  std::vector<LabelValueId> domains;  // registration order
  int32_t empty = 0;                  // domains with count 0

  bool Selects(LabelValueId ns, const LabelSet& labels) const;
  void Register(LabelValueId domain);
  void RecordDomain(LabelValueId domain);
  int32_t Count(LabelValueId domain) const {
    auto it = counts.find(domain);
    return it == counts.end() ? 0 : it->second;
  }
  // The allowed domains for a pod, as an In (or DoesNotExist) requirement.
  // For a spread that chooses one domain among several valid ones of its
  // own (node_domains a complement: the node names no values for the key),
  // `tied` (when given) receives how many valid domains share the chosen
  // count (1: no tie; 0 when nothing was chosen or no such choice).
  Requirement Next(LabelValueId ns, const LabelSet& labels,
                   const Requirement& pod_domains,
                   const Requirement& node_domains, const Interner& in,
                   int* tied = nullptr) const;
  std::string Describe(const Interner& in, const Requirement& pod_domains,
                       const Requirement& node_domains) const;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_TOPOLOGY_H_
