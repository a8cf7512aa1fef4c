package nodeplan_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// The Schedule benchmarks time the request in $NODEPLAN_BENCH_REQUEST, e.g.
// the 5,000-pod Karpenter benchmark workload that
// build/release/benchmarks/capi_workload writes, against the library that
// PKG_CONFIG_PATH finds (use the release build's: a Debug library is several
// times slower):
//
//	PKG_CONFIG_PATH=$PWD/build/release/capi/pkgconfig \
//	NODEPLAN_BENCH_REQUEST=/tmp/w.bin go -C bindings/go test -run '^$' \
//	    -bench Schedule -benchtime 5x
//
// Besides ns/op (wall time, which on a shared machine mostly measures the
// load) each reports cpu-ms/op, the process's CPU time (all threads, the GC
// included), the figure to compare with capi_bench's CPU column.

func benchRequest(b *testing.B) *nodeplanv1.ScheduleRequest {
	path := os.Getenv("NODEPLAN_BENCH_REQUEST")
	if path == "" {
		b.Skip("NODEPLAN_BENCH_REQUEST is not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	req := &nodeplanv1.ScheduleRequest{}
	if err := proto.Unmarshal(data, req); err != nil {
		b.Fatal(err)
	}
	return req
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs fn b.N times and reports its CPU time per call.
func timed(b *testing.B, fn func()) {
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		fn()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkSchedule: marshal + call + unmarshal, as a Go caller sees it,
// with the instance types as names (the default) and Indexed, the latter
// also followed by ExpandInstanceTypes (the Names response again) or by
// InstanceTypes on every NodeClaim (every claim's names, not expanded).
func BenchmarkSchedule(b *testing.B) {
	req := benchRequest(b)
	b.Run("names", func(b *testing.B) {
		timed(b, func() {
			if _, err := nodeplan.Schedule(req); err != nil {
				b.Fatal(err)
			}
		})
	})
	compact := withEncoding(req, "Indexed")
	b.Run("indexed", func(b *testing.B) {
		timed(b, func() {
			if _, err := nodeplan.Schedule(compact); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("indexed_expand", func(b *testing.B) {
		timed(b, func() {
			plan, err := nodeplan.Schedule(compact)
			if err == nil {
				err = nodeplan.ExpandInstanceTypes(plan)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("indexed_instance_types", func(b *testing.B) {
		timed(b, func() {
			plan, err := nodeplan.Schedule(compact)
			for _, claim := range plan.GetNewNodeClaims() {
				if err == nil {
					_, err = nodeplan.InstanceTypes(plan, claim)
				}
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkScheduleParts times the Go side of the boundary alone: marshal
// the request, the call on already marshalled bytes (C parse, schedule, C
// serialize, Go unmarshal), and unmarshal the response; Indexed also
// unmarshal + ExpandInstanceTypes.
func BenchmarkScheduleParts(b *testing.B) {
	req := benchRequest(b)
	b.Run("names", func(b *testing.B) { scheduleParts(b, req) })
	b.Run("indexed", func(b *testing.B) { scheduleParts(b, withEncoding(req, "Indexed")) })
}

func scheduleParts(b *testing.B, req *nodeplanv1.ScheduleRequest) {
	in, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := nodeplan.ScheduleBytes(in)
	if err != nil {
		b.Fatal(err)
	}
	out, err := proto.Marshal(plan)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("marshal_request", func(b *testing.B) {
		timed(b, func() {
			if _, err := proto.Marshal(req); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("call_and_unmarshal", func(b *testing.B) {
		timed(b, func() {
			if _, err := nodeplan.ScheduleBytes(in); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("unmarshal_response", func(b *testing.B) {
		b.ReportMetric(float64(len(out)), "response-bytes")
		timed(b, func() {
			if err := proto.Unmarshal(out, &nodeplanv1.ScheduleResponse{}); err != nil {
				b.Fatal(err)
			}
		})
	})
	if len(plan.InstanceTypeNames) == 0 {
		return
	}
	b.Run("unmarshal_and_expand", func(b *testing.B) {
		timed(b, func() {
			r := &nodeplanv1.ScheduleResponse{}
			err := proto.Unmarshal(out, r)
			if err == nil {
				err = nodeplan.ExpandInstanceTypes(r)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	})
}
