#ifndef NODEPLAN_SCHEDULE_H_
#define NODEPLAN_SCHEDULE_H_

// The provisioning scheduler: which pending pods go onto existing capacity,
// which NodeClaims to launch, and which pods cannot be placed and why.

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/arena.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan {

// Semantics follow Karpenter's provisioning scheduler (karpenter.sh/v1,
// pkg/controllers/provisioning/scheduling). Where Karpenter is
// nondeterministic, nodeplan fixes a rule.
//
// Input order does not matter. Karpenter reads Nodes, NodeClaims, pods,
// DaemonSets, NodePools and the rest from informer caches and its cluster
// state, which are maps, so the order it meets them in is arbitrary;
// nodeplan reads every list of a request in one canonical order instead, so
// the same objects in any order give the same response bytes:
//  - nodePools, nodeClasses, nodeOverlays, nodes, nodeClaims,
//    persistentVolumes, storageClasses, namespaces: by metadata.name;
//  - pods, daemonSets, deployments, persistentVolumeClaims (and Disrupt's
//    podDisruptionBudgets): by namespace (empty read as "default"), then
//    name;
//  - catalog.instanceTypes: by name, and each type's offerings by capacity
//    type (reserved, spot, on-demand, then any other by value), then zone,
//    then reservationID;
//  - unavailableOfferings: by instanceType, zone, capacityType;
//  - objects of equal key (unnamed ones, say): by their deterministic bytes
//    (nodeplan/digest.h).
// Karpenter's own orderings then apply on top (NodePools by weight, then
// name descending; existing nodes initialized first; pending pods as
// below). Wherever a rule below says "catalog order" or "input order", it is
// this canonical order. Errors still name positions in the request as given
// (e.g. "catalog: instanceTypes[3] (m5.large)").
//  - pending pods: CPU desc, memory desc, creation time, then identity: the
//    pod's uid, or for a pod without metadata.uid "<namespace>/<name>" (an
//    empty namespace read as "default"); canonical order only between pods
//    of equal identity. Give Karpenter the same UIDs to compare like with
//    like;
//  - unschedulable pods are listed in canonical order (namespace, name);
//  - in-flight NodeClaims of this round: pod count ascending, ties in the
//    order Karpenter's own re-sort leaves them (Go's sort.Slice over the
//    NodeClaims in creation order, re-run whenever one changed: stable up
//    to 12 NodeClaims, pdqsort's deterministic order beyond);
//  - spread ties: the domain whose value sorts first; when the NodeClaim
//    names no values for the key and that domain leaves none beside another
//    group's choice (a zone affinity), or a new NodeClaim cannot launch in
//    it (no type fits, none offered), the next tied one in that order
//    (Karpenter iterates its domain map there, afresh for each NodeClaim it
//    tries, so each is some run's choice; over a NodeClaim's own In values
//    it mostly takes the first listed, and so does nodeplan); affinity
//    bootstrap: the first domain in byte order;
//  - preferred terms of equal weight: declaration order;
//  - instance-type options of equal price: by name (catalog order); launch
//    offerings of equal price: reserved, then spot, then on-demand, then by
//    zone (canonical catalog order; a held reserved offering always
//    launches first);
//  - custom requirement labels without one value: the smallest allowed value
//    (In) or the smallest allowed integer >= 0 (Exists, NotIn, Gt, ...).
// NodeClaim names: "<nodepool>-" + 5 characters (alphabet
// bcdfghjklmnpqrstvwxz2456789) of FNV-1a 64 over "<nodepool>/<n>", n being
// the NodeClaim's ordinal within its NodePool in this plan (a salt is added
// on the rare collision). Responses contain proto maps: serialize them
// deterministically (SetSerializationDeterministic, or JSON) so that the same
// request bytes give the same response bytes.

// Which pods are placed: the pending ones (no spec.nodeName; not owned by a
// DaemonSet or a Node; not terminal, being deleted, gated or nominated) and,
// as Karpenter's provisioner does, the pods a node being deleted gives up:
// the node's NodeClaim carries a deletionTimestamp or InstanceTerminating
// (without a NodeClaim, the Node its deletionTimestamp), and the pod is
// active without karpenter.sh/do-not-disrupt, or a terminating StatefulSet
// pod, and no DaemonSet's or mirror pod. A request has no clock and no PDBs:
// a duration-valued do-not-disrupt counts as active, and PDBs that would
// block the eviction are not read. Such a node (or in-flight NodeClaim
// being deleted) is no destination and is not charged to its NodePool's
// limits, whether or not it gives up a pod; a managed Node whose own
// deletionTimestamp is set while its NodeClaim's is not stays active, as
// in Karpenter's state.
//
// One call: compiles the request and schedules it. A pod that fits nowhere is
// an answer (ScheduleResponse.unschedulable), not an error; errors are bad
// input only, with the object and field path named.
absl::StatusOr<v1::ScheduleResponse> Schedule(
    const v1::ScheduleRequest& request);

// The same, with the response built on `arena` (which owns it: nothing to
// delete; it lives until the arena is destroyed or Reset). A large plan's
// response holds hundreds of thousands of strings (every NodeClaim lists its
// instance-type options twice), so building and freeing it on an arena is
// much cheaper than on the heap; serialize it from there. `arena` must not
// be null. The same bytes as Schedule, but the response is for reading and
// serializing, not editing in place: the NodeClaims' `instanceTypes` and
// `node.kubernetes.io/instance-type` requirement values point at shared
// string objects (each instance-type name stored once per response), hence
// the const result. CopyFrom it into a message of your own to edit. (With
// instanceTypeEncoding "Indexed" no strings are shared: the names are in
// instanceTypeNames only, and each NodeClaim lists indices into it.)
absl::StatusOr<const v1::ScheduleResponse*> ScheduleOnArena(
    const v1::ScheduleRequest& request, google::protobuf::Arena* arena);

// Turns a response scheduled with ScheduleOptions.instanceTypeEncoding
// "Indexed" into the response "Names" gives for the same request: every
// NodeClaim's instanceTypes and its node.kubernetes.io/instance-type
// requirement values are filled in from its instanceTypeIndices, and the
// indices and instanceTypeNames are cleared, so that the deterministic
// serialization is byte-identical to the Names response. A response without
// indices (Names already, or expanded) is left as it is. A response that is
// not a nodeplan Indexed render (an index outside the table or listed twice,
// names and indices on one NodeClaim, no `In` requirement without values to
// fill) is INVALID_ARGUMENT and left unchanged.
//
// On a heap message every name is copied into its lists. On an arena
// (the recommended way to parse a large response, c_api.h) every list
// points at the table's own strings instead, as ScheduleOnArena renders
// them: no allocation per name, but the response is then for reading and
// serializing only (editing one name in place would edit it everywhere).
absl::Status ExpandInstanceTypes(v1::ScheduleResponse* response);

// A compiled, immutable view of what changes rarely: the catalog (with
// overlays and unavailable offerings applied), NodeClasses and NodePools.
// Compile once, then Schedule the cluster state and pending pods as often as
// needed, from any number of threads at once.
class Snapshot {
 public:
  virtual ~Snapshot() = default;

  // `base` supplies nodePools, nodeClasses, catalog/catalogRef, nodeOverlays
  // and unavailableOfferings; its other fields must be empty.
  static absl::StatusOr<std::shared_ptr<const Snapshot>> Compile(
      const v1::ScheduleRequest& base);

  // `state` supplies nodes, nodeClaims, pods, daemonSets, volumes and options;
  // its snapshot fields must be empty.
  virtual absl::StatusOr<v1::ScheduleResponse> Schedule(
      const v1::ScheduleRequest& state) const = 0;

  // Schedule with the response built on `arena` (see ScheduleOnArena above);
  // the same bytes, allocated and freed far faster for large plans.
  virtual absl::StatusOr<const v1::ScheduleResponse*> ScheduleOnArena(
      const v1::ScheduleRequest& state,
      google::protobuf::Arena* arena) const = 0;
};

}  // namespace nodeplan

#endif  // NODEPLAN_SCHEDULE_H_
