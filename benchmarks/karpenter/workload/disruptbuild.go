package workload

import (
	"fmt"
	"time"

	"github.com/awslabs/operatorpkg/status"
	"github.com/samber/lo"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// DisruptNow is the decision time of generated disruption cases.
var DisruptNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// DisruptBuilder assembles a disruption case object by object, in the state
// a running cluster shows: managed Nodes paired with launched, registered and
// initialized NodeClaims, bound running pods, PDBs with their status.
type DisruptBuilder struct {
	Case  *DisruptCase
	its   map[string]*cloudprovider.InstanceType
	cat   map[string]catalog.InstanceType
	pods  int
	nodes int
}

// NewDisruptBuilder starts a case on a catalog, at DisruptNow. The catalog
// gets the apiVersion and kind the CLI's --catalog file needs, so a case
// directory also runs as `nodeplan disrupt -f manifests.yaml --catalog
// catalog.yaml --now ...`.
func NewDisruptBuilder(name string, cat *catalog.Catalog) *DisruptBuilder {
	cat.APIVersion, cat.Kind = "nodeplan.dev/v1", "Catalog"
	b := &DisruptBuilder{Case: &DisruptCase{Name: name, Catalog: cat,
		Params: DisruptParams{Now: DisruptNow.Format(time.RFC3339)}},
		its: map[string]*cloudprovider.InstanceType{}, cat: map[string]catalog.InstanceType{}}
	its, err := cat.ToKarpenter()
	if err != nil {
		panic(err)
	}
	for _, it := range its {
		b.its[it.Name] = it
	}
	for _, it := range cat.InstanceTypes {
		b.cat[it.Name] = it
	}
	return b
}

// NodePool adds a NodePool (marked Ready, with its hash annotations as the
// hash controller writes them).
func (b *DisruptBuilder) NodePool(np *v1.NodePool) *v1.NodePool {
	np.Annotations = lo.Assign(np.Annotations, map[string]string{
		v1.NodePoolHashAnnotationKey: np.Hash(), v1.NodePoolHashVersionAnnotationKey: v1.NodePoolHashVersion})
	np.StatusConditions().SetTrue(v1.ConditionTypeValidationSucceeded)
	np.StatusConditions().SetTrue(v1.ConditionTypeNodeClassReady)
	for i := range np.Status.Conditions {
		np.Status.Conditions[i].LastTransitionTime = CreationTime
	}
	b.Case.NodePools = append(b.Case.NodePools, np)
	return np
}

// NodeSpec says how a managed node is built.
type NodeSpec struct {
	InstanceType, Zone, CapacityType string
	// Age at DisruptNow (creation); Initialized one minute after creation.
	Age time.Duration
	// LastPodEvent before DisruptNow; 0 leaves status.lastPodEventTime unset.
	LastPodEvent  time.Duration
	Uninitialized bool
	Deleting      bool
	NotReady      bool
	DoNotDisrupt  bool
	// NodeClaim hash annotations: "" takes the NodePool's.
	Hash, HashVersion string
	// Extra NodeClaim and Node labels (e.g. one a requirement rejects).
	Labels map[string]string
	// NodeClaim spec.terminationGracePeriod.
	TerminationGracePeriod *time.Duration
	ExpireAfter            string
}

// ManagedNode adds a Node and its NodeClaim for NodePool np, named
// node-<n> and <np>-<n>; it returns the Node.
func (b *DisruptBuilder) ManagedNode(np *v1.NodePool, s NodeSpec) *corev1.Node {
	b.nodes++
	it := b.its[s.InstanceType]
	if it == nil {
		panic("no instance type " + s.InstanceType)
	}
	name := fmt.Sprintf("node-%03d", b.nodes)
	ncName := fmt.Sprintf("%s-%03d", np.Name, b.nodes)
	created := metav1.NewTime(DisruptNow.Add(-s.Age))
	labels := map[string]string{
		v1.NodePoolLabelKey: np.Name, corev1.LabelInstanceTypeStable: it.Name,
		corev1.LabelTopologyZone: s.Zone, v1.CapacityTypeLabelKey: s.CapacityType,
	}
	for k, v := range b.cat[it.Name].Labels {
		labels[k] = v
	}
	for k, v := range np.Spec.Template.Labels {
		labels[k] = v
	}
	// Single-valued In requirements of the NodePool become labels, as
	// Karpenter writes them on launch.
	for _, r := range np.Spec.Template.Spec.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 && labels[r.Key] == "" {
			labels[r.Key] = r.Values[0]
		}
	}
	for k, v := range s.Labels {
		labels[k] = v
	}
	hashV, hashVer := np.Annotations[v1.NodePoolHashAnnotationKey], v1.NodePoolHashVersion
	if s.Hash != "" {
		hashV = s.Hash
	}
	if s.HashVersion != "" {
		hashVer = s.HashVersion
	}
	providerID := "fake:///" + name
	nc := &v1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: ncName, UID: types.UID("nc-" + ncName), CreationTimestamp: created,
			Labels:      lo.Assign(labels),
			Annotations: map[string]string{v1.NodePoolHashAnnotationKey: hashV, v1.NodePoolHashVersionAnnotationKey: hashVer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: np.Name,
				UID: np.UID, BlockOwnerDeletion: lo.ToPtr(true)}},
			Finalizers: []string{v1.TerminationFinalizer}},
		Spec: v1.NodeClaimSpec{
			Taints:       np.Spec.Template.Spec.Taints,
			NodeClassRef: np.Spec.Template.Spec.NodeClassRef,
			Requirements: append(append([]v1.NodeSelectorRequirementWithMinValues{}, np.Spec.Template.Spec.Requirements...),
				v1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{it.Name}}),
			ExpireAfter: np.Spec.Template.Spec.ExpireAfter,
		},
		Status: v1.NodeClaimStatus{ProviderID: providerID, NodeName: name, Capacity: it.Capacity, Allocatable: it.Allocatable()},
	}
	if s.ExpireAfter != "" {
		nc.Spec.ExpireAfter = v1.MustParseNillableDuration(s.ExpireAfter)
	}
	if s.TerminationGracePeriod != nil {
		nc.Spec.TerminationGracePeriod = &metav1.Duration{Duration: *s.TerminationGracePeriod}
	}
	conds := []string{v1.ConditionTypeLaunched, v1.ConditionTypeRegistered}
	if !s.Uninitialized {
		conds = append(conds, v1.ConditionTypeInitialized)
	}
	for _, t := range conds {
		nc.Status.Conditions = append(nc.Status.Conditions, status.Condition{Type: t, Status: metav1.ConditionTrue,
			Reason: t, LastTransitionTime: metav1.NewTime(created.Add(time.Minute))})
	}
	if s.LastPodEvent > 0 {
		nc.Status.LastPodEventTime = metav1.NewTime(DisruptNow.Add(-s.LastPodEvent))
	}
	nodeLabels := lo.Assign(labels, map[string]string{corev1.LabelHostname: name, v1.NodeRegisteredLabelKey: "true"})
	if !s.Uninitialized {
		nodeLabels[v1.NodeInitializedLabelKey] = "true"
	}
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), CreationTimestamp: created, Labels: nodeLabels},
		Spec:       corev1.NodeSpec{ProviderID: providerID, Taints: np.Spec.Template.Spec.Taints},
		Status: corev1.NodeStatus{Capacity: it.Capacity, Allocatable: it.Allocatable(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastTransitionTime: metav1.NewTime(created.Add(time.Minute))}}},
	}
	if s.NotReady {
		node.Status.Conditions[0].Status = corev1.ConditionFalse
	}
	if s.DoNotDisrupt {
		node.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
	}
	if s.Deleting {
		t := metav1.NewTime(DisruptNow.Add(-30 * time.Second))
		nc.DeletionTimestamp = &t
		node.DeletionTimestamp = &t
		node.Finalizers = []string{v1.TerminationFinalizer}
	}
	b.Case.NodeClaims = append(b.Case.NodeClaims, nc)
	b.Case.Nodes = append(b.Case.Nodes, node)
	return node
}

