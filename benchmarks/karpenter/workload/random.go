package workload

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/samber/lo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// Label keys the random catalogs declare as well-known (as a provider would),
// so pods may constrain them without a NodePool mentioning them.
const (
	LabelFamily = "nodeplan.test/instance-family"
	LabelCPU    = "nodeplan.test/instance-cpu"
	// A custom label only NodePools define (via template labels or
	// requirements); pods must not depend on it unless a NodePool does.
	LabelTeam = "example.com/team"
)

// Zones of the random catalogs.
var Zones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

var families = []string{"c", "m", "r", "g"}

// RandomConfig bounds a random cluster's size.
type RandomConfig struct {
	MaxInstanceTypes int // catalog size upper bound
	MaxNodePools     int
	MaxGroups        int // pod groups (deployments) per cluster
	MaxReplicas      int // pods per group
	MaxNodes         int // existing (unmanaged) nodes
	MaxDaemonSets    int
}

// DefaultRandomConfig gives small clusters: a few NodePools, up to ~60 pods.
var DefaultRandomConfig = RandomConfig{MaxInstanceTypes: 14, MaxNodePools: 3, MaxGroups: 6, MaxReplicas: 10, MaxNodes: 3, MaxDaemonSets: 2}

type rgen struct {
	r   *rand.Rand
	cfg RandomConfig
}

