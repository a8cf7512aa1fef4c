// The plan verifier: see include/nodeplan/verify.h for the rules, and
// verify/verifier.h for how the checks are split across files.

#include "nodeplan/verify.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/quantity.h"
#include "validation/workload_checks.h"
#include "verify/verifier.h"

namespace nodeplan {
namespace verify_internal {

bool IsTerminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}

bool OwnedByDaemonSetOrNode(const v1::Pod& pod) {
  return IsOwnedByDaemonSet(pod) || IsOwnedByNode(pod);
}

bool ClaimDeleting(const v1::NodeClaim& claim) {
  if (!claim.metadata().deletion_timestamp().empty()) return true;
  for (const auto& cond : claim.status().conditions())
    if (cond.type() == "InstanceTerminating" && cond.status() == "True")
      return true;
  return false;
}

bool LeavesDeletingNode(const v1::Pod& pod) {
  if (IsTerminal(pod) || OwnedByDaemonSetOrNode(pod)) return false;
  if (!pod.metadata().deletion_timestamp().empty())
    return IsOwnedByStatefulSet(pod);
  auto it = pod.metadata().annotations().find("karpenter.sh/do-not-disrupt");
  if (it == pod.metadata().annotations().end()) return true;
  if (it->second == "true") return false;
  // A positive Go duration protects it; "Never" is no Go duration.
  absl::StatusOr<int64_t> d = ParseDuration(it->second);
  return !(d.ok() && *d > 0 && *d != kNeverDuration);
}

Expr ToExpr(const v1::NodeSelectorRequirement& r) {
  Expr e;
  e.key = verify_internal::NormalizeKey(r.key());
  e.op = r.operator_();
  e.values.assign(r.values().begin(), r.values().end());
  return e;
}

void Verifier::Add(const std::string& rule, const std::string& subject,
                   const std::string& message) {
  const std::string key = absl::StrCat(rule, "\n", subject, "\n", message);
  if (!reported_.insert(key).second) return;
  violations_.push_back(Violation{rule, subject, message});
}

}  // namespace verify_internal

std::vector<Violation> Verify(const v1::ScheduleRequest& request,
                              const v1::ScheduleResponse& response) {
  // A request past the limits is not expanded (Schedule refuses it too).
  validation::Workload workload;
  workload.pods = &request.pods();
  workload.deployments = &request.deployments();
  workload.SetClusterObjects(request);
  if (absl::Status s = validation::CheckWorkload(workload); !s.ok()) {
    return {Violation{"input", "request", std::string(s.message())}};
  }
  return verify_internal::Verifier(request, response).Run();
}

std::string FormatViolation(const Violation& v) {
  return absl::StrCat(v.rule, ": ", v.subject, ": ", v.message);
}

}  // namespace nodeplan
