package kube_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/bindings/go/kube"
)

func pod(name string) *corev1.Pod {
	seconds := int64(300)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)),
		},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"},
			HostNetwork:  true,
			Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual,
				Value: "web", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}},
			Containers: []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("250m"),
					corev1.ResourceMemory: resource.MustParse("512Mi"),
				}}}},
		},
	}
}

func TestPod(t *testing.T) {
	p, err := kube.Pod(pod("web-1"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Metadata.Name != "web-1" || p.Metadata.CreationTimestamp != "2024-05-01T12:00:00Z" {
		t.Errorf("metadata %v", p.Metadata)
	}
	if !p.Spec.HostNetwork || p.Spec.NodeSelector["kubernetes.io/arch"] != "amd64" {
		t.Errorf("spec %v", p.Spec)
	}
	if got := p.Spec.Tolerations[0].GetTolerationSeconds(); got != 300 {
		t.Errorf("tolerationSeconds %d", got)
	}
	req := p.Spec.Containers[0].Resources.Requests
	if req["cpu"] != "250m" || req["memory"] != "512Mi" {
		t.Errorf("requests %v", req)
	}
}

func TestNode(t *testing.T) {
	n, err := kube.Node(&corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-23"},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-0abc",
			Taints: []corev1.Taint{{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourcePods: resource.MustParse("58"),
			corev1.ResourceCPU:  resource.MustParse("3920m")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n.Spec.ProviderId != "aws:///us-east-1a/i-0abc" || n.Status.Allocatable["pods"] != "58" ||
		n.Spec.Taints[0].Effect != "NoSchedule" {
		t.Errorf("node %v", n)
	}
}

// As a dynamic client returns a NodePool (numbers where strings belong too).
var nodePool = map[string]any{
	"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
	"metadata": map[string]any{"name": "general-purpose"},
	"spec": map[string]any{
		"weight": int64(10),
		"limits": map[string]any{"cpu": int64(1000)},
		"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
			"requirements": []any{map[string]any{
				"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": []any{int64(4)}}},
		}},
	},
	"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
}

func TestNodePoolFromUnstructuredAndMap(t *testing.T) {
	for name, obj := range map[string]any{
		"map":          nodePool,
		"unstructured": &unstructured.Unstructured{Object: nodePool},
	} {
		np, err := kube.NodePool(obj)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		req := np.Spec.Template.Spec.Requirements[0]
		if np.Spec.GetWeight() != 10 || np.Spec.Limits["cpu"] != "1000" || req.Values[0] != "4" || req.Operator != "Gt" {
			t.Errorf("%s: %v", name, np)
		}
	}
}

func TestManifestSetAndScheduleRequest(t *testing.T) {
	replicas := int32(3)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))}}
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas}}
	list := &corev1.PodList{Items: []corev1.Pod{*pod("a"), *pod("b")}}
	set, err := kube.ManifestSet(list, pdb, deploy, &unstructured.Unstructured{Object: nodePool},
		[]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pods) != 2 || len(set.NodePools) != 1 || len(set.Deployments) != 1 || len(set.Nodes) != 1 {
		t.Fatalf("set %v", set)
	}
	if set.PodDisruptionBudgets[0].Spec.MaxUnavailable != "1" {
		t.Errorf("maxUnavailable %q", set.PodDisruptionBudgets[0].Spec.MaxUnavailable)
	}
	namespaces := &corev1.NamespaceList{Items: []corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: map[string]string{"team": "data"}}}}}
	req, err := kube.ScheduleRequest(nil, list, nodePool, namespaces)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Pods) != 2 || len(req.NodePools) != 1 || req.CatalogRef != "aws" {
		t.Fatalf("request %v", req)
	}
	if len(req.Namespaces) != 1 || req.Namespaces[0].Metadata.Labels["team"] != "data" {
		t.Errorf("namespaces %v", req.Namespaces)
	}
}

func TestErrorsNameTheProblem(t *testing.T) {
	_, err := kube.ManifestSet(map[string]any{"apiVersion": "v1", "kind": "ConfigMap"})
	if err == nil || !strings.Contains(err.Error(), "ConfigMap") {
		t.Fatalf("err = %v", err)
	}
	_, err = kube.NodePool(map[string]any{"metadata": map[string]any{"name": "bad"}, "spec": "not-an-object"})
	if err == nil || !strings.Contains(err.Error(), "NodePool bad") {
		t.Fatalf("err = %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
