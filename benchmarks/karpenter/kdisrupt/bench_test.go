package kdisrupt_test

import (
	"fmt"
	"testing"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kdisrupt"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// BenchmarkKarpenterPass times Karpenter's disruption pass alone on the
// benchmark clusters (no nodeplan build needed); the side-by-side figures
// come from nodeplanside's BenchmarkDisruptSideBySide.
func BenchmarkKarpenterPass(b *testing.B) {
	for _, nodes := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := workload.ScaleDisruption(nodes, 30)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				env, err := kdisrupt.Build(c)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				idx, cmds, err := env.Pass()
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 && idx >= 0 {
					b.Logf("%s: %d commands, %d candidates", kdisrupt.MethodNames[idx], len(cmds), len(cmds[0].Candidates))
				}
			}
		})
	}
}