// PodSpec says how a bound pod is built.
type PodSpec struct {
	CPU, Memory string
	Labels      map[string]string
	// Owner: "" (bare pod), "ReplicaSet" or "DaemonSet"; OwnerName names it.
	Owner, OwnerName string
	// DoNotDisrupt: "" (none), "true" or a duration ("5m").
	DoNotDisrupt string
	// Started this long before DisruptNow.
	Started time.Duration
	// Pod priority and deletion cost feed the eviction cost.
	Priority     *int32
	DeletionCost string
}

// Pod adds a running pod bound to node ("" for a pending pod).
func (b *DisruptBuilder) Pod(node string, s PodSpec) *corev1.Pod {
	b.pods++
	req := corev1.ResourceList{}
	if s.CPU != "" {
		req[corev1.ResourceCPU] = resource.MustParse(s.CPU)
	}
	if s.Memory != "" {
		req[corev1.ResourceMemory] = resource.MustParse(s.Memory)
	}
	p := PendingPod(fmt.Sprintf("pod-%03d", b.pods), UID('d', b.pods), lo.Assign(s.Labels), req)
	p.CreationTimestamp = metav1.NewTime(DisruptNow.Add(-s.Started - time.Minute))
	if s.Owner != "" {
		apiVersion := "apps/v1"
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: s.Owner, Name: s.OwnerName,
			UID: types.UID(s.Owner + "-" + s.OwnerName), Controller: lo.ToPtr(true)}}
	}
	if s.DoNotDisrupt != "" {
		p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: s.DoNotDisrupt}
	}
	if s.DeletionCost != "" {
		p.Annotations = lo.Assign(p.Annotations, map[string]string{"controller.kubernetes.io/pod-deletion-cost": s.DeletionCost})
	}
	p.Spec.Priority = s.Priority
	if node != "" {
		p.Spec.NodeName = node
		start := metav1.NewTime(DisruptNow.Add(-s.Started))
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	}
	b.Case.Pods = append(b.Case.Pods, p)
	return p
}

