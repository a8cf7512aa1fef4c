package nodeplanside_test

import (
	"testing"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/nodeplanside"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// For random NodePool templates, the karpenter.sh/nodepool-hash annotation
// of the NodeClaim nodeplan opens equals Karpenter's NodePool.Hash(), and so
// does Karpenter's own NodeClaim's (a check of the harness).
func TestNodePoolHash(t *testing.T) {
	const n = 300
	agree := 0
	for seed := int64(1); seed <= n; seed++ {
		w := workload.HashWorkload(seed)
		// The NodePool as nodeplan reads it: through the manifest bytes.
		want := w.NodePools[0].Hash()
		k, err := kadapter.Schedule(w)
		if err != nil {
			t.Fatal(err)
		}
		if len(k.NewNodeClaims) != 1 || k.NewNodeClaims[0].Annotations[v1.NodePoolHashAnnotationKey] != want {
			t.Fatalf("seed %d: harness: Karpenter's NodeClaim does not carry NodePool.Hash() %s: %+v", seed, want, k.NewNodeClaims)
		}
		got, err := nodeplanside.Schedule(w)
		if err != nil {
			t.Fatalf("seed %d: nodeplan: %v", seed, err)
		}
		if len(got.NewNodeClaims) != 1 {
			t.Errorf("seed %d: nodeplan opened %d NodeClaims (unschedulable: %+v)", seed, len(got.NewNodeClaims), got.Unschedulable)
			continue
		}
		ann := got.NewNodeClaims[0].Annotations
		if ann[v1.NodePoolHashAnnotationKey] != want || ann[v1.NodePoolHashVersionAnnotationKey] != v1.NodePoolHashVersion {
			t.Errorf("seed %d: nodeplan hash %q version %q, Karpenter %q version %q", seed,
				ann[v1.NodePoolHashAnnotationKey], ann[v1.NodePoolHashVersionAnnotationKey], want, v1.NodePoolHashVersion)
			continue
		}
		agree++
	}
	t.Logf("nodepool-hash agreement: %d/%d", agree, n)
}
