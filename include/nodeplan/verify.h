#ifndef NODEPLAN_VERIFY_H_
#define NODEPLAN_VERIFY_H_

// An independent checker of scheduling plans. It shares no code with the
// scheduler (nor with the library's requirements or quantity code): its
// checks are plain, string-based and slow on purpose, so that a bug in the
// scheduler is not mirrored here. It checks only hard rules; preferences
// (preferred affinities, ScheduleAnyway spreads, PreferNoSchedule taints)
// never make a plan wrong.
//
// Rules (Violation::rule):
//   coverage       every pending pod appears exactly once across
//                  newNodeClaims[].pods, existingNodes[].pods and
//                  unschedulable[]; nothing else appears. Pending = a pod
//                  without spec.nodeName, not owned by a DaemonSet or Node,
//                  not in phase Succeeded/Failed, plus the replicas of
//                  request.deployments (named as nodeplan/workload.h says),
//                  plus the pods a node being deleted gives up (its
//                  NodeClaim deleting or InstanceTerminating, or without a
//                  NodeClaim the Node deleting; the pod active and without
//                  do-not-disrupt, or a terminating StatefulSet pod; not a
//                  DaemonSet's or mirror pod), as Karpenter's provisioner
//                  schedules them.
//   reason         an unschedulable pod carries a non-empty reason.
//   destination    a pod is placed on existing capacity being deleted (the
//                  same rule: a Node whose NodeClaim is deleting or
//                  InstanceTerminating, an unmanaged Node being deleted, a
//                  NodeClaim deleting or InstanceTerminating); Karpenter
//                  schedules onto active nodes only.
//   node           a placement names a NodePool, instance type, Node or
//                  NodeClaim that the request does not hold. Instance types
//                  come from request.catalog, else (catalog_ref "aws" or
//                  empty) from the embedded AWS catalog (nodeplan/catalog.h
//                  AwsCatalog) for each NodePool's NodeClass.
//   instance-type  a NodeClaim's instance-type option contradicts its
//                  NodePool's or its own requirements (node_claim.spec.
//                  requirements, which must carry the narrowing the pods
//                  need), or has no available offering they allow.
//   launch         the launch instance type is not an option, or its
//                  offering (zone, capacity type, reservation) is missing,
//                  unavailable, not allowed, or priced differently (price
//                  is not checked when the request has NodeOverlays).
//   resources      a new NodeClaim's pods + `pods: 1` each + the requests
//                  of DaemonSets that could run there exceed the allocatable
//                  (capacity - overhead) of its launch type or of any option;
//                  an existing node's bound pods + new pods exceed its
//                  status.allocatable (in-flight NodeClaims without
//                  status.allocatable are not checked).
//   node-selector  a pod's nodeSelector or every one of its required
//                  node-affinity terms is not certainly met by the node's
//                  labels (for a new NodeClaim: by every option's labels).
//                  As Karpenter (AllowUndefinedWellKnownLabels), what a pod
//                  asks of a well-known key (Karpenter's, the catalog's
//                  wellKnownLabels and reservation-id label) that neither
//                  the NodePool template nor the instance type defines is
//                  not held against a new NodeClaim's option.
//   taints         a NoSchedule/NoExecute taint the pod does not tolerate
//                  (NodePool taints for new NodeClaims; startupTaints and,
//                  on managed nodes not yet initialized, Karpenter's known
//                  ephemeral taints are ignored).
//   topology-spread  a DoNotSchedule constraint is broken. The plan has no
//                  order, so the check is the order-free consequence of
//                  Karpenter's rule: for a domain d holding owners of the
//                  constraint, existing(d) + selected owners(d) -
//                  min over eligible domains <= maxSkew (min 0 for
//                  hostname or when fewer than minDomains domains exist).
//                  Selected pods that do not own the constraint are counted
//                  in the minimum but not assumed to precede an owner, so a
//                  plan that piles non-owners into one domain can pass.
//   pod-affinity   a required affinity term has no matching pod in the
//                  pod's domain (a self-matching pod may start a domain when
//                  no bound pod matches elsewhere).
//   pod-anti-affinity  a required anti-affinity term (of the pod, or of
//                  any bound or placed pod that selects it) shares a domain;
//                  a NodeClaim whose zone is undecided occupies every zone
//                  it may launch in.
//   host-ports     two pods (or a pod and a DaemonSet that could run there)
//                  claim the same host port, protocol and address.
//   volume-limits  on a Node with a CSINode, the distinct claims its bound
//                  and new pods mount through one CSI driver (the bound
//                  volume's spec.csi.driver, ebs.csi.aws.com for an in-tree
//                  EBS volume, else the storage class's provisioner with
//                  in-tree names migrated) exceed that driver's
//                  allocatable.count.
//   min-values     a new NodeClaim's instance-type options give fewer
//                  distinct values of a key than a minValues of its own
//                  requirements (or, unless options.minValuesPolicy is
//                  BestEffort, of its NodePool's) asks for; values are
//                  counted as Karpenter counts them, a type's zones and
//                  capacity types from all its offerings.
//   limits         a NodePool's existing nodes plus launched instance types
//                  exceed spec.limits (for `nodes`: launches while existing
//                  nodes already reach the limit). Existing capacity being
//                  deleted is not counted, as Karpenter counts active nodes
//                  only; a Node and its NodeClaim count once.
//   input          the request or response cannot be interpreted (e.g. a
//                  malformed quantity).
//
// Affinity terms select pods in their listed namespaces plus every namespace
// their namespaceSelector matches (the request's Namespace objects and the
// namespaces its pods live in, each with the kubernetes.io/metadata.name label
// the API server sets); with neither, the pod's own namespace.

