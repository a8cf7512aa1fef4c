/* nodeplan's stable C ABI.
 *
 * Why bytes: every operation takes a serialized protobuf request and returns a
 * serialized protobuf response (messages in package nodeplan.v1, .proto files
 * installed under share/nodeplan/proto). Each language builds the request with
 * its own protobuf runtime, serializes it, calls one function and parses the
 * answer, so no C++ type, allocator or protobuf runtime crosses this boundary.
 *
 * CONVENTIONS (they hold for every declaration below)
 *
 * Prefix: functions are nodeplan_*, macros NODEPLAN_*, types nodeplan_*.
 *   The shared library exports nothing else (linker version node NODEPLAN_1).
 *
 * Operations: int nodeplan_X(const void* request, size_t request_len,
 *                            void** response, size_t* response_len,
 *                            char** error);
 *   request/request_len  the serialized request. NULL is allowed only with
 *                        request_len 0 (an empty message). Lengths above
 *                        NODEPLAN_MAX_REQUEST_BYTES are rejected.
 *   response/response_len  on success a buffer holding the serialized
 *                        response (never NULL, even when response_len is 0,
 *                        which is a valid empty message); on failure NULL/0.
 *   error                on failure a NUL-terminated UTF-8 message; on
 *                        success NULL.
 *   Every output is ALWAYS written, whatever it held before. Any output
 *   pointer may be NULL, meaning "not wanted"; response and response_len must
 *   then both be NULL or both be non-NULL.
 *
 * Return codes: 0 (NODEPLAN_OK) or the number of an absl::StatusCode (the
 *   NODEPLAN_* constants below, same values as gRPC and TF_Code):
 *   INVALID_ARGUMENT for undecodable bytes, NULL with a non-zero length and
 *   invalid or inconsistent requests; RESOURCE_EXHAUSTED for out of memory;
 *   INTERNAL for a bug (a caught exception). Outcomes of a decision are not
 *   errors: a pod that fits no instance type is listed in
 *   ScheduleResponse.unschedulable with its reason.
 *
 * Ownership: everything the library returns (responses, error messages) is
 *   freed with nodeplan_free(), never with the caller's free(); NULL is a
 *   no-op. A snapshot is released with nodeplan_snapshot_free(). After a
 *   failure nothing needs releasing except the error message. The library
 *   never keeps a pointer to caller memory after a call returns.
 *   nodeplan_version() returns a static string: do not free it.
 *
 * Thread safety: there is no init or shutdown call and no mutable global
 *   state. Every function may be called from any number of threads at once,
 *   including nodeplan_snapshot_schedule() on one shared snapshot (it is
 *   immutable once created). Only nodeplan_snapshot_free() must not race with
 *   other uses of the same snapshot.
 *
 * Determinism: the same request bytes and library version give the same
 *   response bytes.
 *
 * Robustness: no input can abort the host process or throw through this
 *   boundary; failures are codes.
 *
 * Large responses: by default (ScheduleOptions.instanceTypeEncoding
 *   "Names") a ScheduleResponse lists every NodeClaim's instance-type
 *   options twice, as strings (NewNodeClaim.instanceTypes and the
 *   NodeClaim's instance-type requirement): about 11 MB and 800,000 strings
 *   for 1,000 NodeClaims with 400 options each, which take longer to
 *   serialize and parse than the decision itself. "Indexed" names each
 *   referenced type once (ScheduleResponse.instanceTypeNames, byte order)
 *   and lists each NodeClaim's options as packed int32 indices into that
 *   table (NewNodeClaim.instanceTypeIndices, cheapest first); the same plan
 *   is then 1.6 MB. Why indices and not a shorter string list: they make
 *   the response's size independent of name lengths, keep one copy of each
 *   name per response in every language, and encode both orders (cheapest
 *   first as listed, byte order once sorted, since the table is sorted).
 *   Until expanded, an Indexed NodeClaim's instance-type requirement is `In`
 *   with no values, which the API server rejects and which allows no type,
 *   so an unexpanded object can never launch wider than planned.
 *   ExpandInstanceTypes (the in-tree C++ library, nodeplan/schedule.h),
 *   expand_instance_types (Python) and ExpandInstanceTypes (Go) turn it
 *   into exactly the Names response (byte for byte under deterministic
 *   serialization; any other caller does the same from schedule.proto's
 *   field comments: names[indices] into instanceTypes, names[sorted
 *   indices] into the requirement's values, then clear the indices and
 *   the table); Go's InstanceTypes and Python's instance_types read a
 *   NodeClaim's names without expanding. ScheduleOptions.maxInstanceTypes
 *   also bounds the lists (Karpenter launches with 60). C++ callers should
 *   parse responses on a google::protobuf::Arena with large blocks
 *   (ArenaOptions start_block_size 64 KiB, max_block_size 1 MiB): no malloc
 *   or free per message, and ExpandInstanceTypes on such a message shares
 *   the table's strings instead of copying them (benchmarks/capi_bench.cc).
 *
 * ABI policy: the signatures below are frozen for NODEPLAN_CAPI_ABI_VERSION 1,
 *   which is also the shared library's SONAME (libnodeplan.so.1) and the
 *   linker version node (NODEPLAN_1). New capabilities arrive as new proto
 *   fields (nearly always) or new functions (rarely), never as changed
 *   signatures. A break bumps NODEPLAN_CAPI_ABI_VERSION. Bindings compare
 *   nodeplan_abi_version() with the value they were built for and refuse a
 *   mismatch. Every change to this header gets a CHANGELOG.md line.
 */
