package sidebyside

import (
	"io"
	"testing"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Karpenter compared with itself. Karpenter is not deterministic (map
// iteration and unstable sorts decide ties), so a single run of it often
// disagrees with another; against the best of several runs it must agree on
// every cluster, which validates the comparison and the nondeterminism rule.
func TestKarpenterAgainstItself(t *testing.T) {
	s, err := Run(Config{N: 25, SeedStart: 1, Reps: 8, Random: workload.DefaultRandomConfig}, KarpenterScheduler, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pods == 0 || s.NodeplanErrors != 0 {
		t.Fatalf("bad run: %+v", s)
	}
	if s.ClustersAgreeModuloNondeterminism != s.Clusters {
		t.Fatalf("Karpenter disagrees with itself beyond nondeterminism: %+v", s)
	}
	t.Logf("self-agreement: pods %d/%d, clusters %d/%d, nondeterministic %d", s.PodsAgree, s.Pods, s.ClustersAgree, s.Clusters, s.KarpenterNondeterministic)
}
