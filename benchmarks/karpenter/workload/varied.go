package workload

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// Varied clusters differ from Random ones in that every size and mix is
// drawn per cluster, so no single shape dominates a run: catalogs of 4 to 400
// types with up to 64 CPUs, up to several hundred pending pods, label sets
// that several groups share so spread and (anti-)affinity selectors match
// other groups' pods, hostname/zone/capacity-type spreads with maxSkew 1-3
// and minDomains, required anti-affinity, NodePool limits sized to run out
// part way through the plan, several weighted NodePools with overlapping
// requirements, unmanaged nodes with bound pods, in-flight NodeClaims, pods
// with and without UIDs and creation timestamps.
type VariedParams struct {
	Types, Pools, Groups, MaxReplicas, Nodes, InFlight, DaemonSets int
	// Probability that a group carries each kind of constraint.
	PSpread, PAnti, PAffinity, PNodeAffinity, PShared float64
	// "all", "none" or "some" pods carry a UID / a creation timestamp;
	// timestamps are equal ("same") or spread over an hour ("spread").
	UIDs, Timestamps, TimeShape string
	// Fraction of the pending CPU the limited NodePools may launch.
	LimitFraction float64
}

// variedFamilies: 13 families x 5 generations x 10 sizes = 650 names, enough
// for 400-type catalogs.
var variedFamilies = []string{"c", "m", "r", "g", "t", "x", "z", "i", "d", "h", "a", "p", "n"}
var variedCPUs = []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64}

// Shared label keys and values: groups draw from the same small sets so that
// one group's selectors select other groups' pods.
var (
	sharedTier = []string{"web", "db", "cache"}
	sharedTeam = []string{"blue", "green"}
)

type vgen struct {
	rgen
	p       VariedParams
	created time.Time
	cat     *catalog.Catalog
}

// admits reports whether a type's labels satisfy the label requirements
// (zone and capacity type, which come from offerings, are not checked).
func admits(reqs []v1.NodeSelectorRequirementWithMinValues, it catalog.InstanceType) bool {
	for _, r := range reqs {
		v, has := it.Labels[r.Key]
		switch {
		case r.Key == corev1.LabelTopologyZone || r.Key == v1.CapacityTypeLabelKey || r.Key == LabelTeam ||
			r.Key == corev1.LabelInstanceTypeStable:
		case r.Operator == corev1.NodeSelectorOpIn && (!has || !lo.Contains(r.Values, v)):
			return false
		case r.Operator == corev1.NodeSelectorOpNotIn && has && lo.Contains(r.Values, v):
			return false
		case r.Operator == corev1.NodeSelectorOpGt || r.Operator == corev1.NodeSelectorOpLt:
			var x, bound int
			if _, err := fmt.Sscan(v, &x); !has || err != nil {
				return false
			}
			fmt.Sscan(r.Values[0], &bound) //nolint:errcheck
			if (r.Operator == corev1.NodeSelectorOpGt && x <= bound) || (r.Operator == corev1.NodeSelectorOpLt && x >= bound) {
				return false
			}
		}
	}
	return true
}

// drawParams draws a cluster's shape: sizes on a rough log scale so small and
// large clusters both appear.
func (g *vgen) drawParams() VariedParams {
	logInt := func(lo, hi int) int {
		x := math.Exp(math.Log(float64(lo)) + g.r.Float64()*(math.Log(float64(hi))-math.Log(float64(lo))))
		return int(math.Round(x))
	}
	p := VariedParams{
		Types:         logInt(4, 400),
		Pools:         1 + g.r.Intn(4),
		Groups:        2 + g.r.Intn(12),
		MaxReplicas:   logInt(2, 60),
		Nodes:         lo.Ternary(g.chance(0.5), g.r.Intn(7), 0),
		InFlight:      lo.Ternary(g.chance(0.4), 1+g.r.Intn(4), 0),
		DaemonSets:    g.r.Intn(3),
		PSpread:       0.2 + 0.6*g.r.Float64(),
		PAnti:         0.1 + 0.5*g.r.Float64(),
		PAffinity:     0.25 * g.r.Float64(),
		PNodeAffinity: 0.4 * g.r.Float64(),
		PShared:       0.3 + 0.6*g.r.Float64(),
		UIDs:          g.pick([]string{"all", "all", "none", "some"}),
		Timestamps:    g.pick([]string{"all", "all", "none", "some"}),
		TimeShape:     g.pick([]string{"same", "spread"}),
		LimitFraction: 0.2 + 0.9*g.r.Float64(),
	}
	return p
}

