package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// DecisionKey is the part of a disruption decision the differential test
// holds equal: per command the method, reason, delete or replace, the set
// of candidate nodes and each replacement's NodePool and instance-type
// option set. Prices, savings and names are left out (they follow from
// these or are named differently by design).
func DecisionKey(r *nodeplanv1.DisruptResponse) string {
	if len(r.GetCommands()) == 0 {
		return "none"
	}
	var cmds []string
	for _, c := range r.GetCommands() {
		var nodes []string
		for _, cand := range c.GetCandidates() {
			nodes = append(nodes, cand.GetNode())
		}
		sort.Strings(nodes)
		var reps []string
		for _, nc := range c.GetReplacements() {
			opts := append([]string(nil), nc.GetInstanceTypes()...)
			sort.Strings(opts)
			reps = append(reps, nc.GetNodePool()+":{"+strings.Join(opts, ",")+"}")
		}
		sort.Strings(reps)
		cmds = append(cmds, fmt.Sprintf("%s/%s %s [%s]%s", c.GetMethod(), c.GetReason(), c.GetDecision(),
			strings.Join(nodes, " "), ternary(len(reps) > 0, " -> "+strings.Join(reps, " "), "")))
	}
	sort.Strings(cmds)
	return strings.Join(cmds, "; ")
}

func ternary(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// DisruptResult compares one nodeplan answer with one Karpenter answer.
type DisruptResult struct {
	DecisionAgrees bool
	Karpenter      string // DecisionKey
	Nodeplan       string
	// Differences in budgets ("pool/reason allowed k vs n"), candidacy
	// ("node graceful k vs n", "node method k vs n") and conditions
	// ("nodeclaim Drifted k vs n").
	Budgets     []string
	Eligibility []string
	Conditions  []string
}

// Agree is full agreement: decision, budgets, candidacy and conditions.
func (r DisruptResult) Agree() bool {
	return r.DecisionAgrees && len(r.Budgets) == 0 && len(r.Eligibility) == 0 && len(r.Conditions) == 0
}

// String lists the differences, one per line.
func (r DisruptResult) String() string {
	var b strings.Builder
	if !r.DecisionAgrees {
		fmt.Fprintf(&b, "decision: karpenter %s\n          nodeplan  %s\n", r.Karpenter, r.Nodeplan)
	}
	for _, group := range [][]string{r.Budgets, r.Eligibility, r.Conditions} {
		for _, d := range group {
			fmt.Fprintln(&b, d)
		}
	}
	return b.String()
}

// CompareDisrupt compares nodeplan's response n with Karpenter's k.
func CompareDisrupt(k, n *nodeplanv1.DisruptResponse) DisruptResult {
	res := DisruptResult{Karpenter: DecisionKey(k), Nodeplan: DecisionKey(n)}
	res.DecisionAgrees = res.Karpenter == res.Nodeplan

	budget := func(r *nodeplanv1.DisruptResponse) map[string]int32 {
		m := map[string]int32{}
		for _, b := range r.GetBudgets() {
			m[b.GetNodePool()+"/"+b.GetReason()] = b.GetAllowed()
		}
		return m
	}
	kb, nb := budget(k), budget(n)
	for _, key := range sortedUnion(kb, nb) {
		kv, kok := kb[key]
		nv, nok := nb[key]
		if kok != nok || kv != nv {
			res.Budgets = append(res.Budgets, fmt.Sprintf("budget %s allowed: karpenter %s nodeplan %s", key, opt(kok, kv), opt(nok, nv)))
		}
	}

	elig := func(r *nodeplanv1.DisruptResponse) map[string]bool {
		m := map[string]bool{}
		for _, c := range r.GetCandidates() {
			if c.GetNodeClaim() == "" {
				continue // a node without NodeClaim: nothing Karpenter considers
			}
			m[c.GetNode()+" graceful"] = c.GetGraceful().GetEligible()
			m[c.GetNode()+" eventual"] = c.GetEventual().GetEligible()
			for _, me := range c.GetMethods() {
				m[c.GetNode()+" "+me.GetMethod()] = me.GetEligible()
			}
		}
		return m
	}
	ke, ne := elig(k), elig(n)
	for _, key := range sortedUnion(ke, ne) {
		kv, kok := ke[key]
		nv, nok := ne[key]
		if kok != nok || kv != nv {
			res.Eligibility = append(res.Eligibility, fmt.Sprintf("candidate %s: karpenter %s nodeplan %s", key, optb(kok, kv), optb(nok, nv)))
		}
	}

	cond := func(r *nodeplanv1.DisruptResponse) map[string]string {
		m := map[string]string{}
		for _, c := range r.GetConditions() {
			m[c.GetNodeClaim()+" Consolidatable"] = c.GetConsolidatable().GetStatus()
			m[c.GetNodeClaim()+" Drifted"] = c.GetDrifted().GetStatus() + " " + c.GetDrifted().GetReason()
		}
		return m
	}
	kc, nc := cond(k), cond(n)
	for _, key := range sortedUnion(kc, nc) {
		kv, kok := kc[key]
		nv, nok := nc[key]
		if kok && nok && kv != nv {
			res.Conditions = append(res.Conditions, fmt.Sprintf("condition %s: karpenter %q nodeplan %q", key, kv, nv))
		}
	}
	return res
}

func sortedUnion[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func opt(ok bool, v int32) string {
	if !ok {
		return "absent"
	}
	return fmt.Sprint(v)
}

func optb(ok bool, v bool) string {
	if !ok {
		return "absent"
	}
	return fmt.Sprint(v)
}
