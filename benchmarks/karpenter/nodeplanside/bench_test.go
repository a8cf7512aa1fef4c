package nodeplanside_test

import (
	"runtime"
	"testing"
	"time"

	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/nodeplanside"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/sidebyside"
)

// BenchmarkSideBySide times, on identical workloads (Karpenter's benchmark
// shapes), Karpenter's Solve on a freshly built scheduler and nodeplan's
// schedule call through the Go binding on the pre-serialized request, and
// reports pods/s for both, pods per CPU-second for both, and the ratios.
// Building Karpenter's scheduler and serializing nodeplan's request are
// outside the timings; nodeplan's call includes everything the library does
// (parse, compile the catalog, decide, render, serialize). nodeplan's call is
// repeated until it has run for half a second, and its mean is used.
func BenchmarkSideBySide(b *testing.B) {
	for _, c := range sidebyside.BenchCases() {
		b.Run(c.Name, func(b *testing.B) {
			w := c.Make()
			req, err := nodeplanside.Request(w)
			if err != nil {
				b.Fatal(err)
			}
			reqBytes, err := nodeplanside.Marshal(req)
			if err != nil {
				b.Fatal(err)
			}
			var kWall, kCPU, nWall, nCPU time.Duration
			nCalls, pods, kClaims, nClaims, nUnsched := 0, 0, 0, 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				p, err := kadapter.Prepare(w)
				if err != nil {
					b.Fatal(err)
				}
				pods = len(p.Pending)
				// Process CPU time also counts the Go garbage collector's
				// background work; start each timed section with a clean heap
				// so neither side pays for the other's garbage.
				runtime.GC()
				b.StartTimer()
				t := sidebyside.Start()
				res, err := p.Solve()
				wall, cpu := t.Stop()
				if err != nil {
					b.Fatal(err)
				}
				if len(res.PodErrors) > 0 {
					b.Fatalf("Karpenter: %d pods did not schedule", len(res.PodErrors))
				}
				kWall, kCPU, kClaims = kWall+wall, kCPU+cpu, len(res.NewNodeClaims)
				b.StopTimer()
				res, p = scheduling.Results{}, nil
				runtime.GC()
				b.StartTimer()
				t = sidebyside.Start()
				deadline := time.Now().Add(500 * time.Millisecond)
				for k := 0; k == 0 || (k < 1000 && time.Now().Before(deadline)); k++ {
					resp, err := nodeplanside.ScheduleBytes(reqBytes)
					if err != nil {
						b.Fatalf("nodeplan: %v", err)
					}
					nCalls++
					nClaims, nUnsched = len(resp.NewNodeClaims), len(resp.Unschedulable)
				}
				wall, cpu = t.Stop()
				nWall, nCPU = nWall+wall, nCPU+cpu
			}
			kRate, kCPURate := sidebyside.Rates(pods, b.N, kWall, kCPU)
			nRate, nCPURate := sidebyside.Rates(pods, nCalls, nWall, nCPU)
			b.ReportMetric(kRate, "karpenter-pods/s")
			b.ReportMetric(nRate, "nodeplan-pods/s")
			b.ReportMetric(nRate/kRate, "speedup")
			if kCPURate > 0 && nCPURate > 0 {
				b.ReportMetric(kCPURate, "karpenter-pods/cpu-s")
				b.ReportMetric(nCPURate, "nodeplan-pods/cpu-s")
				b.ReportMetric(nCPURate/kCPURate, "cpu-speedup")
			}
			b.ReportMetric(float64(kClaims), "karpenter-nodeclaims")
			b.ReportMetric(float64(nClaims), "nodeplan-nodeclaims")
			b.ReportMetric(float64(nUnsched), "nodeplan-unschedulable")
		})
	}
}

// BenchmarkNodeplan times nodeplan's schedule call alone on the same
// workloads (for quick iterations on nodeplan; the ratio needs
// BenchmarkSideBySide).
func BenchmarkNodeplan(b *testing.B) {
	for _, c := range sidebyside.BenchCases() {
		b.Run(c.Name, func(b *testing.B) {
			w := c.Make()
			req, err := nodeplanside.Request(w)
			if err != nil {
				b.Fatal(err)
			}
			reqBytes, err := nodeplanside.Marshal(req)
			if err != nil {
				b.Fatal(err)
			}
			pods := len(sidebyside.Pending(w))
			b.ResetTimer()
			t := sidebyside.Start()
			unsched := 0
			for i := 0; i < b.N; i++ {
				resp, err := nodeplanside.ScheduleBytes(reqBytes)
				if err != nil {
					b.Fatal(err)
				}
				unsched = len(resp.Unschedulable)
			}
			wall, cpu := t.Stop()
			perSec, perCPU := sidebyside.Rates(pods, b.N, wall, cpu)
			b.ReportMetric(perSec, "pods/s")
			b.ReportMetric(perCPU, "pods/cpu-s")
			b.ReportMetric(float64(unsched), "unschedulable")
		})
	}
}
