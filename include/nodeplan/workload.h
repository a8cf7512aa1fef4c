#ifndef NODEPLAN_WORKLOAD_H_
#define NODEPLAN_WORKLOAD_H_

// Seeded, reproducible workload generators: Karpenter's scheduling benchmark,
// random small clusters that mix every constraint nodeplan supports, and a
// seed-NodePool workload on the embedded AWS catalog.
//
// Reproducibility: every generator draws from `Rng` below (SplitMix64 with
// integer-only, rejection-sampled bounded draws), never from std::
// distributions, whose output differs between standard libraries. The same
// seed therefore gives the same request bytes on every platform.
//
// Deployment expansion (shared contract with the scheduler and the verifier):
// a Deployment `d` in ScheduleRequest.deployments stands for
// `spec.replicas` pending pods (absent replicas means 1, as Kubernetes
// defaults it), named "<d.metadata.name>-<index>" for index 0..replicas-1, in
// d's namespace ("default" when empty), with the UID
// "<d.metadata.uid><pod name>", carrying the template's labels, annotations
// and spec and no other metadata (as the ReplicaSet controller creates it:
// the template's own ownerReferences, deletionTimestamp or
// creationTimestamp are not the replica's). A replica whose template sets
// spec.nodeName is created bound to that node, so it is not pending.
// `DeploymentReplica` builds that pod.

#include <cstdint>
#include <string>
#include <vector>

#include "nodeplan/v1/catalog.pb.h"
#include "nodeplan/v1/disrupt.pb.h"
#include "nodeplan/v1/k8s.pb.h"
#include "nodeplan/v1/karpenter.pb.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::workload {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, fully specified.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, n); n must be > 0. Rejection sampling, no modulo bias.
  uint64_t Below(uint64_t n);
  // True with probability num/den.
  bool Chance(uint64_t num, uint64_t den) { return Below(den) < num; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }

 private:
  uint64_t state_;
};

// "namespace/name" of a pod ("default" when the namespace is empty): the way
// ScheduleResponse names pods.
std::string PodKey(const v1::Pod& pod);

// The pod that replica `index` of `deployment` stands for (see above).
v1::Pod DeploymentReplica(const v1::Deployment& deployment, int index);
// The same written into `*out`, an empty pod (which may live on an arena).
void DeploymentReplica(const v1::Deployment& deployment, int index,
                       v1::Pod* out);

// --- Karpenter's scheduling benchmark (reference §10, §11) ---

// Karpenter's fake.InstanceTypes(n): "fake-it-<i>" for i in [0, n) with i+1
// vCPU, 2(i+1)Gi memory, 10(i+1) pods; amd64; os In [linux windows darwin];
// size large (cpu > 4 and memory > 8Gi) or small; special In [optional] for
// large types, DoesNotExist otherwise; integer = cpu; kubeReserved 100m CPU
// and 10Mi memory; five available offerings (spot in test-zone-1/2,
// on-demand in test-zone-1/2/3) priced 0.1 x cores + 0.1 x bytes / 1e9.
v1::Catalog FakeInstanceTypes(int count);

// The benchmark NodePool "default": no requirements, limits cpu 10000000 and
// memory 10000000Gi, nodeClassRef karpenter.test.sh/TestNodeClass "default".
v1::NodePool BenchmarkNodePool();

// makeDiversePods(pods) over FakeInstanceTypes(400) and BenchmarkNodePool,
// in namespace "default". Five groups of pods/5 each, in this order, the
// remainder appended as generic pods:
//   generic-<i>        label my-label=<a..g>
//   zone-spread-<i>    label my-label=<a..g>; zone spread maxSkew 1,
//                      DoNotSchedule, selector my-label=<a..g> drawn anew
//   host-spread-<i>    the same on kubernetes.io/hostname
//   zone-affinity-<i>  label my-affininity=<a..g> (Karpenter's spelling);
//                      required pod affinity on zone selecting that own label
//   host-anti-<i>      label app=nginx; required anti-affinity on hostname
//                      selecting app=nginx (one node per pod)
// Per pod the draws are, in order: label value(s), selector value (spread
// only), CPU from {100m, 250m, 500m, 1, 1500m}, memory from {100Mi, 256Mi,
// 512Mi, 1Gi, 2Gi, 4Gi}. Karpenter seeds its PRNG with 42; so does the
// default here (the streams differ, Go's math/rand is not reproduced).
v1::ScheduleRequest KarpenterBenchmark(int pods, uint64_t seed = 42);

