#ifndef NODEPLAN_LIB_DISRUPTION_CLUSTER_VIEW_H_
#define NODEPLAN_LIB_DISRUPTION_CLUSTER_VIEW_H_

// The cluster as Karpenter's disruption controllers see it, compiled from a
// DisruptRequest once per call: NodePools with their CRD defaults and hash,
// the instance types the cloud provider lists for each NodePool, state nodes
// (a Node and its NodeClaim paired as Karpenter's cluster state pairs them),
// the pods bound to each, and the PodDisruptionBudgets.
//
// Pairing: a NodeClaim and a Node are one state node when
// status.providerID equals spec.providerID (Karpenter's key); a NodeClaim
// without a providerID pairs with the Node named by status.nodeName. A Node
// without a NodeClaim is unmanaged; a NodeClaim without a Node is in flight.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "disruption/pdb.h"
#include "disruption/pod_rules.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/requirements.h"
#include "nodeplan/resources.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::disruption {

using StringMap = google::protobuf::Map<std::string, std::string>;

enum class ConsolidationPolicy {
  kWhenEmpty,
  kWhenEmptyOrUnderutilized,
  kBalanced
};

struct PoolView {
  const v1::NodePool* proto = nullptr;
  std::string name;
  bool is_static = false;  // spec.replicas set
  int64_t replicas = 0;
  ConsolidationPolicy policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  // nullopt: "Never".
  std::optional<absl::Duration> consolidate_after = absl::ZeroDuration();
  // spec.disruption.budgets, defaulted to [{nodes: 10%}] when absent.
  std::vector<v1::Budget> budgets;
  // karpenter.sh/nodepool-hash as the hash controller computes it.
  std::string hash;
  // The NodePool's own karpenter.sh/nodepool-hash-version annotation.
  std::string hash_version_annotation;
  bool has_hash_version_annotation = false;
  // spec.template.spec.requirements (keys normalized, minValues kept).
  Requirements requirements;
  // The instance types the provider lists for this NodePool (its
  // NodeClass's catalog); never null.
  const CompiledCatalog* catalog = nullptr;
  // spec.limits.nodes, when set.
  std::optional<int64_t> node_limit;
};

// What the view reads of one pod that does not depend on the rest of the
// request: a caller that holds pods across passes (the cluster handle)
// computes it once per stored pod (PrecompilePod) and hands it to every
// pass, which then visits only what the pass itself needs.
struct PrecompiledPod {
  std::string key;        // "namespace/name"
  std::string node_name;  // spec.nodeName
  PodFacts facts;
  // PodRequests of the pod, extended resources named in the caller's
  // interner (PrecompiledPods::names); nullopt when they do not parse.
  std::optional<ResourceVector> requests;
  // PodView's readings of the same name.
  bool host_ports = true;
  bool daemon_set_owner = true;
  bool topology_terms = true;
};

// The pods of a request, precompiled, by message address, and the interner
// that names their extended resources. Every pod of the request must be
// there.
struct PrecompiledPods {
  absl::flat_hash_map<const v1::Pod*, PrecompiledPod> pods;
  Interner names;
};

// `pod` precompiled, its resource names interned in `names`.
PrecompiledPod PrecompilePod(const v1::Pod& pod, Interner& names);

struct PodView {
  const v1::Pod* pod = nullptr;
  // "namespace/name", stored by the view (or its PrecompiledPods) for the
  // view's lifetime.
  absl::string_view key;
  LabelSet labels;
  int node = -1;       // the state node it is bound to, -1 when none
  bool bound = false;  // spec.nodeName is set (to a known node or not)
  // What the rules read of the pod (pod_rules.h), read once here: later
  // passes ask these instead of visiting the pod's message again.
  PodFacts facts;
  // Its PodRequests (extended resources named in the view's resource-name
  // interner) when the view summed them into its node's: bound to a state
  // node with a Node, managed or in a NodePool, not terminal, and parsed.
  // Null otherwise. The compiled simulator hands them to its model.
  const ResourceVector* requests = nullptr;
  // What else its model reads of it (scheduling::KnownPod): whether a
  // container has a host port, whether an owner reference is of kind
  // DaemonSet; whether its spec has topology spread or pod (anti-)affinity
  // terms (scheduling::HasPodTopologyTerms).
  bool host_ports = true;
  bool daemon_set_owner = true;
  bool topology_terms = true;
};

