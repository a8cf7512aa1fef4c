#include <string>

#include "nodeplan/object_meta.h"
#include "nodeplan/workload.h"

namespace nodeplan::workload {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Below(uint64_t n) {
  // Reject the top partial bucket so every residue is equally likely.
  const uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
  uint64_t x;
  do {
    x = Next();
  } while (x > limit);
  return x % n;
}

std::string PodKey(const v1::Pod& pod) {
  return NamespacedName(pod.metadata());
}

v1::Pod DeploymentReplica(const v1::Deployment& deployment, int index) {
  v1::Pod pod;
  DeploymentReplica(deployment, index, &pod);
  return pod;
}

void DeploymentReplica(const v1::Deployment& deployment, int index,
                       v1::Pod* out) {
  v1::Pod& pod = *out;
  pod.set_api_version("v1");
  pod.set_kind("Pod");
  const auto& tmpl = deployment.spec().template_();
  *pod.mutable_metadata()->mutable_labels() = tmpl.metadata().labels();
  *pod.mutable_metadata()->mutable_annotations() =
      tmpl.metadata().annotations();
  pod.mutable_metadata()->set_name(deployment.metadata().name() + "-" +
                                   std::to_string(index));
  pod.mutable_metadata()->set_namespace_(
      std::string(NamespaceOf(deployment.metadata())));
  pod.mutable_metadata()->set_uid(deployment.metadata().uid() +
                                  pod.metadata().name());
  *pod.mutable_spec() = tmpl.spec();
}

}  // namespace nodeplan::workload