func (g *rgen) chance(p float64) bool   { return g.r.Float64() < p }
func (g *rgen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }
func (g *rgen) subset(xs []string, min int) []string {
	out := []string{}
	for _, x := range xs {
		if g.chance(0.5) {
			out = append(out, x)
		}
	}
	for len(out) < min {
		x := g.pick(xs)
		if !lo.Contains(out, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// randomCatalog: types named <family><gen>.<size>, with distinct, untied
// prices (ties make Karpenter's unstable price sort nondeterministic).
func (g *rgen) catalog() *catalog.Catalog {
	c := &catalog.Catalog{APIVersion: "nodeplan.io/v1", Kind: "Catalog",
		WellKnownLabels: append([]string{LabelFamily, LabelCPU}, FakeWellKnownLabels...),
		Source:          "random"}
	n := 4 + g.r.Intn(g.cfg.MaxInstanceTypes-3)
	seen := map[string]bool{}
	for len(c.InstanceTypes) < n {
		fam := g.pick(families)
		cpu := []int{1, 2, 4, 8, 16}[g.r.Intn(5)]
		gen := 5 + g.r.Intn(3)
		name := fmt.Sprintf("%s%d.%dx", fam, gen, cpu)
		if seen[name] {
			continue
		}
		seen[name] = true
		memPerCPU := map[string]int{"c": 2, "m": 4, "r": 8, "g": 4}[fam]
		arch := "amd64"
		if g.chance(0.3) {
			arch = "arm64"
		}
		pods := 8 + 4*cpu
		if g.chance(0.1) {
			pods = 3
		}
		it := catalog.InstanceType{
			Name: name,
			Labels: map[string]string{
				corev1.LabelArchStable: arch, corev1.LabelOSStable: "linux",
				LabelFamily: fam, LabelCPU: fmt.Sprint(cpu),
			},
			Capacity: map[string]string{
				"cpu": fmt.Sprint(cpu), "memory": fmt.Sprintf("%dGi", cpu*memPerCPU), "pods": fmt.Sprint(pods),
			},
			Overhead: &catalog.Overhead{
				KubeReserved:      map[string]string{"cpu": "100m", "memory": fmt.Sprintf("%dMi", 200+20*cpu)},
				EvictionThreshold: map[string]string{"memory": "100Mi"},
			},
		}
		if fam == "g" {
			it.Capacity["nvidia.com/gpu"] = fmt.Sprint(1 + cpu/8)
		}
		base := (0.02*float64(cpu) + 0.006*float64(cpu*memPerCPU)) * (1 + 0.05*float64(7-gen))
		if fam == "g" {
			base += 0.5
		}
		if arch == "arm64" {
			base *= 0.85
		}
		for _, z := range Zones {
			for _, ct := range []string{"on-demand", "spot"} {
				if g.chance(0.15) {
					continue
				}
				price := base * (0.9 + 0.2*g.r.Float64())
				if ct == "spot" {
					price *= 0.3 + 0.3*g.r.Float64()
				}
				o := catalog.Offering{Zone: z, CapacityType: ct, Price: math.Round(price*1e6) / 1e6}
				if g.chance(0.07) {
					o.Available = lo.ToPtr(false)
				}
				it.Offerings = append(it.Offerings, o)
			}
		}
		if len(it.Offerings) == 0 {
			it.Offerings = append(it.Offerings, catalog.Offering{Zone: Zones[0], CapacityType: "on-demand", Price: math.Round(base*1e6) / 1e6})
		}
		c.InstanceTypes = append(c.InstanceTypes, it)
	}
	sort.Slice(c.InstanceTypes, func(i, j int) bool { return c.InstanceTypes[i].Name < c.InstanceTypes[j].Name })
	return c
}

func (g *rgen) nodePool(i int) *v1.NodePool {
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
		add(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand", "spot")
	}
	if g.chance(0.4) {
		add(LabelFamily, corev1.NodeSelectorOpIn, g.subset(families, 1)...)
	}
	if g.chance(0.25) {
		add(LabelFamily, corev1.NodeSelectorOpNotIn, "g")
	}
	if g.chance(0.3) {
		add(LabelCPU, corev1.NodeSelectorOpGt, fmt.Sprint([]int{1, 2, 4}[g.r.Intn(3)]))
	}
	if g.chance(0.2) {
		add(LabelCPU, corev1.NodeSelectorOpLt, fmt.Sprint([]int{9, 17}[g.r.Intn(2)]))
	}
	if g.chance(0.3) {
		add(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, g.subset(Zones, 1)...)
	}
	if g.chance(0.3) {
		add(corev1.LabelArchStable, corev1.NodeSelectorOpIn, g.pick([]string{"amd64", "arm64"}))
	}
	if g.chance(0.15) {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpExists, MinValues: lo.ToPtr(2 + g.r.Intn(3))})
	}
	if g.chance(0.3) {
		add(LabelTeam, corev1.NodeSelectorOpIn, g.pick([]string{"blue", "green"}))
	} else if g.chance(0.3) {
		spec.Template.Labels = map[string]string{LabelTeam: g.pick([]string{"blue", "green"})}
	}
	if g.chance(0.3) {
		effect := g.pick([]string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule)})
		spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: name, Effect: corev1.TaintEffect(effect)}}
	}
	spec.Template.Spec.Requirements = reqs
	if g.chance(0.3) {
		spec.Limits = v1.Limits{corev1.ResourceCPU: q(fmt.Sprint(8 + g.r.Intn(40)))}
	}
	return NodePool(name, spec)
}

func (g *rgen) requests() corev1.ResourceList {
	cpu := []string{"50m", "100m", "250m", "500m", "1", "1500m", "2", "3"}[g.r.Intn(8)]
	mem := []string{"64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "6Gi"}[g.r.Intn(8)]
	return corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem)}
}

func (g *rgen) nodeSelectorReq() corev1.NodeSelectorRequirement {
	switch g.r.Intn(7) {
	case 0:
		return corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: g.subset(Zones, 1)}
	case 1:
		return corev1.NodeSelectorRequirement{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{g.pick([]string{"spot", "on-demand"})}}
	case 2:
		return corev1.NodeSelectorRequirement{Key: LabelFamily, Operator: corev1.NodeSelectorOpNotIn, Values: []string{g.pick(families)}}
	case 3:
		return corev1.NodeSelectorRequirement{Key: LabelCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{fmt.Sprint([]int{1, 2, 4, 8}[g.r.Intn(4)])}}
	case 4:
		return corev1.NodeSelectorRequirement{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{g.pick([]string{"amd64", "arm64"})}}
	case 5:
		return corev1.NodeSelectorRequirement{Key: LabelTeam, Operator: g.pick2(corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn), Values: []string{g.pick([]string{"blue", "green"})}}
	default:
		return corev1.NodeSelectorRequirement{Key: LabelFamily, Operator: corev1.NodeSelectorOpIn, Values: g.subset(families, 1)}
	}
}

