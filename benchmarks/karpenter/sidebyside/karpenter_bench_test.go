package sidebyside

import (
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
)

// BenchmarkKarpenter times Karpenter's Solve as its own benchmark does: the
// scheduler is built before the timer starts and Solve is called b.N times on
// the same instance (for the large workloads b.N is 1, i.e. one fresh solve).
// Any unschedulable pod fails the benchmark, as upstream.
func BenchmarkKarpenter(b *testing.B) {
	for _, c := range BenchCases() {
		b.Run(c.Name, func(b *testing.B) {
			w := c.Make()
			p, err := kadapter.Prepare(w)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
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
			elapsed := time.Since(start)
			b.ReportMetric(float64(len(p.Pending))/(elapsed.Seconds()/float64(b.N)), "pods/s")
			b.ReportMetric(float64(nodes), "nodeclaims")
		})
	}
}
