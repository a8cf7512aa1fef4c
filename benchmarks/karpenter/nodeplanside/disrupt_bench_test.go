package nodeplanside_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kdisrupt"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/nodeplanside"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/sidebyside"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// disruptBenchSizes: DISRUPT_BENCH_NODES="1000,5000" overrides.
func disruptBenchSizes() []int {
	s := os.Getenv("DISRUPT_BENCH_NODES")
	if s == "" {
		return []int{100, 1000, 5000}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// BenchmarkDisruptSideBySide times one disruption pass on the same cluster
// (workload.ScaleDisruption: N nodes, 30 pods each, a fifth underutilized):
// Karpenter's five methods in order (candidates, budgets, ComputeCommands
// with validation, as kdisrupt.Env.Pass runs them) on a freshly built
// environment, and nodeplan's Disrupt through the Go binding (marshal, C
// ABI, unmarshal; the response also carries budgets, candidacy, conditions
// and events, which Karpenter's pass does not compute). Building Karpenter's
// environment (fake client, cluster state, the NodeClaim controllers) is
// outside the timing. nodeplan's call repeats for half a second; its mean
// is used.
func BenchmarkDisruptSideBySide(b *testing.B) {
	for _, nodes := range disruptBenchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := workload.ScaleDisruption(nodes, 30)
			req, err := nodeplanside.DisruptRequest(c)
			if err != nil {
				b.Fatal(err)
			}
			var kWall, kCPU, nWall, nCPU time.Duration
			nCalls := 0
			kMethod, nMethod, kCands, nCands := "", "", 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				env, err := kdisrupt.Build(c)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.StartTimer()
				t := sidebyside.Start()
				idx, cmds, err := env.Pass()
				wall, cpu := t.Stop()
				if err != nil {
					b.Fatal(err)
				}
				kWall, kCPU = kWall+wall, kCPU+cpu
				kMethod, kCands = "none", 0
				if idx >= 0 {
					kMethod = kdisrupt.MethodNames[idx]
					for _, cmd := range cmds {
						kCands += len(cmd.Candidates)
					}
				}
				b.StopTimer()
				env = nil
				runtime.GC()
				b.StartTimer()
				t = sidebyside.Start()
				deadline := time.Now().Add(500 * time.Millisecond)
				for k := 0; k == 0 || (k < 1000 && time.Now().Before(deadline)); k++ {
					resp, err := nodeplan.Disrupt(req)
					if err != nil {
						b.Fatalf("nodeplan: %v", err)
					}
					nCalls++
					nMethod, nCands = resp.GetMethod(), 0
					for _, cmd := range resp.GetCommands() {
						nCands += len(cmd.GetCandidates())
					}
				}
				wall, cpu = t.Stop()
				nWall, nCPU = nWall+wall, nCPU+cpu
			}
			kw, kc := kWall.Seconds()/float64(b.N), kCPU.Seconds()/float64(b.N)
			nw, nc := nWall.Seconds()/float64(nCalls), nCPU.Seconds()/float64(nCalls)
			b.ReportMetric(kw, "karpenter-s")
			b.ReportMetric(kc, "karpenter-cpu-s")
			b.ReportMetric(nw*1e3, "nodeplan-ms")
			b.ReportMetric(nc*1e3, "nodeplan-cpu-ms")
			b.ReportMetric(kw/nw, "wall-speedup")
			if nc > 0 {
				b.ReportMetric(kc/nc, "cpu-speedup")
			}
			b.ReportMetric(float64(kCands), "karpenter-candidates")
			b.ReportMetric(float64(nCands), "nodeplan-candidates")
			b.Logf("%d nodes: Karpenter %s (%d nodes), nodeplan %s (%d nodes)", nodes, kMethod, kCands, nMethod, nCands)
		})
	}
}
