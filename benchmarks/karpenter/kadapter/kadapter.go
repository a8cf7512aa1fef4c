// Package kadapter runs Karpenter's provisioning scheduler, as a library, on
// the inputs nodeplan reads, and renders the result in the shape of nodeplan's
// ScheduleResponse.
//
// The construction is the one of Karpenter's scheduling benchmark
// (pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go): a
// controller-runtime fake client, the fake cloud provider, state.NewCluster,
// scheduling.NewTopology and scheduling.NewScheduler, then Solve. Around it the
// steps of Provisioner.Schedule that a file-based input needs are reproduced
// by calling Karpenter's exported helpers: NodePools ordered by weight,
// DaemonSet pods from their templates, existing nodes and bound pods loaded
// into cluster state, strict reserved-offering mode, and instance-type options
// truncated to MaxInstanceTypes after Solve.
package kadapter

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/samber/lo"
	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/test"
	"sigs.k8s.io/karpenter/pkg/utils/daemonset"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/response"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

func init() {
	log.SetLogger(logging.NopLogger)
}

// baseWellKnownLabels is Karpenter's well-known label set as this process
// started (the fake provider's init has added its own keys by then).
var baseWellKnownLabels = sets.New(v1.WellKnownLabels.UnsortedList()...)

// SetWellKnownLabels makes Karpenter's well-known label set the process's
// initial set plus a catalog's wellKnownLabels (a package variable).
func SetWellKnownLabels(extra []string) {
	v1.WellKnownLabels = baseWellKnownLabels.Clone().Insert(extra...)
}

// Prepared is a scheduler built for one input, ready to Solve. Like the
// benchmark, it may be solved repeatedly; Karpenter's scheduler keeps the
// NodeClaims and topology counts of earlier Solve calls.
type Prepared struct {
	Ctx       context.Context
	Scheduler *scheduling.Scheduler
	Pending   []*corev1.Pod
	// Pods that are not pending (bound, DaemonSet-owned, terminal).
	Ignored    int
	maxTypes   int
	nodePools  []*v1.NodePool
	stateNodes []*state.StateNode
}

// IsPending is nodeplan's rule for a pending pod (schedule.proto): no
// spec.nodeName, not owned by a DaemonSet or a Node, and not terminal.
func IsPending(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" || o.Kind == "Node" {
			return false
		}
	}
	return true
}