func (g *rgen) pick2(a, b corev1.NodeSelectorOperator) corev1.NodeSelectorOperator {
	if g.chance(0.5) {
		return a
	}
	return b
}

// group returns the pods of one deployment-like group: identical replicas
// with one random mix of constraints.
func (g *rgen) group(gi int, uidBase *int, pools []*v1.NodePool) []*corev1.Pod {
	app := fmt.Sprintf("app-%d", gi)
	labels := map[string]string{"app": app}
	if g.chance(0.3) {
		labels["tier"] = g.pick([]string{"web", "db"})
	}
	replicas := 1 + g.r.Intn(g.cfg.MaxReplicas)
	req := g.requests()
	tmpl := PendingPod("", "", labels, req)
	spec := &tmpl.Spec
	if g.chance(0.08) {
		req[corev1.ResourceName("nvidia.com/gpu")] = q("1")
		spec.Containers[0].Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": q("1")}
	}
	if g.chance(0.1) {
		spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: g.requests()}}}
	}
	if g.chance(0.25) {
		spec.NodeSelector = map[string]string{}
		r := g.nodeSelectorReq()
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			spec.NodeSelector[r.Key] = r.Values[0]
		} else {
			spec.NodeSelector[corev1.LabelOSStable] = "linux"
		}
	}
	aff := &corev1.Affinity{}
	if g.chance(0.3) {
		terms := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{g.nodeSelectorReq()}}}
		if g.chance(0.3) {
			terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{g.nodeSelectorReq()}})
		}
		aff.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	}
	if g.chance(0.25) {
		if aff.NodeAffinity == nil {
			aff.NodeAffinity = &corev1.NodeAffinity{}
		}
		for k := 0; k < 1+g.r.Intn(2); k++ {
			aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.PreferredSchedulingTerm{Weight: int32(1 + g.r.Intn(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{g.nodeSelectorReq()}}})
		}
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	keys := []string{corev1.LabelHostname, corev1.LabelTopologyZone, v1.CapacityTypeLabelKey}
	if g.chance(0.2) {
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
		term := corev1.PodAffinityTerm{LabelSelector: sel.DeepCopy(), TopologyKey: g.pick(keys[:2])}
		if g.chance(0.5) {
			aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + g.r.Intn(100)), PodAffinityTerm: term}}
		}
	}
	if g.chance(0.12) {
		aff.PodAffinity = &corev1.PodAffinity{}
		target := sel.DeepCopy()
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
	if g.chance(0.3) {
		tsc := corev1.TopologySpreadConstraint{MaxSkew: int32(1 + g.r.Intn(2)), TopologyKey: g.pick(keys),
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel.DeepCopy()}
		if g.chance(0.3) {
			tsc.WhenUnsatisfiable = corev1.ScheduleAnyway
		}
		// The API server allows minDomains only with DoNotSchedule; the draw is kept
		// so that the generator's stream (and every later cluster) is unchanged.
		if tsc.TopologyKey == corev1.LabelTopologyZone && g.chance(0.2) && tsc.WhenUnsatisfiable == corev1.DoNotSchedule {
			tsc.MinDomains = lo.ToPtr(int32(3))
		}
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{tsc}
	}
	for _, np := range pools {
		for _, t := range np.Spec.Template.Spec.Taints {
			if g.chance(0.5) {
				spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			}
		}
	}
	if g.chance(0.05) {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
	}
	if g.chance(0.07) {
		spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
	}
	var pods []*corev1.Pod
	for k := 0; k < replicas; k++ {
		*uidBase++
		p := tmpl.DeepCopy()
		p.Name = fmt.Sprintf("%s-%d", app, k)
		p.UID = UID('r', *uidBase)
		pods = append(pods, p)
	}
	return pods
}

