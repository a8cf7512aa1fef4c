package kdisrupt

import (
	"fmt"
	"math"
	"sort"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	pscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	nodeutils "sigs.k8s.io/karpenter/pkg/utils/node"
	"sigs.k8s.io/karpenter/pkg/utils/pdb"
	podutils "sigs.k8s.io/karpenter/pkg/utils/pod"

	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Reasons are the three budget reasons in nodeplan's response order.
var Reasons = []v1.DisruptionReason{v1.DisruptionReasonEmpty, v1.DisruptionReasonDrifted, v1.DisruptionReasonUnderutilized}

// Decide builds Karpenter for a case and renders its decision.
func Decide(c *workload.DisruptCase) (*nodeplanv1.DisruptResponse, error) {
	e, err := Build(c)
	if err != nil {
		return nil, err
	}
	return e.Decide()
}

// Pass runs the five methods in order, as the disruption controller's
// Reconcile does, and returns the first method's index and commands that
// are not no-ops (-1 when none).
func (e *Env) Pass() (int, []disruption.Command, error) {
	saved := pscheduling.MaxInstanceTypes
	pscheduling.MaxInstanceTypes = e.maxTypes
	defer func() { pscheduling.MaxInstanceTypes = saved }()
	for i, m := range e.Methods {
		candidates, totals, err := disruption.GetCandidatesWithTotals(e.Ctx, e.Cluster, e.Client, e.Recorder, e.Clock,
			e.CloudProvider, m.ShouldDisrupt, m.Class(), e.Queue, e.ClusterCost)
		if err != nil {
			return -1, nil, fmt.Errorf("%s: candidates: %w", MethodNames[i], err)
		}
		if len(candidates) == 0 {
			continue
		}
		if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
			setter.SetNodePoolTotals(totals)
		}
		budgets, err := disruption.BuildDisruptionBudgetMapping(e.Ctx, e.Cluster, e.Clock, e.Client, e.CloudProvider, e.Recorder, m.Reason())
		if err != nil {
			return -1, nil, fmt.Errorf("%s: budgets: %w", MethodNames[i], err)
		}
		cmds, err := m.ComputeCommands(e.Ctx, budgets, candidates...)
		if err != nil {
			return -1, nil, fmt.Errorf("%s: %w", MethodNames[i], err)
		}
		cmds = lo.Filter(cmds, func(c disruption.Command, _ int) bool { return c.Decision() != disruption.NoOpDecision })
		if len(cmds) > 0 {
			for j := range cmds {
				cmds[j].Method = m
			}
			return i, cmds, nil
		}
	}
	return -1, nil, nil
}

// Decide runs the pass and renders it with budgets, candidacy and
// conditions.
func (e *Env) Decide() (*nodeplanv1.DisruptResponse, error) {
	// Budgets, candidacy and conditions first: the methods do not change
	// cluster state (no command is started), but validation re-reads it.
	resp := &nodeplanv1.DisruptResponse{}
	var err error
	if resp.Budgets, err = e.budgets(); err != nil {
		return nil, err
	}
	if resp.Candidates, err = e.candidacy(); err != nil {
		return nil, err
	}
	if resp.Conditions, err = e.conditions(); err != nil {
		return nil, err
	}
	idx, cmds, err := e.Pass()
	if err != nil {
		return nil, err
	}
	if idx >= 0 {
		resp.Method = MethodNames[idx]
		for _, cmd := range cmds {
			rc, err := e.renderCommand(MethodNames[idx], cmd)
			if err != nil {
				return nil, err
			}
			resp.Commands = append(resp.Commands, rc)
		}
	}
	return resp, nil
}

