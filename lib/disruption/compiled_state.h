#ifndef NODEPLAN_LIB_DISRUPTION_COMPILED_STATE_H_
#define NODEPLAN_LIB_DISRUPTION_COMPILED_STATE_H_

// What the compiled simulator compiles from a pass's cluster, and a cache
// that keeps it across passes for a caller that holds the cluster itself
// (nodeplan::Cluster): Karpenter runs a disruption pass every few seconds
// over a cluster that mostly did not change, and compiling the state
// (NodePools, catalog, nodes, NodeClaims, bound pods, DaemonSet overhead,
// the domain universe) is the largest part of a pass.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/disrupt.pb.h"
#include "nodeplan/v1/schedule.pb.h"
#include "scheduling/cluster_model.h"

namespace nodeplan::disruption {

struct PrecompiledPods;  // cluster_view.h

// Immutable once built; simulations on it may run from any thread.
struct CompiledState {
  // The state request points at the pass's objects (Nodes, bound Pods,
  // DaemonSets, ...) and at arena copies of the NodeClaims whose
  // status.nodeName had to change; the objects must outlive the state.
  google::protobuf::Arena arena;
  v1::ScheduleRequest* state = nullptr;
  // Per view node, its index in state's nodes and nodeClaims (-1: none).
  std::vector<int> state_node, state_claim;
  std::shared_ptr<const Snapshot> snapshot;
  std::unique_ptr<scheduling::ClusterModel> model;
};

// One CompiledState, reused by a pass whose key equals the one it was built
// under. The key (CompiledSimulator's) is the caller's generation (which
// must change whenever any object but an unbound pod does), the nodes the
// pass treats as marked for deletion and the scheduling options. The state
// points at the pass's objects: a caller passes a cache only when every
// object of the request is its own, held unchanged while the generation
// stands (Deployments the caller adds per pass would dangle). Thread-safe.
class DisruptionCache {
 public:
  std::shared_ptr<const CompiledState> Find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    return key == key_ ? state_ : nullptr;
  }
  void Put(std::string key, std::shared_ptr<const CompiledState> state) {
    std::lock_guard<std::mutex> lock(mu_);
    key_ = std::move(key);
    state_ = std::move(state);
  }
  // Drops the state (its objects are about to change).
  void Clear() { Put("", nullptr); }

 private:
  mutable std::mutex mu_;
  std::string key_;
  std::shared_ptr<const CompiledState> state_;
};

// What a caller that holds the cluster across passes (nodeplan::Cluster)
// hands each pass: where the pass may find and leave its compiled state
// (`cache`, for objects of generation `generation`), and what it already
// knows of the request's pods.
struct HeldCluster {
  DisruptionCache* cache = nullptr;
  int64_t generation = 0;
  // Every pod of the request passed the API server's rules on its own and
  // no two share a namespace and name (the handle checks each pod when it
  // is stored, and keys them so); `pending_pods` of them are unbound. The
  // pass then checks the other objects and the pending-pod limit only.
  bool pods_checked = false;
  int64_t pending_pods = 0;
  // Every pod of the request, precompiled (cluster_view.h); null: the pass
  // reads each pod itself.
  const PrecompiledPods* pods = nullptr;
};

// nodeplan::Disrupt over a held cluster: the compiled state taken from and
// left in its cache, its pods' checks and readings reused (same response
// bytes as nodeplan::Disrupt).
absl::StatusOr<v1::DisruptResponse> DisruptHeld(
    const v1::DisruptRequest& request, HeldCluster held);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_COMPILED_STATE_H_