func (g *vgen) catalog() *catalog.Catalog {
	c := &catalog.Catalog{APIVersion: "nodeplan.io/v1", Kind: "Catalog",
		WellKnownLabels: append([]string{LabelFamily, LabelCPU}, FakeWellKnownLabels...),
		Source:          "varied"}
	// Small catalogs favour the common sizes; large ones take everything.
	maxCPU := variedCPUs[min(len(variedCPUs)-1, 3+g.r.Intn(len(variedCPUs)-3))]
	cpus := lo.Filter(variedCPUs, func(c int, _ int) bool { return c <= maxCPU })
	seen := map[string]bool{}
	for len(c.InstanceTypes) < g.p.Types && len(seen) < len(variedFamilies)*5*len(cpus) {
		fam := g.pick(variedFamilies)
		cpu := cpus[g.r.Intn(len(cpus))]
		gen := 5 + g.r.Intn(5)
		name := fmt.Sprintf("%s%d.%dx", fam, gen, cpu)
		if seen[name] {
			continue
		}
		seen[name] = true
		memPerCPU := []int{2, 4, 8}[int(fam[0])%3]
		arch := lo.Ternary(g.chance(0.3), "arm64", "amd64")
		pods := lo.Ternary(g.chance(0.08), 4+g.r.Intn(6), 8+4*min(cpu, 29))
		it := catalog.InstanceType{
			Name: name,
			Labels: map[string]string{corev1.LabelArchStable: arch, corev1.LabelOSStable: "linux",
				LabelFamily: fam, LabelCPU: fmt.Sprint(cpu)},
			Capacity: map[string]string{"cpu": fmt.Sprint(cpu), "memory": fmt.Sprintf("%dGi", cpu*memPerCPU), "pods": fmt.Sprint(pods)},
			Overhead: &catalog.Overhead{
				KubeReserved:      map[string]string{"cpu": fmt.Sprintf("%dm", 60+10*cpu), "memory": fmt.Sprintf("%dMi", 200+20*cpu)},
				EvictionThreshold: map[string]string{"memory": "100Mi"},
			},
		}
		if fam == "g" {
			it.Capacity["nvidia.com/gpu"] = fmt.Sprint(1 + cpu/8)
		}
		base := (0.02*float64(cpu) + 0.006*float64(cpu*memPerCPU)) * (1 + 0.04*float64(9-gen))
		if fam == "g" {
			base += 0.5
		}
		if arch == "arm64" {
			base *= 0.85
		}
		for _, z := range Zones {
			for _, ct := range []string{"on-demand", "spot"} {
				if g.chance(0.12) {
					continue
				}
				price := base * (0.9 + 0.2*g.r.Float64())
				if ct == "spot" {
					price *= 0.3 + 0.3*g.r.Float64()
				}
				o := catalog.Offering{Zone: z, CapacityType: ct, Price: math.Round(price*1e6) / 1e6}
				if g.chance(0.05) {
					o.Available = lo.ToPtr(false)
				}
				it.Offerings = append(it.Offerings, o)
			}
		}
		if len(it.Offerings) == 0 {
			it.Offerings = []catalog.Offering{{Zone: Zones[0], CapacityType: "on-demand", Price: math.Round(base*1e6) / 1e6}}
		}
		c.InstanceTypes = append(c.InstanceTypes, it)
	}
	sort.Slice(c.InstanceTypes, func(i, j int) bool { return c.InstanceTypes[i].Name < c.InstanceTypes[j].Name })
	return c
}

