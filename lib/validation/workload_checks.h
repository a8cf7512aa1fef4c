#ifndef NODEPLAN_LIB_VALIDATION_WORKLOAD_CHECKS_H_
#define NODEPLAN_LIB_VALIDATION_WORKLOAD_CHECKS_H_

// What the API server would refuse in a request's pods, Deployments and
// NodePools before nodeplan ever sees them (maxSkew 0, an empty topologyKey,
// an affinity weight of 500, negative replicas, two pods of one name), and
// the size limits of nodeplan/limits.h that bound a request's work. Validate
// reports the violations; Schedule and Disrupt refuse such a request as a
// whole (INVALID_ARGUMENT, or RESOURCE_EXHAUSTED past a limit) instead of
// planning on nonsense.

#include "absl/status/status.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan::validation {

// The objects of a request that the checks read; null fields are skipped.
struct Workload {
  const google::protobuf::RepeatedPtrField<v1::Pod>* pods = nullptr;
  const google::protobuf::RepeatedPtrField<v1::Deployment>* deployments =
      nullptr;
  const google::protobuf::RepeatedPtrField<v1::NodePool>* node_pools = nullptr;
};

// The limits first (cheap, before any copy or expansion):
// RESOURCE_EXHAUSTED naming the limit and the field. Then the API server's
// rules: INVALID_ARGUMENT listing the first violations, each as
// "<Kind> <ns/name>: <field path>: <message>".
absl::Status CheckWorkload(const Workload& workload);

// The same rules as violations (for Validate); limits are not reported here.
void AddWorkloadViolations(const Workload& workload, v1::ValidateResponse* out);

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_WORKLOAD_CHECKS_H_
