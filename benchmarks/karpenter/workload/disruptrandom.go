package workload

import (
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// DisruptionConfig bounds the random disruption clusters.
type DisruptionConfig struct {
	MaxInstanceTypes int
	MaxNodePools     int
	MaxNodes         int
	MaxPodsPerNode   int
}

// DefaultDisruptionConfig keeps clusters small enough for thousands of
// Karpenter runs.
var DefaultDisruptionConfig = DisruptionConfig{MaxInstanceTypes: 10, MaxNodePools: 3, MaxNodes: 8, MaxPodsPerNode: 6}

type dgen struct {
	rgen
	b *DisruptBuilder
	// consolidation: a cluster meant for consolidation (few empty or
	// drifted nodes, permissive budgets, consolidateAfter mostly 0s), so
	// the generator reaches multi- and single-node consolidation, delete
	// and replace, as often as emptiness and drift.
	consolidation bool
}

// p scales a probability down in consolidation clusters.
func (g *dgen) p(x float64) float64 { return lo.Ternary(g.consolidation, x/4, x) }

// RandomDisruption generates a reproducible disruption cluster from a seed:
// 1-3 NodePools (weights; capacity-type, family, zone and arch requirements;
// budgets with counts, percentages, reasons and cron windows; WhenEmpty,
// WhenEmptyOrUnderutilized or Balanced; consolidateAfter from 0s to Never;
// expireAfter), managed nodes with NodeClaims on spot and on-demand
// offerings, some empty, some underutilized, some full; pods from
// ReplicaSets and bare pods with PDBs; do-not-disrupt on nodes and pods
// (permanent and timed); a DaemonSet; drift by NodePool hash, hash version,
// requirements and the provider; uninitialized, NotReady and deleting nodes,
// nodes marked for deletion by an in-flight command and nominated nodes;
// sometimes pending pods and spot-to-spot consolidation.
func RandomDisruption(seed int64, cfg DisruptionConfig) *DisruptCase {
	g := &dgen{rgen: rgen{r: rand.New(rand.NewSource(seed)), cfg: RandomConfig{MaxInstanceTypes: cfg.MaxInstanceTypes}}}
	cat := g.catalog()
	g.b = NewDisruptBuilder(fmt.Sprintf("disrupt-%d", seed), cat)
	g.consolidation = g.chance(0.5)
	its := lo.Values(g.b.its)
	sort.Slice(its, func(i, j int) bool { return its[i].Name < its[j].Name })

	var pools []*v1.NodePool
	for i := 0; i < 1+g.r.Intn(cfg.MaxNodePools); i++ {
		pools = append(pools, g.b.NodePool(g.disruptionPool(i)))
	}
	if g.chance(0.3) {
		g.b.Case.Params.Options = &DisruptOptions{SpotToSpotConsolidation: true}
	}

	type placed struct {
		node     *corev1.Node
		cpuLeft  int64 // millicores
		memLeft  int64 // MiB
		podsLeft int
	}
	var nodes []*placed
	nNodes := 1 + g.r.Intn(cfg.MaxNodes)
	for i := 0; i < nNodes; i++ {
		np := pools[g.r.Intn(len(pools))]
		it, off, ok := g.launchable(np, its)
		if !ok {
			continue
		}
		s := NodeSpec{InstanceType: it.Name, Zone: off.Zone(), CapacityType: off.CapacityType(),
			Age: time.Duration(10+g.r.Intn(48*60)) * time.Minute}
		if g.chance(0.6) {
			s.LastPodEvent = time.Duration(g.r.Intn(120)) * time.Minute
		}
		switch x := g.r.Float64(); {
		case x < 0.05:
			s.Uninitialized = true
		case x < 0.10:
			s.Deleting = true
		case x < 0.13:
			s.NotReady = true
		}
		s.DoNotDisrupt = g.chance(0.05)
		switch x := g.r.Float64(); {
		case x < g.p(0.10):
			s.Hash = "1234567890"
		case x < g.p(0.15):
			s.HashVersion = "v2"
			s.Hash = "1234567890"
		case x < g.p(0.20):
			// A label the NodePool's requirements reject (requirement drift),
			// when the pool constrains the capacity type.
			if np.Spec.Template.Spec.Requirements != nil {
				for _, r := range np.Spec.Template.Spec.Requirements {
					if r.Key == v1.CapacityTypeLabelKey && len(r.Values) == 1 {
						s.Labels = map[string]string{v1.CapacityTypeLabelKey: lo.Ternary(r.Values[0] == "spot", "on-demand", "spot")}
					}
				}
			}
		}
		if g.chance(0.1) {
			s.TerminationGracePeriod = lo.ToPtr(time.Hour)
		}
		n := g.b.ManagedNode(np, s)
		switch x := g.r.Float64(); {
		case x < 0.04 && !s.Deleting:
			// Taken by an in-flight command: tainted, pods still bound.
			n.Spec.Taints = append(n.Spec.Taints, v1.DisruptedNoScheduleTaint)
			g.b.Case.Params.MarkedForDeletion = append(g.b.Case.Params.MarkedForDeletion, n.Name)
		case x < 0.08:
			g.b.Case.Params.Nominated = append(g.b.Case.Params.Nominated, n.Name)
		}
		if g.chance(g.p(0.05)) {
			g.b.Case.Params.ProviderDrifted = lo.Assign(g.b.Case.Params.ProviderDrifted,
				map[string]string{g.b.Case.NodeClaims[len(g.b.Case.NodeClaims)-1].Name: "ImageDrifted"})
		}
		alloc := it.Allocatable()
		nodes = append(nodes, &placed{node: n, cpuLeft: alloc.Cpu().MilliValue(), memLeft: alloc.Memory().Value() >> 20,
			podsLeft: int(alloc.Pods().Value())})
	}
	if len(nodes) == 0 {
		// Always at least one node: the first NodePool's cheapest type.
		np := pools[0]
		it := its[0]
		off := it.Offerings[0]
		n := g.b.ManagedNode(np, NodeSpec{InstanceType: it.Name, Zone: off.Zone(), CapacityType: off.CapacityType(), Age: time.Hour})
		alloc := it.Allocatable()
		nodes = append(nodes, &placed{node: n, cpuLeft: alloc.Cpu().MilliValue(), memLeft: alloc.Memory().Value() >> 20, podsLeft: int(alloc.Pods().Value())})
	}

	if g.chance(0.4) {
		allNodes := lo.Map(nodes, func(p *placed, _ int) *corev1.Node { return p.node })
		g.b.DaemonSet("agent", "100m", allNodes)
		for _, p := range nodes {
			if p.node.DeletionTimestamp == nil {
				p.cpuLeft -= 100
				p.podsLeft--
			}
		}
	}

	// Workloads: a few apps (ReplicaSet-owned pods) and bare pods, spread
	// over the nodes; utilisation per node from empty to nearly full.
	apps := []string{"web", "api", "batch"}[:1+g.r.Intn(3)]
	for _, p := range nodes {
		if p.node.DeletionTimestamp != nil && g.chance(0.5) {
			continue
		}
		var count int
		switch x := g.r.Float64(); {
		case x < g.p(0.25):
			count = 0 // empty
		case x < 0.6:
			count = 1 + g.r.Intn(2) // underutilized
		default:
			count = 1 + g.r.Intn(cfg.MaxPodsPerNode)
		}
		for k := 0; k < count && p.podsLeft > 0; k++ {
			cpu := []int64{100, 250, 500, 1000}[g.r.Intn(4)]
			mem := []int64{128, 256, 512, 1024}[g.r.Intn(4)]
			if cpu > p.cpuLeft || mem > p.memLeft {
				break
			}
			p.cpuLeft -= cpu
			p.memLeft -= mem
			p.podsLeft--
			s := PodSpec{CPU: fmt.Sprintf("%dm", cpu), Memory: fmt.Sprintf("%dMi", mem),
				Started: time.Duration(1+g.r.Intn(600)) * time.Minute}
			if g.chance(0.7) {
				app := g.pick(apps)
				s.Labels = map[string]string{"app": app}
				s.Owner, s.OwnerName = "ReplicaSet", app+"-5d8f9c"
			} else {
				s.Labels = map[string]string{"app": "solo"}
			}
			switch x := g.r.Float64(); {
			case x < 0.04:
				s.DoNotDisrupt = "true"
			case x < 0.08:
				s.DoNotDisrupt = g.pick([]string{"10m", "2h"})
			}
			if g.chance(0.1) {
				s.DeletionCost = fmt.Sprint(g.r.Intn(200) - 50)
			}
			g.b.Pod(p.node.Name, s)
		}
	}
	for _, app := range append(apps, "solo") {
		switch x := g.r.Float64(); {
		case x < 0.15:
			g.b.PDB(app, nil, lo.ToPtr(intstr.FromInt32(0)))
		case x < 0.35:
			g.b.PDB(app, nil, lo.ToPtr(intstr.FromInt32(1)))
		case x < 0.45:
			g.b.PDB(app, lo.ToPtr(intstr.FromString("50%")), nil)
		}
	}
	if g.chance(0.15) {
		for k := 0; k < 1+g.r.Intn(2); k++ {
			g.b.Pod("", PodSpec{CPU: "500m", Memory: "256Mi", Labels: map[string]string{"app": "pending"}})
		}
	}
	return g.b.Case
}

// disruptionPool is a NodePool with the disruption settings under test.
func (g *dgen) disruptionPool(i int) *v1.NodePool {
	spec := v1.NodePoolSpec{}
	name := fmt.Sprintf("pool-%c", 'a'+i)
	if g.chance(0.5) {
		spec.Weight = lo.ToPtr(int32(g.r.Intn(4) * 10))
	}
	reqs := []v1.NodeSelectorRequirementWithMinValues{}
	add := func(key string, op corev1.NodeSelectorOperator, vals ...string) {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: vals})
	}
	switch g.r.Intn(3) {
	case 0:
		add(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")
	case 1:
		add(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot")
	default:
		add(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand", "spot")
	}
	if g.chance(0.3) {
		add(LabelFamily, corev1.NodeSelectorOpIn, g.subset(families[:3], 1)...)
	} else {
		add(LabelFamily, corev1.NodeSelectorOpNotIn, "g")
	}
	if g.chance(0.2) {
		add(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, g.subset(Zones, 1)...)
	}
	if g.chance(0.2) {
		add(corev1.LabelArchStable, corev1.NodeSelectorOpIn, g.pick([]string{"amd64", "arm64"}))
	}
	spec.Template.Spec.Requirements = reqs
	d := &spec.Disruption
	d.ConsolidationPolicy = v1.ConsolidationPolicy(g.pick([]string{"WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", "WhenEmpty", "Balanced"}))
	if d.ConsolidationPolicy == "Balanced" && g.chance(0.7) {
		d.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	d.ConsolidateAfter = v1.MustParseNillableDuration(g.pick([]string{"0s", "0s", "30s", "5m", "1h", "Never"}))
	if g.consolidation && g.chance(0.6) {
		d.ConsolidateAfter = v1.MustParseNillableDuration("0s")
	}
	switch x := g.r.Float64(); {
	case x < 0.3 || (g.consolidation && x < 0.6):
		// the default budget
	case x < 0.45:
		d.Budgets = []v1.Budget{{Nodes: "0"}}
	case x < 0.6:
		d.Budgets = []v1.Budget{{Nodes: fmt.Sprint(1 + g.r.Intn(3))}}
	case x < 0.7:
		d.Budgets = []v1.Budget{{Nodes: g.pick([]string{"20%", "50%", "100%"})}}
	case x < 0.8:
		d.Budgets = []v1.Budget{{Nodes: "100%"}, {Nodes: "0", Reasons: []v1.DisruptionReason{
			v1.DisruptionReason(g.pick([]string{"Empty", "Drifted", "Underutilized"}))}}}
	default:
		// A cron window: open now (09:00 for 8h) or closed (00:00 for 1h).
		d.Budgets = []v1.Budget{{Nodes: "100%"}, {Nodes: "0",
			Schedule: lo.ToPtr(g.pick([]string{"0 9 * * *", "0 0 * * *"})),
			Duration: &metav1.Duration{Duration: lo.Ternary(g.chance(0.5), 8*time.Hour, time.Hour)}}}
	}
	spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration(g.pick([]string{"720h", "720h", "24h", "Never"}))
	return NodePool(name, spec)
}

// launchable picks an instance type and available offering NodePool np may
// launch.
func (g *dgen) launchable(np *v1.NodePool, its []*cloudprovider.InstanceType) (*cloudprovider.InstanceType, *cloudprovider.Offering, bool) {
	reqs := scheduling.NewNodeSelectorRequirementsWithMinValues(np.Spec.Template.Spec.Requirements...)
	type choice struct {
		it  *cloudprovider.InstanceType
		off *cloudprovider.Offering
	}
	var choices []choice
	for _, it := range its {
		if it.Requirements.Compatible(reqs, scheduling.AllowUndefinedWellKnownLabels) != nil {
			continue
		}
		for _, o := range it.Offerings.Available().Compatible(reqs) {
			if it.Capacity.Cpu().Value() > 8 {
				continue
			}
			choices = append(choices, choice{it, o})
		}
	}
	if len(choices) == 0 {
		return nil, nil, false
	}
	c := choices[g.r.Intn(len(choices))]
	return c.it, c.off, true
}
