#ifndef NODEPLAN_LIB_DISRUPTION_COMPILED_SIMULATOR_H_
#define NODEPLAN_LIB_DISRUPTION_COMPILED_SIMULATOR_H_

// The Simulator Disrupt runs: the cluster is compiled once
// (scheduling/cluster_model.h: nodes, in-flight NodeClaims and bound pods,
// DaemonSet overhead, NodePool limits, the topology domain universe), and a
// simulation only names the candidates to take away and the pods to place.
// It gives the RequestSimulator's answers (tests/disruption compare them) at
// a fraction of the cost; a simulation the compiled cluster cannot express
// (a DaemonSet whose newest pod leaves with a candidate and compiles
// differently) runs through the RequestSimulator.

#include <memory>
#include <string>
#include <vector>

#include "disruption/compiled_state.h"
#include "disruption/request_simulator.h"

namespace nodeplan::disruption {

class CompiledSimulator : public Simulator {
 public:
  // With a held cluster, the compiled state is taken from its cache when its
  // key matches and left in it otherwise (see compiled_state.h).
  CompiledSimulator(ClusterView& view, const ConditionsResult& conditions,
                    HeldCluster held = {});
  absl::StatusOr<SimulationResult> Simulate(absl::Span<const int> candidates,
                                            bool consolidation) override;
  // Simulations that fell back to the RequestSimulator (for tests).
  int fallbacks() const { return fallbacks_; }

 private:
  absl::Status Build();
  // The compiled state of this pass's cluster.
  absl::StatusOr<std::shared_ptr<const CompiledState>> Compile() const;
  // The cache key of this pass (compiled_state.h), "" when it may not use
  // the cache.
  std::string CacheKey() const;
  // Whether the model interns its bound pods' labels: only when a pod of
  // the request, or a Deployment's template, has topology terms (the
  // simulations place only those pods; one that needs the labels anyway
  // falls back).
  scheduling::BoundPodLabels BoundLabels() const;

  // BoundLabels() of this pass, set by Build before the key and the compile
  // read it.
  scheduling::BoundPodLabels bound_labels_ =
      scheduling::BoundPodLabels::kIntern;
  ClusterView& view_;
  const ConditionsResult& conditions_;
  HeldCluster held_;
  // Made on the first fallback: it copies every NodeClaim and the request's
  // NodePools, and most passes never fall back.
  std::unique_ptr<RequestSimulator> fallback_;
  int fallbacks_ = 0;
  // The cluster state the model compiles: every view node not marked for
  // deletion (its NodeClaim with status.nodeName as the scheduler pairs
  // them) and the pods bound to them or to no known node.
  std::shared_ptr<const CompiledState> compiled_;
  absl::Status build_status_;
  bool built_ = false;
  // Per view pod, its class signature once computed as a moved pod.
  std::vector<std::string> signatures_;
  // What does not change between simulations, so that one costs what its
  // candidates' pods cost, not a pass over every pod of the cluster: the
  // provisionable pending pods (view order), the nodes marked for deletion,
  // the nodes under their NodePool's consolidateAfter (not marked), and per
  // view pod whether it is currently reschedulable (-1: not yet asked).
  std::vector<int> pending_, deleting_, under_consolidate_after_;
  std::vector<signed char> reschedulable_;
};

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_COMPILED_SIMULATOR_H_
