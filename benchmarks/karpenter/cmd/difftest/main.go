// Command difftest compares nodeplan with Karpenter on N random clusters,
// prints agreement rates, and saves a minimized reproduction of every
// disagreement.
//
//	difftest -n 1000 -reps 8 -cases ../cases
//	difftest -against karpenter -n 100     # Karpenter against itself
//	difftest -w DIR                         # judge one saved workload
package main

import (
	"flag"
	"fmt"
	"os"
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
	flag.Parse()

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
		fmt.Printf("pods %d/%d agree; NodeClaims %d vs %d; cost %.6f vs %.6f; Karpenter nondeterministic: %v; agree with some Karpenter run: %v\n",
			v.Result.PodsAgree, v.Result.Pods, v.Result.ClaimsA, v.Result.ClaimsB, v.Result.CostA, v.Result.CostB,
			v.KarpenterNondeterministic, v.Best.Agree())
		if v.NodeplanE != nil {
			fmt.Println("nodeplan error:", v.NodeplanE)
		}
		for _, d := range v.Result.Diffs {
			fmt.Println(d)
		}
		if !v.Best.Agree() {
			os.Exit(1)
		}
		return
	}
	start := time.Now()
	s, err := sidebyside.Run(sidebyside.Config{N: *n, SeedStart: *seed, Reps: *reps, CasesDir: *cases, Minimize: *minimize,
		MaxSaved: *maxSaved, Random: workload.DefaultRandomConfig}, other, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("\n== differential: seeds %d..%d, Karpenter runs per cluster %d, %s ==\n", *seed, *seed+int64(*n)-1, *reps, time.Since(start).Round(time.Second))
	s.Print(os.Stdout)
}
