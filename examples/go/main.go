// Command schedule plans the seed workshop (its NodePool and NodeClass) plus
// a three-replica Deployment through the Go binding, and prints the plan.
//
//	go run . <examples/workshop directory>
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// webDeployment is the Deployment, built as a message (it could be YAML too).
func webDeployment() *nodeplanv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &nodeplanv1.Deployment{
		ApiVersion: "apps/v1", Kind: "Deployment",
		Metadata: &nodeplanv1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: &nodeplanv1.WorkloadSpec{
			Replicas: proto.Int32(3),
			Selector: &nodeplanv1.LabelSelector{MatchLabels: labels},
			Template: &nodeplanv1.PodTemplateSpec{
				Metadata: &nodeplanv1.ObjectMeta{Labels: labels},
				Spec: &nodeplanv1.PodSpec{Containers: []*nodeplanv1.Container{{
					Name: "web",
					Resources: &nodeplanv1.ResourceRequirements{
						Requests: map[string]string{"cpu": "1", "memory": "1Gi"}},
				}}},
			},
		},
	}
}

func printPlan(plan *nodeplanv1.ScheduleResponse) {
	fmt.Printf("plan by %s\n", plan.LibraryVersion)
	placed := 0
	for _, c := range plan.NewNodeClaims {
		l := c.GetLaunch()
		fmt.Printf("nodeclaim %s nodepool=%s type=%s zone=%s capacity=%s price=%.4f pods=%d\n",
			c.Name, c.NodePool, l.GetInstanceType(), l.GetZone(), l.GetCapacityType(), l.GetPrice(), len(c.Pods))
		placed += len(c.Pods)
	}
	for _, u := range plan.Unschedulable {
		fmt.Printf("unschedulable %s: %s\n", u.Pod, u.Reason)
	}
	fmt.Printf("total nodeclaims=%d pods=%d unschedulable=%d cost=%.4f/hour\n",
		len(plan.NewNodeClaims), placed, len(plan.Unschedulable), plan.Cost)
}

func run(workshop string) error {
	var docs []string
	for _, name := range []string{"nodepool-general-purpose.yaml", "nodeclass-default.yaml"} {
		b, err := os.ReadFile(filepath.Join(workshop, name))
		if err != nil {
			return err
		}
		docs = append(docs, string(b))
	}
	seed, err := nodeplan.LoadManifests(strings.Join(docs, "\n---\n"),
		&nodeplanv1.LoadOptions{SourceName: workshop})
	if err != nil {
		return err
	}
	plan, err := nodeplan.Schedule(&nodeplanv1.ScheduleRequest{
		NodePools:   seed.NodePools,
		NodeClasses: seed.NodeClasses,
		Deployments: []*nodeplanv1.Deployment{webDeployment()},
		CatalogRef:  "aws",
	})
	if err != nil {
		return err
	}
	printPlan(plan)
	return nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s <examples/workshop directory>\n", os.Args[0])
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
