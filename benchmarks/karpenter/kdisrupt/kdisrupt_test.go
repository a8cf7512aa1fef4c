package kdisrupt_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kdisrupt"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// testCatalog: c.1x .. c.8x, price proportional to size, one zone, spot at
// 40%.
func testCatalog() *catalog.Catalog {
	c := &catalog.Catalog{APIVersion: "nodeplan.io/v1", Kind: "Catalog", WellKnownLabels: workload.FakeWellKnownLabels}
	for _, cpu := range []int{1, 2, 4, 8} {
		price := 0.05 * float64(cpu)
		c.InstanceTypes = append(c.InstanceTypes, catalog.InstanceType{
			Name:     fmt.Sprintf("c.%dx", cpu),
			Labels:   map[string]string{corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"},
			Capacity: map[string]string{"cpu": fmt.Sprint(cpu), "memory": fmt.Sprintf("%dGi", 2*cpu), "pods": "32"},
			Offerings: []catalog.Offering{{Zone: "test-zone-1", CapacityType: "on-demand", Price: price},
				{Zone: "test-zone-1", CapacityType: "spot", Price: 0.4 * price}},
		})
	}
	return c
}

func onDemandPool(name string, d v1.Disruption) *v1.NodePool {
	return workload.NodePool(name, v1.NodePoolSpec{Disruption: d, Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
		Requirements: []v1.NodeSelectorRequirementWithMinValues{{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}},
		ExpireAfter:  v1.MustParseNillableDuration("720h"),
	}}})
}

func consolidating() v1.Disruption {
	return v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("0s"), ConsolidationPolicy: v1.ConsolidationPolicyWhenEmptyOrUnderutilized}
}

func node(it string) workload.NodeSpec {
	return workload.NodeSpec{InstanceType: it, Zone: "test-zone-1", CapacityType: "on-demand", Age: 2 * time.Hour}
}

