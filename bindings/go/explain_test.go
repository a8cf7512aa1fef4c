package nodeplan_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

func TestExplainPodAndNodePool(t *testing.T) {
	req := seedRequest(t, deploymentYAML)
	plan, err := nodeplan.Schedule(req)
	if err != nil {
		t.Fatal(err)
	}
	pod := plan.NewNodeClaims[0].Pods[0]
	resp, err := nodeplan.Explain(&nodeplanv1.ExplainRequest{Request: req, Pod: pod})
	if err != nil {
		t.Fatal(err)
	}
	e := resp.GetPod()
	if e.GetPod() != pod || e.GetOutcome() != "NodeClaim" || e.GetNodePool() != "general-purpose" {
		t.Fatalf("explanation %v", e)
	}
	if len(e.GetNodePools()) != 1 || e.GetNodePools()[0].GetNodePool() != "general-purpose" {
		t.Fatalf("NodePools tried: %v", e.GetNodePools())
	}

	pool, err := nodeplan.Explain(&nodeplanv1.ExplainRequest{Request: req, NodePool: "general-purpose"})
	if err != nil {
		t.Fatal(err)
	}
	if pool.GetNodePool() == nil {
		t.Fatalf("no NodePool explanation: %v", pool)
	}

	_, err = nodeplan.Explain(&nodeplanv1.ExplainRequest{Request: req, Pod: "default/absent"})
	var ne *nodeplan.Error
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "absent") {
		t.Fatalf("unknown pod: %v", err)
	}
}

func TestDiffOfAnUnchangedClusterIsEmpty(t *testing.T) {
	before := scaleInRequest(t, "2026-12-02T12:00:00Z")
	after := proto.Clone(before).(*nodeplanv1.DisruptRequest)
	resp, err := nodeplan.Diff(&nodeplanv1.DiffRequest{Before: before, After: after})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetCostBefore() != resp.GetCostAfter() || len(resp.GetAdded()) != 0 ||
		len(resp.GetRemoved()) != 0 || len(resp.GetDrifted()) != 0 {
		t.Fatalf("unchanged cluster differs: %v", resp)
	}
}
