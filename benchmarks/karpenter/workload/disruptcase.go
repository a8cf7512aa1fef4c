package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/manifests"
)

// DisruptOptions mirror the fields of nodeplan's DisruptOptions that the
// disruption harness sets (same JSON names).
type DisruptOptions struct {
	PreferencePolicy        string `json:"preferencePolicy,omitempty"`
	MinValuesPolicy         string `json:"minValuesPolicy,omitempty"`
	MaxInstanceTypes        int    `json:"maxInstanceTypes,omitempty"`
	SpotToSpotConsolidation bool   `json:"spotToSpotConsolidation,omitempty"`
}

// DisruptParams are the parts of nodeplan's DisruptRequest that are not
// Kubernetes objects, with the request's JSON names, so disrupt.yaml parses
// as a (partial) nodeplan.v1.DisruptRequest.
type DisruptParams struct {
	Now               string            `json:"now"`
	Options           *DisruptOptions   `json:"options,omitempty"`
	ProviderDrifted   map[string]string `json:"providerDrifted,omitempty"`
	MarkedForDeletion []string          `json:"markedForDeletion,omitempty"`
	Nominated         []string          `json:"nominated,omitempty"`
}

// DisruptCase is one disruption input: a cluster with managed nodes, the
// catalog and the decision time. On disk it is a directory with
// manifests.yaml (kubectl YAML), catalog.yaml and disrupt.yaml.
type DisruptCase struct {
	Name       string
	NodePools  []*v1.NodePool
	NodeClaims []*v1.NodeClaim
	Nodes      []*corev1.Node
	Pods       []*corev1.Pod
	DaemonSets []*appsv1.DaemonSet
	PDBs       []*policyv1.PodDisruptionBudget
	Catalog    *catalog.Catalog
	Params     DisruptParams
}

// Opts returns the options, never nil.
func (c *DisruptCase) Opts() DisruptOptions {
	if c.Params.Options == nil {
		return DisruptOptions{}
	}
	return *c.Params.Options
}

// ManifestBytes renders the objects as one multi-document YAML stream.
func (c *DisruptCase) ManifestBytes() ([]byte, error) {
	mw := &manifests.Writer{}
	var objs []any
	for _, x := range c.NodePools {
		objs = append(objs, x)
	}
	for _, x := range c.NodeClaims {
		objs = append(objs, x)
	}
	for _, x := range c.Nodes {
		objs = append(objs, x)
	}
	for _, x := range c.DaemonSets {
		objs = append(objs, x)
	}
	for _, x := range c.PDBs {
		objs = append(objs, x)
	}
	for _, x := range c.Pods {
		objs = append(objs, x)
	}
	for _, o := range objs {
		if err := mw.Add(o); err != nil {
			return nil, err
		}
	}
	return mw.Bytes(), nil
}

// ParamsBytes renders disrupt.yaml.
func (c *DisruptCase) ParamsBytes() ([]byte, error) { return yaml.Marshal(c.Params) }

// Write stores the case as dir/manifests.yaml, dir/catalog.yaml and
// dir/disrupt.yaml.
func (c *DisruptCase) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := c.ManifestBytes()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifests.yaml"), b, 0o644); err != nil {
		return err
	}
	p, err := c.ParamsBytes()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "disrupt.yaml"), p, 0o644); err != nil {
		return err
	}
	return c.Catalog.Save(filepath.Join(dir, "catalog.yaml"))
}

// ReadDisruptCase loads a case written by Write. path may also be a single
// manifests file, with catalog.yaml and disrupt.yaml beside it.
func ReadDisruptCase(path string) (*DisruptCase, error) {
	dir, file := path, filepath.Join(path, "manifests.yaml")
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.IsDir() {
		dir, file = filepath.Dir(path), path
	}
	objs, err := manifests.LoadPaths(file)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(filepath.Join(dir, "catalog.yaml"))
	if err != nil {
		return nil, err
	}
	c := &DisruptCase{Name: filepath.Base(dir), NodePools: objs.NodePools, NodeClaims: objs.NodeClaims,
		Nodes: objs.Nodes, Pods: objs.Pods, DaemonSets: objs.DaemonSets, PDBs: objs.PDBs, Catalog: cat}
	b, err := os.ReadFile(filepath.Join(dir, "disrupt.yaml"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: disrupt.yaml is required (at least `now`)", dir)
		}
		return nil, err
	}
	if err := yaml.UnmarshalStrict(b, &c.Params); err != nil {
		return nil, fmt.Errorf("%s/disrupt.yaml: %w", dir, err)
	}
	if c.Params.Now == "" {
		return nil, fmt.Errorf("%s/disrupt.yaml: now: required", dir)
	}
	return c, nil
}

// ProviderDriftedNames returns the provider-drifted NodeClaim names, sorted.
func (c *DisruptCase) ProviderDriftedNames() []string {
	var out []string
	for k := range c.Params.ProviderDrifted {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
