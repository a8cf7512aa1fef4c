package nodeplanside

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// DisruptRequest builds nodeplan's DisruptRequest from a disruption case the
// way the CLI does: nodeplan parses the manifests YAML itself, the catalog
// file is read as proto3 JSON, and disrupt.yaml is read as a (partial)
// DisruptRequest in proto3 JSON.
func DisruptRequest(c *workload.DisruptCase) (*nodeplanv1.DisruptRequest, error) {
	text, err := c.ManifestBytes()
	if err != nil {
		return nil, err
	}
	set, err := nodeplan.LoadManifests(string(text), nil)
	if err != nil {
		return nil, fmt.Errorf("nodeplan LoadManifests: %w", err)
	}
	cat, err := catalogProto(c.Catalog)
	if err != nil {
		return nil, err
	}
	params, err := c.ParamsBytes()
	if err != nil {
		return nil, err
	}
	pj, err := yaml.YAMLToJSON(params)
	if err != nil {
		return nil, err
	}
	req := &nodeplanv1.DisruptRequest{}
	if err := protojson.Unmarshal(pj, req); err != nil {
		return nil, fmt.Errorf("disrupt.yaml as nodeplan.v1.DisruptRequest: %w", err)
	}
	req.NodePools, req.NodeClaims, req.Nodes = set.NodePools, set.NodeClaims, set.Nodes
	req.Pods, req.DaemonSets, req.PodDisruptionBudgets = set.Pods, set.DaemonSets, set.PodDisruptionBudgets
	req.Catalog = cat
	return req, nil
}

func catalogProto(c *catalog.Catalog) (*nodeplanv1.Catalog, error) {
	catYAML, err := c.Marshal()
	if err != nil {
		return nil, err
	}
	catJSON, err := yaml.YAMLToJSON(catYAML)
	if err != nil {
		return nil, err
	}
	cat := &nodeplanv1.Catalog{}
	if err := protojson.Unmarshal(catJSON, cat); err != nil {
		return nil, fmt.Errorf("catalog as nodeplan.v1.Catalog: %w", err)
	}
	return cat, nil
}

// Disrupt runs nodeplan's Disrupt on a case.
func Disrupt(c *workload.DisruptCase) (*nodeplanv1.DisruptResponse, error) {
	req, err := DisruptRequest(c)
	if err != nil {
		return nil, err
	}
	return nodeplan.Disrupt(req)
}
