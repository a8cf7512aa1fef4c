// Command difftest compares nodeplan with Karpenter on N random clusters,
// prints agreement rates, and saves a minimized reproduction of every
// disagreement.
//
//	difftest -n 1000 -reps 8 -cases ../cases
//	difftest -against karpenter -n 100     # Karpenter against itself
//	difftest -w DIR                         # judge one saved workload
//	difftest -gen varied -n 2000 -reps 8    # the varied generator
//	difftest -gen varied -n 20 -write DIR   # write the clusters, judge nothing
//	difftest -gen varied -untie -n 1000     # one zone, one capacity type: no ties
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/nodeplanside"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/sidebyside"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

func main() {
	n := flag.Int("n", 1000, "random clusters")
	seed := flag.Int64("seed", 1, "first seed")
	reps := flag.Int("reps", 8, "Karpenter runs per cluster (exposes its nondeterminism)")
	cases := flag.String("cases", "cases", "directory for minimized disagreements (empty: do not save)")
	minimize := flag.Bool("minimize", true, "minimize disagreements before saving")
	maxSaved := flag.Int("max-saved", 40, "minimize and save at most this many disagreements (0: all)")
	against := flag.String("against", "nodeplan", "nodeplan, or karpenter (Karpenter against itself)")
	dir := flag.String("w", "", "judge one workload directory and print the differences")
	gen := flag.String("gen", "random", "cluster generator: random (workload.Random) or varied (workload.Varied)")
	untie := flag.Bool("untie", false, "judge each cluster with one zone and one capacity type (workload.Untie): no ties for Karpenter to break in map order")
	write := flag.String("write", "", "write the -n generated clusters to DIR/<gen>-<seed> instead of judging them")
	flag.Parse()
	cfg := sidebyside.Config{N: *n, SeedStart: *seed, Reps: *reps, CasesDir: *cases, Minimize: *minimize,
		MaxSaved: *maxSaved, Random: workload.DefaultRandomConfig, Generator: *gen, Untie: *untie}

	if *write != "" {
		if err := writeClusters(cfg, *write); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	var other sidebyside.Scheduler = nodeplanside.Schedule
	if *against == "karpenter" {
		other = sidebyside.KarpenterScheduler
	} else {
		fmt.Printf("nodeplan %s\n", nodeplanside.Version())
	}
	if *dir != "" {
		w, err := workload.Read(*dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		v, err := sidebyside.Judge(w, other, *reps)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		printVerdict(v)
		if !v.Best.Agree() {
			os.Exit(1)
		}
		return
	}
	start := time.Now()
	s, err := sidebyside.Run(cfg, other, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("\n== differential: generator %s%s, seeds %d..%d, Karpenter runs per cluster %d, %s ==\n", *gen, map[bool]string{true: " (untied)"}[*untie], *seed, *seed+int64(*n)-1, *reps, time.Since(start).Round(time.Second))
	s.Print(os.Stdout)
}

// printVerdict prints one workload's comparison: the summary against the
// first Karpenter run and against the best, Karpenter against itself, then
// the per-pod differences against each.
func printVerdict(v *sidebyside.Verdict) {
	r, b := v.Result, v.Best
	fmt.Printf("against the first Karpenter run: pods %d/%d agree; NodeClaims %d vs %d; cost %.6f vs %.6f; agree: %v\n",
		r.PodsAgree, r.Pods, r.ClaimsA, r.ClaimsB, r.CostA, r.CostB, r.Agree())
	fmt.Printf("against the best of %d runs (run %d): pods %d/%d agree; NodeClaims %d vs %d; cost %.6f vs %.6f; agree: %v\n",
		len(v.Karpenter), v.BestRun+1, b.PodsAgree, b.Pods, b.ClaimsA, b.ClaimsB, b.CostA, b.CostB, b.Agree())
	if v.Self != nil {
		fmt.Printf("Karpenter against itself (run 2 vs run 1): pods %d/%d agree; %d different answers in %d runs; nondeterministic: %v\n",
			v.Self.PodsAgree, v.Self.Pods, v.KarpenterAnswers, len(v.Karpenter), v.KarpenterNondeterministic)
	}
	fmt.Println(v.Spread())
	if v.NodeplanE != nil {
		fmt.Println("nodeplan error:", v.NodeplanE)
	}
	for _, d := range r.Diffs {
		fmt.Println("first run:", d)
	}
	if v.BestRun != 0 {
		for _, d := range b.Diffs {
			fmt.Printf("best run (%d): %s\n", v.BestRun+1, d)
		}
	}
}

// writeClusters writes the configured generator's N clusters as workload
// directories, so they can be read, replayed (-w) or fed to other tools.
func writeClusters(cfg sidebyside.Config, dir string) error {
	for i := 0; i < cfg.N; i++ {
		seed := cfg.SeedStart + int64(i)
		w, _, err := cfg.Make(seed)
		if err != nil {
			return err
		}
		if err := w.Write(filepath.Join(dir, fmt.Sprintf("%s%s-%d", cfg.Generator, map[bool]string{true: "-untied"}[cfg.Untie], seed))); err != nil {
			return err
		}
	}
	return nil
}
