// Command karpsched runs Karpenter's scheduler on nodeplan's inputs and prints
// the decision in the JSON shape of nodeplan's ScheduleResponse.
//
//	karpsched -w DIR                   # DIR holds manifests.yaml, catalog.yaml, options.yaml
//	karpsched -f FILE... -catalog FILE # manifests and a catalog file
//	karpsched -random SEED             # a generated random cluster
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kadapter"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/manifests"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(s string) error { *f = append(*f, s); return nil }

func main() {
	var fs files
	dir := flag.String("w", "", "workload directory (manifests.yaml, catalog.yaml, options.yaml)")
	cat := flag.String("catalog", "", "catalog file (with -f)")
	seed := flag.Int64("random", 0, "generate the random cluster with this seed")
	pref := flag.String("preference-policy", "", "Respect or Ignore (overrides the workload)")
	minv := flag.String("min-values-policy", "", "Strict or BestEffort (overrides the workload)")
	flag.Var(&fs, "f", "manifest file or directory (repeatable)")
	flag.Parse()
	w, err := load(*dir, fs, *cat, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpsched:", err)
		os.Exit(2)
	}
	if *pref != "" {
		w.Options.PreferencePolicy = *pref
	}
	if *minv != "" {
		w.Options.MinValuesPolicy = *minv
	}
	resp, err := kadapter.Schedule(w)
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpsched:", err)
		os.Exit(1)
	}
	resp.Canonicalize()
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(resp)
}

func load(dir string, fs files, cat string, seed int64) (*workload.Workload, error) {
	switch {
	case dir != "":
		return workload.Read(dir)
	case seed != 0:
		return workload.Random(seed, workload.DefaultRandomConfig), nil
	case len(fs) > 0 && cat != "":
		objs, err := manifests.LoadPaths(fs...)
		if err != nil {
			return nil, err
		}
		c, err := catalog.Load(cat)
		if err != nil {
			return nil, err
		}
		return &workload.Workload{NodePools: objs.NodePools, Pods: objs.Pods, Nodes: objs.Nodes, DaemonSets: objs.DaemonSets, Catalog: c}, nil
	}
	return nil, fmt.Errorf("give -w DIR, -random SEED, or -f FILE... with -catalog FILE")
}
