// Package response holds the JSON shape of nodeplan's ScheduleResponse
// (proto/nodeplan/v1/schedule.proto) as plain Go structs, so that Karpenter's
// result and nodeplan's result are compared in one shape.
package response

import (
	"sort"
)

// Launch mirrors nodeplan.v1.Launch.
type Launch struct {
	InstanceType  string  `json:"instanceType,omitempty"`
	Zone          string  `json:"zone,omitempty"`
	CapacityType  string  `json:"capacityType,omitempty"`
	Price         float64 `json:"price,omitempty"`
	ReservationID string  `json:"reservationID,omitempty"`
}

// NewNodeClaim mirrors nodeplan.v1.NewNodeClaim (without the full NodeClaim
// object, which the comparison does not use).
type NewNodeClaim struct {
	Name          string            `json:"name,omitempty"`
	NodePool      string            `json:"nodePool,omitempty"`
	InstanceTypes []string          `json:"instanceTypes,omitempty"`
	Launch        *Launch           `json:"launch,omitempty"`
	Pods          []string          `json:"pods,omitempty"`
	Requests      map[string]string `json:"requests,omitempty"`
	// The NodeClaim's annotations that the comparison reads
	// (karpenter.sh/nodepool-hash).
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ExistingNodePlacement mirrors nodeplan.v1.ExistingNodePlacement.
type ExistingNodePlacement struct {
	Name string   `json:"name"`
	Pods []string `json:"pods,omitempty"`
	Kind string   `json:"kind,omitempty"`
}

// UnschedulablePod mirrors nodeplan.v1.UnschedulablePod.
type UnschedulablePod struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason,omitempty"`
}

// ScheduleResponse mirrors nodeplan.v1.ScheduleResponse.
type ScheduleResponse struct {
	NewNodeClaims  []NewNodeClaim          `json:"newNodeClaims,omitempty"`
	ExistingNodes  []ExistingNodePlacement `json:"existingNodes,omitempty"`
	Unschedulable  []UnschedulablePod      `json:"unschedulable,omitempty"`
	Cost           float64                 `json:"cost"`
	LibraryVersion string                  `json:"libraryVersion,omitempty"`
	IgnoredPods    int32                   `json:"ignoredPods,omitempty"`
}

// Canonicalize sorts every list whose order carries no meaning, so that two
// responses can be compared and printed deterministically: pods within a
// NodeClaim, NodeClaims by their first pod, existing nodes by name and
// unschedulable pods by name. Instance-type option order is kept (it is the
// price order).
func (r *ScheduleResponse) Canonicalize() {
	for i := range r.NewNodeClaims {
		sort.Strings(r.NewNodeClaims[i].Pods)
	}
	sort.SliceStable(r.NewNodeClaims, func(i, j int) bool {
		return firstOr(r.NewNodeClaims[i].Pods) < firstOr(r.NewNodeClaims[j].Pods)
	})
	for i := range r.ExistingNodes {
		sort.Strings(r.ExistingNodes[i].Pods)
	}
	sort.SliceStable(r.ExistingNodes, func(i, j int) bool { return r.ExistingNodes[i].Name < r.ExistingNodes[j].Name })
	sort.SliceStable(r.Unschedulable, func(i, j int) bool { return r.Unschedulable[i].Pod < r.Unschedulable[j].Pod })
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