#include <string>
#include <vector>

#include "nodeplan/v1/disrupt.pb.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan {

struct Violation {
  std::string rule;     // one of the rule names above
  std::string subject;  // "pod default/web-1", "nodeclaim default-x", ...
  std::string message;  // what is wrong, with the figures
};

// All violations, in a deterministic order (input order of claims, then
// pods). Empty means the plan obeys every rule above. Thread-safe: the label
// spaces of the embedded AWS catalog's types under a NodePool are kept per
// process for the last four NodePool definitions (name, template labels and
// requirements) and shared between calls.
std::vector<Violation> Verify(const v1::ScheduleRequest& request,
                              const v1::ScheduleResponse& response);

// An independent check of a disruption decision. Rules:
//   command       one method per pass; reason and decision match the method
//                 (emptiness deletes; consolidation launches at most one
//                 NodeClaim).
//   candidate     every candidate is a managed, initialized Node that is not
//                 being deleted, nominated or annotated do-not-disrupt=true;
//                 for emptiness and consolidation (and for drift without a
//                 terminationGracePeriod) none of its running pods carries
//                 do-not-disrupt=true or is held by a PDB (several PDBs, or
//                 one with disruptionsAllowed 0).
//   budget        per NodePool and reason the commands take no more nodes
//                 than the response's budget allows, nor than the NodePool's
//                 unscheduled budgets allow when recomputed here.
//   savings       a consolidation's every replacement option may launch
//                 (dearest allowed offering) below the candidates' summed
//                 price.
//   emptiness     an emptiness candidate runs no pod that must move.
//   rescheduling  every pod of a consolidated node that must move has a
//                 place (a replacement or an existing node that stays), and
//                 those placements pass Verify() (resources, selectors,
//                 taints, topology, ports, limits) on the cluster without
//                 the candidates.
// DisruptResponse.optimized.command (nodeplan's optimized consolidation, an
// alternative to the commands) is checked on its own by the same rules:
// method optimized-consolidation (never among the commands), reason
// Underutilized, any number of replacements whose dearest options together
// cost less than the candidates (savings), candidate, rescheduling, and the
// Underutilized budgets of its NodePools (budget).
std::vector<Violation> VerifyDisruption(const v1::DisruptRequest& request,
                                        const v1::DisruptResponse& response);

// "rule: subject: message".
std::string FormatViolation(const Violation& violation);

}  // namespace nodeplan

#endif  // NODEPLAN_VERIFY_H_
