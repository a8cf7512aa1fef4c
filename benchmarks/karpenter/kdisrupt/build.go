// Package kdisrupt runs Karpenter's disruption decision, as a library, on the
// disruption inputs nodeplan reads (workload.DisruptCase: the objects of a
// nodeplan DisruptRequest as kubectl YAML, the catalog, `now`), and renders
// it as nodeplan's DisruptResponse.
//
// Karpenter's own disruption tests need an API server (envtest); the decision
// itself does not. The construction here: a controller-runtime fake client
// with the status subresource for NodeClaims and NodePools (without it the
// NodeClaim disruption controller's status writes vanish), the CRD defaults
// applied by hand (a fake client does not default), the fake cloud provider
// wrapped so that drift is answered per NodeClaim, a fake clock at `now`,
// the NodePool hash controller and the NodeClaim disruption controller
// reconciled once per object (they set the hash annotations and the
// Consolidatable and Drifted conditions), state.Cluster fed with every
// object, the provisioner, the disruption queue, and the five methods in
// production order with Karpenter's real validators called without their
// 15-second wait (so validation still re-reads candidates and budgets and
// re-runs the simulation).
//
// Karpenter keeps the well-known label set and MaxInstanceTypes in package
// variables: one decision at a time.
package kdisrupt

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/awslabs/operatorpkg/status"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	ncdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/nodepool/hash"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/state/cost"
	"sigs.k8s.io/karpenter/pkg/test"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// MethodNames are nodeplan's names of Karpenter's methods, in production
// order (disruption.NewMethods).
var MethodNames = []string{"emptiness", "static-drift", "drift", "multi-node-consolidation", "single-node-consolidation"}

// driftProvider answers IsDrifted per NodeClaim (the fake provider has one
// global answer), from the case's providerDrifted.
type driftProvider struct {
	*fake.CloudProvider
	drifted map[string]string
}

func (d *driftProvider) IsDrifted(_ context.Context, nc *v1.NodeClaim) (cloudprovider.DriftReason, error) {
	return cloudprovider.DriftReason(d.drifted[nc.Name]), nil
}

// noDelay calls a real validator without its 15-second wait on the clock.
type noDelay struct{ disruption.Validator }

func (v noDelay) Validate(ctx context.Context, cmd disruption.Command, _ time.Duration) (disruption.Command, error) {
	return v.Validator.Validate(ctx, cmd, 0)
}

// Env is Karpenter built for one case, before any method runs.
type Env struct {
	Ctx           context.Context
	Clock         *clocktesting.FakeClock
	Client        client.Client
	CloudProvider cloudprovider.CloudProvider
	Cluster       *state.Cluster
	ClusterCost   *cost.ClusterCost
	Provisioner   *provisioning.Provisioner
	Queue         *disruption.Queue
	Recorder      events.Recorder
	Methods       []disruption.Method
	maxTypes      int
}