struct NodeView {
  const v1::Node* node = nullptr;
  const v1::NodeClaim* claim = nullptr;
  // The Node's name, else the NodeClaim's.
  std::string name;
  // Labels and annotations as StateNode.Labels()/Annotations() choose them:
  // the NodeClaim's until the Node is registered, the Node's afterwards.
  const StringMap* labels = nullptr;
  const StringMap* annotations = nullptr;
  // NodePool by the karpenter.sh/nodepool label; -1 when absent or unknown.
  int pool = -1;
  std::string pool_label;
  bool has_pool_label = false;
  bool managed = false;      // has a NodeClaim
  bool initialized = false;  // karpenter.sh/initialized=true on the Node
  bool registered = false;   // karpenter.sh/registered=true on the Node
  bool ready = false;        // Node condition Ready=True
  // NodeClaim deleting or InstanceTerminating, or (no NodeClaim) the Node
  // deleting: StateNode.Deleted().
  bool deleted = false;
  // Deleted, or named in markedForDeletion.
  bool marked_for_deletion = false;
  bool instance_terminating = false;
  bool nominated = false;
  // Index of its instance type in the NodePool's catalog, -1 when unknown.
  int instance_type = -1;
  std::string instance_type_name, zone, capacity_type;
  bool has_zone = false, has_capacity_type = false;
  // Its offering's price (zone and capacity type; availability ignored).
  double price = 0;
  // Pods bound to the Node (spec.nodeName), in input order.
  std::vector<int> pods;
  // When the response describes the node (managed or labelled with a
  // NodePool): the sum, in pod order, of PodRequests of its pods that are
  // not terminal and whose requests parse, extended resources named in
  // ClusterView::pod_resource_names(). Empty otherwise.
  ResourceVector requests;
};

class ClusterView {
 public:
  // With `precompiled` (which must outlive the view), each pod's key,
  // facts and requests are taken from it instead of being read again.
  //
  // Without `pods_failed_checks` the pods must have passed validation (no
  // two share a key). With it (and no `precompiled`), the view checks each
  // pod as it reads it (validation::PodPassesChecks, and no two pods with
  // one key), for a caller that validated every other object: a pod that
  // fails sets *pods_failed_checks and ends the build with an error that
  // only says so (the caller runs the full validation for the message).
  static absl::StatusOr<std::unique_ptr<ClusterView>> Build(
      const v1::DisruptRequest& request,
      const PrecompiledPods* precompiled = nullptr,
      bool* pods_failed_checks = nullptr);

  // How many pods have no spec.nodeName (the pending-pod limit counts them).
  int64_t unbound_pods() const { return unbound_pods_; }

  const v1::DisruptRequest& request() const { return *request_; }
  absl::Time now() const { return now_; }
  Interner& interner() { return interner_; }
  const Interner& interner() const { return interner_; }
  const std::vector<PoolView>& pools() const { return pools_; }
  const std::vector<NodeView>& nodes() const { return nodes_; }
  const std::vector<PodView>& pods() const { return pods_; }
  const PdbLimits& pdbs() const { return pdbs_; }
  // Index of the NodePool named `name`, -1 when none.
  int PoolIndex(absl::string_view name) const;
  // Index of the state node named `name` (Node name, else NodeClaim name).
  int NodeIndex(absl::string_view name) const;
  const WellKnownLabels& well_known() const { return *well_known_; }
  // The names of the extended resources in NodeView::requests. Apart from
  // interner() so that parsing pods does not move the ids interner() hands
  // out afterwards.
  const Interner& pod_resource_names() const {
    return precompiled_ != nullptr ? precompiled_->names : pod_resource_names_;
  }

 private:
  ClusterView() = default;
  absl::Status BuildPools();
  absl::Status BuildNodes();
  absl::Status BuildPods();

  const v1::DisruptRequest* request_ = nullptr;
  absl::Time now_;
  Interner interner_;
  Interner pod_resource_names_;
  // The requests PodView::requests point at, when the view parsed them
  // (reserved once: never reallocated).
  std::vector<ResourceVector> parsed_requests_;
  // The characters of the keys the view built, in blocks that never move
  // (the keys view them): one allocation per block, not per pod.
  absl::string_view StoreKey(absl::string_view ns, absl::string_view name);
  std::vector<std::unique_ptr<char[]>> key_blocks_;
  char* key_next_ = nullptr;
  size_t key_free_ = 0;
  const PrecompiledPods* precompiled_ = nullptr;
  bool* pods_failed_checks_ = nullptr;
  int64_t unbound_pods_ = 0;
  std::unique_ptr<WellKnownLabels> well_known_;
  // One compiled catalog per NodeClass (or one for an explicit catalog).
  std::vector<std::shared_ptr<const CompiledCatalog>> catalogs_;
  std::vector<PoolView> pools_;
  std::vector<NodeView> nodes_;
  std::vector<PodView> pods_;
  PdbLimits pdbs_;
  absl::flat_hash_map<std::string, int> pool_index_, node_index_;
};

// Condition `type` of a NodeClaim, nullptr when absent.
const v1::Condition* FindCondition(const v1::NodeClaim& claim,
                                   absl::string_view type);
bool ConditionTrue(const v1::NodeClaim& claim, absl::string_view type);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_CLUSTER_VIEW_H_
