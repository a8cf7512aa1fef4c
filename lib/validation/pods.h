#ifndef NODEPLAN_LIB_VALIDATION_PODS_H_
#define NODEPLAN_LIB_VALIDATION_PODS_H_

// The checks Karpenter's provisioner makes before it schedules a pending pod
// (pkg/controllers/provisioning/provisioner.go Validate): a pod that fails
// them is ignored ("ignoring pod, ..."), so nodeplan reports it instead.
// Volume (PVC) checks belong to the scheduler, which sees the cluster state.

#include <string>

#include "absl/strings/string_view.h"
#include "nodeplan/v1/k8s.pb.h"
#include "validation/violations.h"

namespace nodeplan::validation {

// `path` is where the PodSpec sits: "spec" for a Pod, "spec.template.spec"
// for a Deployment's template.
void CheckPodSpec(const v1::PodSpec& spec, absl::string_view path,
                  Violations* violations);

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_PODS_H_
