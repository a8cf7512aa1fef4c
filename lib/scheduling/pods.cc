#include "scheduling/pods.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/resources.h"
#include "nodeplan/taints.h"

namespace nodeplan::scheduling {
bool Tolerates(const std::vector<v1::Taint>& taints,
               const std::vector<v1::Toleration>& tols, std::string* err) {
  const int bad = FirstUntoleratedTaint(taints, tols);
  if (bad < 0) return true;
  if (err)
    *err = absl::StrCat("did not tolerate taint ", TaintText(taints[bad]));
  return false;
}

bool SameTolerations(const std::vector<v1::Toleration>& a,
                     const std::vector<v1::Toleration>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const v1::Toleration& x, const v1::Toleration& y) {
                      return x.key() == y.key() &&
                             x.operator_() == y.operator_() &&
                             x.value() == y.value() && x.effect() == y.effect();
                    });
}

std::vector<v1::Toleration> CompileTolerations(
    const google::protobuf::RepeatedPtrField<v1::Toleration>& t) {
  return {t.begin(), t.end()};
}

bool IsTerminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}

bool HasPodTopologyTerms(const v1::PodSpec& spec) {
  if (!spec.topology_spread_constraints().empty()) return true;
  if (!spec.has_affinity()) return false;
  const v1::Affinity& a = spec.affinity();
  const v1::PodAffinity& pa = a.pod_affinity();
  const v1::PodAntiAffinity& paa = a.pod_anti_affinity();
  return !pa.required_during_scheduling_ignored_during_execution().empty() ||
         !pa.preferred_during_scheduling_ignored_during_execution().empty() ||
         !paa.required_during_scheduling_ignored_during_execution().empty() ||
         !paa.preferred_during_scheduling_ignored_during_execution().empty();
}

std::vector<HostPort> CompileHostPorts(const v1::PodSpec& spec) {
  std::vector<HostPort> out;
  for (const auto& c : spec.containers())
    for (const auto& p : c.ports()) {
      if (p.host_port() == 0) continue;
      out.push_back({p.host_ip().empty() ? "0.0.0.0" : p.host_ip(),
                     p.host_port(),
                     p.protocol().empty() ? "TCP" : p.protocol()});
    }
  return out;
}

bool PortsConflict(const std::vector<HostPort>& a,
                   const std::vector<HostPort>& b) {
  auto unspecified = [](const std::string& ip) {
    return ip == "0.0.0.0" || ip == "::";
  };
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.port == y.port && x.protocol == y.protocol &&
          (x.ip == y.ip || unspecified(x.ip) || unspecified(y.ip)))
        return true;
  return false;
}

CompiledLabelSelector CompileSelector(const v1::LabelSelector* sel,
                                      Interner& in) {
  return CompiledLabelSelector::Compile(sel, in).value_or(
      CompiledLabelSelector());
}

std::string SelectorSignature(const v1::LabelSelector* sel) {
  if (sel == nullptr) return "nil";
  std::vector<std::string> parts;
  std::vector<std::pair<std::string, std::string>> ml(
      sel->match_labels().begin(), sel->match_labels().end());
  std::sort(ml.begin(), ml.end());
  for (const auto& [k, v] : ml) parts.push_back(absl::StrCat("L", k, "=", v));
  std::vector<std::string> ex;
  for (const auto& e : sel->match_expressions()) {
    std::vector<std::string> vals(e.values().begin(), e.values().end());
    std::sort(vals.begin(), vals.end());
    ex.push_back(absl::StrCat("E", e.key(), " ", e.operator_(), " ",
                              absl::StrJoin(vals, ",")));
  }
  std::sort(ex.begin(), ex.end());
  ex.erase(std::unique(ex.begin(), ex.end()), ex.end());
  return absl::StrCat(absl::StrJoin(parts, ";"), "|", absl::StrJoin(ex, ";"));
}

absl::StatusOr<DenseResources> PodRequests(const v1::PodSpec& spec,
                                           Interner& names, ResourceDims& dims,
                                           const std::string& path) {
  return PodRequests(spec, names, dims, [&] { return path; });
}

absl::StatusOr<DenseResources> PodRequests(
    const v1::PodSpec& spec, Interner& names, ResourceDims& dims,
    absl::FunctionRef<std::string()> path) {
  absl::StatusOr<ResourceVector> requests = nodeplan::PodRequests(spec, names);
  // The field path is built only for an error (this runs per bound pod).
  if (!requests.ok()) requests = nodeplan::PodRequests(spec, names, path());
  if (!requests.ok()) return requests.status();
  return KnownPodRequests(*requests, names, dims, path);
}

absl::StatusOr<DenseResources> KnownPodRequests(
    const ResourceVector& requests, Interner& names, ResourceDims& dims,
    absl::FunctionRef<std::string()> path) {
  absl::StatusOr<DenseResources> dense = dims.FromVector(requests, names, path);
  if (dense.ok()) (*dense)[kDimPods] = SaturatingAdd((*dense)[kDimPods], 1);
  return dense;
}

std::string PodIdentity(const v1::ObjectMeta& metadata) {
  if (!metadata.uid().empty()) return metadata.uid();
  return NamespacedName(metadata);
}

std::string ValidatePod(const v1::Pod& pod) {
  auto restricted = [](const std::string& key) {
    if (key == labels::kHostname) return true;
    if (key == labels::kNodePool || key == labels::kCapacityType) return false;
    std::string domain = key.substr(0, key.find('/'));
    if (key.find('/') == std::string::npos) return false;
    return domain == "karpenter.sh" || absl::EndsWith(domain, ".karpenter.sh");
  };
  auto restricted_msg = [](const std::string& key) {
    return absl::StrCat(
        "using label ", key,
        " is not allowed as it might interfere with the internal provisioning "
        "logic; specify a well known label or a custom label that does not use "
        "a restricted domain");
  };
  const auto& spec = pod.spec();
  std::vector<std::string> keys;
  for (const auto& [k, v] : spec.node_selector()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys)
    if (restricted(k)) return restricted_msg(k);
  const auto& na = spec.affinity().node_affinity();
  for (const auto& term :
       na.required_during_scheduling_ignored_during_execution()
           .node_selector_terms()) {
    if (term.match_fields_size() > 0)
      return "node selector term with matchFields is not supported";
    for (const auto& r : term.match_expressions()) {
      if (restricted(r.key())) return restricted_msg(r.key());
      const std::string& op = r.operator_();
      if (op == "In" && r.values().empty())
        return absl::StrCat("key ", r.key(),
                            " with operator In must have a value defined");
      if (op == "Gt" || op == "Lt") {
        bool ok = r.values_size() == 1 && !r.values(0).empty() &&
                  std::all_of(r.values(0).begin(), r.values(0).end(),
                              [](char ch) { return ch >= '0' && ch <= '9'; });
        if (!ok)
          return absl::StrCat("key ", r.key(), " with operator ", op,
                              " must have a single positive integer value");
      } else if (op != "In" && op != "NotIn" && op != "Exists" &&
                 op != "DoesNotExist") {
        return absl::StrCat("key ", r.key(), " has an unsupported operator ",
                            op);
      }
      if (r.key() == labels::kNodePool && op == "DoesNotExist")
        return "configured to not run on a Karpenter provisioned node";
    }
  }
  return "";
}

}  // namespace nodeplan::scheduling