// Build constructs Karpenter's disruption machinery for a case and runs the
// controllers that precede a disruption pass (hash, NodeClaim disruption).
func Build(c *workload.DisruptCase) (*Env, error) {
	now, err := time.Parse(time.RFC3339, c.Params.Now)
	if err != nil {
		return nil, fmt.Errorf("disrupt.yaml: now: %w", err)
	}
	its, err := c.Catalog.ToKarpenter()
	if err != nil {
		return nil, err
	}
	kadapter.SetWellKnownLabels(c.Catalog.WellKnownLabels)

	o := c.Opts()
	opts := test.Options()
	if o.PreferencePolicy == "Ignore" {
		opts.PreferencePolicy = options.PreferencePolicyIgnore
	}
	if o.MinValuesPolicy == "BestEffort" {
		opts.MinValuesPolicy = options.MinValuesPolicyBestEffort
	}
	// Read by consolidation from the options in the context.
	opts.FeatureGates.SpotToSpotConsolidation = o.SpotToSpotConsolidation
	ctx := options.ToContext(injection.WithControllerName(context.Background(), "disruption"), opts)
	if os.Getenv("KADAPTER_LOG") != "" {
		ctx = log.IntoContext(ctx, zap.New(zap.UseDevMode(true), zap.Level(zapcore.Level(-1))))
	}

	objs, err := objects(c)
	if err != nil {
		return nil, err
	}
	var kubeClient client.Client = fakecr.NewClientBuilder().WithObjects(objs...).
		WithStatusSubresource(&v1.NodeClaim{}, &v1.NodePool{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
			return []string{o.(*corev1.Pod).Spec.NodeName}
		}).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string {
			return []string{o.(*corev1.Node).Spec.ProviderID}
		}).
		WithIndex(&v1.NodeClaim{}, "status.providerID", func(o client.Object) []string {
			return []string{o.(*v1.NodeClaim).Status.ProviderID}
		}).Build()
	fp := fake.NewCloudProvider()
	fp.InstanceTypes = its
	cp := &driftProvider{CloudProvider: fp, drifted: c.Params.ProviderDrifted}
	clk := clocktesting.NewFakeClock(now)

	// The controllers that run before a disruption pass would: the NodePool
	// hash controller, then the NodeClaim disruption controller.
	hashCtl := hash.NewController(kubeClient, cp)
	for _, np := range c.NodePools {
		got := &v1.NodePool{}
		if err := kubeClient.Get(ctx, types.NamespacedName{Name: np.Name}, got); err != nil {
			return nil, err
		}
		if _, err := hashCtl.Reconcile(ctx, got); err != nil {
			return nil, fmt.Errorf("nodepool %s: hash: %w", np.Name, err)
		}
	}
	ncCtl := ncdisruption.NewController(clk, kubeClient, cp)
	for _, nc := range c.NodeClaims {
		got := &v1.NodeClaim{}
		if err := kubeClient.Get(ctx, types.NamespacedName{Name: nc.Name}, got); err != nil {
			return nil, err
		}
		if _, err := ncCtl.Reconcile(ctx, got); err != nil {
			return nil, fmt.Errorf("nodeclaim %s: disruption conditions: %w", nc.Name, err)
		}
	}

	// From here on nothing writes pods: serve pod lists from an index.
	cached, err := newPodCache(ctx, kubeClient)
	if err != nil {
		return nil, err
	}
	kubeClient = cached
	cluster := state.NewCluster(clk, kubeClient, cp)
	clusterCost := cost.NewClusterCost(ctx, cp, kubeClient)
	npList := &v1.NodePoolList{}
	if err := kubeClient.List(ctx, npList); err != nil {
		return nil, err
	}
	for i := range npList.Items {
		clusterCost.UpdateOfferings(ctx, &npList.Items[i], its)
	}
	ncList := &v1.NodeClaimList{}
	if err := kubeClient.List(ctx, ncList); err != nil {
		return nil, err
	}
	sort.Slice(ncList.Items, func(i, j int) bool { return ncList.Items[i].Name < ncList.Items[j].Name })
	for i := range ncList.Items {
		nc := &ncList.Items[i]
		cluster.UpdateNodeClaim(nc)
		if err := clusterCost.UpdateNodeClaim(ctx, nc); err != nil {
			return nil, fmt.Errorf("nodeclaim %s: cost: %w", nc.Name, err)
		}
	}
	for _, n := range c.Nodes {
		got := &corev1.Node{}
		if err := kubeClient.Get(ctx, types.NamespacedName{Name: n.Name}, got); err != nil {
			return nil, err
		}
		if err := cluster.UpdateNode(ctx, got); err != nil {
			return nil, fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	for _, d := range c.DaemonSets {
		if err := cluster.UpdateDaemonSet(ctx, d.DeepCopy()); err != nil {
			return nil, fmt.Errorf("daemonset %s/%s: %w", d.Namespace, d.Name, err)
		}
	}
	podList := &corev1.PodList{}
	if err := kubeClient.List(ctx, podList); err != nil {
		return nil, err
	}
	for i := range podList.Items {
		if err := cluster.UpdatePod(ctx, &podList.Items[i]); err != nil {
			return nil, fmt.Errorf("pod %s: %w", podList.Items[i].Name, err)
		}
	}
	providerIDs := map[string]string{}
	for _, n := range c.Nodes {
		providerIDs[n.Name] = n.Spec.ProviderID
	}
	for _, name := range c.Params.MarkedForDeletion {
		if id := providerIDs[name]; id != "" {
			cluster.MarkForDeletion(id)
		}
	}
	for _, name := range c.Params.Nominated {
		if id := providerIDs[name]; id != "" {
			cluster.NominateNodeForPod(ctx, id)
		}
	}

	recorder := events.NewRecorder(&record.FakeRecorder{})
	prov := provisioning.NewProvisioner(kubeClient, recorder, cp, cluster, clk, nil, nil)
	queue := disruption.NewQueue(kubeClient, recorder, cluster, clk, prov)
	cons := disruption.MakeConsolidation(clk, cluster, kubeClient, prov, cp, recorder, queue)
	methods := []disruption.Method{
		disruption.NewEmptiness(cons, disruption.WithValidator(noDelay{disruption.NewEmptinessValidator(cons)})),
		disruption.NewStaticDrift(cluster, prov, cp),
		disruption.NewDrift(kubeClient, cluster, prov, recorder, clk),
		disruption.NewMultiNodeConsolidation(cons, disruption.WithValidator(noDelay{disruption.NewMultiConsolidationValidator(cons)})),
		disruption.NewSingleNodeConsolidation(cons, disruption.WithValidator(noDelay{disruption.NewSingleConsolidationValidator(cons)})),
	}
	maxTypes := o.MaxInstanceTypes
	if maxTypes <= 0 {
		maxTypes = 600
	}
	return &Env{Ctx: ctx, Clock: clk, Client: kubeClient, CloudProvider: cp, Cluster: cluster, ClusterCost: clusterCost,
		Provisioner: prov, Queue: queue, Recorder: recorder, Methods: methods, maxTypes: maxTypes}, nil
}

// objects deep-copies the case's objects with what the API server would have
// added: CRD defaults, UIDs, and a finalizer on objects being deleted (the
// fake client refuses a deletionTimestamp without one).
func objects(c *workload.DisruptCase) ([]client.Object, error) {
	var out []client.Object
	for _, np := range c.NodePools {
		np = np.DeepCopy()
		DefaultNodePool(np)
		out = append(out, np)
	}
	for _, nc := range c.NodeClaims {
		nc = nc.DeepCopy()
		out = append(out, withFinalizer(nc))
	}
	for _, n := range c.Nodes {
		out = append(out, withFinalizer(n.DeepCopy()))
	}
	for _, p := range c.Pods {
		p = p.DeepCopy()
		if p.UID == "" {
			// The identity nodeplan gives a UID-less pod, so Karpenter's
			// UID-keyed caches and tie order see the same pods.
			p.UID = kadapter.PodIdentity(p)
		}
		out = append(out, withFinalizer(p))
	}
	for _, d := range c.DaemonSets {
		out = append(out, d.DeepCopy())
	}
	for _, p := range c.PDBs {
		out = append(out, p.DeepCopy())
	}
	return out, nil
}

func withFinalizer[T client.Object](o T) T {
	if o.GetDeletionTimestamp() != nil && len(o.GetFinalizers()) == 0 {
		o.SetFinalizers([]string{v1.TerminationFinalizer})
	}
	return o
}

// DefaultNodePool applies the NodePool CRD's defaults that typed objects
// can tell apart from an explicit value (policy WhenEmptyOrUnderutilized,
// budgets [{nodes: 10%}]); consolidateAfter and expireAfter, whose zero value
// means "Never", are defaulted on the raw document when manifests are read
// (manifests.defaultKarpenter). It also gives the NodePool the Ready
// condition a NodePool with a resolvable NodeClass has (the provisioner
// skips NodePools that are not Ready).
func DefaultNodePool(np *v1.NodePool) {
	d := &np.Spec.Disruption
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	if d.Budgets == nil {
		d.Budgets = []v1.Budget{{Nodes: "10%"}}
	}
	for i := range d.Budgets {
		if d.Budgets[i].Nodes == "" {
			d.Budgets[i].Nodes = "10%"
		}
	}
	if np.Spec.Template.Spec.Requirements == nil {
		np.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{}
	}
	if !np.StatusConditions().IsTrue(status.ConditionReady) {
		np.StatusConditions().SetTrue(v1.ConditionTypeValidationSucceeded)
		np.StatusConditions().SetTrue(v1.ConditionTypeNodeClassReady)
		for i := range np.Status.Conditions {
			np.Status.Conditions[i].LastTransitionTime = metav1.NewTime(np.CreationTimestamp.Time)
		}
	}
}
