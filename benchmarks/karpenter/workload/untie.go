package workload

import (
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// UntiedZone and UntiedCapacityType are the one zone and capacity type an
// untied cluster keeps.
const (
	UntiedZone         = "test-zone-1"
	UntiedCapacityType = v1.CapacityTypeOnDemand
)

// Untie returns a copy of w with a single topology domain for zone and
// capacity type: instance types keep only their UntiedZone on-demand
// offerings, NodePool requirements on either key are pinned to that value,
// and existing nodes and in-flight NodeClaims are moved there. Spreads and
// pod (anti-)affinities on those keys then never choose among tied domains,
// which is where Karpenter breaks ties in map order; what still differs
// between nodeplan and Karpenter on an untied cluster is not a tie.
func Untie(w *Workload) *Workload {
	c := *w
	cat := *w.Catalog
	cat.InstanceTypes = make([]catalog.InstanceType, len(w.Catalog.InstanceTypes))
	for i, it := range w.Catalog.InstanceTypes {
		it.Offerings = lo.Filter(it.Offerings, func(o catalog.Offering, _ int) bool {
			return o.Zone == UntiedZone && o.CapacityType == UntiedCapacityType
		})
		cat.InstanceTypes[i] = it
	}
	c.Catalog = &cat
	pin := func(reqs []v1.NodeSelectorRequirementWithMinValues) {
		for j := range reqs {
			switch reqs[j].Key {
			case corev1.LabelTopologyZone:
				reqs[j].Operator, reqs[j].Values = corev1.NodeSelectorOpIn, []string{UntiedZone}
			case v1.CapacityTypeLabelKey:
				reqs[j].Operator, reqs[j].Values = corev1.NodeSelectorOpIn, []string{UntiedCapacityType}
			}
		}
	}
	relabel := func(l map[string]string) {
		if _, ok := l[corev1.LabelTopologyZone]; ok {
			l[corev1.LabelTopologyZone] = UntiedZone
		}
		if _, ok := l[v1.CapacityTypeLabelKey]; ok {
			l[v1.CapacityTypeLabelKey] = UntiedCapacityType
		}
	}
	c.NodePools = lo.Map(w.NodePools, func(np *v1.NodePool, _ int) *v1.NodePool {
		np = np.DeepCopy()
		pin(np.Spec.Template.Spec.Requirements)
		relabel(np.Spec.Template.Labels)
		return np
	})
	c.Nodes = lo.Map(w.Nodes, func(n *corev1.Node, _ int) *corev1.Node {
		n = n.DeepCopy()
		relabel(n.Labels)
		return n
	})
	c.NodeClaims = lo.Map(w.NodeClaims, func(nc *v1.NodeClaim, _ int) *v1.NodeClaim {
		nc = nc.DeepCopy()
		relabel(nc.Labels)
		pin(nc.Spec.Requirements)
		return nc
	})
	c.Pods = append([]*corev1.Pod(nil), w.Pods...)
	c.DaemonSets = append(c.DaemonSets[:0:0], w.DaemonSets...)
	return &c
}
