package nodeplan_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

const deploymentYAML = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        resources:
          requests: {cpu: "1", memory: 1Gi}
`

func repoRoot(t *testing.T) string {
	if dir := os.Getenv("NODEPLAN_SOURCE_DIR"); dir != "" {
		return dir
	}
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func seed(t *testing.T) string {
	t.Helper()
	var parts []string
	for _, name := range []string{"nodepool-general-purpose.yaml", "nodeclass-default.yaml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "workshop", name))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "---\n")
}

// workshopManifests loads files of examples/workshop as one manifest set.
func workshopManifests(t *testing.T, names ...string) *nodeplanv1.ManifestSet {
	t.Helper()
	var parts []string
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "workshop", name))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	m, err := nodeplan.LoadManifests(strings.Join(parts, "\n---\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func seedRequest(t *testing.T, extra string) *nodeplanv1.ScheduleRequest {
	t.Helper()
	m, err := nodeplan.LoadManifests(seed(t)+"---\n"+extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &nodeplanv1.ScheduleRequest{
		NodePools: m.NodePools, NodeClasses: m.NodeClasses,
		Deployments: m.Deployments, CatalogRef: "aws",
	}
}

func TestVersions(t *testing.T) {
	if err := nodeplan.CheckABI(); err != nil {
		t.Fatal(err)
	}
	if got := nodeplan.LibraryABIVersion(); got != nodeplan.ABIVersion {
		t.Fatalf("ABI %d, want %d", got, nodeplan.ABIVersion)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(nodeplan.Version()) {
		t.Fatalf("version %q", nodeplan.Version())
	}
}

func TestLoadManifestsReadsTheSeed(t *testing.T) {
	m, err := nodeplan.LoadManifests(seed(t), &nodeplanv1.LoadOptions{SourceName: "seed.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.NodePools) != 1 || m.NodePools[0].GetMetadata().GetName() != "general-purpose" {
		t.Fatalf("node pools: %v", m.NodePools)
	}
	if len(m.NodeClasses) != 1 || m.NodeClasses[0].GetMetadata().GetName() != "default" {
		t.Fatalf("node classes: %v", m.NodeClasses)
	}
}

func TestLoadManifestsErrorHasCodeAndSource(t *testing.T) {
	_, err := nodeplan.LoadManifests("kind: Pod\nmetadata: [unclosed\n",
		&nodeplanv1.LoadOptions{SourceName: "broken.yaml"})
	var e *nodeplan.Error
	if !errors.As(err, &e) || e.Code != nodeplan.CodeInvalidArgument {
		t.Fatalf("err = %v, want *Error INVALID_ARGUMENT", err)
	}
	if !errors.Is(err, nodeplan.ErrInvalidArgument) || errors.Is(err, nodeplan.ErrInternal) {
		t.Fatalf("errors.Is wrong for %v", err)
	}
	if !strings.Contains(e.Message, "broken.yaml") {
		t.Fatalf("message %q does not name the source", e.Message)
	}
}

func TestUndecodableBytesAreInvalidArgument(t *testing.T) {
	_, err := nodeplan.ScheduleBytes([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	if !errors.Is(err, nodeplan.ErrInvalidArgument) || !strings.Contains(err.Error(), "does not decode") {
		t.Fatalf("err = %v", err)
	}
}

func TestSchedulePlansTheSeed(t *testing.T) {
	req := seedRequest(t, deploymentYAML)
	plan, err := nodeplan.Schedule(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.LibraryVersion != "nodeplan/"+nodeplan.Version() {
		t.Errorf("library version %q", plan.LibraryVersion)
	}
	placed := 0
	for _, c := range plan.NewNodeClaims {
		placed += len(c.Pods)
		if c.NodePool != "general-purpose" {
			t.Errorf("claim %s from %q", c.Name, c.NodePool)
		}
	}
	if placed != 3 || len(plan.Unschedulable) != 0 || plan.Cost <= 0 {
		t.Fatalf("placed %d, unschedulable %v, cost %v", placed, plan.Unschedulable, plan.Cost)
	}
	// Same input, same output bytes.
	in, _ := proto.Marshal(req)
	again, err := nodeplan.ScheduleBytes(in)
	if err != nil || !proto.Equal(again, plan) {
		t.Fatalf("second call differs: %v", err)
	}
}

func TestNoFitIsAnAnswer(t *testing.T) {
	req := seedRequest(t, "")
	req.Pods = []*nodeplanv1.Pod{{
		Metadata: &nodeplanv1.ObjectMeta{Name: "huge", Namespace: "default"},
		Spec: &nodeplanv1.PodSpec{Containers: []*nodeplanv1.Container{{
			Name:      "c",
			Resources: &nodeplanv1.ResourceRequirements{Requests: map[string]string{"cpu": "100000"}},
		}}},
	}}
	plan, err := nodeplan.Schedule(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Pod != "default/huge" || plan.Unschedulable[0].Reason == "" {
		t.Fatalf("unschedulable = %v", plan.Unschedulable)
	}
}

func TestValidate(t *testing.T) {
	m, err := nodeplan.LoadManifests(seed(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := nodeplan.Validate(m)
	if err != nil || len(resp.Violations) != 0 {
		t.Fatalf("seed: %v %v", err, resp.GetViolations())
	}
	m.NodePools[0].Spec.Template.Spec.Requirements[0].Operator = "Sometimes"
	resp, err = nodeplan.Validate(m)
	if err != nil || len(resp.Violations) == 0 {
		t.Fatalf("bad operator: %v %v", err, resp.GetViolations())
	}
}

func TestSnapshotFromManyGoroutines(t *testing.T) {
	full := seedRequest(t, deploymentYAML)
	want, err := nodeplan.Schedule(full)
	if err != nil {
		t.Fatal(err)
	}
	base := &nodeplanv1.ScheduleRequest{NodePools: full.NodePools, NodeClasses: full.NodeClasses, CatalogRef: "aws"}
	state := &nodeplanv1.ScheduleRequest{Deployments: full.Deployments}
	snap, err := nodeplan.NewSnapshot(base)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 4; j++ {
				got, err := snap.Schedule(state)
				if err != nil {
					errs <- err
					return
				}
				if !proto.Equal(got, want) {
					errs <- errors.New("snapshot answer differs from Schedule")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	snap.Close()
	snap.Close()
	if _, err := snap.Schedule(state); err == nil {
		t.Fatal("Schedule on a closed snapshot succeeded")
	}
}

func TestSnapshotErrors(t *testing.T) {
	_, err := nodeplan.NewSnapshot(&nodeplanv1.ScheduleRequest{Pods: []*nodeplanv1.Pod{{}}})
	if !errors.Is(err, nodeplan.ErrInvalidArgument) {
		t.Fatalf("pods in base: err = %v", err)
	}
}

func TestErrorType(t *testing.T) {
	e := &nodeplan.Error{Code: nodeplan.CodeInternal, Message: "boom"}
	if e.Error() != "INTERNAL: boom" || nodeplan.Code(42).String() != "CODE_42" {
		t.Fatalf("%q", e.Error())
	}
}

// docs/LIMITS.md: past a limit the call fails with RESOURCE_EXHAUSTED,
// naming the limit and the field.
func TestLimitsAreResourceExhausted(t *testing.T) {
	m, err := nodeplan.LoadManifests(deploymentYAML, nil)
	if err != nil {
		t.Fatal(err)
	}
	replicas := int32(2147483647)
	m.Deployments[0].Spec.Replicas = &replicas
	_, err = nodeplan.Schedule(&nodeplanv1.ScheduleRequest{
		Deployments: m.Deployments, CatalogRef: "aws"})
	if !errors.Is(err, nodeplan.ErrResourceExhausted) ||
		!strings.Contains(err.Error(), "spec.replicas") ||
		!strings.Contains(err.Error(), "kMaxReplicas") {
		t.Fatalf("err = %v, want RESOURCE_EXHAUSTED naming spec.replicas", err)
	}
}

func TestPackingOptionAndCostBoundRoundTrip(t *testing.T) {
	// The workshop's default NodePool and inflate's 20 replicas: Karpenter's
	// packing costs $0.277/hour, the Optimized one three c5.large.
	m := workshopManifests(t, "nodepool-default.yaml", "nodeclass-default.yaml", "deployment-inflate.yaml")
	req := &nodeplanv1.ScheduleRequest{
		NodePools: m.NodePools, NodeClasses: m.NodeClasses,
		Deployments: m.Deployments, CatalogRef: "aws",
		Options: &nodeplanv1.ScheduleOptions{CostBound: "Compute"},
	}
	k, err := nodeplan.Schedule(req)
	if err != nil {
		t.Fatal(err)
	}
	b := k.GetCostBound()
	if k.GetPacking().GetMode() != "Karpenter" || b.GetCoveredPods() != 20 {
		t.Fatalf("packing %v, bound %v", k.GetPacking(), b)
	}
	if b.GetAvailable() && (b.GetLowerBound() <= 0 || b.GetLowerBound() > k.Cost) {
		t.Fatalf("lower bound %v for cost %v", b.GetLowerBound(), k.Cost)
	}
	if !b.GetAvailable() && !strings.Contains(b.GetReason(), "no LP solver") {
		t.Fatalf("unavailable without the reason: %q", b.GetReason())
	}
	req.Options = &nodeplanv1.ScheduleOptions{Packing: "Optimized"}
	o, err := nodeplan.Schedule(req)
	if err != nil {
		t.Fatal(err)
	}
	if o.GetPacking().GetMode() != "Optimized" || o.Cost > k.Cost+1e-12 ||
		math.Abs(o.GetPacking().GetKarpenterCost()-k.Cost) > 1e-12 {
		t.Fatalf("optimized %v cost %v (karpenter %v)", o.GetPacking(), o.Cost, k.Cost)
	}
	if b.GetAvailable() && math.Abs(o.Cost-0.255) > 1e-9 {
		t.Fatalf("optimized cost %v, want 0.255", o.Cost)
	}
	req.Options.Packing = "Cheapest"
	if _, err := nodeplan.Schedule(req); err == nil || !strings.Contains(err.Error(), "options.packing") {
		t.Fatalf("unknown packing: %v", err)
	}
}
