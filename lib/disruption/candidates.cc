#include "disruption/candidates.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "disruption/pod_rules.h"
#include "nodeplan/labels.h"

namespace nodeplan::disruption {
namespace {

CandidateCheck Blocked(std::string message) {
  return CandidateCheck{false, std::move(message)};
}

}  // namespace

const char* MethodName(Method m) {
  switch (m) {
    case Method::kEmptiness:
      return "emptiness";
    case Method::kStaticDrift:
      return "static-drift";
    case Method::kDrift:
      return "drift";
    case Method::kMultiNodeConsolidation:
      return "multi-node-consolidation";
    case Method::kSingleNodeConsolidation:
      return "single-node-consolidation";
  }
  return "";
}

Reason MethodReason(Method m) {
  switch (m) {
    case Method::kEmptiness:
      return Reason::kEmpty;
    case Method::kStaticDrift:
    case Method::kDrift:
      return Reason::kDrifted;
    default:
      return Reason::kUnderutilized;
  }
}

bool IsEventual(Method m) {
  return m == Method::kStaticDrift || m == Method::kDrift;
}

std::vector<int> SortedPods(const ClusterView& view, int node) {
  std::vector<int> pods = view.nodes()[node].pods;
  std::sort(pods.begin(), pods.end(), [&](int a, int b) {
    return view.pods()[a].key < view.pods()[b].key;
  });
  return pods;
}

CandidateCheck CheckCandidate(const ClusterView& view, int node, bool eventual,
                              Candidate* out) {
  const NodeView& n = view.nodes()[node];
  // StateNode.ValidateNodeDisruptable.
  if (n.claim == nullptr) return Blocked("Node isn't managed by karpenter");
  if (n.node == nullptr) {
    return Blocked("Nodeclaim does not have an associated node");
  }
  if (!n.initialized) return Blocked("Node isn't initialized");
  if (n.marked_for_deletion) {
    return Blocked("Node is deleting or marked for deletion");
  }
  if (n.nominated) return Blocked("Node is nominated for a pending pod");
  if (auto it = n.annotations->find(labels::kDoNotDisrupt);
      it != n.annotations->end() && it->second == "true") {
    return Blocked(absl::StrCat("Disruption is blocked through the \"",
                                labels::kDoNotDisrupt, "\" annotation"));
  }
  if (!n.has_pool_label) {
    return Blocked(absl::StrCat(
        "Node doesn't have required label (label=karpenter.sh/nodepool)"));
  }
  if (n.pool < 0 || view.pools()[n.pool].catalog->size() == 0) {
    return Blocked(
        absl::StrCat("NodePool not found (NodePool=", n.pool_label, ")"));
  }
  // StateNode.ValidatePodsDisruptable: do-not-disrupt first, then PDBs.
  const std::vector<int> pods = SortedPods(view, node);
  std::string pod_block;
  for (int p : pods) {
    if (!view.pods()[p].facts.disruptable(view.now())) {
      pod_block = absl::StrCat(
          "Pod has \"karpenter.sh/do-not-disrupt\" annotation (Pod=",
          view.pods()[p].key, ")");
      break;
    }
  }
  if (pod_block.empty()) {
    for (int p : pods) {
      std::vector<std::string> keys = view.pdbs().BlockingForCandidacy(
          *view.pods()[p].pod, view.pods()[p].labels, view.now());
      if (keys.empty()) continue;
      pod_block = keys.size() > 1
                      ? absl::StrCat(
                            "Eviction does not support multiple PDBs "
                            "(PodDisruptionBudget(s)=[",
                            absl::StrJoin(keys, " "), "])")
                      : absl::StrCat(
                            "Pdb prevents pod evictions (PodDisruptionBudget=[",
                            keys[0], "])");
      break;
    }
  }
  const bool grace_period = !n.claim->spec().termination_grace_period().empty();
  if (!pod_block.empty() && !(eventual && grace_period)) {
    return Blocked(pod_block);
  }
  if (out != nullptr) {
    out->node = node;
    out->pool = n.pool;
    out->price = n.price;
    out->reschedulable.clear();
    out->disruption_cost = 1.0;
    for (int p : pods) {
      const PodFacts& f = view.pods()[p].facts;
      if (!f.reschedulable()) continue;
      out->reschedulable.push_back(p);
      out->disruption_cost += std::max(0.0, f.eviction_cost);
    }
  }
  return CandidateCheck{true, ""};
}

std::string MethodFilter(const ClusterView& view,
                         const ConditionsResult& conditions, Method method,
                         const Candidate& c) {
  const NodeView& n = view.nodes()[c.node];
  const PoolView& pool = view.pools()[c.pool];
  const ClaimConditions& cond = conditions.nodes[c.node];
  switch (method) {
    case Method::kEmptiness:
      if (pool.is_static) return "NodePool is static (spec.replicas)";
      if (!pool.consolidate_after.has_value()) {
        return absl::StrCat("NodePool \"", pool.name,
                            "\" has consolidation disabled");
      }
      if (!c.IsEmpty()) return "Node is not empty";
      if (!cond.consolidatable) return "NodeClaim is not consolidatable";
      return "";
    case Method::kStaticDrift:
      if (!pool.is_static) return "NodePool is not static";
      if (!cond.drifted) return "NodeClaim is not drifted";
      return "";
    case Method::kDrift:
      if (pool.is_static) return "NodePool is static (spec.replicas)";
      if (!cond.drifted) return "NodeClaim is not drifted";
      return "";
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      if (pool.is_static) return "NodePool is static (spec.replicas)";
      if (n.instance_type < 0) {
        return absl::StrCat("Instance Type \"", n.instance_type_name,
                            "\" not found");
      }
      if (!n.has_capacity_type) {
        return "Node does not have label \"karpenter.sh/capacity-type\"";
      }
      if (!n.has_zone) {
        return "Node does not have label \"topology.kubernetes.io/zone\"";
      }
      if (!pool.consolidate_after.has_value()) {
        return absl::StrCat("NodePool \"", pool.name,
                            "\" has consolidation disabled");
      }
      if (c.IsEmpty()) return "Node is empty (emptiness removes it)";
      if (pool.policy == ConsolidationPolicy::kWhenEmpty) {
        return absl::StrCat("NodePool \"", pool.name,
                            "\" has consolidation policy WhenEmpty, but node "
                            "is not empty");
      }
      if (!cond.consolidatable) return "NodeClaim is not consolidatable";
      return "";
  }
  return "";
}

}  // namespace nodeplan::disruption
