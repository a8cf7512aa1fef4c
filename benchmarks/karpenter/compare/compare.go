// Package compare compares two schedule decisions (Karpenter's and nodeplan's)
// pod by pod, NodeClaim by NodeClaim, and in total cost.
package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/response"
)

// Outcome of one pending pod in one decision.
type Outcome struct {
	// "new" (on a new NodeClaim), "existing" (on a Node or in-flight
	// NodeClaim), "unschedulable", or "missing" (the decision omits the pod).
	Kind string
	// The existing node's name (Kind "existing").
	Node string
	// The pods sharing its node in this decision, sorted, itself included.
	Peers string
}

func (o Outcome) String() string {
	switch o.Kind {
	case "existing":
		return fmt.Sprintf("existing node %s with [%s]", o.Node, o.Peers)
	case "new":
		return fmt.Sprintf("new NodeClaim with [%s]", o.Peers)
	}
	return o.Kind
}

// Outcomes maps each pending pod ("namespace/name") to its outcome.
func Outcomes(r *response.ScheduleResponse, pending []string) map[string]Outcome {
	out := map[string]Outcome{}
	for _, p := range pending {
		out[p] = Outcome{Kind: "missing"}
	}
	for _, nc := range r.NewNodeClaims {
		peers := sortedJoin(nc.Pods)
		for _, p := range nc.Pods {
			out[p] = Outcome{Kind: "new", Peers: peers}
		}
	}
	for _, en := range r.ExistingNodes {
		peers := sortedJoin(en.Pods)
		for _, p := range en.Pods {
			out[p] = Outcome{Kind: "existing", Node: en.Name, Peers: peers}
		}
	}
	for _, u := range r.Unschedulable {
		if _, ok := out[u.Pod]; ok {
			out[u.Pod] = Outcome{Kind: "unschedulable"}
		}
	}
	return out
}

func sortedJoin(xs []string) string {
	s := append([]string(nil), xs...)
	sort.Strings(s)
	return strings.Join(s, " ")
}

// Result of comparing decision B (nodeplan) against decision A (Karpenter).
type Result struct {
	Pods, PodsAgree  int
	ClaimsA, ClaimsB int
	// NodeClaims whose pod sets are identical in both decisions, and how
	// many of those have the same instance-type options (as sets).
	ClaimsMatched, OptionsAgree int
	CostA, CostB                float64
	// One line per difference, for people.
	Diffs []string
}

// PodsAllAgree: every pod has the same outcome.
func (r Result) PodsAllAgree() bool { return r.Pods == r.PodsAgree }

// CostAgree: total costs equal to 1e-6 relative.
func (r Result) CostAgree() bool {
	return math.Abs(r.CostA-r.CostB) <= 1e-6*math.Max(1, math.Abs(r.CostA))
}

// Agree: the two decisions are the same in every compared respect.
func (r Result) Agree() bool {
	return r.PodsAllAgree() && r.ClaimsA == r.ClaimsB && r.ClaimsMatched == r.ClaimsA &&
		r.OptionsAgree == r.ClaimsMatched && r.CostAgree()
}

// Compare compares b against a for the given pending pods.
func Compare(a, b *response.ScheduleResponse, pending []string) Result {
	res := Result{Pods: len(pending), ClaimsA: len(a.NewNodeClaims), ClaimsB: len(b.NewNodeClaims), CostA: a.Cost, CostB: b.Cost}
	oa, ob := Outcomes(a, pending), Outcomes(b, pending)
	sorted := append([]string(nil), pending...)
	sort.Strings(sorted)
	for _, p := range sorted {
		if oa[p] == ob[p] {
			res.PodsAgree++
			continue
		}
		res.Diffs = append(res.Diffs, fmt.Sprintf("pod %s: karpenter %s; nodeplan %s", p, oa[p], ob[p]))
	}
	if res.ClaimsA != res.ClaimsB {
		res.Diffs = append(res.Diffs, fmt.Sprintf("new NodeClaims: karpenter %d, nodeplan %d", res.ClaimsA, res.ClaimsB))
	}
	byPods := map[string]response.NewNodeClaim{}
	for _, nc := range b.NewNodeClaims {
		byPods[sortedJoin(nc.Pods)] = nc
	}
	for _, nca := range a.NewNodeClaims {
		key := sortedJoin(nca.Pods)
		ncb, ok := byPods[key]
		if !ok {
			continue
		}
		res.ClaimsMatched++
		sa, sb := sortedCopy(nca.InstanceTypes), sortedCopy(ncb.InstanceTypes)
		if strings.Join(sa, ",") == strings.Join(sb, ",") && nca.NodePool == ncb.NodePool {
			res.OptionsAgree++
			continue
		}
		res.Diffs = append(res.Diffs, fmt.Sprintf("NodeClaim [%s]: karpenter %s %v; nodeplan %s %v", key, nca.NodePool, nca.InstanceTypes, ncb.NodePool, ncb.InstanceTypes))
	}
	if !res.CostAgree() {
		res.Diffs = append(res.Diffs, fmt.Sprintf("cost: karpenter %.6f, nodeplan %.6f", res.CostA, res.CostB))
	}
	return res
}

func sortedCopy(xs []string) []string {
	s := append([]string(nil), xs...)
	sort.Strings(s)
	return s
}