// DaemonSet adds a DaemonSet and its pod on every node given.
func (b *DisruptBuilder) DaemonSet(name, cpu string, nodes []*corev1.Node) {
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("DaemonSet-" + name), CreationTimestamp: CreationTime},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"ds": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"ds": name}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}},
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
			},
		},
	}
	b.Case.DaemonSets = append(b.Case.DaemonSets, ds)
	for _, n := range nodes {
		if n.DeletionTimestamp != nil {
			continue
		}
		p := b.Pod(n.Name, PodSpec{CPU: cpu, Labels: map[string]string{"ds": name}, Owner: "DaemonSet", OwnerName: name, Started: time.Hour})
		p.Spec.Tolerations = ds.Spec.Template.Spec.Tolerations
	}
}

// PDB adds a PodDisruptionBudget over pods labelled app=<app>, with the
// status the disruption controller would have computed for healthy pods.
func (b *DisruptBuilder) PDB(app string, minAvailable, maxUnavailable *intstr.IntOrString) {
	var pods []*corev1.Pod
	for _, p := range b.Case.Pods {
		if p.Labels["app"] == app && p.Spec.NodeName != "" {
			pods = append(pods, p)
		}
	}
	n := len(pods)
	desired := 0
	switch {
	case minAvailable != nil:
		v, _ := intstr.GetScaledValueFromIntOrPercent(minAvailable, n, true)
		desired = v
	case maxUnavailable != nil:
		v, _ := intstr.GetScaledValueFromIntOrPercent(maxUnavailable, n, true)
		desired = n - v
	}
	allowed := max(n-desired, 0)
	b.Case.PDBs = append(b.Case.PDBs, &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: "pdb-" + app, Namespace: "default", UID: types.UID("pdb-" + app), Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: int32(allowed),
			CurrentHealthy: int32(n), DesiredHealthy: int32(desired), ExpectedPods: int32(n)},
	})
}
