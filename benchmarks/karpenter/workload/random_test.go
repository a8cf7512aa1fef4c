package workload_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Same seed, same bytes: the differential run depends on it.
func TestRandomIsReproducible(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		a, b := t.TempDir(), t.TempDir()
		if err := workload.Random(seed, workload.DefaultRandomConfig).Write(a); err != nil {
			t.Fatal(err)
		}
		if err := workload.Random(seed, workload.DefaultRandomConfig).Write(b); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifests.yaml", "catalog.yaml", "options.yaml"} {
			if !bytes.Equal(read(t, filepath.Join(a, f)), read(t, filepath.Join(b, f))) {
				t.Fatalf("seed %d: %s differs between two generations", seed, f)
			}
		}
		w, err := workload.Read(a)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(w.NodePools) == 0 || len(w.Pods) == 0 || len(w.Catalog.InstanceTypes) < 4 {
			t.Fatalf("seed %d: degenerate cluster %d pools %d pods", seed, len(w.NodePools), len(w.Pods))
		}
	}
}
