package sidebyside

import (
	"testing"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kdisrupt"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Karpenter judged against itself agrees on budgets, candidacy and
// conditions (the rendering is stable from one construction to the next;
// the decision itself may differ by Karpenter's nondeterminism).
func TestJudgeDisruptKarpenterAgainstItself(t *testing.T) {
	var sum DisruptSummary
	for seed := int64(0); seed < 15; seed++ {
		v, err := JudgeDisrupt(workload.RandomDisruption(seed, workload.DefaultDisruptionConfig), kdisrupt.Decide, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.First.Budgets)+len(v.First.Eligibility)+len(v.First.Conditions) > 0 {
			t.Errorf("seed %d: Karpenter differs from itself beyond the decision:\n%s", seed, v.Describe())
		}
		sum.Add(v)
	}
	if sum.WithCommand == 0 {
		t.Error("no generated cluster leads to a command")
	}
}

// The minimizer drops whatever the predicate does not need.
func TestMinimizeDisruptKeepsOnlyWhatIsNeeded(t *testing.T) {
	var c *workload.DisruptCase
	for seed := int64(0); c == nil; seed++ {
		if d := workload.RandomDisruption(seed, workload.DefaultDisruptionConfig); len(d.Nodes) >= 3 {
			c = d
		}
	}
	small := MinimizeDisrupt(c, func(d *workload.DisruptCase) bool { return len(d.Nodes) >= 1 })
	if len(small.Nodes) != 1 || len(small.NodeClaims) != 1 || len(small.Pods) != 0 || len(small.PDBs) != 0 {
		t.Fatalf("minimized to %d nodes, %d NodeClaims, %d pods, %d PDBs; want 1, 1, 0, 0",
			len(small.Nodes), len(small.NodeClaims), len(small.Pods), len(small.PDBs))
	}
	for _, p := range small.Pods {
		if p.Spec.NodeName != "" && p.Spec.NodeName != small.Nodes[0].Name {
			t.Errorf("pod %s left bound to a removed node", p.Name)
		}
	}
}
