package nodeplan_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/proto"

	nodeplan "github.com/nodeplan/nodeplan/bindings/go"
	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// Two Deployments of different shapes: several NodeClaims whose option
// lists differ.
func twoDeployments(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "bindings", "testdata", "two-deployments.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func deterministic(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func withEncoding(req *nodeplanv1.ScheduleRequest, encoding string) *nodeplanv1.ScheduleRequest {
	c := proto.Clone(req).(*nodeplanv1.ScheduleRequest)
	if c.Options == nil {
		c.Options = &nodeplanv1.ScheduleOptions{}
	}
	c.Options.InstanceTypeEncoding = encoding
	return c
}

// The Names and the Indexed answer to the two-deployment request.
func bothEncodings(t *testing.T) (names, indexed *nodeplanv1.ScheduleResponse) {
	t.Helper()
	req := seedRequest(t, twoDeployments(t))
	names, err := nodeplan.Schedule(req)
	if err != nil {
		t.Fatal(err)
	}
	indexed, err = nodeplan.Schedule(withEncoding(req, "Indexed"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names.NewNodeClaims) < 4 || len(indexed.InstanceTypeNames) == 0 {
		t.Fatalf("%d NodeClaims, %d names", len(names.NewNodeClaims), len(indexed.InstanceTypeNames))
	}
	return names, indexed
}

func TestIndexedExpandsToTheNamesBytes(t *testing.T) {
	names, indexed := bothEncodings(t)
	if !slices.IsSorted(indexed.InstanceTypeNames) || len(slices.Compact(slices.Clone(indexed.InstanceTypeNames))) != len(indexed.InstanceTypeNames) {
		t.Fatal("instanceTypeNames not strictly ascending")
	}
	if 3*proto.Size(indexed) > proto.Size(names) {
		t.Errorf("indexed %d bytes vs names %d", proto.Size(indexed), proto.Size(names))
	}
	if err := nodeplan.ExpandInstanceTypes(indexed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(deterministic(t, indexed), deterministic(t, names)) {
		t.Fatal("expanded Indexed response differs from the Names response")
	}
	// Twice, and on a Names response: nothing to do.
	for _, r := range []*nodeplanv1.ScheduleResponse{indexed, names} {
		if err := nodeplan.ExpandInstanceTypes(r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(deterministic(t, r), deterministic(t, names)) {
			t.Fatal("a second expansion changed the response")
		}
	}
}

func TestSnapshotIndexedExpandsToTheNamesBytes(t *testing.T) {
	full := seedRequest(t, twoDeployments(t))
	snap, err := nodeplan.NewSnapshot(&nodeplanv1.ScheduleRequest{NodePools: full.NodePools, NodeClasses: full.NodeClasses, CatalogRef: "aws"})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	state := &nodeplanv1.ScheduleRequest{Deployments: full.Deployments}
	names, err := snap.Schedule(state)
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := snap.Schedule(withEncoding(state, "Indexed"))
	if err != nil {
		t.Fatal(err)
	}
	if err := nodeplan.ExpandInstanceTypes(indexed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(deterministic(t, indexed), deterministic(t, names)) {
		t.Fatal("expanded snapshot answer differs from the Names answer")
	}
}

func TestInstanceTypesSharesTheTablesStrings(t *testing.T) {
	names, indexed := bothEncodings(t)
	table := map[string]*byte{}
	for _, n := range indexed.InstanceTypeNames {
		table[n] = unsafe.StringData(n)
	}
	for c, claim := range indexed.NewNodeClaims {
		got, err := nodeplan.InstanceTypes(indexed, claim)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, names.NewNodeClaims[c].InstanceTypes) {
			t.Fatalf("claim %d: %v", c, got)
		}
		for _, n := range got {
			if unsafe.StringData(n) != table[n] {
				t.Fatalf("claim %d: %q is a copy", c, n)
			}
		}
		same, err := nodeplan.InstanceTypes(names, names.NewNodeClaims[c])
		if err != nil || !slices.Equal(same, got) {
			t.Fatalf("names claim %d: %v %v", c, same, err)
		}
	}
	if len(indexed.NewNodeClaims[0].InstanceTypes) != 0 {
		t.Fatal("InstanceTypes expanded the response")
	}
}

func TestMalformedIndexedResponsesAreRejectedUnchanged(t *testing.T) {
	_, good := bothEncodings(t)
	cases := []struct {
		name, message string
		corrupt       func(r *nodeplanv1.ScheduleResponse)
	}{
		{"past the table", "is not a position in instanceTypeNames", func(r *nodeplanv1.ScheduleResponse) {
			c := r.NewNodeClaims[1]
			c.InstanceTypeIndices = append(c.InstanceTypeIndices, int32(len(r.InstanceTypeNames)))
		}},
		{"negative", "newNodeClaims[1].instanceTypeIndices[0]: -1 is not a position", func(r *nodeplanv1.ScheduleResponse) {
			r.NewNodeClaims[1].InstanceTypeIndices[0] = -1
		}},
		{"listed twice", "newNodeClaims[1].instanceTypeIndices[1]: ", func(r *nodeplanv1.ScheduleResponse) {
			c := r.NewNodeClaims[1]
			c.InstanceTypeIndices[1] = c.InstanceTypeIndices[0]
		}},
		{"names and indices", "has both instanceTypes and instanceTypeIndices", func(r *nodeplanv1.ScheduleResponse) {
			r.NewNodeClaims[1].InstanceTypes = []string{"m5.large"}
		}},
		{"no requirement to fill", "requirement `In` without values", func(r *nodeplanv1.ScheduleResponse) {
			r.NewNodeClaims[1].NodeClaim.Spec.Requirements = nil
		}},
	}
	for _, tc := range cases {
		bad := proto.Clone(good).(*nodeplanv1.ScheduleResponse)
		tc.corrupt(bad)
		before := deterministic(t, bad)
		err := nodeplan.ExpandInstanceTypes(bad)
		if !errors.Is(err, nodeplan.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if !bytes.Equal(deterministic(t, bad), before) {
			t.Errorf("%s: the response changed", tc.name)
		}
	}
}

func TestUnknownEncodingIsInvalidArgument(t *testing.T) {
	_, err := nodeplan.Schedule(withEncoding(seedRequest(t, deploymentYAML), "indexed"))
	if !errors.Is(err, nodeplan.ErrInvalidArgument) || !strings.Contains(err.Error(), `options.instanceTypeEncoding: "indexed" is not one of Names, Indexed`) {
		t.Fatalf("err = %v", err)
	}
}