// nodePool draws a NodePool whose requirements overlap the others' (the
// same keys, intersecting value sets) and whose weight may tie another's.
func (g *vgen) nodePool(i int, pendingCPU float64) *v1.NodePool {
	name := fmt.Sprintf("pool-%c", 'a'+i)
	spec := v1.NodePoolSpec{}
	if g.chance(0.7) {
		spec.Weight = lo.ToPtr(int32(g.r.Intn(4) * 10))
	}
	var reqs []v1.NodeSelectorRequirementWithMinValues
	add := func(key string, op corev1.NodeSelectorOperator, vals ...string) {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: vals})
	}
	switch g.r.Intn(3) {
	case 0:
		add(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")
	case 1:
		add(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand", "spot")
	}
	if g.chance(0.4) {
		add(LabelFamily, corev1.NodeSelectorOpIn, g.subset(lo.Uniq(lo.Map(g.cat.InstanceTypes, func(it catalog.InstanceType, _ int) string { return it.Labels[LabelFamily] })), 1)...)
	} else if g.chance(0.3) {
		add(LabelFamily, corev1.NodeSelectorOpNotIn, "g")
	}
	if g.chance(0.3) {
		add(LabelCPU, corev1.NodeSelectorOpGt, fmt.Sprint([]int{1, 2, 4, 8}[g.r.Intn(4)]))
	}
	if g.chance(0.25) {
		add(LabelCPU, corev1.NodeSelectorOpLt, fmt.Sprint([]int{17, 33, 49, 65}[g.r.Intn(4)]))
	}
	if g.chance(0.3) {
		add(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, g.subset(Zones, 2)...)
	}
	if g.chance(0.2) {
		add(corev1.LabelArchStable, corev1.NodeSelectorOpIn, g.pick([]string{"amd64", "arm64"}))
	}
	if g.chance(0.1) {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable,
			Operator: corev1.NodeSelectorOpExists, MinValues: lo.ToPtr(2 + g.r.Intn(3))})
	}
	if g.chance(0.25) {
		add(LabelTeam, corev1.NodeSelectorOpIn, g.pick(sharedTeam))
	} else if g.chance(0.25) {
		spec.Template.Labels = map[string]string{LabelTeam: g.pick(sharedTeam)}
	}
	if g.chance(0.2) {
		effect := g.pick([]string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule)})
		spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: name, Effect: corev1.TaintEffect(effect)}}
	}
	// A NodePool whose requirements admit none of a small catalog's types
	// only makes pods unschedulable: drop requirements, last first, until
	// one type is admitted.
	for len(reqs) > 0 && !lo.SomeBy(g.cat.InstanceTypes, func(it catalog.InstanceType) bool { return admits(reqs, it) }) {
		reqs = reqs[:len(reqs)-1]
	}
	spec.Template.Spec.Requirements = reqs
	// Limits sized against the pending CPU, so they run out mid-plan.
	if g.chance(0.4) {
		cpu := max(4, int(pendingCPU*g.p.LimitFraction))
		if g.chance(0.2) {
			cpu = []int{100, 200, 300}[g.r.Intn(3)]
		}
		spec.Limits = v1.Limits{corev1.ResourceCPU: q(fmt.Sprint(cpu))}
		if g.chance(0.2) {
			spec.Limits[corev1.ResourceMemory] = q(fmt.Sprintf("%dGi", 4*cpu))
		}
	}
	return NodePool(name, spec)
}

// selector selects the group's own pods, or a shared label that other groups
// carry too.
func (g *vgen) selector(app string) *metav1.LabelSelector {
	if !g.chance(g.p.PShared) {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}
	switch g.r.Intn(3) {
	case 0:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"tier": g.pick(sharedTier)}}
	case 1:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"team": g.pick(sharedTeam)}}
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: g.subset(sharedTier, 1)}}}
}

