// Validate: every NodePool, NodeClaim and NodeOverlay against Karpenter's CRD
// rules, and every pending pod (and Deployment pod template) against the
// checks Karpenter makes before scheduling. Objects are visited in input
// order, kind by kind; a violation never stops the walk.

#include "nodeplan/validate.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "nodeplan/object_meta.h"
#include "validation/karpenter_objects.h"
#include "validation/pods.h"
#include "validation/violations.h"
#include "validation/workload_checks.h"

namespace nodeplan {
namespace {}  // namespace

v1::ValidateResponse Validate(const v1::ManifestSet& manifests) {
  v1::ValidateResponse response;
  for (const v1::NodePool& np : manifests.node_pools()) {
    validation::Violations v(absl::StrCat("NodePool ", np.metadata().name()),
                             &response);
    validation::CheckNodePool(np, &v);
  }
  for (const v1::NodeClaim& nc : manifests.node_claims()) {
    validation::Violations v(absl::StrCat("NodeClaim ", nc.metadata().name()),
                             &response);
    validation::CheckNodeClaim(nc, &v);
  }
  for (const v1::NodeOverlay& o : manifests.node_overlays()) {
    validation::Violations v(absl::StrCat("NodeOverlay ", o.metadata().name()),
                             &response);
    validation::CheckNodeOverlay(o, &v);
  }
  for (const v1::Pod& pod : manifests.pods()) {
    // Bound pods are cluster state: Karpenter only validates pending ones.
    if (!pod.spec().node_name().empty()) continue;
    validation::Violations v(
        absl::StrCat("Pod ", NamespacedName(pod.metadata())), &response);
    validation::CheckPodSpec(pod.spec(), "spec", &v);
  }
  for (const v1::Deployment& d : manifests.deployments()) {
    validation::Violations v(
        absl::StrCat("Deployment ", NamespacedName(d.metadata())), &response);
    validation::CheckPodSpec(d.spec().template_().spec(), "spec.template.spec",
                             &v);
  }
  // What the API server would have refused (and Schedule refuses).
  // Everything Schedule and Disrupt refuse, `validate` reports.
  validation::Workload workload;
  workload.SetAllObjects(manifests);
  validation::AddWorkloadViolations(workload, &response);
  return response;
}

}  // namespace nodeplan
