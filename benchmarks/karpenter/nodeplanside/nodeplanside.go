// Package nodeplanside runs nodeplan's schedule call, through its Go binding
// (cgo over libnodeplan.so), on the same workload files Karpenter reads, and
// renders the answer in the comparison shape of package response.
package nodeplanside

import (
	"encoding/json"
	"fmt"
	"os"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/response"
	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Request builds nodeplan's ScheduleRequest from a workload: the manifests
// are parsed by nodeplan itself (LoadManifests on the very YAML written to
// disk), the catalog file is read as proto3 JSON, the options map to
// ScheduleOptions.
func Request(w *workload.Workload) (*nodeplanv1.ScheduleRequest, error) {
	text, err := w.ManifestBytes()
	if err != nil {
		return nil, err
	}
	set, err := nodeplan.LoadManifests(string(text), nil)
	if err != nil {
		return nil, fmt.Errorf("nodeplan LoadManifests: %w", err)
	}
	catYAML, err := w.Catalog.Marshal()
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
	return &nodeplanv1.ScheduleRequest{
		NodePools:  set.NodePools,
		NodeClaims: set.NodeClaims,
		Nodes:      set.Nodes,
		Pods:       set.Pods,
		DaemonSets: set.DaemonSets,
		Catalog:    cat,
		Options: &nodeplanv1.ScheduleOptions{
			PreferencePolicy: w.Options.PreferencePolicy,
			MinValuesPolicy:  w.Options.MinValuesPolicy,
			MaxInstanceTypes: int32(w.Options.MaxInstanceTypes),
			// Karpenter's own spread-group bookkeeping (see DEVIATIONS.md);
			// NODEPLAN_SPREAD_BOOKKEEPING=Consistent measures the default.
			SpreadBookkeeping: spreadBookkeeping(),
		},
	}, nil
}

// Marshal serializes a request once, so a benchmark times only the call.
func Marshal(req *nodeplanv1.ScheduleRequest) ([]byte, error) { return proto.Marshal(req) }

// ScheduleBytes calls nodeplan on a serialized request.
func ScheduleBytes(req []byte) (*nodeplanv1.ScheduleResponse, error) {
	return nodeplan.ScheduleBytes(req)
}

// Schedule runs nodeplan on a workload and converts the answer.
func Schedule(w *workload.Workload) (*response.ScheduleResponse, error) {
	req, err := Request(w)
	if err != nil {
		return nil, err
	}
	resp, err := nodeplan.Schedule(req)
	if err != nil {
		return nil, err
	}
	return Convert(resp)
}

// Convert maps nodeplan's ScheduleResponse to the comparison shape through
// its proto3 JSON, which the comparison structs mirror.
func Convert(resp *nodeplanv1.ScheduleResponse) (*response.ScheduleResponse, error) {
	b, err := protojson.Marshal(resp)
	if err != nil {
		return nil, err
	}
	var withClaims struct {
		NewNodeClaims []struct {
			NodeClaim struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			} `json:"nodeClaim"`
		} `json:"newNodeClaims"`
	}
	out := &response.ScheduleResponse{}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &withClaims); err != nil {
		return nil, err
	}
	for i := range out.NewNodeClaims {
		if i < len(withClaims.NewNodeClaims) {
			out.NewNodeClaims[i].Annotations = withClaims.NewNodeClaims[i].NodeClaim.Metadata.Annotations
		}
	}
	return out, nil
}

// Version is the loaded library's version.
func Version() string { return nodeplan.Version() }

// spreadBookkeeping is nodeplan's spreadBookkeeping option for the
// comparison: "Karpenter" unless NODEPLAN_SPREAD_BOOKKEEPING says otherwise.
func spreadBookkeeping() string {
	if v := os.Getenv("NODEPLAN_SPREAD_BOOKKEEPING"); v != "" {
		return v
	}
	return "Karpenter"
}
