package workload

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// scaleCatalog: one family in five sizes, on-demand only, one zone, price
// proportional to size, so that consolidation has cheaper replacements.
func scaleCatalog() *catalog.Catalog {
	c := &catalog.Catalog{APIVersion: "nodeplan.io/v1", Kind: "Catalog", WellKnownLabels: FakeWellKnownLabels, Source: "scale"}
	for _, cpu := range []int{2, 4, 8, 16, 32} {
		c.InstanceTypes = append(c.InstanceTypes, catalog.InstanceType{
			Name:     fmt.Sprintf("m.%dx", cpu),
			Labels:   map[string]string{corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"},
			Capacity: map[string]string{"cpu": fmt.Sprint(cpu), "memory": fmt.Sprintf("%dGi", 4*cpu), "pods": "110"},
			Overhead: &catalog.Overhead{KubeReserved: map[string]string{"cpu": "100m", "memory": "500Mi"}},
			Offerings: []catalog.Offering{{Zone: Zones[0], CapacityType: "on-demand", Price: 0.048 * float64(cpu)},
				{Zone: Zones[1], CapacityType: "on-demand", Price: 0.049 * float64(cpu)}},
		})
	}
	return c
}

// ScaleDisruption is the benchmark cluster: nodes m.16x nodes of one
// consolidating NodePool (budget 10%), podsPerNode ReplicaSet pods on each;
// one node in five is underutilized (its pods request a tenth of what the
// others' do), so both consolidation methods have work and the budget, not
// the cluster, bounds the command.
func ScaleDisruption(nodes, podsPerNode int) *DisruptCase {
	b := NewDisruptBuilder(fmt.Sprintf("scale-%d", nodes), scaleCatalog())
	np := b.NodePool(NodePool("default", v1.NodePoolSpec{
		Disruption: v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("0s"),
			ConsolidationPolicy: v1.ConsolidationPolicyWhenEmptyOrUnderutilized, Budgets: []v1.Budget{{Nodes: "10%"}}},
		Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			Requirements: []v1.NodeSelectorRequirementWithMinValues{{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}},
			ExpireAfter:  v1.MustParseNillableDuration("720h")}},
	}))
	for i := 0; i < nodes; i++ {
		n := b.ManagedNode(np, NodeSpec{InstanceType: "m.16x", Zone: Zones[i%2], CapacityType: "on-demand", Age: 6 * time.Hour,
			LastPodEvent: time.Hour})
		cpu, mem := "480m", "1800Mi"
		if i%5 == 4 {
			cpu, mem = "48m", "180Mi"
		}
		for k := 0; k < podsPerNode; k++ {
			app := fmt.Sprintf("app-%d", (i*podsPerNode+k)%50)
			b.Pod(n.Name, PodSpec{CPU: cpu, Memory: mem, Labels: map[string]string{"app": app},
				Owner: "ReplicaSet", OwnerName: app + "-7c9d", Started: 2 * time.Hour})
		}
	}
	return b.Case
}
