package sidebyside

import (
	"testing"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
)

// BenchmarkKarpenter times Karpenter's Solve as its own benchmark does: the
// scheduler is built before the timer starts and Solve is called b.N times on
// the same instance (run with -benchtime=1x for one fresh solve per
// workload). Any unschedulable pod fails the benchmark, as upstream.
// Reported: pods/s (wall) and pods/cpu-s (process CPU time, all threads).
func BenchmarkKarpenter(b *testing.B) {
	for _, c := range BenchCases() {
		b.Run(c.Name, func(b *testing.B) {
			p, err := kadapter.Prepare(c.Make())
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			t := Start()
			nodes := 0
			for i := 0; i < b.N; i++ {
				res, err := p.Solve()
				if err != nil {
					b.Fatal(err)
				}
				if len(res.PodErrors) > 0 {
					b.Fatalf("%d pods did not schedule", len(res.PodErrors))
				}
				if i == 0 {
					nodes = len(res.NewNodeClaims)
				}
			}
			wall, cpu := t.Stop()
			perSec, perCPU := Rates(len(p.Pending), b.N, wall, cpu)
			b.ReportMetric(perSec, "pods/s")
			b.ReportMetric(perCPU, "pods/cpu-s")
			b.ReportMetric(float64(nodes), "nodeclaims")
		})
	}
}
