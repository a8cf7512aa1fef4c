// Command karpdisrupt prints Karpenter's disruption decision on one case
// (a directory with manifests.yaml, catalog.yaml and disrupt.yaml, or a
// manifests file with the other two beside it) as nodeplan's DisruptResponse
// JSON.
//
//	go run ./cmd/karpdisrupt cases/disruption/<name>
//	go run ./cmd/karpdisrupt -random 7     # a generated cluster
package main

import (
	"flag"
	"fmt"
	"os"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/kdisrupt"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

func main() {
	random := flag.Int64("random", -1, "generate the cluster workload.RandomDisruption(seed) instead of reading one")
	write := flag.String("write", "", "with -random: also write the case to this directory")
	flag.Parse()
	var c *workload.DisruptCase
	var err error
	switch {
	case *random >= 0:
		c = workload.RandomDisruption(*random, workload.DefaultDisruptionConfig)
		if *write != "" {
			err = c.Write(*write)
		}
	case flag.NArg() == 1:
		c, err = workload.ReadDisruptCase(flag.Arg(0))
	default:
		fmt.Fprintln(os.Stderr, "usage: karpdisrupt DIR|FILE  |  karpdisrupt -random SEED [-write DIR]")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpdisrupt:", err)
		os.Exit(1)
	}
	resp, err := kdisrupt.Decide(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpdisrupt:", err)
		os.Exit(1)
	}
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(resp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "karpdisrupt:", err)
		os.Exit(1)
	}
	fmt.Println(string(b))
}
