package workload

import (
	"errors"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/manifests"
)

func writeOptions(path string, o Options) error {
	b, err := yaml.Marshal(o)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Read loads a workload written by Write (options.yaml is optional).
func Read(dir string) (*Workload, error) {
	objs, err := manifests.LoadPaths(filepath.Join(dir, "manifests.yaml"))
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(filepath.Join(dir, "catalog.yaml"))
	if err != nil {
		return nil, err
	}
	w := &Workload{Name: filepath.Base(dir), NodePools: objs.NodePools, NodeClaims: objs.NodeClaims, Pods: objs.Pods, Nodes: objs.Nodes,
		DaemonSets: objs.DaemonSets, Catalog: cat}
	b, err := os.ReadFile(filepath.Join(dir, "options.yaml"))
	if err == nil {
		if err := yaml.UnmarshalStrict(b, &w.Options); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return w, nil
}
