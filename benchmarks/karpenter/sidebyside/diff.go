package sidebyside

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/compare"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/response"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Scheduler is one side of the comparison.
type Scheduler func(*workload.Workload) (*response.ScheduleResponse, error)

// KarpenterScheduler runs Karpenter with a fresh scheduler per call.
func KarpenterScheduler(w *workload.Workload) (*response.ScheduleResponse, error) {
	return kadapter.Schedule(w)
}

// Pending lists the workload's pending pods as "namespace/name".
func Pending(w *workload.Workload) []string {
	var out []string
	for _, p := range w.Pods {
		if kadapter.IsPending(p) {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	return out
}

// Verdict of one workload.
type Verdict struct {
	Result compare.Result
	// Karpenter gave different answers to the same input across Reps runs.
	KarpenterNondeterministic bool
	// Karpenter's answers (first run first) and nodeplan's.
	Karpenter []*response.ScheduleResponse
	Nodeplan  *response.ScheduleResponse
	// Result against the Karpenter run nodeplan agrees with most (equals
	// Result when Karpenter is deterministic on this input), and that run's
	// index in Karpenter (0: the first run).
	Best      compare.Result
	BestRun   int
	NodeplanE error
	// Karpenter's second run against its first (Reps >= 2): the baseline
	// for how much Karpenter agrees with itself.
	Self *compare.Result
	// How many different answers Karpenter gave over its runs.
	KarpenterAnswers int
}

// Judge runs Karpenter reps times and nodeplan once on w and compares.
func Judge(w *workload.Workload, nodeplan Scheduler, reps int) (*Verdict, error) {
	pending := Pending(w)
	v := &Verdict{KarpenterAnswers: 1}
	for i := 0; i < max(1, reps); i++ {
		k, err := KarpenterScheduler(w)
		if err != nil {
			return nil, fmt.Errorf("karpenter: %w", err)
		}
		k.Canonicalize()
		v.Karpenter = append(v.Karpenter, k)
		if i > 0 && lo.NoneBy(v.Karpenter[:i], func(e *response.ScheduleResponse) bool { return compare.Compare(e, k, pending).Agree() }) {
			v.KarpenterAnswers++
		}
		if i > 0 {
			r := compare.Compare(v.Karpenter[0], k, pending)
			if i == 1 {
				v.Self = &r
			}
			if !r.Agree() {
				v.KarpenterNondeterministic = true
			}
		}
	}
	n, err := nodeplan(w)
	if err != nil {
		v.NodeplanE = err
		n = &response.ScheduleResponse{}
	}
	n.Canonicalize()
	v.Nodeplan = n
	v.Result = compare.Compare(v.Karpenter[0], n, pending)
	v.Best = v.Result
	for i, k := range v.Karpenter[1:] {
		if r := compare.Compare(k, n, pending); (r.Agree() && !v.Best.Agree()) || (r.Agree() == v.Best.Agree() && r.PodsAgree > v.Best.PodsAgree) {
			v.Best, v.BestRun = r, i+1
		}
	}
	return v, nil
}

// Config of a differential run.
type Config struct {
	N         int
	SeedStart int64
	Reps      int
	CasesDir  string // where minimized disagreements go; empty: not saved
	Minimize  bool
	// At most this many disagreements are minimized and saved (0: no cap);
	// the rest are listed.
	MaxSaved int
	Random   workload.RandomConfig
	// Generator names the cluster generator: "random" (workload.Random with
	// Random, the default) or "varied" (workload.Varied).
	Generator string
	// Untie judges workload.Untie of each generated cluster (one zone, one
	// capacity type), where Karpenter has no zone or capacity-type ties to
	// break in map order.
	Untie bool
}

// Make returns the generator's cluster for a seed.
func (c Config) Make(seed int64) (*workload.Workload, string, error) {
	w, origin, err := c.make(seed)
	if err != nil || !c.Untie {
		return w, origin, err
	}
	return workload.Untie(w), "workload.Untie(" + origin + ")", nil
}

func (c Config) make(seed int64) (*workload.Workload, string, error) {
	switch c.Generator {
	case "", "random":
		return workload.Random(seed, c.Random), fmt.Sprintf("workload.Random(%d, DefaultRandomConfig)", seed), nil
	case "varied":
		return workload.Varied(seed), fmt.Sprintf("workload.Varied(%d)", seed), nil
	}
	return nil, "", fmt.Errorf("unknown generator %q (random, varied)", c.Generator)
}

// Summary of a differential run.
type Summary struct {
	Clusters, ClustersAgree, ClustersAgreeModuloNondeterminism int
	Pods, PodsAgree, PodsAgreeBest                             int
	ClaimCountAgree                                            int
	ClaimsMatched, OptionsAgree                                int
	CostAgree                                                  int
	KarpenterNondeterministic                                  int
	// Clusters on which Karpenter gave one answer in every run, and how
	// many of those nodeplan agrees with.
	Deterministic, DeterministicAgree int
	NodeplanErrors                    int
	// Disagreeing clusters on which nodeplan's NodeClaims, unschedulable
	// pods or cost lie outside every Karpenter run's (Verdict.Outside).
	OutsideRuns                                int
	SelfPods, SelfPodsAgree, SelfClustersAgree int
	Saved                                      []string
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
}

// Print writes the agreement rates.
func (s Summary) Print(out io.Writer) {
	fmt.Fprintf(out, "clusters compared:                 %d\n", s.Clusters)
	fmt.Fprintf(out, "per-pod agreement (first run):     %s\n", pct(s.PodsAgree, s.Pods))
	fmt.Fprintf(out, "per-pod agreement (best of reps):  %s\n", pct(s.PodsAgreeBest, s.Pods))
	fmt.Fprintf(out, "clusters agreeing with first run:  %s\n", pct(s.ClustersAgree, s.Clusters))
	fmt.Fprintf(out, "clusters agreeing with some run:   %s\n", pct(s.ClustersAgreeModuloNondeterminism, s.Clusters))
	fmt.Fprintf(out, "  where Karpenter is deterministic:%s\n", " "+pct(s.DeterministicAgree, s.Deterministic))
	fmt.Fprintf(out, "same number of new NodeClaims:     %s\n", pct(s.ClaimCountAgree, s.Clusters))
	fmt.Fprintf(out, "same instance-type options:        %s of NodeClaims with identical pods\n", pct(s.OptionsAgree, s.ClaimsMatched))
	fmt.Fprintf(out, "same total cost:                   %s\n", pct(s.CostAgree, s.Clusters))
	fmt.Fprintf(out, "Karpenter nondeterministic inputs: %s\n", pct(s.KarpenterNondeterministic, s.Clusters))
	fmt.Fprintf(out, "Karpenter vs itself, per pod:      %s (run 2 against run 1)\n", pct(s.SelfPodsAgree, s.SelfPods))
	fmt.Fprintf(out, "Karpenter vs itself, clusters:     %s\n", pct(s.SelfClustersAgree, s.Clusters))
	fmt.Fprintf(out, "outside every Karpenter run:       %d (NodeClaims, unschedulable or cost)\n", s.OutsideRuns)
	fmt.Fprintf(out, "nodeplan errors:                   %d\n", s.NodeplanErrors)
	fmt.Fprintf(out, "disagreements saved:               %d\n", len(s.Saved))
}

// Run compares nodeplan with Karpenter on N random clusters.
func Run(cfg Config, nodeplan Scheduler, log io.Writer) (Summary, error) {
	s := Summary{}
	gen := lo.Ternary(cfg.Generator == "", "random", cfg.Generator) + lo.Ternary(cfg.Untie, "-untied", "")
	for i := 0; i < cfg.N; i++ {
		seed := cfg.SeedStart + int64(i)
		w, origin, err := cfg.Make(seed)
		if err != nil {
			return s, err
		}
		v, err := Judge(w, nodeplan, cfg.Reps)
		if err != nil {
			return s, fmt.Errorf("seed %d: %w", seed, err)
		}
		s.Clusters++
		s.Pods += v.Result.Pods
		s.PodsAgree += v.Result.PodsAgree
		s.PodsAgreeBest += v.Best.PodsAgree
		if v.Result.ClaimsA == v.Result.ClaimsB {
			s.ClaimCountAgree++
		}
		s.ClaimsMatched += v.Result.ClaimsMatched
		s.OptionsAgree += v.Result.OptionsAgree
		if v.Result.CostAgree() {
			s.CostAgree++
		}
		if v.KarpenterNondeterministic {
			s.KarpenterNondeterministic++
		} else {
			s.Deterministic++
			if v.Result.Agree() {
				s.DeterministicAgree++
			}
		}
		if v.NodeplanE != nil {
			s.NodeplanErrors++
		}
		if v.Self != nil {
			s.SelfPods += v.Self.Pods
			s.SelfPodsAgree += v.Self.PodsAgree
			if v.Self.Agree() {
				s.SelfClustersAgree++
			}
		}
		if v.Result.Agree() {
			s.ClustersAgree++
		}
		if v.Best.Agree() {
			s.ClustersAgreeModuloNondeterminism++
			continue
		}
		outside := v.Outside()
		if outside != "" {
			s.OutsideRuns++
		}
		fmt.Fprintf(log, "seed %d: pods agreeing %d/%d with the first Karpenter run, %d/%d with the best (run %d); NodeClaims %d vs %d (first run)%s%s%s\n",
			seed, v.Result.PodsAgree, v.Result.Pods, v.Best.PodsAgree, v.Best.Pods, v.BestRun+1,
			v.Result.ClaimsA, v.Result.ClaimsB, lo.Ternary(v.KarpenterNondeterministic, fmt.Sprintf(" (Karpenter nondeterministic: %d answers)", v.KarpenterAnswers), ""),
			lo.Ternary(v.NodeplanE != nil, fmt.Sprintf(" (nodeplan error: %v)", v.NodeplanE), ""),
			lo.Ternary(outside != "", " OUTSIDE("+outside+"): "+v.Spread(), ""))
		if cfg.CasesDir == "" || v.NodeplanE != nil || (cfg.MaxSaved > 0 && len(s.Saved) >= cfg.MaxSaved) {
			continue
		}
		m := w
		if cfg.Minimize && v.KarpenterNondeterministic {
			m = MinimizeAgainstAllRuns(w, nodeplan, cfg.Reps)
		} else if cfg.Minimize {
			m = Minimize(w, nodeplan, cfg.Reps)
		}
		dir := filepath.Join(cfg.CasesDir, fmt.Sprintf("%s-%d", gen, seed))
		how := lo.Ternary(v.KarpenterNondeterministic, ", minimized against all runs", ", minimized")
		if err := SaveCase(dir, m, nodeplan, cfg.Reps, origin+lo.Ternary(cfg.Minimize, how, "")); err != nil {
			return s, err
		}
		s.Saved = append(s.Saved, dir)
	}
	return s, nil
}

// SaveCase writes a reproduction: the workload files, both answers and the
// differences.
func SaveCase(dir string, w *workload.Workload, nodeplan Scheduler, reps int, origin string) error {
	v, err := Judge(w, nodeplan, reps)
	if err != nil {
		return err
	}
	if err := w.Write(dir); err != nil {
		return err
	}
	for name, r := range map[string]*response.ScheduleResponse{"karpenter.json": v.Karpenter[0], "nodeplan.json": v.Nodeplan} {
		b, _ := json.MarshalIndent(r, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "origin: %s\n", origin)
	fmt.Fprintf(&sb, "pending pods: %d, agree: %d; NodeClaims karpenter %d, nodeplan %d; cost karpenter %.6f, nodeplan %.6f\n",
		v.Result.Pods, v.Result.PodsAgree, v.Result.ClaimsA, v.Result.ClaimsB, v.Result.CostA, v.Result.CostB)
	fmt.Fprintf(&sb, "Karpenter nondeterministic over %d runs: %v\n", reps, v.KarpenterNondeterministic)
	for _, d := range v.Result.Diffs {
		sb.WriteString(d + "\n")
	}
	return os.WriteFile(filepath.Join(dir, "diff.txt"), []byte(sb.String()), 0o644)
}

// Minimize shrinks a disagreeing workload while it still disagrees (and
// Karpenter stays deterministic on it): drop pod groups, single pods,
// NodePools, nodes, DaemonSets, instance types and options, one at a time,
// until no single removal keeps the disagreement.
func Minimize(w *workload.Workload, nodeplan Scheduler, reps int) *workload.Workload {
	return MinimizeWhile(w, func(c *workload.Workload) bool {
		if len(Pending(c)) == 0 {
			return false
		}
		v, err := Judge(c, nodeplan, reps)
		return err == nil && v.NodeplanE == nil && !v.KarpenterNondeterministic && !v.Result.Agree()
	})
}

// MinimizeAgainstAllRuns shrinks a workload while nodeplan agrees with none
// of reps Karpenter runs, whether or not Karpenter is deterministic on it:
// for disagreements on inputs where Karpenter's ties vary, which Minimize
// cannot shrink. The result is a lead, not a proof: replay it with many runs.
func MinimizeAgainstAllRuns(w *workload.Workload, nodeplan Scheduler, reps int) *workload.Workload {
	return MinimizeWhile(w, func(c *workload.Workload) bool {
		if len(Pending(c)) == 0 {
			return false
		}
		v, err := Judge(c, nodeplan, reps)
		return err == nil && v.NodeplanE == nil && !v.Best.Agree()
	})
}

// MinimizeWhile shrinks w, one reduction at a time, while keep holds.
func MinimizeWhile(w *workload.Workload, disagrees func(*workload.Workload) bool) *workload.Workload {
	cur := w
	for round := 0; round < 50; round++ {
		improved := false
		for _, cand := range reductions(cur) {
			if disagrees(cand) {
				cur, improved = cand, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return cur
}

func clone(w *workload.Workload) *workload.Workload {
	c := *w
	c.NodePools = append([]*v1.NodePool(nil), w.NodePools...)
	c.Pods = append([]*corev1.Pod(nil), w.Pods...)
	c.Nodes = append([]*corev1.Node(nil), w.Nodes...)
	c.NodeClaims = append([]*v1.NodeClaim(nil), w.NodeClaims...)
	c.DaemonSets = append(c.DaemonSets[:0:0], w.DaemonSets...)
	cat := *w.Catalog
	cat.InstanceTypes = append([]catalog.InstanceType(nil), w.Catalog.InstanceTypes...)
	c.Catalog = &cat
	return &c
}

// reductions lists one-step smaller workloads, biggest cuts first.
func reductions(w *workload.Workload) []*workload.Workload {
	var out []*workload.Workload
	groups := map[string]bool{}
	var order []string
	for _, p := range w.Pods {
		if g := p.Labels["app"]; g != "" && !groups[g] && kadapter.IsPending(p) {
			groups[g] = true
			order = append(order, g)
		}
	}
	for _, g := range order {
		c := clone(w)
		c.Pods = lo.Filter(c.Pods, func(p *corev1.Pod, _ int) bool { return !kadapter.IsPending(p) || p.Labels["app"] != g })
		out = append(out, c)
	}
	for i := range w.NodePools {
		if len(w.NodePools) > 1 {
			c := clone(w)
			c.NodePools = append(c.NodePools[:i:i], w.NodePools[i+1:]...)
			out = append(out, c)
		}
	}
	for i, n := range w.Nodes {
		c := clone(w)
		c.Nodes = append(c.Nodes[:i:i], w.Nodes[i+1:]...)
		c.Pods = lo.Filter(c.Pods, func(p *corev1.Pod, _ int) bool { return p.Spec.NodeName != n.Name })
		out = append(out, c)
	}
	for i := range w.NodeClaims {
		c := clone(w)
		c.NodeClaims = append(c.NodeClaims[:i:i], w.NodeClaims[i+1:]...)
		out = append(out, c)
	}
	for i := range w.DaemonSets {
		c := clone(w)
		c.DaemonSets = append(c.DaemonSets[:i:i], w.DaemonSets[i+1:]...)
		out = append(out, c)
	}
	for i := range w.Pods {
		c := clone(w)
		c.Pods = append(c.Pods[:i:i], w.Pods[i+1:]...)
		out = append(out, c)
	}
	for i := range w.Catalog.InstanceTypes {
		if len(w.Catalog.InstanceTypes) > 1 {
			c := clone(w)
			c.Catalog.InstanceTypes = append(c.Catalog.InstanceTypes[:i:i], w.Catalog.InstanceTypes[i+1:]...)
			out = append(out, c)
		}
	}
	if w.Options != (workload.Options{}) {
		c := clone(w)
		c.Options = workload.Options{}
		out = append(out, c)
	}
	return out
}

// Outside reports whether nodeplan's number of new NodeClaims, of
// unschedulable pods or its cost lies outside the range of Karpenter's runs,
// and which of them: a lead to a semantic difference rather than a tie.
func (v *Verdict) Outside() string {
	var what []string
	n := v.Nodeplan
	claims := lo.Map(v.Karpenter, func(k *response.ScheduleResponse, _ int) int { return len(k.NewNodeClaims) })
	unsched := lo.Map(v.Karpenter, func(k *response.ScheduleResponse, _ int) int { return len(k.Unschedulable) })
	costs := lo.Map(v.Karpenter, func(k *response.ScheduleResponse, _ int) float64 { return k.Cost })
	if c := len(n.NewNodeClaims); c < lo.Min(claims) || c > lo.Max(claims) {
		what = append(what, "NodeClaims")
	}
	if u := len(n.Unschedulable); u < lo.Min(unsched) || u > lo.Max(unsched) {
		what = append(what, "unschedulable")
	}
	tol := 1e-6 * math.Max(1, lo.Max(costs))
	if n.Cost < lo.Min(costs)-tol || n.Cost > lo.Max(costs)+tol {
		what = append(what, "cost")
	}
	return strings.Join(what, ",")
}

// Spread summarizes what varies between Karpenter's runs and where
// nodeplan's answer lies: new NodeClaims, unschedulable pods and cost per
// run. A nodeplan figure outside Karpenter's range over many runs points to
// a semantic difference rather than to Karpenter's ties.
func (v *Verdict) Spread() string {
	var claims, unsched []int
	lowCost, highCost := math.Inf(1), math.Inf(-1)
	for _, k := range v.Karpenter {
		claims = append(claims, len(k.NewNodeClaims))
		unsched = append(unsched, len(k.Unschedulable))
		lowCost, highCost = math.Min(lowCost, k.Cost), math.Max(highCost, k.Cost)
	}
	sort.Ints(claims)
	sort.Ints(unsched)
	n := v.Nodeplan
	return fmt.Sprintf("Karpenter runs: new NodeClaims %v, unschedulable %v, cost %.6f..%.6f; nodeplan: %d, %d, %.6f",
		claims, unsched, lowCost, highCost, len(n.NewNodeClaims), len(n.Unschedulable), n.Cost)
}
