#ifndef NODEPLAN_VALIDATE_H_
#define NODEPLAN_VALIDATE_H_

// NodePool, NodeClaim and NodeOverlay validation as the API server applies
// Karpenter's CRD schema and CEL rules, and pod checks Karpenter makes before
// scheduling. Every violation is reported with its field path.
//
// What is checked (kubernetes-sigs/karpenter pkg/apis/crds/*.yaml and
// pkg/apis/v1*/..._validation.go):
//  * NodePool: template labels (value format, at most 100, the
//    karpenter.sh domain, karpenter.sh/nodepool and kubernetes.io/hostname
//    restricted; kubernetes.io and k8s.io allowed; keys must be qualified
//    names), requirements (key format, restricted keys, operator enum,
//    In needs values, Gt/Lt/Gte/Lte exactly one non-negative integer,
//    minValues 1..50 and <= the In values, value format, capacity-type values
//    Karpenter knows), taints and startupTaints (key, value, effect enum,
//    timeAdded, duplicate key/effect pairs), nodeClassRef (group, kind and
//    name required, group without '/'), expireAfter / terminationGracePeriod /
//    consolidateAfter durations (patterns, Never where allowed, int64
//    overflow), consolidationPolicy enum, budgets (nodes integer or 0-100%,
//    schedule pattern and a cron Karpenter can parse, duration pattern,
//    schedule iff duration, reasons enum and set), limits quantities, weight
//    1..100, static (replicas) NodePool rules.
//  * NodeClaim: the same spec rules (karpenter.sh/nodepool allowed in
//    requirements), resources.requests quantities.
//  * NodeOverlay: requirements (NotIn also needs values; no minValues),
//    price and priceAdjustment patterns and not both, capacity quantities and
//    not cpu/memory/ephemeral-storage/pods, weight 1..10000.
//  * Pending pods (no spec.nodeName) and Deployment pod templates: Karpenter's
//    provisioner checks (karpenter.sh/nodepool DoesNotExist, nodeSelector and
//    required node-affinity terms through ValidateRequirement, matchFields).
//    Volume (PVC) checks need the cluster state and are left to Schedule.
//  * Every pod, Deployment and DaemonSet template, as the API server's
//    ValidatePodSpec does for the fields nodeplan reads (Schedule and
//    Disrupt refuse the same): request, limit and overhead quantities
//    (non-negative, requests within limits), ports (1-65535, TCP/UDP/SCTP,
//    a host port once per pod; a missing containerPort is allowed),
//    nodeSelector labels, node affinity (operators, value counts, label-name
//    keys, label values in required terms, matchFields on metadata.name),
//    label and namespace selectors, tolerations (an empty key needs Exists,
//    Exists takes no value, tolerationSeconds needs NoExecute, effects),
//    topology spread constraints (maxSkew, topologyKey, whenUnsatisfiable,
//    minDomains only with DoNotSchedule, policies, matchLabelKeys, one per
//    key and whenUnsatisfiable) and affinity weights and topology keys.
//    Container names are not checked (nodeplan never reads them).
//  * Every object: named, unique per kind and namespace, metadata.labels
//    valid; Node taints (key, value, effect, one per key and effect); Node
//    and NodeClaim status quantities; PodDisruptionBudget specs
//    (int-or-percent up to 100%, not both bounds, selector, eviction
//    policy).
//
// Reporting rules:
//  * object: "<Kind> <name>" ("Pod <namespace>/<name>", namespace "default"
//    when empty). Violations come kind by kind (NodePools, NodeClaims,
//    NodeOverlays, Pods, Deployments), objects in input order, fields in
//    schema order, map keys sorted: the output is deterministic.
//  * field_path: dotted, list indexes as [i], map keys as [key]
//    ("spec.template.metadata.labels[kubernetes.io/hostname]"). A CEL rule
//    the CRD attaches to a whole list or map is reported at the offending
//    element's field (the API server names only the list).
//  * message: the API server's text for schema errors ("Required value",
//    "Unsupported value: ...", "Invalid value: ...: <path> in body should
//    match '<pattern>'", "... should be less than or equal to N"), the CRD's
//    CEL message verbatim, or Karpenter's own error text for run-time checks.
//    Go prints some lists from unordered sets; nodeplan sorts them.
//  * Proto3 cannot tell an absent string or list from an empty one: an empty
//    required field is reported as "Required value"; an empty optional one
//    takes the CRD default (budget nodes 10%, expireAfter 720h, ...).

#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan {

v1::ValidateResponse Validate(const v1::ManifestSet& manifests);

}  // namespace nodeplan

#endif  // NODEPLAN_VALIDATE_H_