func (g *vgen) requests(big bool) corev1.ResourceList {
	cpus := []string{"50m", "100m", "250m", "500m", "750m", "1", "1500m", "2"}
	if big {
		cpus = append(cpus, "3", "4", "6", "8", "12")
	}
	mem := []string{"64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"}[g.r.Intn(8)]
	return corev1.ResourceList{corev1.ResourceCPU: q(g.pick(cpus)), corev1.ResourceMemory: q(mem)}
}

func (g *vgen) group(gi int, uid *int, pools []*v1.NodePool, replicas int, req corev1.ResourceList) []*corev1.Pod {
	app := fmt.Sprintf("app-%d", gi)
	labels := map[string]string{"app": app}
	if g.chance(0.7) {
		labels["tier"] = g.pick(sharedTier)
	}
	if g.chance(0.5) {
		labels["team"] = g.pick(sharedTeam)
	}
	tmpl := PendingPod("", "", labels, req)
	spec := &tmpl.Spec
	if g.chance(0.05) {
		req[corev1.ResourceName("nvidia.com/gpu")] = q("1")
		spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": q("1")}
	}
	aff := &corev1.Affinity{}
	if g.chance(g.p.PNodeAffinity) {
		terms := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{g.nodeSelectorReq()}}}
		if g.chance(0.3) {
			terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{g.nodeSelectorReq()}})
		}
		aff.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	}
	if g.chance(g.p.PNodeAffinity / 2) {
		if aff.NodeAffinity == nil {
			aff.NodeAffinity = &corev1.NodeAffinity{}
		}
		aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: int32(1 + g.r.Intn(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{g.nodeSelectorReq()}}})
	}
	keys := []string{corev1.LabelHostname, corev1.LabelTopologyZone, v1.CapacityTypeLabelKey}
	if g.chance(g.p.PAnti) {
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
		term := corev1.PodAffinityTerm{LabelSelector: g.selector(app), TopologyKey: lo.Ternary(g.chance(0.8), corev1.LabelHostname, corev1.LabelTopologyZone)}
		if g.chance(0.7) {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.Intn(100)), PodAffinityTerm: term}}
		}
	}
	if g.chance(g.p.PAffinity) {
		aff.PodAffinity = &corev1.PodAffinity{}
		target := g.selector(app)
		if gi > 0 && g.chance(0.4) {
			target = &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app-%d", g.r.Intn(gi))}}
		}
		term := corev1.PodAffinityTerm{LabelSelector: target, TopologyKey: g.pick(keys)}
		if g.chance(0.5) {
			aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.Intn(100)), PodAffinityTerm: term}}
		}
	}
	if aff.NodeAffinity != nil || aff.PodAffinity != nil || aff.PodAntiAffinity != nil {
		spec.Affinity = aff
	}
	if g.chance(g.p.PSpread) {
		for k := 0; k < 1+lo.Ternary(g.chance(0.25), 1, 0); k++ {
			tsc := corev1.TopologySpreadConstraint{MaxSkew: int32(1 + g.r.Intn(3)), TopologyKey: g.pick(keys),
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: g.selector(app)}
			if k > 0 && tsc.TopologyKey == spec.TopologySpreadConstraints[0].TopologyKey {
				continue
			}
			if g.chance(0.25) {
				tsc.WhenUnsatisfiable = corev1.ScheduleAnyway
			}
			if tsc.WhenUnsatisfiable == corev1.DoNotSchedule && g.chance(0.25) {
				if tsc.TopologyKey == corev1.LabelHostname {
					tsc.MinDomains = lo.ToPtr(int32(2 + g.r.Intn(4)))
				} else {
					tsc.MinDomains = lo.ToPtr(int32(2 + g.r.Intn(3)))
				}
			}
			spec.TopologySpreadConstraints = append(spec.TopologySpreadConstraints, tsc)
		}
	}
	for _, np := range pools {
		for _, t := range np.Spec.Template.Spec.Taints {
			if g.chance(0.5) {
				spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			}
		}
	}
	if g.chance(0.04) {
		spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
	}
	var pods []*corev1.Pod
	for k := 0; k < replicas; k++ {
		*uid++
		p := tmpl.DeepCopy()
		p.Name = fmt.Sprintf("%s-%d", app, k)
		g.identity(&p.ObjectMeta, *uid)
		pods = append(pods, p)
	}
	return pods
}

