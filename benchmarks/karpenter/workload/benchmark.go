package workload

import (
	"fmt"
	"math/rand"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// The shapes below follow Karpenter's scheduling benchmark
// (pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go):
// one NodePool without requirements and with huge limits, the fake provider's
// 400 generated instance types, and pods drawn from a PRNG seeded 42.
// Differences, all deliberate so that the input can be written to files and
// read identically by nodeplan: names and UIDs are deterministic (upstream
// uses random names and random UIDs), each workload owns its PRNG (upstream
// shares one across all benchmarks of the process), and the test helpers'
// discovery label `testing/cluster` is not added.

// BenchmarkSeed is the seed of Karpenter's benchmark PRNG.
const BenchmarkSeed = 42

// FakeWellKnownLabels are the label keys that importing Karpenter's fake
// cloud provider registers as well-known (pkg/cloudprovider/fake).
var FakeWellKnownLabels = []string{fake.LabelInstanceSize, fake.ExoticInstanceLabelKey, fake.IntegerInstanceLabelKey, "karpenter.test.sh/reservation-id"}

// BenchmarkCatalog is fake.InstanceTypes(400) in nodeplan's catalog format.
func BenchmarkCatalog() *catalog.Catalog {
	c := catalog.FromKarpenter(fake.InstanceTypes(400), FakeWellKnownLabels)
	c.Source = "Karpenter fake.InstanceTypes(400), sigs.k8s.io/karpenter pkg/cloudprovider/fake"
	return c
}

// BenchmarkNodePool is the benchmark's NodePool.
func BenchmarkNodePool() *v1.NodePool {
	return NodePool("default", v1.NodePoolSpec{
		Limits: v1.Limits{corev1.ResourceCPU: q("10000000"), corev1.ResourceMemory: q("10000000Gi")},
	})
}

type benchGen struct {
	r *rand.Rand
	n int
}

func (g *benchGen) labelValue() string {
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	return values[g.r.Intn(len(values))]
}

func (g *benchGen) requests() corev1.ResourceList {
	// Upstream draws CPU first, then memory, within the resource list literal.
	cpus := []int{100, 250, 500, 1000, 1500}
	mems := []int{100, 256, 512, 1024, 2048, 4096}
	cpu := q(fmt.Sprintf("%dm", cpus[g.r.Intn(len(cpus))]))
	mem := q(fmt.Sprintf("%dMi", mems[g.r.Intn(len(mems))]))
	return corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}
}

func (g *benchGen) pod(prefix string, labels map[string]string) *corev1.Pod {
	g.n++
	return PendingPod(fmt.Sprintf("%s-%05d", prefix, g.n), UID('b', g.n), labels, nil)
}

func (g *benchGen) generic(count int) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := 0; i < count; i++ {
		p := g.pod("generic", map[string]string{"my-label": g.labelValue()})
		p.Spec.Containers[0].Resources.Requests = g.requests()
		pods = append(pods, p)
	}
	return pods
}

func (g *benchGen) spread(count int, key, prefix string) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := 0; i < count; i++ {
		p := g.pod(prefix, map[string]string{"my-label": g.labelValue()})
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"my-label": g.labelValue()}},
		}}
		p.Spec.Containers[0].Resources.Requests = g.requests()
		pods = append(pods, p)
	}
	return pods
}

func (g *benchGen) affinity(count int, key string) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := 0; i < count; i++ {
		labels := map[string]string{"my-affininity": g.labelValue()}
		p := g.pod("affinity", labels)
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"my-affininity": labels["my-affininity"]}},
				TopologyKey:   key,
			}},
		}}
		p.Spec.Containers[0].Resources.Requests = g.requests()
		pods = append(pods, p)
	}
	return pods
}

func (g *benchGen) antiAffinity(count int, key string) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := 0; i < count; i++ {
		p := g.pod("anti", map[string]string{"app": "nginx"})
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
				TopologyKey:   key,
			}},
		}}
		p.Spec.Containers[0].Resources.Requests = g.requests()
		pods = append(pods, p)
	}
	return pods
}

// Diverse is makeDiversePods(count): five equal groups (generic, zone spread,
// hostname spread, zonal self-affinity, hostname anti-affinity), the remainder
// generic.
func Diverse(count int, seed int64) *Workload {
	g := &benchGen{r: rand.New(rand.NewSource(seed))} //nolint:gosec
	per := count / 5
	var pods []*corev1.Pod
	pods = append(pods, g.generic(per)...)
	pods = append(pods, g.spread(per, corev1.LabelTopologyZone, "zone-spread")...)
	pods = append(pods, g.spread(per, corev1.LabelHostname, "host-spread")...)
	pods = append(pods, g.affinity(per, corev1.LabelTopologyZone)...)
	pods = append(pods, g.antiAffinity(per, corev1.LabelHostname)...)
	pods = append(pods, g.generic(count-len(pods))...)
	return &Workload{
		Name:      fmt.Sprintf("diverse-%d", count),
		NodePools: []*v1.NodePool{BenchmarkNodePool()},
		Pods:      pods,
		Catalog:   BenchmarkCatalog(),
	}
}

// Preference is makePreferencePods(count): every pod labelled app=nginx,
// preferring test-zone-1, with preferred anti-affinity of weight 10 on zone
// (soon unsatisfiable) and weight 1 on hostname. Upstream draws one request
// for the whole batch (test.Pods copies the options); so does this.
func Preference(count int, seed int64, policy string) *Workload {
	g := &benchGen{r: rand.New(rand.NewSource(seed))} //nolint:gosec
	req := g.requests()
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}
	var pods []*corev1.Pod
	for i := 0; i < count; i++ {
		p := g.pod("pref", map[string]string{"app": "nginx"})
		p.Spec.Containers[0].Resources.Requests = req.DeepCopy()
		p.Spec.Affinity = &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 1,
				Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"},
				}}},
			}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
				{Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: sel.DeepCopy(), TopologyKey: corev1.LabelTopologyZone}},
				{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: sel.DeepCopy(), TopologyKey: corev1.LabelHostname}},
			}},
		}
		pods = append(pods, p)
	}
	return &Workload{
		Name:      fmt.Sprintf("preference-%s-%d", policy, count),
		NodePools: []*v1.NodePool{BenchmarkNodePool()},
		Pods:      pods,
		Catalog:   BenchmarkCatalog(),
		Options:   Options{PreferencePolicy: policy},
	}
}