func (g *rgen) existingNodes(cat *catalog.Catalog, uidBase *int) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var bound []*corev1.Pod
	n := g.r.Intn(g.cfg.MaxNodes + 1)
	for i := 0; i < n; i++ {
		it := cat.InstanceTypes[g.r.Intn(len(cat.InstanceTypes))]
		zone := g.pick(Zones)
		name := fmt.Sprintf("node-%d", i)
		labels := lo.Assign(map[string]string{}, it.Labels, map[string]string{
			corev1.LabelInstanceTypeStable: it.Name, corev1.LabelTopologyZone: zone, corev1.LabelHostname: name,
			v1.CapacityTypeLabelKey: "on-demand",
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
		if g.chance(0.2) {
			node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "legacy", Effect: corev1.TaintEffectNoSchedule}}
		}
		nodes = append(nodes, node)
		for k := 0; k < g.r.Intn(3); k++ {
			*uidBase++
			p := PendingPod(fmt.Sprintf("running-%d-%d", i, k), UID('e', *uidBase), map[string]string{"app": fmt.Sprintf("app-%d", g.r.Intn(3))}, g.requests())
			p.Spec.NodeName = name
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}
			bound = append(bound, p)
		}
	}
	return nodes, bound
}

func (g *rgen) daemonSets() []*appsv1.DaemonSet {
	var out []*appsv1.DaemonSet
	for i := 0; i < g.r.Intn(g.cfg.MaxDaemonSets+1); i++ {
		name := fmt.Sprintf("daemon-%d", i)
		labels := map[string]string{"daemon": name}
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "d", Image: "busybox", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q(g.pick([]string{"50m", "100m", "200m"})), corev1.ResourceMemory: q(g.pick([]string{"64Mi", "128Mi", "256Mi"}))},
		}}}}
		if g.chance(0.5) {
			spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		}
		if g.chance(0.3) {
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}}}},
			}}}
		}
		out = append(out, &appsv1.DaemonSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", CreationTimestamp: CreationTime},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
		})
	}
	return out
}

// Random returns a small random cluster: a random catalog, 1..MaxNodePools
// NodePools, pending pod groups mixing node selectors, required and preferred
// node affinity, pod (anti-)affinity, topology spread, taints and
// tolerations, host ports, init containers and extended resources, existing
// unmanaged nodes with bound pods, and DaemonSets. Same seed, same cluster.
func Random(seed int64, cfg RandomConfig) *Workload {
	g := &rgen{r: rand.New(rand.NewSource(seed)), cfg: cfg} //nolint:gosec
	cat := g.catalog()
	var pools []*v1.NodePool
	for i := 0; i < 1+g.r.Intn(cfg.MaxNodePools); i++ {
		pools = append(pools, g.nodePool(i))
	}
	uid := 0
	nodes, bound := g.existingNodes(cat, &uid)
	var pods []*corev1.Pod
	for gi := 0; gi < 1+g.r.Intn(cfg.MaxGroups); gi++ {
		pods = append(pods, g.group(gi, &uid, pools)...)
	}
	w := &Workload{
		Name:       fmt.Sprintf("random-%d", seed),
		NodePools:  pools,
		Pods:       append(bound, pods...),
		Nodes:      nodes,
		DaemonSets: g.daemonSets(),
		Catalog:    cat,
	}
	if g.chance(0.2) {
		w.Options.PreferencePolicy = "Ignore"
	}
	if g.chance(0.2) {
		w.Options.MinValuesPolicy = "BestEffort"
	}
	if g.chance(0.2) {
		w.Options.MaxInstanceTypes = 2 + g.r.Intn(4)
	}
	return w
}