// Prepare builds Karpenter's scheduler for a workload. It is not safe to call
// concurrently: Karpenter keeps the well-known label set and MaxInstanceTypes
// in package variables.
func Prepare(w *workload.Workload) (*Prepared, error) {
	its, err := w.Catalog.ToKarpenter()
	if err != nil {
		return nil, err
	}
	SetWellKnownLabels(w.Catalog.WellKnownLabels)

	opts := test.Options()
	if w.Options.PreferencePolicy == "Ignore" {
		opts.PreferencePolicy = options.PreferencePolicyIgnore
	}
	if w.Options.MinValuesPolicy == "BestEffort" {
		opts.MinValuesPolicy = options.MinValuesPolicyBestEffort
	}
	ctx := options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), opts)
	// KADAPTER_LOG=1 shows Karpenter's own log lines at V(1) (relaxations,
	// "could not schedule"): the way to see why Karpenter decided as it did.
	if os.Getenv("KADAPTER_LOG") != "" {
		ctx = log.IntoContext(ctx, zap.New(zap.UseDevMode(true), zap.Level(zapcore.Level(-1))))
		log.FromContext(ctx).V(1).Info("kadapter: Karpenter log on")
	}

	// Pods: give every UID-less pod the identity nodeplan gives it
	// (Karpenter caches per-pod data by UID and breaks queue ties by it, so
	// both sides must see the same UIDs), and split pending from bound ones.
	var pending, bound []*corev1.Pod
	ignored := 0
	for _, p := range w.Pods {
		p = p.DeepCopy()
		if p.UID == "" {
			p.UID = PodIdentity(p)
		}
		switch {
		case IsPending(p):
			pending = append(pending, p)
		default:
			ignored++
			if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				bound = append(bound, p)
			}
		}
	}

	// Pending pods in nodeplan's canonical input order (namespace, then
	// name: include/nodeplan/schedule.h). Karpenter lists them from its
	// informer cache, which has no order, and NewTopology builds the
	// topology groups in the order it is given: a group shared by pods whose
	// TopologyGroup.Hash is equal keeps what the hash leaves out (minDomains,
	// the node filter's values) from the first of them. File order would
	// hand Karpenter a different input from nodeplan's (varied-untied-816).
	sort.SliceStable(pending, func(i, j int) bool {
		ni, nj := lo.CoalesceOrEmpty(pending[i].Namespace, "default"), lo.CoalesceOrEmpty(pending[j].Namespace, "default")
		if ni != nj {
			return ni < nj
		}
		return pending[i].Name < pending[j].Name
	})

	var objs []client.Object
	for _, n := range w.Nodes {
		objs = append(objs, n.DeepCopy())
	}
	for _, p := range bound {
		objs = append(objs, p)
	}
	for _, d := range w.DaemonSets {
		objs = append(objs, d.DeepCopy())
	}
	for _, nc := range w.NodeClaims {
		objs = append(objs, nc.DeepCopy())
	}
	// Cluster state lists a node's pods by the spec.nodeName field index, as
	// the manager's cache provides it in a real controller.
	kubeClient := fakecr.NewClientBuilder().WithObjects(objs...).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
			return []string{o.(*corev1.Pod).Spec.NodeName}
		}).Build()
	cloudProvider := fake.NewCloudProvider()
	cloudProvider.InstanceTypes = its
	clk := &clock.RealClock{}
	cluster := state.NewCluster(clk, kubeClient, cloudProvider)
	for _, n := range w.Nodes {
		if err := cluster.UpdateNode(ctx, n.DeepCopy()); err != nil {
			return nil, fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	// In-flight NodeClaims (a provider ID, no Node yet) become state nodes
	// of their own and count against their NodePool's limits.
	for _, nc := range w.NodeClaims {
		cluster.UpdateNodeClaim(nc.DeepCopy())
	}
	for _, p := range bound {
		if err := cluster.UpdatePod(ctx, p); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	stateNodes := cluster.DeepCopyNodes().Active()

	// NodePools as Provisioner.NewScheduler selects them: dynamic ones only,
	// ordered by weight then name.
	nodePools := lo.Filter(lo.Map(w.NodePools, func(np *v1.NodePool, _ int) *v1.NodePool { return np.DeepCopy() }),
		func(np *v1.NodePool, _ int) bool { return !nodepoolutils.IsStatic(np) })
	nodepoolutils.OrderByWeight(nodePools)
	instanceTypes := map[string][]*cloudprovider.InstanceType{}
	for _, np := range nodePools {
		instanceTypes[np.Name] = its
	}

	schedOpts := []scheduling.Options{
		scheduling.DisableReservedCapacityFallback,
		scheduling.NumConcurrentReconciles(5),
		scheduling.MinValuesPolicy(opts.MinValuesPolicy),
	}
	if opts.PreferencePolicy == options.PreferencePolicyIgnore {
		schedOpts = append(schedOpts, scheduling.IgnorePreferences)
	}
	topology, err := scheduling.NewTopology(ctx, kubeClient, cluster, stateNodes, nodePools, instanceTypes, pending, schedOpts...)
	if err != nil {
		return nil, fmt.Errorf("creating topology: %w", err)
	}
	daemonPods := lo.Map(w.DaemonSets, func(d *appsv1.DaemonSet, _ int) *corev1.Pod { return daemonSetPod(d) })
	s := scheduling.NewScheduler(ctx, kubeClient, nodePools, cluster, stateNodes, topology, instanceTypes, daemonPods,
		events.NewRecorder(&record.FakeRecorder{}), clk, nil, nil, schedOpts...)
	maxTypes := w.Options.MaxInstanceTypes
	if maxTypes <= 0 {
		maxTypes = 600
	}
	return &Prepared{Ctx: ctx, Scheduler: s, Pending: pending, Ignored: ignored, maxTypes: maxTypes,
		nodePools: nodePools, stateNodes: stateNodes}, nil
}

// daemonSetPod is the pod Karpenter schedules for a DaemonSet that has no pod
// in cluster state: the template pod, with the template's required node
// affinity (the DaemonSet controller would otherwise overwrite it per node).
func daemonSetPod(d *appsv1.DaemonSet) *corev1.Pod {
	pod := daemonset.PodForDaemonSet(d)
	if a := d.Spec.Template.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if pod.Spec.Affinity == nil {
			pod.Spec.Affinity = &corev1.Affinity{}
		}
		if pod.Spec.Affinity.NodeAffinity == nil {
			pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return pod
}

// Solve runs Karpenter's Solve once (what the benchmark times).
func (p *Prepared) Solve() (scheduling.Results, error) {
	return p.Scheduler.Solve(p.Ctx, p.Pending)
}

// Schedule runs one provisioning decision the way Provisioner.Schedule does:
// Solve, then truncate instance-type options to MaxInstanceTypes (re-checking
// minValues), and renders it.
func (p *Prepared) Schedule() (*response.ScheduleResponse, error) {
	saved := scheduling.MaxInstanceTypes
	scheduling.MaxInstanceTypes = p.maxTypes
	defer func() { scheduling.MaxInstanceTypes = saved }()
	results, err := p.Solve()
	if err != nil {
		return nil, err
	}
	results = results.TruncateInstanceTypes(p.Ctx, p.maxTypes)
	resp := Render(results)
	resp.IgnoredPods = int32(p.Ignored)
	return resp, nil
}

// Schedule prepares and runs one decision for a workload.
func Schedule(w *workload.Workload) (*response.ScheduleResponse, error) {
	p, err := Prepare(w)
	if err != nil {
		return nil, err
	}
	return p.Schedule()
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// PodIdentity is the UID nodeplan uses for a pod: its metadata.uid, or for a
// pod without one (a hand-written manifest, kubectl apply input)
// "<namespace>/<name>" with an empty namespace read as "default"
// (include/nodeplan/schedule.h). Karpenter gets the same UIDs, so both sides
// order tied pods alike.
func PodIdentity(p *corev1.Pod) types.UID {
	if p.UID != "" {
		return p.UID
	}
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	return types.UID(ns + "/" + p.Name)
}

// launchReservationID is the reservation an offering launches into: its
// reservation-ID requirement, or none. (Offering.ReservationID() answers a
// made-up value for an offering without that requirement.)
func launchReservationID(o *cloudprovider.Offering) string {
	if !o.Requirements.Has(cloudprovider.ReservationIDLabel) {
		return ""
	}
	return o.ReservationID()
}

// Render converts Karpenter's Results to nodeplan's ScheduleResponse shape.
// NodeClaims are named <nodepool>-<n> in creation order (Karpenter names them
// only when it creates them). The launch is the cheapest available offering
// compatible with the NodeClaim's requirements among its instance-type
// options (ties: option order, then offering order); Karpenter leaves that
// choice to the cloud provider, and this is the rule price-ordered launch
// follows.
func Render(results scheduling.Results) *response.ScheduleResponse {
	resp := &response.ScheduleResponse{}
	perPool := map[string]int{}
	for _, nc := range results.NewNodeClaims {
		perPool[nc.NodePoolName]++
		out := response.NewNodeClaim{
			Name:        fmt.Sprintf("%s-%d", nc.NodePoolName, perPool[nc.NodePoolName]),
			NodePool:    nc.NodePoolName,
			Pods:        lo.Map(nc.Pods, func(p *corev1.Pod, _ int) string { return podKey(p) }),
			Annotations: lo.PickByKeys(nc.Annotations, []string{v1.NodePoolHashAnnotationKey, v1.NodePoolHashVersionAnnotationKey}),
		}
		ordered := nc.InstanceTypeOptions.OrderByPrice(nc.Requirements)
		var best *response.Launch
		for _, it := range ordered {
			out.InstanceTypes = append(out.InstanceTypes, it.Name)
			for _, o := range it.Offerings.Available().Compatible(nc.Requirements) {
				if best == nil || o.Price < best.Price {
					best = &response.Launch{InstanceType: it.Name, Zone: o.Zone(), CapacityType: o.CapacityType(), Price: o.Price, ReservationID: launchReservationID(o)}
				}
			}
		}
		out.Launch = best
		if best != nil {
			resp.Cost += best.Price
		}
		if len(nc.Spec.Resources.Requests) > 0 {
			out.Requests = map[string]string{}
			for k, v := range nc.Spec.Resources.Requests {
				out.Requests[string(k)] = v.String()
			}
		}
		resp.NewNodeClaims = append(resp.NewNodeClaims, out)
	}
	for _, en := range results.ExistingNodes {
		if len(en.Pods) == 0 {
			continue
		}
		kind := "Node"
		name := en.Name()
		if en.Node == nil && en.NodeClaim != nil {
			kind, name = "NodeClaim", en.NodeClaim.Name
		}
		resp.ExistingNodes = append(resp.ExistingNodes, response.ExistingNodePlacement{
			Name: name, Kind: kind, Pods: lo.Map(en.Pods, func(p *corev1.Pod, _ int) string { return podKey(p) }),
		})
	}
	for p, err := range results.PodErrors {
		resp.Unschedulable = append(resp.Unschedulable, response.UnschedulablePod{Pod: podKey(p), Reason: err.Error()})
	}
	sort.Slice(resp.Unschedulable, func(i, j int) bool { return resp.Unschedulable[i].Pod < resp.Unschedulable[j].Pod })
	return resp
}
