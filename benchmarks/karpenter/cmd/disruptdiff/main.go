// Command disruptdiff is the differential test of disruption: random
// clusters (workload.RandomDisruption) decided by Karpenter's disruption
// methods (several runs each, package kdisrupt) and by nodeplan's Disrupt
// (through the Go binding), compared on the decision (method, reason,
// candidate nodes, delete or replace, replacement options), budgets,
// candidate eligibility and the Consolidatable/Drifted conditions.
// Disagreements are minimized and saved under -cases.
//
//	go run ./cmd/disruptdiff -n 1000 -reps 4 -cases cases/disruption
//	go run ./cmd/disruptdiff -w cases/disruption/<name> -reps 20   # replay one
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
	n := flag.Int("n", 100, "random clusters")
	seed := flag.Int64("seed", 0, "first seed")
	reps := flag.Int("reps", 4, "Karpenter runs per cluster")
	cases := flag.String("cases", "", "directory to save minimized disagreements in (\"\": do not save)")
	maxSaved := flag.Int("max-saved", 20, "save at most this many cases")
	replay := flag.String("w", "", "judge this one case directory instead")
	verbose := flag.Bool("v", false, "print every disagreement")
	recheck := flag.Int("recheck", 20, "Karpenter runs to re-judge a disagreement with before calling it one")
	flag.Parse()

	if *replay != "" {
		c, err := workload.ReadDisruptCase(*replay)
		if err != nil {
			fail(err)
		}
		v, err := sidebyside.JudgeDisrupt(c, nodeplanside.Disrupt, *reps)
		if err != nil {
			fail(err)
		}
		fmt.Print(v.Describe())
		if !v.Agree() {
			os.Exit(1)
		}
		return
	}

	start := time.Now()
	var sum sidebyside.DisruptSummary
	saved, nondet := 0, 0
	for i := 0; i < *n; i++ {
		s := *seed + int64(i)
		c := workload.RandomDisruption(s, workload.DefaultDisruptionConfig)
		v, err := sidebyside.JudgeDisrupt(c, nodeplanside.Disrupt, *reps)
		if err != nil {
			fail(fmt.Errorf("seed %d: %w", s, err))
		}
		if !v.Agree() && v.Kind() == "decision" && *recheck > *reps {
			// Karpenter's decision may depend on map order: judge again
			// against more runs before calling it a disagreement.
			again, err := sidebyside.JudgeDisrupt(c, nodeplanside.Disrupt, *recheck)
			if err != nil {
				fail(fmt.Errorf("seed %d: %w", s, err))
			}
			if again.Agree() {
				nondet++
				fmt.Printf("seed %d: nodeplan's decision is one of %d Karpenter runs (Karpenter's nondeterminism)\n", s, *recheck)
				if *cases != "" && saved < *maxSaved {
					// Keep a minimized witness: Karpenter still gives more
					// than one answer and one of them is nodeplan's.
					small := sidebyside.MinimizeDisrupt(c, func(d *workload.DisruptCase) bool {
						w, err := sidebyside.JudgeDisrupt(d, nodeplanside.Disrupt, *recheck/2)
						return err == nil && w.Agree() && w.KarpenterNondeterministic
					})
					w, err := sidebyside.JudgeDisrupt(small, nodeplanside.Disrupt, *recheck)
					if err != nil {
						fail(err)
					}
					if !w.KarpenterNondeterministic {
						// Too rare to show in the minimized case: keep the
						// cluster as generated.
						small, w = c, again
					}
					dir := filepath.Join(*cases, fmt.Sprintf("nondeterministic-%d", s))
					if err := sidebyside.SaveDisruptCase(dir, small, w); err != nil {
						fail(err)
					}
					saved++
					fmt.Printf("  witness minimized to %d nodes, %d pods: %s\n", len(small.Nodes), len(small.Pods), dir)
				}
			}
			v = again
		}
		sum.Add(v)
		if v.Agree() {
			continue
		}
		kind := v.Kind()
		if *verbose {
			fmt.Printf("seed %d: %s\n%s", s, kind, v.Describe())
		} else {
			fmt.Printf("seed %d: %s disagreement\n", s, kind)
		}
		if *cases == "" || saved >= *maxSaved {
			continue
		}
		small := sidebyside.MinimizeDisrupt(c, func(d *workload.DisruptCase) bool {
			w, err := sidebyside.JudgeDisrupt(d, nodeplanside.Disrupt, max(*reps, *recheck/2))
			return err == nil && !w.Agree() && w.Kind() == kind
		})
		w, err := sidebyside.JudgeDisrupt(small, nodeplanside.Disrupt, max(*reps, *recheck))
		if err != nil {
			fail(err)
		}
		dir := filepath.Join(*cases, fmt.Sprintf("disrupt-%d", s))
		if err := sidebyside.SaveDisruptCase(dir, small, w); err != nil {
			fail(err)
		}
		saved++
		fmt.Printf("  minimized to %d nodes, %d pods: %s\n", len(small.Nodes), len(small.Pods), dir)
	}
	fmt.Printf("\ndisruptdiff -n %d -seed %d -reps %d (%s)\n", *n, *seed, *reps, time.Since(start).Round(time.Second))
	sum.Print(os.Stdout)
	fmt.Printf("decision disagreements resolved by %d Karpenter runs (nondeterminism): %d\n", *recheck, nondet)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "disruptdiff:", err)
	os.Exit(1)
}
