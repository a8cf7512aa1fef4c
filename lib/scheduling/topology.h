#ifndef NODEPLAN_LIB_SCHEDULING_TOPOLOGY_H_
#define NODEPLAN_LIB_SCHEDULING_TOPOLOGY_H_

// Topology spread, pod affinity and pod anti-affinity groups
// (Karpenter's topology.go / topologygroup.go / topologynodefilter.go).
//
// Deterministic rules where Karpenter iterates hash maps:
//  - spread: among valid domains with the lowest count, the domain whose
//    value sorts first (byte order) wins;
//  - affinity bootstrap: the first domain in byte order is chosen;
//  - groups are visited in creation order.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "nodeplan/v1/k8s.pb.h"
#include "scheduling/intern.h"
#include "scheduling/pods.h"
#include "scheduling/req.h"

namespace nodeplan::scheduling {

enum class GroupType { kSpread, kAffinity, kAntiAffinity };

struct NodeFilter {
  bool active = false;  // spread groups only
  bool honor_affinity = true;
  bool honor_taints = false;
  std::vector<Reqs> alternatives;
  std::vector<Toleration> tolerations;
  bool Matches(const std::vector<v1::Taint>& taints, const Reqs& reqs,
               const WellKnown* allow, const Interner& in) const;
};

struct TopologyGroup {
  GroupType type;
  Id key;
  std::vector<Id> namespaces;  // sorted
  Selector selector;
  int32_t max_skew;
  int32_t min_domains = -1;
  NodeFilter filter;
  bool inverse = false;
  absl::flat_hash_map<Id, int32_t> counts;
  std::vector<Id> domains;  // registration order
  int32_t empty = 0;        // domains with count 0

  bool Selects(Id ns, const Labels& labels) const;
  void Register(Id domain);
  void RecordDomain(Id domain);
  int32_t Count(Id domain) const {
    auto it = counts.find(domain);
    return it == counts.end() ? 0 : it->second;
  }
  // The allowed domains for a pod, as an In (or DoesNotExist) requirement.
  Req Next(Id ns, const Labels& labels, const Req& pod_domains,
           const Req& node_domains, const Interner& in) const;
  std::string Describe(const Interner& in, const Req& pod_domains,
                       const Req& node_domains) const;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_TOPOLOGY_H_
