// Command gen writes generated workloads as manifests.yaml, catalog.yaml and
// options.yaml, the files both nodeplan and Karpenter read.
//
//	gen -out DIR -diverse 5000       # Karpenter's benchmark shape
//	gen -out DIR -preference Respect # the 4,000-pod preference workload
//	gen -out DIR -random SEED        # a random small cluster
//	gen -out DIR -hash SEED          # a NodePool-hash probe
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

func main() {
	out := flag.String("out", "", "output directory")
	diverse := flag.Int("diverse", 0, "diverse benchmark workload with this many pods")
	pref := flag.String("preference", "", "preference workload (4,000 pods) with policy Respect or Ignore")
	random := flag.Int64("random", 0, "random cluster seed")
	hash := flag.Int64("hash", 0, "NodePool-hash probe seed")
	seed := flag.Int64("seed", workload.BenchmarkSeed, "PRNG seed of the benchmark shapes")
	disruptScale := flag.Int("disrupt-scale", 0, "disruption benchmark cluster with this many nodes (30 pods each)")
	disruptRandom := flag.Int64("disrupt-random", -1, "random disruption cluster seed")
	flag.Parse()
	if *disruptScale > 0 || *disruptRandom >= 0 {
		c := workload.ScaleDisruption(*disruptScale, 30)
		if *disruptRandom >= 0 {
			c = workload.RandomDisruption(*disruptRandom, workload.DefaultDisruptionConfig)
		}
		if *out == "" {
			flag.Usage()
			os.Exit(2)
		}
		if err := c.Write(*out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	var w *workload.Workload
	switch {
	case *diverse > 0:
		w = workload.Diverse(*diverse, *seed)
	case *pref != "":
		w = workload.Preference(4000, *seed, *pref)
	case *random != 0:
		w = workload.Random(*random, workload.DefaultRandomConfig)
	case *hash != 0:
		w = workload.HashWorkload(*hash)
	}
	if w == nil || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := w.Write(*out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
