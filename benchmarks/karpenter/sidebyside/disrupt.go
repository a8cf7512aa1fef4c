package sidebyside

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/compare"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kdisrupt"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Disrupter is one side of the disruption comparison.
type Disrupter func(*workload.DisruptCase) (*nodeplanv1.DisruptResponse, error)

// DisruptVerdict of one case.
type DisruptVerdict struct {
	// Karpenter's answers (first run first) and nodeplan's.
	Karpenter []*nodeplanv1.DisruptResponse
	Nodeplan  *nodeplanv1.DisruptResponse
	NodeplanE error
	// nodeplan against Karpenter's first run.
	First compare.DisruptResult
	// nodeplan's decision equals the decision of some Karpenter run.
	DecisionMatchesSome bool
	// Karpenter's runs disagree with each other on the decision.
	KarpenterNondeterministic bool
	// Karpenter's second run against its first (decision only).
	SelfAgrees bool
}

// Agree: the decision matches some Karpenter run and budgets, candidacy and
// conditions match the first (those are deterministic in Karpenter).
func (v *DisruptVerdict) Agree() bool {
	return v.NodeplanE == nil && v.DecisionMatchesSome && len(v.First.Budgets) == 0 &&
		len(v.First.Eligibility) == 0 && len(v.First.Conditions) == 0
}

// Kind names the first kind of disagreement ("" when none): error,
// decision, budget, eligibility, condition.
func (v *DisruptVerdict) Kind() string {
	switch {
	case v.NodeplanE != nil:
		return "error"
	case !v.DecisionMatchesSome:
		return "decision"
	case len(v.First.Budgets) > 0:
		return "budget"
	case len(v.First.Eligibility) > 0:
		return "eligibility"
	case len(v.First.Conditions) > 0:
		return "condition"
	}
	return ""
}

// JudgeDisrupt runs Karpenter reps times (a fresh construction each time)
// and nodeplan once on a case.
func JudgeDisrupt(c *workload.DisruptCase, nodeplan Disrupter, reps int) (*DisruptVerdict, error) {
	v := &DisruptVerdict{SelfAgrees: true}
	for i := 0; i < max(1, reps); i++ {
		k, err := kdisrupt.Decide(c)
		if err != nil {
			return nil, fmt.Errorf("karpenter: %w", err)
		}
		v.Karpenter = append(v.Karpenter, k)
		if i > 0 && compare.DecisionKey(k) != compare.DecisionKey(v.Karpenter[0]) {
			v.KarpenterNondeterministic = true
			if i == 1 {
				v.SelfAgrees = false
			}
		}
	}
	n, err := nodeplan(c)
	if err != nil {
		v.NodeplanE = err
		return v, nil
	}
	v.Nodeplan = n
	v.First = compare.CompareDisrupt(v.Karpenter[0], n)
	key := compare.DecisionKey(n)
	for _, k := range v.Karpenter {
		if compare.DecisionKey(k) == key {
			v.DecisionMatchesSome = true
		}
	}
	return v, nil
}

// Describe is the verdict in words (diff.txt of a saved case).
func (v *DisruptVerdict) Describe() string {
	var b strings.Builder
	if v.NodeplanE != nil {
		fmt.Fprintf(&b, "nodeplan error: %v\n", v.NodeplanE)
		return b.String()
	}
	fmt.Fprintf(&b, "decision matches some of %d Karpenter runs: %v (Karpenter nondeterministic: %v)\n",
		len(v.Karpenter), v.DecisionMatchesSome, v.KarpenterNondeterministic)
	seen := map[string]bool{}
	for i, k := range v.Karpenter {
		key := compare.DecisionKey(k)
		if !seen[key] {
			seen[key] = true
			fmt.Fprintf(&b, "karpenter run %d: %s\n", i+1, key)
		}
	}
	fmt.Fprintf(&b, "nodeplan:        %s\n", compare.DecisionKey(v.Nodeplan))
	for _, group := range [][]string{v.First.Budgets, v.First.Eligibility, v.First.Conditions} {
		for _, d := range group {
			fmt.Fprintln(&b, d)
		}
	}
	return b.String()
}