#ifndef NODEPLAN_C_API_H_
#define NODEPLAN_C_API_H_

#include <stddef.h>

#if defined(_WIN32)
#if defined(NODEPLAN_CAPI_BUILDING)
#define NODEPLAN_CAPI_EXPORT __declspec(dllexport)
#else
#define NODEPLAN_CAPI_EXPORT __declspec(dllimport)
#endif
#else
#define NODEPLAN_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only when this ABI breaks; the library checks it equals its own. */
#define NODEPLAN_CAPI_ABI_VERSION 1

/* Requests larger than this are rejected (protobuf's own 2 GiB limit). */
#define NODEPLAN_MAX_REQUEST_BYTES 2147483647u

/* Return codes: absl::StatusCode values. */
#define NODEPLAN_OK 0
#define NODEPLAN_CANCELLED 1
#define NODEPLAN_UNKNOWN 2
#define NODEPLAN_INVALID_ARGUMENT 3
#define NODEPLAN_DEADLINE_EXCEEDED 4
#define NODEPLAN_NOT_FOUND 5
#define NODEPLAN_ALREADY_EXISTS 6
#define NODEPLAN_PERMISSION_DENIED 7
#define NODEPLAN_RESOURCE_EXHAUSTED 8
#define NODEPLAN_FAILED_PRECONDITION 9
#define NODEPLAN_ABORTED 10
#define NODEPLAN_OUT_OF_RANGE 11
#define NODEPLAN_UNIMPLEMENTED 12
#define NODEPLAN_INTERNAL 13
#define NODEPLAN_UNAVAILABLE 14
#define NODEPLAN_DATA_LOSS 15
#define NODEPLAN_UNAUTHENTICATED 16

/* The library release, e.g. "0.1.0". Static storage: do not free. */
NODEPLAN_CAPI_EXPORT const char* nodeplan_version(void);

/* The ABI this library implements; compare with NODEPLAN_CAPI_ABI_VERSION. */
NODEPLAN_CAPI_EXPORT int nodeplan_abi_version(void);

/* Releases a response or error message returned by this library. NULL is a
 * no-op. */
NODEPLAN_CAPI_EXPORT void nodeplan_free(void* ptr);

/* ---- Operations (see "Operations" in the conventions above) ---------- */