// identity sets or leaves out a pod's UID and creation timestamp by the
// cluster's drawn mode. UIDs, when present, are not in name order, so UID
// order and namespace/name order differ.
func (g *vgen) identity(m *metav1.ObjectMeta, i int) {
	m.UID = ""
	if g.p.UIDs == "all" || (g.p.UIDs == "some" && g.chance(0.5)) {
		m.UID = types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012d", g.r.Uint32(), i))
	}
	m.CreationTimestamp = metav1.Time{}
	if g.p.Timestamps == "all" || (g.p.Timestamps == "some" && g.chance(0.5)) {
		t := g.created
		if g.p.TimeShape == "spread" {
			t = t.Add(time.Duration(g.r.Intn(3600)) * time.Second)
		}
		m.CreationTimestamp = metav1.NewTime(t)
	}
}

func (g *vgen) existingNodes(cat *catalog.Catalog, uid *int) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var bound []*corev1.Pod
	for i := 0; i < g.p.Nodes; i++ {
		it := cat.InstanceTypes[g.r.Intn(len(cat.InstanceTypes))]
		name := fmt.Sprintf("node-%d", i)
		labels := lo.Assign(map[string]string{}, it.Labels, map[string]string{
			corev1.LabelInstanceTypeStable: it.Name, corev1.LabelTopologyZone: g.pick(Zones), corev1.LabelHostname: name,
			v1.CapacityTypeLabelKey: g.pick([]string{"on-demand", "spot"}),
		})
		alloc := corev1.ResourceList{}
		for k, v := range it.Capacity {
			alloc[corev1.ResourceName(k)] = q(v)
		}
		alloc[corev1.ResourceCPU] = *resourceSub(alloc[corev1.ResourceCPU], "100m")
		alloc[corev1.ResourceMemory] = *resourceSub(alloc[corev1.ResourceMemory], "512Mi")
		node := &corev1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: CreationTime},
			Spec:       corev1.NodeSpec{ProviderID: "test://" + name},
			Status: corev1.NodeStatus{Capacity: alloc.DeepCopy(), Allocatable: alloc,
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
		if g.chance(0.15) {
			node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "legacy", Effect: corev1.TaintEffectNoSchedule}}
		}
		nodes = append(nodes, node)
		for k := 0; k < g.r.Intn(4); k++ {
			*uid++
			labels := map[string]string{"app": fmt.Sprintf("app-%d", g.r.Intn(g.p.Groups))}
			if g.chance(0.6) {
				labels["tier"] = g.pick(sharedTier)
			}
			p := PendingPod(fmt.Sprintf("running-%d-%d", i, k), UID('e', *uid), labels, g.requests(false))
			p.Spec.NodeName = name
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}
			bound = append(bound, p)
		}
	}
	return nodes, bound
}

