// Package sidebyside times Karpenter's scheduler and nodeplan's schedule call
// on identical workloads, and compares their decisions.
package sidebyside

import (
	"fmt"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// BenchCase names one benchmark workload.
type BenchCase struct {
	Name string
	Make func() *workload.Workload
}

// BenchCases are Karpenter's benchmark shapes: the diverse workload at the
// upstream pod counts, and the 4,000-pod preference workload with both
// preference policies.
func BenchCases() []BenchCase {
	var cs []BenchCase
	for _, n := range []int{100, 500, 1000, 2000, 5000, 10000, 20000} {
		n := n
		cs = append(cs, BenchCase{Name: fmt.Sprintf("Diverse/pods=%d", n), Make: func() *workload.Workload {
			return workload.Diverse(n, workload.BenchmarkSeed)
		}})
	}
	for _, policy := range []string{"Respect", "Ignore"} {
		policy := policy
		cs = append(cs, BenchCase{Name: fmt.Sprintf("Preference%s/pods=4000", policy), Make: func() *workload.Workload {
			return workload.Preference(4000, workload.BenchmarkSeed, policy)
		}})
	}
	return cs
}
