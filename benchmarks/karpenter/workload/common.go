// Package workload generates seeded, reproducible scheduling inputs as the
// objects nodeplan reads from manifests: Karpenter's own benchmark shapes
// (pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go) and
// random small clusters that mix every constraint nodeplan supports.
//
// A Workload can be written to a directory (manifests.yaml + catalog.yaml) so
// that nodeplan and Karpenter read identical bytes.
package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/manifests"
)

// Options mirror nodeplan's ScheduleOptions.
type Options struct {
	PreferencePolicy string `json:"preferencePolicy,omitempty"` // Respect | Ignore
	MinValuesPolicy  string `json:"minValuesPolicy,omitempty"`  // Strict | BestEffort
	MaxInstanceTypes int    `json:"maxInstanceTypes,omitempty"` // 0 means 600
}

// Workload is one scheduling input.
type Workload struct {
	Name      string
	NodePools []*v1.NodePool
	// In-flight NodeClaims (launched, no Node yet) and managed nodes' claims.
	NodeClaims []*v1.NodeClaim
	Pods       []*corev1.Pod
	Nodes      []*corev1.Node
	DaemonSets []*appsv1.DaemonSet
	Catalog    *catalog.Catalog
	Options    Options
}

// CreationTime is the creationTimestamp of every generated object: equal
// timestamps leave Karpenter's queue order to CPU, memory and UID.
var CreationTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// UID returns a deterministic UID; Karpenter caches per-pod data by UID and
// breaks queue ties by it, so generated pods carry distinct, ordered UIDs.
func UID(kind byte, i int) types.UID {
	return types.UID(fmt.Sprintf("00000000-0000-4000-8%03x-%012d", kind, i))
}

// PendingPod returns a pod in the state Karpenter provisions for: no node,
// condition PodScheduled=False with reason Unschedulable.
func PendingPod(name string, uid types.UID, labels map[string]string, requests corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: uid, Labels: labels, CreationTimestamp: CreationTime,
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: requests}}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			}},
		},
	}
}

// TestNodeClassRef is the node class reference Karpenter's test helpers use.
func TestNodeClassRef() *v1.NodeClassReference {
	return &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"}
}

// NodePool returns a NodePool with the given name and spec defaults filled.
func NodePool(name string, spec v1.NodePoolSpec) *v1.NodePool {
	if spec.Template.Spec.NodeClassRef == nil {
		spec.Template.Spec.NodeClassRef = TestNodeClassRef()
	}
	if spec.Template.Spec.Requirements == nil {
		spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{}
	}
	return &v1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("nodepool-" + name), CreationTimestamp: CreationTime},
		Spec:       spec,
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

// ManifestBytes renders the workload's objects as one multi-document YAML
// stream (NodePools, NodeClaims, Nodes, DaemonSets, then pods).
func (w *Workload) ManifestBytes() ([]byte, error) {
	mw := &manifests.Writer{}
	var objs []any
	for _, np := range w.NodePools {
		objs = append(objs, np)
	}
	for _, nc := range w.NodeClaims {
		objs = append(objs, nc)
	}
	for _, n := range w.Nodes {
		objs = append(objs, n)
	}
	for _, d := range w.DaemonSets {
		objs = append(objs, d)
	}
	for _, p := range w.Pods {
		objs = append(objs, p)
	}
	for _, o := range objs {
		if err := mw.Add(o); err != nil {
			return nil, err
		}
	}
	return mw.Bytes(), nil
}

// Write stores the workload as dir/manifests.yaml, dir/catalog.yaml and
// dir/options.yaml.
func (w *Workload) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := w.ManifestBytes()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifests.yaml"), b, 0o644); err != nil {
		return err
	}
	if err := writeOptions(filepath.Join(dir, "options.yaml"), w.Options); err != nil {
		return err
	}
	return w.Catalog.Save(filepath.Join(dir, "catalog.yaml"))
}