func decide(t *testing.T, c *workload.DisruptCase) *nodeplanv1.DisruptResponse {
	t.Helper()
	resp, err := kdisrupt.Decide(c)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func candidateNodes(cmd *nodeplanv1.DisruptionCommand) []string {
	var out []string
	for _, c := range cmd.GetCandidates() {
		out = append(out, c.GetNode())
	}
	return out
}

func oneCommand(t *testing.T, resp *nodeplanv1.DisruptResponse, method, reason, decision string, nodes ...string) *nodeplanv1.DisruptionCommand {
	t.Helper()
	if resp.GetMethod() != method || len(resp.GetCommands()) != 1 {
		t.Fatalf("method %q with %d commands, want one %s command", resp.GetMethod(), len(resp.GetCommands()), method)
	}
	cmd := resp.GetCommands()[0]
	if cmd.GetReason() != reason || cmd.GetDecision() != decision || !slices.Equal(candidateNodes(cmd), nodes) {
		t.Fatalf("command %s/%s on %v, want %s/%s on %v", cmd.GetReason(), cmd.GetDecision(), candidateNodes(cmd), reason, decision, nodes)
	}
	return cmd
}

func TestEmptyNodeIsDeletedByEmptiness(t *testing.T) {
	b := workload.NewDisruptBuilder("empty", testCatalog())
	np := b.NodePool(onDemandPool("default", consolidating()))
	busy := b.ManagedNode(np, node("c.2x"))
	b.ManagedNode(np, node("c.2x"))
	b.Pod(busy.Name, workload.PodSpec{CPU: "500m", Owner: "ReplicaSet", OwnerName: "web"})
	resp := decide(t, b.Case)
	oneCommand(t, resp, "emptiness", "Empty", "delete", "node-002")
	for _, c := range resp.GetConditions() {
		if c.GetConsolidatable().GetStatus() != "True" {
			t.Errorf("%s: Consolidatable %q, want True (consolidateAfter 0s)", c.GetNodeClaim(), c.GetConsolidatable().GetStatus())
		}
	}
}

func TestUnderutilizedNodeIsReplacedByACheaperOne(t *testing.T) {
	b := workload.NewDisruptBuilder("replace", testCatalog())
	np := b.NodePool(onDemandPool("default", consolidating()))
	n := b.ManagedNode(np, node("c.8x"))
	b.Pod(n.Name, workload.PodSpec{CPU: "300m", Owner: "ReplicaSet", OwnerName: "web"})
	resp := decide(t, b.Case)
	cmd := oneCommand(t, resp, "single-node-consolidation", "Underutilized", "replace", "node-001")
	if len(cmd.GetReplacements()) != 1 {
		t.Fatalf("%d replacements", len(cmd.GetReplacements()))
	}
	if opts := cmd.GetReplacements()[0].GetInstanceTypes(); !slices.Contains(opts, "c.1x") || slices.Contains(opts, "c.8x") {
		t.Fatalf("replacement options %v: want c.1x and not the candidate's own c.8x", opts)
	}
}

func TestUnderutilizedNodeIsDeletedWhenItsPodsFitElsewhere(t *testing.T) {
	b := workload.NewDisruptBuilder("delete", testCatalog())
	np := b.NodePool(onDemandPool("default", consolidating()))
	big := b.ManagedNode(np, node("c.4x"))
	small := b.ManagedNode(np, node("c.2x"))
	b.Pod(big.Name, workload.PodSpec{CPU: "1", Owner: "ReplicaSet", OwnerName: "web"})
	b.Pod(small.Name, workload.PodSpec{CPU: "500m", Owner: "ReplicaSet", OwnerName: "web"})
	resp := decide(t, b.Case)
	if resp.GetMethod() != "multi-node-consolidation" && resp.GetMethod() != "single-node-consolidation" {
		t.Fatalf("method %q, want a consolidation", resp.GetMethod())
	}
	cmd := resp.GetCommands()[0]
	// The dearer node goes first (higher price per disruption cost); its
	// pod fits beside the other node's.
	if cmd.GetDecision() != "delete" || !slices.Equal(candidateNodes(cmd), []string{"node-001"}) {
		t.Fatalf("%s of %v, want delete of node-001 (its pod fits on node-002)", cmd.GetDecision(), candidateNodes(cmd))
	}
}

func TestDriftedNodeIsReplacedByDrift(t *testing.T) {
	b := workload.NewDisruptBuilder("drift", testCatalog())
	np := b.NodePool(onDemandPool("default", v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("Never")}))
	s := node("c.2x")
	s.Hash = "1234"
	n := b.ManagedNode(np, s)
	b.Pod(n.Name, workload.PodSpec{CPU: "1500m", Owner: "ReplicaSet", OwnerName: "web"})
	resp := decide(t, b.Case)
	cmd := oneCommand(t, resp, "drift", "Drifted", "replace", "node-001")
	if got := resp.GetConditions()[0].GetDrifted().GetReason(); got != "NodePoolDrifted" {
		t.Errorf("Drifted reason %q, want NodePoolDrifted", got)
	}
	if len(cmd.GetReplacements()) != 1 || len(cmd.GetReplacements()[0].GetPods()) != 1 {
		t.Fatalf("replacements %v", cmd.GetReplacements())
	}
}

func TestProviderDriftIsPerNodeClaim(t *testing.T) {
	b := workload.NewDisruptBuilder("provider-drift", testCatalog())
	np := b.NodePool(onDemandPool("default", v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("Never")}))
	b.ManagedNode(np, node("c.2x"))
	b.ManagedNode(np, node("c.2x"))
	b.Case.Params.ProviderDrifted = map[string]string{"default-002": "ImageDrifted"}
	resp := decide(t, b.Case)
	oneCommand(t, resp, "drift", "Drifted", "delete", "node-002")
	if r := resp.GetConditions()[0].GetDrifted().GetReason(); r != "" {
		t.Errorf("default-001 drifted (%q), want not", r)
	}
}

func TestZeroBudgetBlocksEmptiness(t *testing.T) {
	b := workload.NewDisruptBuilder("budget", testCatalog())
	d := consolidating()
	d.Budgets = []v1.Budget{{Nodes: "0"}}
	np := b.NodePool(onDemandPool("default", d))
	b.ManagedNode(np, node("c.2x"))
	resp := decide(t, b.Case)
	if resp.GetMethod() != "" || len(resp.GetCommands()) != 0 {
		t.Fatalf("method %q, want no command", resp.GetMethod())
	}
	for _, bu := range resp.GetBudgets() {
		if bu.GetAllowed() != 0 || bu.GetNodes() != 1 {
			t.Errorf("%s/%s: allowed %d of %d nodes, want 0 of 1", bu.GetNodePool(), bu.GetReason(), bu.GetAllowed(), bu.GetNodes())
		}
	}
	if !resp.GetCandidates()[0].GetGraceful().GetEligible() || !resp.GetCandidates()[0].GetMethods()[0].GetEligible() {
		t.Errorf("node-001 should be an emptiness candidate held only by the budget: %v", resp.GetCandidates()[0])
	}
}
