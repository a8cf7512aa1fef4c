package compare_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/compare"
	r "github.com/nodeplan/nodeplan/benchmarks/karpenter/response"
)

func TestCompare(t *testing.T) {
	pending := []string{"d/a", "d/b", "d/c", "d/x"}
	k := &r.ScheduleResponse{
		NewNodeClaims: []r.NewNodeClaim{{NodePool: "p", InstanceTypes: []string{"m", "c"}, Pods: []string{"d/a", "d/b"}}},
		ExistingNodes: []r.ExistingNodePlacement{{Name: "n1", Pods: []string{"d/c"}}},
		Unschedulable: []r.UnschedulablePod{{Pod: "d/x"}},
		Cost:          1.5,
	}
	same := &r.ScheduleResponse{
		NewNodeClaims: []r.NewNodeClaim{{NodePool: "p", InstanceTypes: []string{"c", "m"}, Pods: []string{"d/b", "d/a"}}},
		ExistingNodes: []r.ExistingNodePlacement{{Name: "n1", Pods: []string{"d/c"}}},
		Unschedulable: []r.UnschedulablePod{{Pod: "d/x", Reason: "other words"}},
		Cost:          1.5000000001,
	}
	if res := compare.Compare(k, same, pending); !res.Agree() {
		t.Fatalf("expected agreement, got %+v", res)
	}
	split := &r.ScheduleResponse{
		NewNodeClaims: []r.NewNodeClaim{
			{NodePool: "p", InstanceTypes: []string{"c"}, Pods: []string{"d/a"}},
			{NodePool: "p", InstanceTypes: []string{"c"}, Pods: []string{"d/b"}},
		},
		ExistingNodes: []r.ExistingNodePlacement{{Name: "n2", Pods: []string{"d/c"}}},
		Cost:          2,
	}
	res := compare.Compare(k, split, pending)
	if res.Agree() || res.PodsAgree != 0 || res.ClaimsB != 2 || res.ClaimsMatched != 0 || res.CostAgree() {
		t.Fatalf("expected full disagreement, got %+v", res)
	}
	// d/x is missing from nodeplan's answer: that is a disagreement too.
	if len(res.Diffs) < 5 {
		t.Fatalf("diffs: %v", res.Diffs)
	}
	options := &r.ScheduleResponse{
		NewNodeClaims: []r.NewNodeClaim{{NodePool: "p", InstanceTypes: []string{"m"}, Pods: []string{"d/a", "d/b"}}},
		ExistingNodes: []r.ExistingNodePlacement{{Name: "n1", Pods: []string{"d/c"}}},
		Unschedulable: []r.UnschedulablePod{{Pod: "d/x"}},
		Cost:          1.5,
	}
	res = compare.Compare(k, options, pending)
	if !res.PodsAllAgree() || res.OptionsAgree != 0 || res.ClaimsMatched != 1 || res.Agree() {
		t.Fatalf("expected option disagreement only, got %+v", res)
	}
}