// MinimizeDisrupt removes objects one at a time (pods, nodes with their
// NodeClaims and pods, NodePools with their nodes, PDBs, DaemonSets,
// unused instance types, provider-drift entries) while keep holds.
func MinimizeDisrupt(c *workload.DisruptCase, keep func(*workload.DisruptCase) bool) *workload.DisruptCase {
	for changed := true; changed; {
		changed = false
		for _, cand := range shrinkCandidates(c) {
			if keep(cand) {
				c, changed = cand, true
				break
			}
		}
	}
	return c
}

func cloneCase(c *workload.DisruptCase) *workload.DisruptCase {
	d := *c
	cat := *c.Catalog
	d.Catalog = &cat
	d.NodePools = append(d.NodePools[:0:0], c.NodePools...)
	d.NodeClaims = append(d.NodeClaims[:0:0], c.NodeClaims...)
	d.Nodes = append(d.Nodes[:0:0], c.Nodes...)
	d.Pods = append(d.Pods[:0:0], c.Pods...)
	d.DaemonSets = append(d.DaemonSets[:0:0], c.DaemonSets...)
	d.PDBs = append(d.PDBs[:0:0], c.PDBs...)
	d.Catalog.InstanceTypes = append(c.Catalog.InstanceTypes[:0:0], c.Catalog.InstanceTypes...)
	return &d
}

func without[T any](xs []T, i int) []T {
	return append(xs[:i:i], xs[i+1:]...)
}

func shrinkCandidates(c *workload.DisruptCase) []*workload.DisruptCase {
	var out []*workload.DisruptCase
	dropNode := func(d *workload.DisruptCase, name string) {
		var nodes = d.Nodes[:0:0]
		for _, n := range d.Nodes {
			if n.Name != name {
				nodes = append(nodes, n)
			}
		}
		d.Nodes = nodes
		var ncs = d.NodeClaims[:0:0]
		for _, nc := range d.NodeClaims {
			if nc.Status.NodeName != name {
				ncs = append(ncs, nc)
			}
		}
		d.NodeClaims = ncs
		var pods = d.Pods[:0:0]
		for _, p := range d.Pods {
			if p.Spec.NodeName != name {
				pods = append(pods, p)
			}
		}
		d.Pods = pods
	}
	for i := range c.NodePools {
		d := cloneCase(c)
		name := c.NodePools[i].Name
		d.NodePools = without(d.NodePools, i)
		for _, n := range c.Nodes {
			if n.Labels["karpenter.sh/nodepool"] == name {
				dropNode(d, n.Name)
			}
		}
		out = append(out, d)
	}
	for _, n := range c.Nodes {
		d := cloneCase(c)
		dropNode(d, n.Name)
		out = append(out, d)
	}
	for i := range c.DaemonSets {
		d := cloneCase(c)
		name := c.DaemonSets[i].Name
		d.DaemonSets = without(d.DaemonSets, i)
		var pods = d.Pods[:0:0]
		for _, p := range d.Pods {
			if len(p.OwnerReferences) == 0 || p.OwnerReferences[0].Kind != "DaemonSet" || p.OwnerReferences[0].Name != name {
				pods = append(pods, p)
			}
		}
		d.Pods = pods
		out = append(out, d)
	}
	for i := range c.PDBs {
		d := cloneCase(c)
		d.PDBs = without(d.PDBs, i)
		out = append(out, d)
	}
	for i := range c.Pods {
		d := cloneCase(c)
		d.Pods = without(d.Pods, i)
		out = append(out, d)
	}
	used := map[string]bool{}
	for _, n := range c.Nodes {
		used[n.Labels["node.kubernetes.io/instance-type"]] = true
	}
	for i, it := range c.Catalog.InstanceTypes {
		if !used[it.Name] {
			d := cloneCase(c)
			d.Catalog.InstanceTypes = without(d.Catalog.InstanceTypes, i)
			out = append(out, d)
		}
	}
	for k := range c.Params.ProviderDrifted {
		d := cloneCase(c)
		m := map[string]string{}
		for kk, vv := range c.Params.ProviderDrifted {
			if kk != k {
				m[kk] = vv
			}
		}
		d.Params.ProviderDrifted = m
		out = append(out, d)
	}
	return out
}

