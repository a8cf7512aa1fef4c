package workload

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// HashWorkload returns a random NodePool template (labels, annotations,
// taints, startup taints, node class reference, expireAfter,
// terminationGracePeriod, requirements, and NodePool fields outside the
// template) with a one-type catalog and one pod that tolerates everything, so
// that scheduling it opens exactly one NodeClaim from that NodePool, whose
// karpenter.sh/nodepool-hash annotation must equal NodePool.Hash().
func HashWorkload(seed int64) *Workload {
	r := rand.New(rand.NewSource(seed)) //nolint:gosec
	chance := func(p float64) bool { return r.Float64() < p }
	word := func() string {
		return []string{"a", "b", "blue", "green", "x-1", "team.example", "0", "true", ""}[r.Intn(9)]
	}
	key := func() string {
		return []string{"team", "example.com/team", "app.kubernetes.io/part-of", "tier", "k", "a.b.c/d-e_f"}[r.Intn(6)]
	}
	spec := v1.NodePoolSpec{}
	t := &spec.Template
	if chance(0.7) {
		t.Labels = map[string]string{}
		for i := 0; i < 1+r.Intn(3); i++ {
			v := word()
			if v == "" {
				v = "v"
			}
			t.Labels[key()] = v
		}
	}
	if chance(0.5) {
		t.Annotations = map[string]string{}
		for i := 0; i < 1+r.Intn(3); i++ {
			t.Annotations[key()] = word()
		}
	}
	taint := func() corev1.Taint {
		return corev1.Taint{Key: key(), Value: word(), Effect: []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute, corev1.TaintEffectPreferNoSchedule}[r.Intn(3)]}
	}
	for i := 0; i < r.Intn(3); i++ {
		t.Spec.Taints = append(t.Spec.Taints, taint())
	}
	for i := 0; i < r.Intn(3); i++ {
		t.Spec.StartupTaints = append(t.Spec.StartupTaints, taint())
	}
	t.Spec.NodeClassRef = &v1.NodeClassReference{
		Group: []string{"karpenter.test.sh", "karpenter.k8s.aws"}[r.Intn(2)],
		Kind:  []string{"TestNodeClass", "EC2NodeClass"}[r.Intn(2)],
		Name:  []string{"default", "gpu", "al2023"}[r.Intn(3)],
	}
	durations := []string{"30s", "1h", "336h", "720h0m0s", "90m", "24h"}
	if chance(0.5) {
		d := lo.Must(time.ParseDuration(durations[r.Intn(len(durations))]))
		t.Spec.TerminationGracePeriod = &metav1.Duration{Duration: d}
	}
	switch r.Intn(3) {
	case 0:
		t.Spec.ExpireAfter = v1.MustParseNillableDuration("Never")
	case 1:
		t.Spec.ExpireAfter = v1.MustParseNillableDuration(durations[r.Intn(len(durations))])
	}
	// Requirements are not part of the hash; vary them anyway.
	t.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{}
	if chance(0.5) {
		t.Spec.Requirements = append(t.Spec.Requirements, v1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: Zones})
	}
	if chance(0.5) {
		spec.Weight = lo.ToPtr(int32(1 + r.Intn(100)))
	}
	if chance(0.5) {
		spec.Limits = v1.Limits{corev1.ResourceCPU: q(fmt.Sprint(100 + r.Intn(1000)))}
	}
	if chance(0.3) {
		spec.Disruption.ConsolidateAfter = v1.MustParseNillableDuration("30s")
		spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	np := NodePool(fmt.Sprintf("hash-%d", seed), spec)
	cat := &catalog.Catalog{APIVersion: "nodeplan.io/v1", Kind: "Catalog", WellKnownLabels: FakeWellKnownLabels,
		InstanceTypes: []catalog.InstanceType{{
			Name:     "m5.large",
			Labels:   map[string]string{corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"},
			Capacity: map[string]string{"cpu": "2", "memory": "8Gi", "pods": "29"},
			Offerings: []catalog.Offering{
				{Zone: Zones[0], CapacityType: "on-demand", Price: 0.096},
				{Zone: Zones[1], CapacityType: "on-demand", Price: 0.097},
				{Zone: Zones[2], CapacityType: "on-demand", Price: 0.098},
			},
		}}}
	pod := PendingPod("hash-probe", UID('h', int(seed)), map[string]string{"app": "probe"},
		corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("64Mi")})
	pod.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	return &Workload{Name: fmt.Sprintf("hash-%d", seed), NodePools: []*v1.NodePool{np}, Pods: []*corev1.Pod{pod}, Catalog: cat}
}
