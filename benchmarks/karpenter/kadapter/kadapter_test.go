package kadapter_test

import (
	"path/filepath"
	"testing"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Karpenter schedules every pod of its own benchmark shapes; the workload
// survives a trip through files unchanged in outcome.
func TestBenchmarkShapesScheduleFully(t *testing.T) {
	for _, w := range []*workload.Workload{
		workload.Diverse(100, workload.BenchmarkSeed),
		workload.Preference(200, workload.BenchmarkSeed, "Respect"),
		workload.Preference(200, workload.BenchmarkSeed, "Ignore"),
	} {
		t.Run(w.Name, func(t *testing.T) {
			resp, err := kadapter.Schedule(w)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Unschedulable) != 0 {
				t.Fatalf("%d unschedulable, first: %+v", len(resp.Unschedulable), resp.Unschedulable[0])
			}
			placed := 0
			for _, nc := range resp.NewNodeClaims {
				placed += len(nc.Pods)
				if nc.Launch == nil || len(nc.InstanceTypes) == 0 {
					t.Fatalf("NodeClaim %s has no launch/options", nc.Name)
				}
			}
			if placed != len(w.Pods) {
				t.Fatalf("placed %d of %d pods", placed, len(w.Pods))
			}
			dir := filepath.Join(t.TempDir(), w.Name)
			if err := w.Write(dir); err != nil {
				t.Fatal(err)
			}
			back, err := workload.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			resp2, err := kadapter.Schedule(back)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp2.NewNodeClaims) != len(resp.NewNodeClaims) || len(resp2.Unschedulable) != 0 {
				t.Fatalf("from files: %d NodeClaims, %d unschedulable; in memory %d NodeClaims",
					len(resp2.NewNodeClaims), len(resp2.Unschedulable), len(resp.NewNodeClaims))
			}
			t.Logf("%s: %d NodeClaims, cost %.3f", w.Name, len(resp.NewNodeClaims), resp.Cost)
		})
	}
}

// The hash probe opens exactly one NodeClaim carrying NodePool.Hash().
func TestHashProbe(t *testing.T) {
	for seed := int64(1); seed <= 100; seed++ {
		w := workload.HashWorkload(seed)
		resp, err := kadapter.Schedule(w)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.NewNodeClaims) != 1 || resp.NewNodeClaims[0].Annotations["karpenter.sh/nodepool-hash"] != w.NodePools[0].Hash() {
			t.Fatalf("seed %d: %+v %+v", seed, resp.NewNodeClaims, resp.Unschedulable)
		}
	}
}

// A launch names a reservation only when its offering has one: the random
// clusters have no reserved offerings, so no launch carries a reservation ID,
// while a reserved offering's launch carries its own.
func TestLaunchReservationIDOnlyForReservedOfferings(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		resp, err := kadapter.Schedule(workload.Random(seed, workload.DefaultRandomConfig))
		if err != nil {
			t.Fatal(err)
		}
		for _, nc := range resp.NewNodeClaims {
			if nc.Launch != nil && nc.Launch.ReservationID != "" {
				t.Fatalf("seed %d: %s launches into reservation %q of an offering without one", seed, nc.Name, nc.Launch.ReservationID)
			}
		}
	}
	w := workload.Random(1, workload.DefaultRandomConfig)
	w.Pods = lo.Filter(w.Pods, func(p *corev1.Pod, _ int) bool { return p.Spec.NodeName == "" })[:1]
	w.Pods[0].Spec = corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "x"}}}
	w.Nodes, w.DaemonSets = nil, nil
	w.Options = workload.Options{}
	w.NodePools = w.NodePools[:1]
	w.NodePools[0].Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeReserved}}}
	w.NodePools[0].Spec.Template.Spec.Taints = nil
	w.NodePools[0].Spec.Limits = nil
	it := w.Catalog.InstanceTypes[0]
	it.Offerings = []catalog.Offering{{Zone: workload.Zones[0], CapacityType: karpv1.CapacityTypeReserved, Price: 0.001, ReservationID: "r-1", ReservationCapacity: 3}}
	w.Catalog.InstanceTypes = []catalog.InstanceType{it}
	resp, err := kadapter.Schedule(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.NewNodeClaims) != 1 || resp.NewNodeClaims[0].Launch == nil || resp.NewNodeClaims[0].Launch.ReservationID != "r-1" {
		t.Fatalf("want one launch into r-1, got %+v %+v", resp.NewNodeClaims, resp.Unschedulable)
	}
}

// A pod without metadata.uid gets "<namespace>/<name>" (default namespace
// when empty); a pod with one keeps it.
func TestPodIdentity(t *testing.T) {
	for _, c := range []struct {
		ns, name, uid, want string
	}{
		{"", "a", "", "default/a"},
		{"team", "a", "", "team/a"},
		{"team", "a", "u-1", "u-1"},
	} {
		p := &corev1.Pod{}
		p.Namespace, p.Name, p.UID = c.ns, c.name, types.UID(c.uid)
		if got := kadapter.PodIdentity(p); string(got) != c.want {
			t.Errorf("%+v: got %q", c, got)
		}
	}
}