/* nodeplan.v1.ScheduleRequest -> nodeplan.v1.ScheduleResponse: which pending
 * pods go onto existing capacity, which NodeClaims to launch, and which pods
 * cannot be placed and why. Bad input (a malformed quantity, an unknown
 * NodePool reference, ...) is INVALID_ARGUMENT with the object and field path
 * in the message. */
NODEPLAN_CAPI_EXPORT int nodeplan_schedule(const void* request,
                                           size_t request_len, void** response,
                                           size_t* response_len, char** error);

/* nodeplan.v1.LoadManifestsRequest -> nodeplan.v1.ManifestSet: Kubernetes
 * manifests as text (multi-document YAML or JSON as kubectl prints it,
 * `kind: List` included), so that no binding needs a YAML parser of its own.
 * Malformed text is INVALID_ARGUMENT naming the document and field path. */
NODEPLAN_CAPI_EXPORT int nodeplan_load_manifests(const void* request,
                                                 size_t request_len,
                                                 void** response,
                                                 size_t* response_len,
                                                 char** error);

/* nodeplan.v1.ValidateRequest -> nodeplan.v1.ValidateResponse: NodePool,
 * NodeClaim and NodeOverlay validation as the API server applies it. Every
 * violation is listed in the response; they are answers, not errors. */
NODEPLAN_CAPI_EXPORT int nodeplan_validate(const void* request,
                                           size_t request_len, void** response,
                                           size_t* response_len, char** error);

/* nodeplan.v1.DisruptRequest -> nodeplan.v1.DisruptResponse: Karpenter's
 * disruption decisions at DisruptRequest.now (required): the command of the
 * first method that produces one (emptiness, static drift, drift, multi- and
 * single-node consolidation), budgets, every node's candidacy and why not,
 * NodeClaim conditions, expirations, one drain pass of each deleting node,
 * annotation writes and events. A node that cannot be disrupted is an
 * answer, not an error. */
NODEPLAN_CAPI_EXPORT int nodeplan_disrupt(const void* request,
                                          size_t request_len, void** response,
                                          size_t* response_len, char** error);

/* nodeplan.v1.ValidateCommandRequest -> nodeplan.v1.ValidateCommandResponse:
 * Karpenter's 15-second re-validation of a command (taken from an earlier
 * nodeplan_disrupt response, its optimized consolidation's too) against the
 * cluster at a later time. */
NODEPLAN_CAPI_EXPORT int nodeplan_validate_command(const void* request,
                                                   size_t request_len,
                                                   void** response,
                                                   size_t* response_len,
                                                   char** error);

/* nodeplan.v1.ExplainRequest -> nodeplan.v1.ExplainResponse: for one pod,
 * every NodePool in the scheduler's order with the first check that fails
 * there (taints, requirements, instance types, resources with the nearest
 * miss, limits, minValues, the scheduler's own reason) or why it fits, and
 * where the plan puts the pod; or for one NodePool, its admitted instance
 * types, limits used and left, disruption budgets and the pods that can
 * land on it. An unknown pod or NodePool is NOT_FOUND. */
NODEPLAN_CAPI_EXPORT int nodeplan_explain(const void* request,
                                          size_t request_len, void** response,
                                          size_t* response_len, char** error);

/* nodeplan.v1.DiffRequest -> nodeplan.v1.DiffResponse: two versions of a
 * cluster planned and compared (cost, NodeClaims added and removed, pods
 * that become unschedulable or schedulable) and the running NodeClaims that
 * drift only under the second, with the Drifted budgets pacing them.
 * DiffRequest.after.now is required. */
NODEPLAN_CAPI_EXPORT int nodeplan_diff(const void* request, size_t request_len,
                                       void** response, size_t* response_len,
                                       char** error);

/* ---- Snapshots: compile once, schedule many times ---------------------- */

/* An immutable, compiled catalog (with overlays and unavailable offerings
 * applied), NodeClasses and NodePools. Opaque; safe to share between
 * threads. Why a handle and not a serialized form: compiling (interning
 * labels, building requirement bitsets per instance type) is the expensive
 * part a controller wants to do once per catalog or NodePool change. */
typedef struct nodeplan_snapshot nodeplan_snapshot;

