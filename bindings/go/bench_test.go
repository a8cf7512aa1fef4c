package nodeplan_test

import (
	"os"
	"testing"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// BenchmarkSchedule times Schedule (marshal + call + unmarshal) on the
// request in $NODEPLAN_BENCH_REQUEST, e.g. the 5,000-pod Karpenter benchmark
// workload that build/release/benchmarks/capi_workload writes:
//
//	NODEPLAN_BENCH_REQUEST=/tmp/w.bin go test -run '^$' -bench Schedule -benchtime 5x
func BenchmarkSchedule(b *testing.B) {
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := nodeplan.Schedule(req); err != nil {
			b.Fatal(err)
		}
	}
}
