#include "verify/pod_facts.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/object_meta.h"

namespace nodeplan::verify_internal {
namespace {

bool ContainerRequests(const v1::Container& c, Resources& out,
                       std::string* error) {
  Resources requests, limits;
  if (!ParseResources(c.resources().requests(), requests, error)) return false;
  if (!ParseResources(c.resources().limits(), limits, error)) return false;
  for (const auto& [name, v] : limits) requests.emplace(name, v);
  out = std::move(requests);
  return true;
}

Expr ToExpr(const v1::NodeSelectorRequirement& r) {
  Expr e;
  e.key = NormalizeKey(r.key());
  e.op = r.operator_();
  e.values.assign(r.values().begin(), r.values().end());
  return e;
}

// As Kubernetes' Toleration.ToleratesTaint: an empty key matches every key
// and the operator still decides (an empty-key Equal toleration, which the
// API server refuses but Karpenter's code accepts, tolerates taints whose
// value equals its own, usually "").
bool ToleratesOne(const v1::Toleration& t, const v1::Taint& taint) {
  if (!t.effect().empty() && t.effect() != taint.effect()) return false;
  if (!t.key().empty() && t.key() != taint.key()) return false;
  const std::string& op = t.operator_();
  if (op == "Exists") return true;
  if (op.empty() || op == "Equal") return t.value() == taint.value();
  if (op == "Lt" || op == "Gt") {
    const auto taint_value = ParseGoInt64(taint.value());
    const auto tol_value = ParseGoInt64(t.value());
    if (!taint_value || !tol_value) return false;
    return op == "Lt" ? *taint_value < *tol_value : *taint_value > *tol_value;
  }
  return false;
}

}  // namespace

bool ExtractPodFacts(const v1::ObjectMeta& meta, const v1::PodSpec& spec,
                     PodFacts& facts, std::string* error) {
  facts.ns = std::string(NamespaceOf(meta));
  facts.key = facts.ns + "/" + meta.name();
  facts.labels = {meta.labels().begin(), meta.labels().end()};
  facts.spec = &spec;
  // Requests: app containers sum, sidecars (restartable init containers)
  // join the running sum, each other init container needs its own request
  // plus the sidecars started before it; the pod needs the larger.
  Resources running, init_peak;
  for (const auto& c : spec.containers()) {
    Resources r;
    if (!ContainerRequests(c, r, error)) return false;
    AddInto(running, r);
  }
  Resources sidecars;
  for (const auto& c : spec.init_containers()) {
    Resources r;
    if (!ContainerRequests(c, r, error)) return false;
    if (c.restart_policy() == "Always") {
      AddInto(sidecars, r);
      AddInto(running, r);
    } else {
      Resources footprint = sidecars;
      AddInto(footprint, r);
      MaxInto(init_peak, footprint);
    }
  }
  MaxInto(running, init_peak);
  // Pod-level resources (spec.resources) replace the aggregate for cpu,
  // memory and hugepages-*; with pod-level limits, a resource without a
  // pod-level request takes its limit, except hugepages the containers
  // request (the API server's defaulting).
  Resources pod_requests, pod_limits;
  if (!ParseResources(spec.resources().requests(), pod_requests, error) ||
      !ParseResources(spec.resources().limits(), pod_limits, error)) {
    return false;
  }
  auto pod_level = [](const std::string& name) {
    return name == "cpu" || name == "memory" ||
           name.rfind("hugepages-", 0) == 0;
  };
  for (const auto& [name, v] : pod_limits) {
    const bool hugepages = name != "cpu" && name != "memory";
    if (pod_level(name) && !(hugepages && running.count(name)))
      pod_requests.emplace(name, v);
  }
  for (const auto& [name, v] : pod_requests) {
    if (pod_level(name)) running[name] = v;
  }
  Resources overhead;
  if (!ParseResources(spec.overhead(), overhead, error)) return false;
  AddInto(running, overhead);
  running["pods"] += 1000;
  facts.requests = std::move(running);

  std::map<std::string, std::string> selector(spec.node_selector().begin(),
                                              spec.node_selector().end());
  for (const auto& [k, v] : selector) {
    facts.node_selector.push_back(Expr{NormalizeKey(k), "In", {v}});
  }
  const auto& required =
      spec.affinity()
          .node_affinity()
          .required_during_scheduling_ignored_during_execution();
  for (const auto& term : required.node_selector_terms()) {
    std::vector<Expr> exprs;
    for (const auto& r : term.match_expressions()) exprs.push_back(ToExpr(r));
    facts.required_terms.push_back(std::move(exprs));
  }
  facts.tolerations.assign(spec.tolerations().begin(),
                           spec.tolerations().end());
  for (const auto& c : spec.containers()) {
    for (const auto& p : c.ports()) {
      if (p.host_port() == 0) continue;
      HostPort hp;
      hp.ip = p.host_ip().empty() ? "0.0.0.0" : p.host_ip();
      hp.port = p.host_port();
      hp.protocol = p.protocol().empty() ? "TCP" : p.protocol();
      facts.host_ports.push_back(hp);
    }
  }
  return true;
}

bool PodFitsDefinitely(const PodFacts& pod, const LabelLookup& space) {
  if (!AllDefinitely(space, pod.node_selector)) return false;
  if (pod.required_terms.empty()) return true;
  for (const auto& term : pod.required_terms) {
    if (AllDefinitely(space, term)) return true;
  }
  return false;
}

bool PodFitsPossibly(const PodFacts& pod, const LabelLookup& space) {
  if (pod.required_terms.empty()) return AllPossibly(space, pod.node_selector);
  for (const auto& term : pod.required_terms) {
    std::vector<Expr> all = pod.node_selector;
    all.insert(all.end(), term.begin(), term.end());
    if (AllPossibly(space, all)) return true;
  }
  return false;
}

bool WithoutKeys(const PodFacts& pod, const std::vector<std::string>& keys,
                 PodFacts* out) {
  auto listed = [&](const Expr& e) {
    return std::find(keys.begin(), keys.end(), e.key) != keys.end();
  };
  bool any =
      std::any_of(pod.node_selector.begin(), pod.node_selector.end(), listed);
  for (const auto& term : pod.required_terms)
    any = any || std::any_of(term.begin(), term.end(), listed);
  if (!any) return false;
  *out = pod;
  auto drop = [&](std::vector<Expr>& exprs) {
    exprs.erase(std::remove_if(exprs.begin(), exprs.end(), listed),
                exprs.end());
  };
  drop(out->node_selector);
  for (auto& term : out->required_terms) drop(term);
  return true;
}

bool Tolerates(const std::vector<v1::Toleration>& tolerations,
               const v1::Taint& taint) {
  for (const auto& t : tolerations) {
    if (ToleratesOne(t, taint)) return true;
  }
  return false;
}

bool SelectorMatches(const v1::LabelSelector& selector,
                     const std::map<std::string, std::string>& labels) {
  for (const auto& [k, v] : selector.match_labels()) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& e : selector.match_expressions()) {
    auto it = labels.find(e.key());
    const bool present = it != labels.end();
    bool listed = false;
    if (present) {
      for (const auto& v : e.values()) listed |= v == it->second;
    }
    const std::string& op = e.operator_();
    if (op == "In" && !(present && listed)) return false;
    if (op == "NotIn" && present && listed) return false;
    if (op == "Exists" && !present) return false;
    if (op == "DoesNotExist" && present) return false;
    if (op != "In" && op != "NotIn" && op != "Exists" && op != "DoesNotExist") {
      return false;
    }
  }
  return true;
}

bool HostPortsConflict(const HostPort& a, const HostPort& b) {
  if (a.port != b.port || a.protocol != b.protocol) return false;
  auto wildcard = [](const std::string& ip) {
    return ip == "0.0.0.0" || ip == "::";
  };
  return a.ip == b.ip || wildcard(a.ip) || wildcard(b.ip);
}

std::string ExprsToString(const std::vector<Expr>& exprs) {
  std::vector<std::string> parts;
  for (const Expr& e : exprs) {
    parts.push_back(e.values.empty()
                        ? absl::StrCat(e.key, " ", e.op)
                        : absl::StrCat(e.key, " ", e.op, " [",
                                       absl::StrJoin(e.values, " "), "]"));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace nodeplan::verify_internal