/* Compiles `base`, a nodeplan.v1.ScheduleRequest whose nodePools,
 * nodeClasses, catalog/catalogRef, nodeOverlays and unavailableOfferings are
 * used and whose other fields must be empty. On success *snapshot is a new
 * handle for nodeplan_snapshot_free() and *error NULL; on failure *snapshot
 * is NULL and *error a message. Either output may be NULL ("not wanted"; a
 * snapshot not wanted is released at once). */
NODEPLAN_CAPI_EXPORT int nodeplan_snapshot_new(const void* base,
                                               size_t base_len,
                                               nodeplan_snapshot** snapshot,
                                               char** error);

/* nodeplan.v1.ScheduleRequest -> nodeplan.v1.ScheduleResponse against a
 * snapshot: `state` supplies nodes, nodeClaims, pods, daemonSets, volumes,
 * deployments and options; its snapshot fields must be empty. A NULL
 * snapshot is INVALID_ARGUMENT. Any number of threads may call this on one
 * snapshot at once. */
NODEPLAN_CAPI_EXPORT int nodeplan_snapshot_schedule(
    const nodeplan_snapshot* snapshot, const void* state, size_t state_len,
    void** response, size_t* response_len, char** error);

/* Releases a snapshot; NULL is a no-op. No call may be using it. */
NODEPLAN_CAPI_EXPORT void nodeplan_snapshot_free(nodeplan_snapshot* snapshot);

/* ---- Clusters: feed changes, decide many times --------------------------- */

/* A long-lived cluster (nodeplan/cluster.h): a controller sends the changes
 * its informers see (nodeplan.v1.ClusterUpdate: upserts as a ManifestSet,
 * deletes by kind/namespace/name, the catalog) and asks it to schedule or
 * disrupt. Objects are kept in kind/namespace/name order, so answers never
 * depend on the order updates arrived in; what depends only on NodePools,
 * NodeClasses, overlays and the catalog is compiled once per change of them.
 * nodeplan_cluster_schedule and nodeplan_cluster_disrupt may run from any
 * number of threads at once, also while another thread calls
 * nodeplan_cluster_update (updates are serialized; a reader sees a completed
 * update, never a partial one). Only nodeplan_cluster_free must not race with
 * the others. */
typedef struct nodeplan_cluster nodeplan_cluster;

/* nodeplan.v1.ClusterUpdate (the initial contents; may be empty) -> a handle
 * in *cluster (NULL on failure), released with nodeplan_cluster_free(). */
NODEPLAN_CAPI_EXPORT int nodeplan_cluster_new(const void* update,
                                              size_t update_len,
                                              nodeplan_cluster** cluster,
                                              char** error);

/* nodeplan.v1.ClusterUpdate -> nodeplan.v1.ClusterUpdateResponse: deletes,
 * then upserts, all or nothing. */
NODEPLAN_CAPI_EXPORT int nodeplan_cluster_update(
    nodeplan_cluster* cluster, const void* update, size_t update_len,
    void** response, size_t* response_len, char** error);

/* nodeplan.v1.ScheduleRequest holding only what-if pods, Deployments and
 * options -> nodeplan.v1.ScheduleResponse, on the cluster's objects. */
NODEPLAN_CAPI_EXPORT int nodeplan_cluster_schedule(
    const nodeplan_cluster* cluster, const void* request, size_t request_len,
    void** response, size_t* response_len, char** error);

/* nodeplan.v1.DisruptRequest holding only now, options, markedForDeletion,
 * providerDrifted, nominated (and Deployments) -> nodeplan.v1.DisruptResponse,
 * on the cluster's objects. */
NODEPLAN_CAPI_EXPORT int nodeplan_cluster_disrupt(
    const nodeplan_cluster* cluster, const void* request, size_t request_len,
    void** response, size_t* response_len, char** error);

NODEPLAN_CAPI_EXPORT void nodeplan_cluster_free(nodeplan_cluster* cluster);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NODEPLAN_C_API_H_ */