// makePreferencePods(pods): every pod labelled app=nginx, one CPU and one
// memory draw shared by all pods (as Karpenter's test.Pods does), preferred
// node affinity (weight 1) zone In [test-zone-1], preferred anti-affinity
// app=nginx weight 10 on zone and weight 1 on hostname. `respect` sets
// options.preferencePolicy to "Respect", otherwise "Ignore".
v1::ScheduleRequest PreferenceBenchmark(int pods, bool respect,
                                        uint64_t seed = 42);

// --- Random small clusters ---

struct RandomClusterOptions {
  int max_pending_pods = 24;
  int max_existing_nodes = 3;
  int max_node_pools = 3;
  int max_daemon_sets = 2;
};

// A small cluster mixing every constraint nodeplan supports: NodePool
// requirements with every operator (In, NotIn, Exists, DoesNotExist, Gt, Lt,
// Gte, Lte), taints, weights and limits; nodeSelector, required and
// preferred node affinity, tolerations, zone and hostname spread
// (DoNotSchedule and ScheduleAnyway), required and preferred pod affinity and
// anti-affinity, host ports, DaemonSets, existing nodes with bound pods, and
// a Deployment. Uses an explicit catalog of a dozen instance types in zones
// test-zone-1..3.
v1::ScheduleRequest RandomCluster(uint64_t seed,
                                  const RandomClusterOptions& options = {});

// --- Seed NodePool on the embedded AWS catalog ---

// The NodePool of examples/workshop/nodepool-general-purpose.yaml, built in
// code (capacity-type In [on-demand], eks.amazonaws.com/instance-category In
// [c m r], eks.amazonaws.com/instance-generation Gt 4, arch In [amd64],
// os In [linux]; nodeClassRef eks.amazonaws.com/NodeClass "default").
v1::NodePool WorkshopNodePool();

// WorkshopNodePool plus `pods` mixed pending pods (web replicas with zone
// spread, workers, memory-heavy caches with hostname anti-affinity, batch
// jobs pinned to a zone, some asking for arm64 or a GPU, which the seed
// NodePool cannot serve) with catalog_ref "aws" and no explicit catalog.
v1::ScheduleRequest SeedNodePoolWorkload(int pods, uint64_t seed = 7);

// WorkshopNodePool, a NodeClass "default" and three Deployments of pods / 3
// replicas each (250m/256Mi, 1/2Gi and 2/1Gi) without topology
// constraints, catalog_ref "aws": issue 19's "plain" workloads.
v1::ScheduleRequest PlainSeedWorkload(int pods);

// --- Disruption ---

// The seed NodePool (WorkshopNodePool with consolidationPolicy
// WhenEmptyOrUnderutilized, consolidateAfter 30s, budgets [{nodes: 10%}],
// expireAfter 336h) on the embedded AWS catalog: `nodes` m5.2xlarge Nodes
// with their NodeClaims (on-demand, zones us-east-1a/b/c in turn, launched a
// day before `now` = 2026-12-02T10:00:00Z, hash annotations current), each
// with `pods_per_node` running ReplicaSet pods of 200m CPU and 768Mi; about
// `underutilized_percent` of the nodes carry pods of 20m and 64Mi instead.
v1::DisruptRequest ScaleDisruptionCluster(int nodes, int pods_per_node,
                                          int underutilized_percent,
                                          uint64_t seed = 11);

// A small cluster mixing every disruption rule: one to three NodePools
// (consolidation policies, consolidateAfter incl. Never, budgets with counts,
// percentages, cron windows and reasons, expireAfter, terminationGracePeriod,
// weights, capacity-type, zone and family requirements, hash annotations),
// one to eight Nodes with NodeClaims (spot and on-demand, stale or missing
// hashes, uninitialized, NotReady, deleting, marked for deletion,
// do-not-disrupt, recent pod events), pods of ReplicaSets, StatefulSets and
// DaemonSets and bare pods (priorities, do-not-disrupt "true", durations and
// invalid values), PDBs (maxUnavailable 1 or minAvailable 100%, with 0 or 1
// disruptions allowed), pending pods, the SpotToSpotConsolidation gate. An
// explicit catalog of ten types in test-zone-1..3; now is
// 2026-12-02T10:00:00Z.
v1::DisruptRequest RandomDisruptionCluster(uint64_t seed);

}  // namespace nodeplan::workload

#endif  // NODEPLAN_WORKLOAD_H_