// inFlight draws NodeClaims that a NodePool launched and whose Node has not
// registered yet: labelled as Karpenter labels them (NodePool, instance type,
// zone, capacity type, the type's labels, the NodePool's template labels),
// with the type's capacity and allocatable in their status.
func (g *vgen) inFlight(cat *catalog.Catalog, pools []*v1.NodePool) []*v1.NodeClaim {
	var out []*v1.NodeClaim
	for i := 0; i < g.p.InFlight; i++ {
		np := pools[g.r.Intn(len(pools))]
		it := cat.InstanceTypes[g.r.Intn(len(cat.InstanceTypes))]
		off := it.Offerings[g.r.Intn(len(it.Offerings))]
		name := fmt.Sprintf("%s-inflight-%d", np.Name, i)
		labels := lo.Assign(map[string]string{}, it.Labels, np.Spec.Template.Labels, map[string]string{
			v1.NodePoolLabelKey: np.Name, corev1.LabelInstanceTypeStable: it.Name,
			corev1.LabelTopologyZone: off.Zone, v1.CapacityTypeLabelKey: off.CapacityType,
		})
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				if _, ok := labels[r.Key]; !ok {
					labels[r.Key] = r.Values[0]
				}
			}
		}
		reqs := []v1.NodeSelectorRequirementWithMinValues{}
		for _, k := range lo.Keys(labels) {
			reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{labels[k]}})
		}
		sort.Slice(reqs, func(a, b int) bool { return reqs[a].Key < reqs[b].Key })
		capacity, alloc := corev1.ResourceList{}, corev1.ResourceList{}
		for k, v := range it.Capacity {
			capacity[corev1.ResourceName(k)] = q(v)
			alloc[corev1.ResourceName(k)] = q(v)
		}
		if it.Overhead != nil {
			for _, m := range []map[string]string{it.Overhead.KubeReserved, it.Overhead.SystemReserved, it.Overhead.EvictionThreshold} {
				for k, v := range m {
					a := alloc[corev1.ResourceName(k)]
					a.Sub(resource.MustParse(v))
					alloc[corev1.ResourceName(k)] = a
				}
			}
		}
		nc := &v1.NodeClaim{
			TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("nodeclaim-" + name), CreationTimestamp: CreationTime,
				Annotations: map[string]string{v1.NodePoolHashAnnotationKey: np.Hash(), v1.NodePoolHashVersionAnnotationKey: v1.NodePoolHashVersion}},
			Spec:   v1.NodeClaimSpec{Requirements: reqs, Taints: np.Spec.Template.Spec.Taints, NodeClassRef: np.Spec.Template.Spec.NodeClassRef},
			Status: v1.NodeClaimStatus{ProviderID: "test://" + name, Capacity: capacity, Allocatable: alloc},
		}
		out = append(out, nc)
	}
	return out
}

// Varied returns the varied cluster of a seed. Same seed, same cluster.
func Varied(seed int64) *Workload {
	g := &vgen{rgen: rgen{r: rand.New(rand.NewSource(seed)), cfg: DefaultRandomConfig}, //nolint:gosec
		created: CreationTime.Time}
	g.p = g.drawParams()
	cat := g.catalog()
	g.cat = cat
	// Pod groups first (sizes and requests), so NodePool limits can be
	// sized against the pending demand.
	type shape struct {
		replicas int
		req      corev1.ResourceList
	}
	shapes := make([]shape, g.p.Groups)
	pendingCPU := 0.0
	for i := range shapes {
		shapes[i] = shape{replicas: 1 + g.r.Intn(g.p.MaxReplicas), req: g.requests(g.chance(0.3))}
		c := shapes[i].req[corev1.ResourceCPU]
		pendingCPU += float64(shapes[i].replicas) * c.AsApproximateFloat64()
	}
	var pools []*v1.NodePool
	for i := 0; i < g.p.Pools; i++ {
		pools = append(pools, g.nodePool(i, pendingCPU))
	}
	uid := 0
	nodes, bound := g.existingNodes(cat, &uid)
	claims := g.inFlight(cat, pools)
	var pods []*corev1.Pod
	for gi, s := range shapes {
		pods = append(pods, g.group(gi, &uid, pools, s.replicas, s.req)...)
	}
	// Pods in the input in an order unrelated to their names.
	g.r.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	g.cfg.MaxDaemonSets = g.p.DaemonSets
	w := &Workload{
		Name:       fmt.Sprintf("varied-%d", seed),
		NodePools:  pools,
		NodeClaims: claims,
		Pods:       append(bound, pods...),
		Nodes:      nodes,
		DaemonSets: g.daemonSets(),
		Catalog:    cat,
	}
	if g.chance(0.15) {
		w.Options.PreferencePolicy = "Ignore"
	}
	if g.chance(0.15) {
		w.Options.MinValuesPolicy = "BestEffort"
	}
	if g.chance(0.15) {
		w.Options.MaxInstanceTypes = 2 + g.r.Intn(20)
	}
	return w
}
