// Command disrupt runs Karpenter's disruption pass on the workshop's second
// act (its NodePools and NodeClass plus scale-in/cluster.yaml: inflate
// scaled down) through the Go binding, and prints the decision.
//
//	go run ./disrupt <examples/workshop directory>
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s <examples/workshop directory>\n", os.Args[0])
		os.Exit(2)
	}
	var parts []string
	for _, name := range []string{"nodepool-default.yaml", "nodepool-general-purpose.yaml",
		"nodeclass-default.yaml", filepath.Join("scale-in", "cluster.yaml")} {
		b, err := os.ReadFile(filepath.Join(os.Args[1], name))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		parts = append(parts, string(b))
	}
	m, err := nodeplan.LoadManifests(strings.Join(parts, "\n---\n"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	decision, err := nodeplan.Disrupt(&nodeplanv1.DisruptRequest{
		NodePools: m.NodePools, NodeClasses: m.NodeClasses, NodeClaims: m.NodeClaims,
		Nodes: m.Nodes, Pods: m.Pods, PodDisruptionBudgets: m.PodDisruptionBudgets,
		CatalogRef: "aws", Now: "2026-12-02T12:00:00Z",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("decision by %s\n", decision.GetLibraryVersion())
	for _, cmd := range decision.GetCommands() {
		fmt.Printf("command method=%s reason=%s decision=%s savings=%.4f/hour\n",
			cmd.GetMethod(), cmd.GetReason(), cmd.GetDecision(), cmd.GetSavingsPerHour())
		for _, c := range cmd.GetCandidates() {
			fmt.Printf("candidate %s nodepool=%s type=%s price=%.4f pods=%d\n",
				c.GetNode(), c.GetNodePool(), c.GetInstanceType(), c.GetPrice(), len(c.GetPods()))
		}
	}
	fmt.Printf("total commands=%d nodes=%d\n", len(decision.GetCommands()), len(decision.GetCandidates()))
}
