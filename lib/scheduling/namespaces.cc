#include "scheduling/namespaces.h"

#include <algorithm>

#include "absl/container/btree_map.h"
#include "nodeplan/labels.h"

namespace nodeplan::scheduling {

KnownNamespaces::KnownNamespaces(
    const google::protobuf::RepeatedPtrField<v1::Namespace>& objects,
    const std::vector<std::string>& pod_namespaces, Interner& in) {
  // An object's labels win over the implicit ones of a pod's namespace; the
  // first object of a name wins over later duplicates.
  absl::btree_map<std::string, google::protobuf::Map<std::string, std::string>>
      labels;
  for (const v1::Namespace& ns : objects) {
    const std::string& name = ns.metadata().name();
    if (name.empty()) continue;
    labels.try_emplace(name, ns.metadata().labels());
  }
  for (const std::string& name : pod_namespaces) labels.try_emplace(name);
  by_name_.reserve(labels.size());
  for (auto& [name, map] : labels) {
    map[labels::kNamespaceName] = name;
    by_name_.emplace_back(name, LabelSet::FromMap(map, in));
  }
}

std::vector<std::string> KnownNamespaces::Select(
    const v1::PodAffinityTerm& term, const std::string& pod_namespace,
    Interner& in) const {
  std::vector<std::string> out(term.namespaces().begin(),
                               term.namespaces().end());
  if (!term.has_namespace_selector()) {
    if (out.empty()) out.push_back(pod_namespace);
  } else {
    const CompiledLabelSelector selector =
        CompileSelector(&term.namespace_selector(), in);
    for (const auto& [name, labels] : by_name_) {
      if (selector.Matches(labels)) out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nodeplan::scheduling
