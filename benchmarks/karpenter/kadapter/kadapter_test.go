package kadapter_test

import (
	"path/filepath"
	"testing"

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
