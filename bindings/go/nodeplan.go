package nodeplan

/*
#cgo pkg-config: nodeplan
#include <stdlib.h>
#include "nodeplan/c_api.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// ABIVersion is the C ABI this package was written for
// (NODEPLAN_CAPI_ABI_VERSION). Calls fail with CodeFailedPrecondition when
// the loaded library implements another.
const ABIVersion = 1

var abiErr = checkABI()

func checkABI() error {
	if got := int(C.nodeplan_abi_version()); got != ABIVersion {
		return &Error{Code: CodeFailedPrecondition, Message: fmt.Sprintf(
			"libnodeplan implements ABI version %d, this package needs %d",
			got, ABIVersion)}
	}
	return nil
}

// CheckABI reports whether the loaded C library implements ABIVersion.
func CheckABI() error { return abiErr }

// Version is the C library's release, e.g. "0.1.0".
func Version() string { return C.GoString(C.nodeplan_version()) }

// LibraryABIVersion is the ABI version the loaded C library implements.
func LibraryABIVersion() int { return int(C.nodeplan_abi_version()) }

type operation int

const (
	opSchedule operation = iota
	opLoadManifests
	opValidate
	opSnapshotSchedule
	opDisrupt
	opValidateCommand
	opClusterUpdate
	opClusterSchedule
	opClusterDisrupt
	opExplain
	opDiff
)

// invoke calls one C operation on the marshalled request and unmarshals its
// response into out.
// handle is the snapshot or cluster the operation runs on (nil for the
// others).
func invoke(op operation, handle unsafe.Pointer, in []byte, out proto.Message) error {
	if abiErr != nil {
		return abiErr
	}
	// The request is passed in place: it holds no Go pointers and the library
	// keeps no pointer to it after the call.
	var req unsafe.Pointer
	if len(in) > 0 {
		req = unsafe.Pointer(&in[0])
	}
	var resp unsafe.Pointer
	var respLen C.size_t
	var cerr *C.char
	var code C.int
	switch op {
	case opSchedule:
		code = C.nodeplan_schedule(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opLoadManifests:
		code = C.nodeplan_load_manifests(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opValidate:
		code = C.nodeplan_validate(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opSnapshotSchedule:
		code = C.nodeplan_snapshot_schedule((*C.struct_nodeplan_snapshot)(handle), req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opDisrupt:
		code = C.nodeplan_disrupt(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opValidateCommand:
		code = C.nodeplan_validate_command(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opClusterUpdate:
		code = C.nodeplan_cluster_update((*C.struct_nodeplan_cluster)(handle), req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opClusterSchedule:
		code = C.nodeplan_cluster_schedule((*C.struct_nodeplan_cluster)(handle), req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opClusterDisrupt:
		code = C.nodeplan_cluster_disrupt((*C.struct_nodeplan_cluster)(handle), req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opExplain:
		code = C.nodeplan_explain(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	case opDiff:
		code = C.nodeplan_diff(req, C.size_t(len(in)), &resp, &respLen, &cerr)
	}
	runtime.KeepAlive(in)
	if code != 0 {
		return takeError(code, cerr)
	}
	defer C.nodeplan_free(resp)
	// Unmarshal copies what it keeps, so it may read the C buffer directly.
	if err := proto.Unmarshal(unsafe.Slice((*byte)(resp), int(respLen)), out); err != nil {
		return &Error{Code: CodeInternal, Message: "nodeplan: undecodable response: " + err.Error()}
	}
	return nil
}

func takeError(code C.int, cerr *C.char) error {
	msg := "(no message)"
	if cerr != nil {
		msg = C.GoString(cerr)
		C.nodeplan_free(unsafe.Pointer(cerr))
	}
	return &Error{Code: Code(code), Message: msg}
}

func marshal(m proto.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "nodeplan: cannot marshal request: " + err.Error()}
	}
	return b, nil
}

// Schedule decides where the request's pending pods go: existing capacity,
// new NodeClaims, or unschedulable with a reason.
func Schedule(req *nodeplanv1.ScheduleRequest) (*nodeplanv1.ScheduleResponse, error) {
	in, err := marshal(req)
	if err != nil {
		return nil, err
	}
	return ScheduleBytes(in)
}

// ScheduleBytes is Schedule on a serialized ScheduleRequest.
func ScheduleBytes(req []byte) (*nodeplanv1.ScheduleResponse, error) {
	out := &nodeplanv1.ScheduleResponse{}
	if err := invoke(opSchedule, nil, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Disrupt runs Karpenter's disruption pass on req (its Now is required): the
// command of the first method that produces one (emptiness, static drift,
// drift, multi- and single-node consolidation), budgets, every node's
// candidacy and why not, NodeClaim conditions, expirations, one drain pass
// of each deleting node, annotation writes and events.
func Disrupt(req *nodeplanv1.DisruptRequest) (*nodeplanv1.DisruptResponse, error) {
	in, err := marshal(req)
	if err != nil {
		return nil, err
	}
	out := &nodeplanv1.DisruptResponse{}
	if err := invoke(opDisrupt, nil, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Explain says why one pod goes where it goes (req.Pod, "namespace/name"):
// every NodePool in the scheduler's order with the first check that fails
// there, or where it lands and why; or, with req.NodePool, what a NodePool
// admits: its instance types, limits used and left, budgets and the pods
// that can land on it. An unknown pod or NodePool is a NotFound error.
func Explain(req *nodeplanv1.ExplainRequest) (*nodeplanv1.ExplainResponse, error) {
	in, err := marshal(req)
	if err != nil {
		return nil, err
	}
	out := &nodeplanv1.ExplainResponse{}
	if err := invoke(opExplain, nil, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Diff plans two versions of a cluster (typically the same cluster with
// changed NodePools) and compares them: cost per hour, NodeClaims added and
// removed, pods that change sides, and running NodeClaims that drift only
// under the second, with the Drifted budgets that pace them. req.After.Now
// is required.
func Diff(req *nodeplanv1.DiffRequest) (*nodeplanv1.DiffResponse, error) {
	in, err := marshal(req)
	if err != nil {
		return nil, err
	}
	out := &nodeplanv1.DiffResponse{}
	if err := invoke(opDiff, nil, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ValidateCommand is Karpenter's 15-second re-validation of a command taken
// from an earlier Disrupt against the cluster at a later time.
func ValidateCommand(req *nodeplanv1.ValidateCommandRequest) (*nodeplanv1.ValidateCommandResponse, error) {
	in, err := marshal(req)
	if err != nil {
		return nil, err
	}
	out := &nodeplanv1.ValidateCommandResponse{}
	if err := invoke(opValidateCommand, nil, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// LoadManifests parses Kubernetes manifests (multi-document YAML or JSON as
// kubectl prints it, `kind: List` included) into a ManifestSet. options may
// be nil.
func LoadManifests(text string, options *nodeplanv1.LoadOptions) (*nodeplanv1.ManifestSet, error) {
	in, err := marshal(&nodeplanv1.LoadManifestsRequest{Text: text, Options: options})
	if err != nil {
		return nil, err
	}
	out := &nodeplanv1.ManifestSet{}
	if err := invoke(opLoadManifests, nil, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Validate checks NodePools, NodeClaims and NodeOverlays as the API server
// would, and pods as Karpenter does; every violation is listed.
func Validate(manifests *nodeplanv1.ManifestSet) (*nodeplanv1.ValidateResponse, error) {
	in, err := marshal(&nodeplanv1.ValidateRequest{Manifests: manifests})
	if err != nil {
		return nil, err
	}
	out := &nodeplanv1.ValidateResponse{}
	if err := invoke(opValidate, nil, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Snapshot is a compiled, immutable catalog, NodeClasses and NodePools:
// compile once with NewSnapshot, then Schedule as often as needed from any
// number of goroutines. Close releases it (a finalizer does too).
type Snapshot struct {
	mu     sync.RWMutex // Schedule holds it shared, Close exclusively.
	handle *C.struct_nodeplan_snapshot
}

// NewSnapshot compiles base, whose nodePools, nodeClasses, catalog,
// catalogRef, nodeOverlays and unavailableOfferings are used; its other
// fields must be empty.
func NewSnapshot(base *nodeplanv1.ScheduleRequest) (*Snapshot, error) {
	if abiErr != nil {
		return nil, abiErr
	}
	in, err := marshal(base)
	if err != nil {
		return nil, err
	}
	var req unsafe.Pointer
	if len(in) > 0 {
		req = unsafe.Pointer(&in[0])
	}
	var handle *C.struct_nodeplan_snapshot
	var cerr *C.char
	code := C.nodeplan_snapshot_new(req, C.size_t(len(in)), &handle, &cerr)
	runtime.KeepAlive(in)
	if code != 0 {
		return nil, takeError(code, cerr)
	}
	s := &Snapshot{handle: handle}
	runtime.SetFinalizer(s, (*Snapshot).Close)
	return s, nil
}

// Schedule schedules state (nodes, nodeClaims, pods, daemonSets, volumes,
// options) against the snapshot.
func (s *Snapshot) Schedule(state *nodeplanv1.ScheduleRequest) (*nodeplanv1.ScheduleResponse, error) {
	in, err := marshal(state)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.handle == nil {
		return nil, &Error{Code: CodeFailedPrecondition, Message: "nodeplan: Snapshot is closed"}
	}
	out := &nodeplanv1.ScheduleResponse{}
	if err := invoke(opSnapshotSchedule, unsafe.Pointer(s.handle), in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Close releases the snapshot once no Schedule call uses it. It is
// idempotent.
func (s *Snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle != nil {
		C.nodeplan_snapshot_free(s.handle)
		s.handle = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// Cluster is a long-lived cluster a controller feeds with the changes its
// informers see (ClusterUpdate: upserts as a ManifestSet, deletes by kind,
// namespace and name, the catalog) and asks to Schedule or Disrupt. Answers
// do not depend on the order updates arrived in. Schedule and Disrupt may run
// from any number of goroutines, also while one goroutine calls Update.
// Close releases it (a finalizer does too).
type Cluster struct {
	mu     sync.RWMutex // calls hold it shared, Close exclusively.
	handle *C.struct_nodeplan_cluster
}

// NewCluster creates a cluster holding initial (which may be nil or empty).
func NewCluster(initial *nodeplanv1.ClusterUpdate) (*Cluster, error) {
	if abiErr != nil {
		return nil, abiErr
	}
	in, err := marshal(initial)
	if err != nil {
		return nil, err
	}
	var req unsafe.Pointer
	if len(in) > 0 {
		req = unsafe.Pointer(&in[0])
	}
	var handle *C.struct_nodeplan_cluster
	var cerr *C.char
	code := C.nodeplan_cluster_new(req, C.size_t(len(in)), &handle, &cerr)
	runtime.KeepAlive(in)
	if code != 0 {
		return nil, takeError(code, cerr)
	}
	c := &Cluster{handle: handle}
	runtime.SetFinalizer(c, (*Cluster).Close)
	return c, nil
}

func (c *Cluster) call(op operation, m proto.Message, out proto.Message) error {
	in, err := marshal(m)
	if err != nil {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.handle == nil {
		return &Error{Code: CodeFailedPrecondition, Message: "nodeplan: Cluster is closed"}
	}
	return invoke(op, unsafe.Pointer(c.handle), in, out)
}

// Update applies the deletes, then the upserts, all or nothing.
func (c *Cluster) Update(u *nodeplanv1.ClusterUpdate) (*nodeplanv1.ClusterUpdateResponse, error) {
	out := &nodeplanv1.ClusterUpdateResponse{}
	if err := c.call(opClusterUpdate, u, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Schedule plans on the cluster; req holds only what-if pods, Deployments
// and options.
func (c *Cluster) Schedule(req *nodeplanv1.ScheduleRequest) (*nodeplanv1.ScheduleResponse, error) {
	out := &nodeplanv1.ScheduleResponse{}
	if err := c.call(opClusterSchedule, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Disrupt runs the disruption pass on the cluster; req holds only now,
// options, markedForDeletion, providerDrifted and nominated.
func (c *Cluster) Disrupt(req *nodeplanv1.DisruptRequest) (*nodeplanv1.DisruptResponse, error) {
	out := &nodeplanv1.DisruptResponse{}
	if err := c.call(opClusterDisrupt, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Close releases the cluster once no call uses it. It is idempotent.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handle != nil {
		C.nodeplan_cluster_free(c.handle)
		c.handle = nil
		runtime.SetFinalizer(c, nil)
	}
	return nil
}