func (e *Env) reschedulablePods(sn *state.StateNode) ([]string, error) {
	pods, err := sn.Pods(e.Ctx, e.Client)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pods {
		if podutils.IsReschedulable(p) {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (e *Env) renderCommand(method string, cmd disruption.Command) (*nodeplanv1.DisruptionCommand, error) {
	out := &nodeplanv1.DisruptionCommand{Method: method, Reason: string(cmd.Reason()), Decision: string(cmd.Decision())}
	for _, c := range cmd.Candidates {
		pods, err := e.reschedulablePods(c.StateNode)
		if err != nil {
			return nil, err
		}
		out.Candidates = append(out.Candidates, &nodeplanv1.CommandCandidate{
			Node: c.Name(), NodeClaim: c.NodeClaim.Name, NodePool: c.NodePool.Name,
			InstanceType: c.Labels()[corev1.LabelInstanceTypeStable], Zone: c.Labels()[corev1.LabelTopologyZone],
			CapacityType: c.Labels()[v1.CapacityTypeLabelKey], Price: c.Price,
			DisruptionCost: c.RescheduleDisruptionCost, Pods: pods,
		})
	}
	sort.Slice(out.Candidates, func(i, j int) bool { return out.Candidates[i].Node < out.Candidates[j].Node })
	for i, r := range cmd.Replacements {
		nc := &nodeplanv1.NewNodeClaim{Name: fmt.Sprintf("%s-%d", r.NodePoolName, i+1), NodePool: r.NodePoolName}
		for _, it := range r.InstanceTypeOptions.OrderByPrice(r.Requirements) {
			nc.InstanceTypes = append(nc.InstanceTypes, it.Name)
		}
		for _, p := range r.Pods {
			nc.Pods = append(nc.Pods, p.Namespace+"/"+p.Name)
		}
		sort.Strings(nc.Pods)
		out.Replacements = append(out.Replacements, nc)
	}
	out.SavingsPerHour = cmd.EstimatedSavings()
	return out, nil
}

// budgets reports, per NodePool and reason, what BuildDisruptionBudgetMapping
// gives (allowed) and the NodePool's own minimum over active budgets (raw).
func (e *Env) budgets() ([]*nodeplanv1.BudgetAllowance, error) {
	numNodes, disrupting := map[string]int{}, map[string]int{}
	for _, n := range e.Cluster.DeepCopyNodes() {
		if !n.Managed() || !n.Initialized() ||
			n.NodeClaim.StatusConditions().Get(v1.ConditionTypeInstanceTerminating).IsTrue() {
			continue
		}
		np := n.Labels()[v1.NodePoolLabelKey]
		numNodes[np]++
		if cond := nodeutils.GetCondition(n.Node, corev1.NodeReady); cond.Status != corev1.ConditionTrue || n.MarkedForDeletion() {
			disrupting[np]++
		}
	}
	nps := &v1.NodePoolList{}
	if err := e.Client.List(e.Ctx, nps); err != nil {
		return nil, err
	}
	sort.Slice(nps.Items, func(i, j int) bool { return nps.Items[i].Name < nps.Items[j].Name })
	mappings := map[v1.DisruptionReason]map[string]int{}
	for _, r := range Reasons {
		m, err := disruption.BuildDisruptionBudgetMapping(e.Ctx, e.Cluster, e.Clock, e.Client, e.CloudProvider, e.Recorder, r)
		if err != nil {
			return nil, err
		}
		mappings[r] = m
	}
	var out []*nodeplanv1.BudgetAllowance
	for i := range nps.Items {
		np := &nps.Items[i]
		for _, r := range Reasons {
			raw, err := np.GetAllowedDisruptionsByReason(e.Clock, numNodes[np.Name], r)
			if err != nil {
				raw = 0
			}
			b := &nodeplanv1.BudgetAllowance{NodePool: np.Name, Reason: string(r), Allowed: int32(mappings[r][np.Name]),
				Raw: int32(lo.Min([]int{raw, math.MaxInt32})), Nodes: int32(numNodes[np.Name]), Disrupting: int32(disrupting[np.Name])}
			for j := range np.Spec.Disruption.Budgets {
				active, err := np.Spec.Disruption.Budgets[j].IsActive(e.Clock)
				b.Active = append(b.Active, err == nil && active)
			}
			out = append(out, b)
		}
	}
	return out, nil
}

// candidacy reports, for every node with a NodeClaim and a Node, whether
// Karpenter makes it a candidate in each class and for each method.
func (e *Env) candidacy() ([]*nodeplanv1.NodeCandidacy, error) {
	nodePoolMap, itMap, err := disruption.BuildNodePoolMap(e.Ctx, e.Client, e.CloudProvider)
	if err != nil {
		return nil, err
	}
	pdbs, err := pdb.NewLimits(e.Ctx, e.Client)
	if err != nil {
		return nil, err
	}
	var out []*nodeplanv1.NodeCandidacy
	for _, sn := range e.Cluster.DeepCopyNodes() {
		if sn.NodeClaim == nil || sn.Node == nil {
			continue
		}
		nc := &nodeplanv1.NodeCandidacy{Node: sn.Name(), NodeClaim: sn.NodeClaim.Name, NodePool: sn.Labels()[v1.NodePoolLabelKey],
			InstanceType: sn.Labels()[corev1.LabelInstanceTypeStable], Zone: sn.Labels()[corev1.LabelTopologyZone],
			CapacityType: sn.Labels()[v1.CapacityTypeLabelKey]}
		byClass := map[string]*disruption.Candidate{}
		for _, class := range []string{disruption.GracefulDisruptionClass, disruption.EventualDisruptionClass} {
			cand, err := disruption.NewCandidate(e.Ctx, e.Client, e.Recorder, e.Clock, sn, pdbs, nodePoolMap, itMap, e.Queue, class)
			el := &nodeplanv1.Eligibility{Eligible: err == nil}
			if err != nil {
				el.Message = err.Error()
			} else {
				byClass[class] = cand
				nc.Price, nc.DisruptionCost = cand.Price, cand.RescheduleDisruptionCost
			}
			if class == disruption.GracefulDisruptionClass {
				nc.Graceful = el
			} else {
				nc.Eventual = el
			}
		}
		if nc.Pods, err = e.reschedulablePods(sn); err != nil {
			return nil, err
		}
		for i, m := range e.Methods {
			cand := byClass[m.Class()]
			nc.Methods = append(nc.Methods, &nodeplanv1.MethodEligibility{Method: MethodNames[i],
				Eligible: cand != nil && m.ShouldDisrupt(e.Ctx, cand)})
		}
		out = append(out, nc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out, nil
}

// conditions reports Consolidatable and Drifted as the NodeClaim disruption
// controller left them.
func (e *Env) conditions() ([]*nodeplanv1.NodeClaimConditions, error) {
	list := &v1.NodeClaimList{}
	if err := e.Client.List(e.Ctx, list); err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	var out []*nodeplanv1.NodeClaimConditions
	for i := range list.Items {
		nc := &list.Items[i]
		out = append(out, &nodeplanv1.NodeClaimConditions{NodeClaim: nc.Name,
			Consolidatable: condition(nc, v1.ConditionTypeConsolidatable),
			Drifted:        condition(nc, v1.ConditionTypeDrifted)})
	}
	return out, nil
}

func condition(nc *v1.NodeClaim, t string) *nodeplanv1.ConditionResult {
	c := nc.StatusConditions().Get(t)
	if c == nil || !c.IsTrue() {
		return &nodeplanv1.ConditionResult{}
	}
	return &nodeplanv1.ConditionResult{Status: "True", Reason: c.Reason, Message: c.Message,
		LastTransitionTime: c.LastTransitionTime.UTC().Format("2006-01-02T15:04:05Z")}
}