// SaveDisruptCase writes a case with karpenter.json (first run),
// nodeplan.json and diff.txt.
func SaveDisruptCase(dir string, c *workload.DisruptCase, v *DisruptVerdict) error {
	if err := c.Write(dir); err != nil {
		return err
	}
	m := protojson.MarshalOptions{Multiline: true, Indent: "  "}
	if len(v.Karpenter) > 0 {
		b, err := m.Marshal(v.Karpenter[0])
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "karpenter.json"), b, 0o644); err != nil {
			return err
		}
	}
	if v.Nodeplan != nil {
		b, err := m.Marshal(v.Nodeplan)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "nodeplan.json"), b, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "diff.txt"), []byte(v.Describe()), 0o644)
}

// DisruptSummary counts a differential run.
type DisruptSummary struct {
	Clusters, Agree, DecisionSome, DecisionFirst, BudgetsAgree, EligibilityAgree, ConditionsAgree int
	KarpenterNondeterministic, KarpenterSelfAgree, NodeplanErrors, WithCommand                    int
	Methods                                                                                       map[string]int
	Kinds                                                                                         map[string]int
}

// Add counts one verdict.
func (s *DisruptSummary) Add(v *DisruptVerdict) {
	if s.Methods == nil {
		s.Methods, s.Kinds = map[string]int{}, map[string]int{}
	}
	s.Clusters++
	if v.Agree() {
		s.Agree++
	} else {
		s.Kinds[v.Kind()]++
	}
	if v.KarpenterNondeterministic {
		s.KarpenterNondeterministic++
	}
	if v.SelfAgrees {
		s.KarpenterSelfAgree++
	}
	s.Methods[orNone(v.Karpenter[0].GetMethod())]++
	if len(v.Karpenter[0].GetCommands()) > 0 {
		s.WithCommand++
	}
	if v.NodeplanE != nil {
		s.NodeplanErrors++
		return
	}
	if v.DecisionMatchesSome {
		s.DecisionSome++
	}
	if v.First.DecisionAgrees {
		s.DecisionFirst++
	}
	if len(v.First.Budgets) == 0 {
		s.BudgetsAgree++
	}
	if len(v.First.Eligibility) == 0 {
		s.EligibilityAgree++
	}
	if len(v.First.Conditions) == 0 {
		s.ConditionsAgree++
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Print writes the summary table.
func (s *DisruptSummary) Print(w io.Writer) {
	pct := func(n int) string {
		return fmt.Sprintf("%d/%d (%.1f%%)", n, s.Clusters, 100*float64(n)/float64(max(1, s.Clusters)))
	}
	fmt.Fprintf(w, "clusters:                                   %d\n", s.Clusters)
	fmt.Fprintf(w, "full agreement (decision vs some run, budgets, candidacy, conditions): %s\n", pct(s.Agree))
	fmt.Fprintf(w, "decision agrees with some Karpenter run:    %s\n", pct(s.DecisionSome))
	fmt.Fprintf(w, "decision agrees with the first run:         %s\n", pct(s.DecisionFirst))
	fmt.Fprintf(w, "budgets agree:                              %s\n", pct(s.BudgetsAgree))
	fmt.Fprintf(w, "candidate eligibility agrees:               %s\n", pct(s.EligibilityAgree))
	fmt.Fprintf(w, "Consolidatable/Drifted conditions agree:    %s\n", pct(s.ConditionsAgree))
	fmt.Fprintf(w, "Karpenter second run = first (decision):    %s\n", pct(s.KarpenterSelfAgree))
	fmt.Fprintf(w, "Karpenter nondeterministic (any run):       %s\n", pct(s.KarpenterNondeterministic))
	fmt.Fprintf(w, "nodeplan errors:                            %d\n", s.NodeplanErrors)
	fmt.Fprintf(w, "clusters where Karpenter disrupts:          %s\n", pct(s.WithCommand))
	fmt.Fprintf(w, "Karpenter's method (first run):")
	for _, m := range append(append([]string{}, kdisrupt.MethodNames...), "none") {
		fmt.Fprintf(w, " %s=%d", m, s.Methods[m])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "disagreements by first kind:")
	for _, k := range []string{"error", "decision", "budget", "eligibility", "condition"} {
		fmt.Fprintf(w, " %s=%d", k, s.Kinds[k])
	}
	fmt.Fprintln(w)
}
