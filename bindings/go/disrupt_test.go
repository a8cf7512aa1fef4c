package nodeplan_test

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// scaleInRequest is the workshop's second act: its NodePools and NodeClass
// and the cluster after inflate was scaled down.
func scaleInRequest(t *testing.T, now string) *nodeplanv1.DisruptRequest {
	t.Helper()
	m := workshopManifests(t, "nodepool-default.yaml", "nodepool-general-purpose.yaml",
		"nodeclass-default.yaml", filepath.Join("scale-in", "cluster.yaml"))
	return &nodeplanv1.DisruptRequest{
		NodePools: m.NodePools, NodeClasses: m.NodeClasses, NodeClaims: m.NodeClaims,
		Nodes: m.Nodes, Pods: m.Pods, PodDisruptionBudgets: m.PodDisruptionBudgets,
		CatalogRef: "aws", Now: now,
	}
}

func TestDisruptScaleIn(t *testing.T) {
	resp, err := nodeplan.Disrupt(scaleInRequest(t, "2026-12-02T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetMethod() != "single-node-consolidation" || len(resp.GetCommands()) != 1 {
		t.Fatalf("method %q, %d commands", resp.GetMethod(), len(resp.GetCommands()))
	}
	cmd := resp.GetCommands()[0]
	if cmd.GetDecision() != "delete" || len(cmd.GetCandidates()) != 1 ||
		cmd.GetCandidates()[0].GetNode() != "ip-10-0-1-23.ec2.internal" {
		t.Fatalf("command %v", cmd)
	}
	if len(resp.GetCandidates()) != 2 {
		t.Fatalf("%d nodes explained, want 2", len(resp.GetCandidates()))
	}
}

func TestDisruptNeedsNow(t *testing.T) {
	_, err := nodeplan.Disrupt(scaleInRequest(t, ""))
	var e *nodeplan.Error
	if err == nil || !errors.As(err, &e) || e.Code != nodeplan.CodeInvalidArgument ||
		!strings.Contains(e.Message, "now") {
		t.Fatalf("error %v, want INVALID_ARGUMENT naming now", err)
	}
}

func TestValidateCommandLater(t *testing.T) {
	resp, err := nodeplan.Disrupt(scaleInRequest(t, "2026-12-02T12:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	later := scaleInRequest(t, "2026-12-02T12:00:15Z")
	v, err := nodeplan.ValidateCommand(&nodeplanv1.ValidateCommandRequest{
		Request: later, Command: resp.GetCommands()[0]})
	if err != nil {
		t.Fatal(err)
	}
	if !v.GetValid() || !proto.Equal(v.GetCommand(), resp.GetCommands()[0]) {
		t.Fatalf("not valid: %q", v.GetReason())
	}
}

func TestClusterHandle(t *testing.T) {
	req := scaleInRequest(t, "2026-12-02T12:00:00Z")
	c, err := nodeplan.NewCluster(&nodeplanv1.ClusterUpdate{
		Upserts: &nodeplanv1.ManifestSet{
			NodePools: req.NodePools, NodeClasses: req.NodeClasses, NodeClaims: req.NodeClaims,
			Nodes: req.Nodes, Pods: req.Pods,
		},
		CatalogRef: "aws",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Disrupt(&nodeplanv1.DisruptRequest{Now: "2026-12-02T12:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetMethod() != "single-node-consolidation" {
		t.Fatalf("method %q", resp.GetMethod())
	}
	var deletes []*nodeplanv1.ObjectRef
	for _, p := range req.Pods {
		deletes = append(deletes, &nodeplanv1.ObjectRef{Kind: "Pod",
			Namespace: p.GetMetadata().GetNamespace(), Name: p.GetMetadata().GetName()})
	}
	u, err := c.Update(&nodeplanv1.ClusterUpdate{Deletes: deletes})
	if err != nil || u.GetDeleted() != 5 {
		t.Fatalf("update %v, %v", u, err)
	}
	resp, err = c.Disrupt(&nodeplanv1.DisruptRequest{Now: "2026-12-02T12:00:00Z"})
	if err != nil || resp.GetMethod() != "emptiness" {
		t.Fatalf("after scale-down: %v, %v", resp.GetMethod(), err)
	}
	c.Close()
	if _, err := c.Disrupt(&nodeplanv1.DisruptRequest{Now: "x"}); err == nil {
		t.Fatal("a closed cluster answered")
	}
}

// The Optimized option flows through the C ABI: Karpenter's command keeps
// its bytes and nodeplan's own proposal comes apart, in Optimized. On the
// scale-in the Underutilized budget (10% of two nodes, rounded up) allows
// one node, and deleting the m5.xlarge is the best one node gives.
func TestDisruptOptimizedIsReportedApart(t *testing.T) {
	req := scaleInRequest(t, "2026-12-02T12:00:00Z")
	karpenter, err := nodeplan.Disrupt(req)
	if err != nil {
		t.Fatal(err)
	}
	req.Options = &nodeplanv1.DisruptOptions{Packing: "Optimized"}
	resp, err := nodeplan.Disrupt(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetCommands()) != 1 || !proto.Equal(resp.GetCommands()[0], karpenter.GetCommands()[0]) {
		t.Fatalf("commands changed: %v", resp.GetCommands())
	}
	o := resp.GetOptimized()
	if karpenter.GetOptimized() != nil || o == nil || o.GetCommand() != nil ||
		!strings.Contains(o.GetReason(), "save as much") || o.GetCandidateSetsTried() != 0 {
		t.Fatalf("optimized %v", o)
	}
	req.Options.Packing = "Cheapest"
	if _, err := nodeplan.Disrupt(req); err == nil || !strings.Contains(err.Error(), "options.packing") {
		t.Fatalf("error %v, want one naming options.packing", err)
	}
}

// The workshop's consolidation (examples/workshop/consolidate): three
// m5.xlarge with 7 pods each. Karpenter replaces two by one c5.large
// ($0.299/hour); nodeplan's proposal, through the C ABI, replaces all three
// by three c5.large ($0.321/hour), and re-validates 15 seconds later.
func TestDisruptOptimizedProposesACheaperConsolidation(t *testing.T) {
	m := workshopManifests(t, "nodeclass-default.yaml", filepath.Join("consolidate", "cluster.yaml"))
	req := &nodeplanv1.DisruptRequest{
		NodePools: m.NodePools, NodeClasses: m.NodeClasses, NodeClaims: m.NodeClaims,
		Nodes: m.Nodes, Pods: m.Pods, CatalogRef: "aws", Now: "2026-12-02T12:00:00Z",
		Options: &nodeplanv1.DisruptOptions{Packing: "Optimized"},
	}
	resp, err := nodeplan.Disrupt(req)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if resp.GetMethod() != "multi-node-consolidation" || len(resp.GetCommands()) != 1 ||
		!near(resp.GetCommands()[0].GetSavingsPerHour(), 0.299) {
		t.Fatalf("Karpenter's pass: %q %v", resp.GetMethod(), resp.GetCommands())
	}
	o := resp.GetOptimized()
	cmd := o.GetCommand()
	if cmd == nil {
		t.Fatalf("no proposal: %q", o.GetReason())
	}
	if cmd.GetMethod() != "optimized-consolidation" || cmd.GetDecision() != "replace" ||
		len(cmd.GetCandidates()) != 3 || len(cmd.GetReplacements()) != 3 {
		t.Fatalf("proposal %v", cmd)
	}
	for _, r := range cmd.GetReplacements() {
		if r.GetLaunch().GetInstanceType() != "c5.large" || len(r.GetPods()) != 7 {
			t.Fatalf("replacement %v", r)
		}
	}
	if !near(cmd.GetSavingsPerHour(), 0.321) || !near(o.GetKarpenterSavingsPerHour(), 0.299) ||
		!near(o.GetSavingsOverKarpenterPerHour(), 0.022) || !near(o.GetGuaranteedSavingsPerHour(), 0.321) {
		t.Fatalf("savings %v", o)
	}
	later := proto.Clone(req).(*nodeplanv1.DisruptRequest)
	later.Now = "2026-12-02T12:00:15Z"
	v, err := nodeplan.ValidateCommand(&nodeplanv1.ValidateCommandRequest{Request: later, Command: cmd})
	if err != nil || !v.GetValid() {
		t.Fatalf("not valid 15 s later: %v %q", err, v.GetReason())
	}
	later.Nominated = []string{"ip-10-0-1-41.ec2.internal"}
	v, err = nodeplan.ValidateCommand(&nodeplanv1.ValidateCommandRequest{Request: later, Command: cmd})
	if err != nil || v.GetValid() || v.GetReason() != "1 candidates are no longer valid" {
		t.Fatalf("with a nominated candidate: %v %v %q", err, v.GetValid(), v.GetReason())
	}
}
