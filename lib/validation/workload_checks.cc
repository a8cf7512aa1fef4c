#include "validation/workload_checks.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/limits.h"
#include "nodeplan/quantity.h"
#include "validation/requirement_rules.h"
#include "validation/violations.h"

namespace nodeplan::validation {
namespace {

std::string NamespacedName(const v1::ObjectMeta& meta) {
  return absl::StrCat(meta.namespace_().empty() ? "default" : meta.namespace_(),
                      "/", meta.name());
}

// The Violations of one object, made on the first one found: the checks
// run on every pod of every Schedule call, and almost all pods are fine.
class Reporter {
 public:
  Reporter(std::function<std::string()> object, v1::ValidateResponse* out)
      : object_(std::move(object)), out_(out) {}
  void Add(const std::string& path, const std::string& message) {
    if (!v_.has_value()) v_.emplace(object_(), out_);
    v_->Add(path, message);
  }

 private:
  std::function<std::string()> object_;
  v1::ValidateResponse* out_;
  std::optional<Violations> v_;
};

// k8s.io/kubernetes pkg/apis/core/validation: affinity weights.
void CheckWeight(absl::string_view path, int32_t weight, Reporter& r) {
  if (weight < 1 || weight > 100) {
    r.Add(absl::StrCat(path, ".weight"),
          absl::StrCat("Invalid value: ", weight,
                       ": must be in the range 1-100"));
  }
}

void CheckTopologyKey(absl::string_view path, const std::string& key,
                      Reporter& r) {
  if (key.empty()) {
    r.Add(absl::StrCat(path, ".topologyKey"),
          "Required value: can not be empty");
  }
}

void CheckAffinityTerms(
    absl::string_view path,
    const google::protobuf::RepeatedPtrField<v1::PodAffinityTerm>& required,
    const google::protobuf::RepeatedPtrField<v1::WeightedPodAffinityTerm>&
        preferred,
    Reporter& r) {
  for (int i = 0; i < required.size(); ++i) {
    if (!required[i].topology_key().empty()) continue;
    CheckTopologyKey(
        absl::StrCat(path, ".requiredDuringSchedulingIgnoredDuringExecution[",
                     i, "]"),
        required[i].topology_key(), r);
  }
  for (int i = 0; i < preferred.size(); ++i) {
    const int32_t w = preferred[i].weight();
    const bool key = !preferred[i].pod_affinity_term().topology_key().empty();
    if (w >= 1 && w <= 100 && key) continue;
    const std::string term = absl::StrCat(
        path, ".preferredDuringSchedulingIgnoredDuringExecution[", i, "]");
    CheckWeight(term, w, r);
    CheckTopologyKey(absl::StrCat(term, ".podAffinityTerm"),
                     preferred[i].pod_affinity_term().topology_key(), r);
  }
}

// Requests, limits and overhead: quantities, never negative (the API
// server's ValidateResourceQuantityValue). Schedule and Disrupt run this on
// every pod, also those they never place (terminal pods, pods bound to a
// node the request lacks, DaemonSet pods): the API server would have
// refused them (found by tests/fuzz). So it costs no allocation unless a
// quantity is wrong: the path is built, and the names sorted, only then.
bool ValidQuantity(const std::string& name, const std::string& text) {
  absl::StatusOr<int64_t> value =
      name == "cpu" ? ParseQuantityMilli(text) : ParseQuantityValue(text);
  return value.ok() && *value >= 0;
}

void CheckQuantities(
    absl::FunctionRef<std::string()> path,
    const google::protobuf::Map<std::string, std::string>& list, Reporter& r) {
  bool all_valid = true;
  for (const auto& [name, text] : list) {
    if (!ValidQuantity(name, text)) {
      all_valid = false;
      break;
    }
  }
  if (all_valid) return;
  const std::string at = path();
  std::vector<std::string> names;
  for (const auto& [name, text] : list) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string& text = list.at(name);
    absl::StatusOr<int64_t> value =
        name == "cpu" ? ParseQuantityMilli(text) : ParseQuantityValue(text);
    if (!value.ok()) {
      r.Add(absl::StrCat(at, "[", name, "]"),
            absl::StrCat("Invalid value: \"", text.substr(0, 60),
                         "\": ", value.status().message()));
    } else if (*value < 0) {
      r.Add(absl::StrCat(at, "[", name, "]"),
            absl::StrCat("Invalid value: \"", text,
                         "\": must be greater than or equal to 0"));
    }
  }
}

void CheckContainers(
    absl::string_view path, absl::string_view field,
    const google::protobuf::RepeatedPtrField<v1::Container>& cs, Reporter& r) {
  for (int i = 0; i < cs.size(); ++i) {
    auto at = [&](const char* list) {
      return absl::StrCat(path, ".", field, "[", i, "].resources.", list);
    };
    CheckQuantities([&] { return at("requests"); },
                    cs[i].resources().requests(), r);
    CheckQuantities([&] { return at("limits"); }, cs[i].resources().limits(),
                    r);
  }
}

// The scheduling fields of a pod spec the API server validates and nodeplan
// reads: resources, topology spread constraints and
// affinity terms.
void CheckSpec(const v1::PodSpec& spec, absl::string_view path, Reporter& r) {
  CheckContainers(path, "containers", spec.containers(), r);
  CheckContainers(path, "initContainers", spec.init_containers(), r);
  CheckQuantities([&] { return absl::StrCat(path, ".overhead"); },
                  spec.overhead(), r);
  const auto& spreads = spec.topology_spread_constraints();
  for (int i = 0; i < spreads.size(); ++i) {
    const v1::TopologySpreadConstraint& t = spreads[i];
    const std::string& when = t.when_unsatisfiable();
    const bool when_ok =
        when.empty() || when == "DoNotSchedule" || when == "ScheduleAnyway";
    const bool domains_ok = !t.has_min_domains() || t.min_domains() > 0;
    if (t.max_skew() > 0 && !t.topology_key().empty() && when_ok &&
        domains_ok) {
      continue;
    }
    const std::string p =
        absl::StrCat(path, ".topologySpreadConstraints[", i, "]");
    if (t.max_skew() <= 0) {
      r.Add(absl::StrCat(p, ".maxSkew"),
            absl::StrCat("Invalid value: ", t.max_skew(),
                         ": must be greater than zero"));
    }
    CheckTopologyKey(p, t.topology_key(), r);
    if (!when_ok) {
      r.Add(absl::StrCat(p, ".whenUnsatisfiable"),
            absl::StrCat("Unsupported value: \"", when,
                         "\": supported values: \"DoNotSchedule\", "
                         "\"ScheduleAnyway\""));
    }
    if (!domains_ok) {
      r.Add(absl::StrCat(p, ".minDomains"),
            absl::StrCat("Invalid value: ", t.min_domains(),
                         ": must be greater than zero"));
    }
  }
  if (!spec.has_affinity()) return;
  const v1::Affinity& a = spec.affinity();
  const auto& node_preferred =
      a.node_affinity().preferred_during_scheduling_ignored_during_execution();
  for (int i = 0; i < node_preferred.size(); ++i) {
    const int32_t w = node_preferred[i].weight();
    if (w >= 1 && w <= 100) continue;
    CheckWeight(absl::StrCat(path,
                             ".affinity.nodeAffinity."
                             "preferredDuringSchedulingIgnoredDuringExecution[",
                             i, "]"),
                w, r);
  }
  CheckAffinityTerms(
      absl::StrCat(path, ".affinity.podAffinity"),
      a.pod_affinity().required_during_scheduling_ignored_during_execution(),
      a.pod_affinity().preferred_during_scheduling_ignored_during_execution(),
      r);
  CheckAffinityTerms(
      absl::StrCat(path, ".affinity.podAntiAffinity"),
      a.pod_anti_affinity()
          .required_during_scheduling_ignored_during_execution(),
      a.pod_anti_affinity()
          .preferred_during_scheduling_ignored_during_execution(),
      r);
}

// Names are unique per kind (and namespace): the API server answers
// AlreadyExists to a second create. Unnamed objects are not compared.
// Compared as (namespace, name) views, without building a key per object.
// An object without a name is refused as the API server refuses it (a
// Deployment without one was planned as replicas "-0", "-1"...; found by
// tests/fuzz).
template <typename T, typename KeyFn>
void CheckUnique(const google::protobuf::RepeatedPtrField<T>& objects,
                 absl::string_view kind, KeyFn key, v1::ValidateResponse* out,
                 bool namespaced = true) {
  absl::flat_hash_set<std::pair<absl::string_view, absl::string_view>> seen;
  seen.reserve(objects.size());
  for (int i = 0; i < objects.size(); ++i) {
    const T& o = objects[i];
    if (o.metadata().name().empty()) {
      Violations v(absl::StrCat(kind, " [", i, "]"), out);
      v.Required("metadata.name");
      continue;
    }
    absl::string_view ns;
    if (namespaced) {
      ns = o.metadata().namespace_();
      if (ns.empty()) ns = "default";
    }
    if (seen.insert({ns, o.metadata().name()}).second) continue;
    Violations v(absl::StrCat(kind, " ", key(o.metadata())), out);
    v.Duplicate("metadata.name", o.metadata().name());
  }
}

absl::Status Exhausted(absl::string_view object, absl::string_view field,
                       int64_t value, absl::string_view what, int64_t limit,
                       absl::string_view constant) {
  return absl::ResourceExhaustedError(absl::StrCat(
      object, ": ", field, ": ", value, " ", what, " exceed the limit of ",
      limit, " (nodeplan::limits::", constant, ")"));
}

absl::Status CheckLimits(const Workload& w) {
  int64_t pending = 0;
  // `object` names the offender; built only for an error (this runs over
  // every pod of every call).
  auto spreads = [&](const v1::PodSpec& spec,
                     absl::FunctionRef<std::string()> object,
                     absl::string_view path) -> absl::Status {
    const int n = spec.topology_spread_constraints_size();
    if (n <= limits::kMaxTopologySpreadConstraints) return absl::OkStatus();
    return Exhausted(object(), absl::StrCat(path, ".topologySpreadConstraints"),
                     n, "constraints", limits::kMaxTopologySpreadConstraints,
                     "kMaxTopologySpreadConstraints");
  };
  if (w.pods != nullptr) {
    for (const v1::Pod& p : *w.pods) {
      if (p.spec().node_name().empty()) ++pending;
      absl::Status s = spreads(
          p.spec(),
          [&] { return absl::StrCat("Pod ", NamespacedName(p.metadata())); },
          "spec");
      if (!s.ok()) return s;
    }
  }
  if (w.deployments != nullptr) {
    for (const v1::Deployment& d : *w.deployments) {
      const std::string object =
          absl::StrCat("Deployment ", NamespacedName(d.metadata()));
      const int64_t replicas =
          d.spec().has_replicas() ? d.spec().replicas() : 1;
      if (replicas < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(object, ": spec.replicas: Invalid value: ", replicas,
                         ": must be greater than or equal to 0"));
      }
      if (replicas > limits::kMaxReplicas) {
        return Exhausted(object, "spec.replicas", replicas, "replicas",
                         limits::kMaxReplicas, "kMaxReplicas");
      }
      pending += replicas;
      absl::Status s = spreads(
          d.spec().template_().spec(), [&] { return object; },
          "spec.template.spec");
      if (!s.ok()) return s;
    }
  }
  if (pending > limits::kMaxPendingPods) {
    return Exhausted("request", "pods and deployments", pending,
                     "pending pods (pods and Deployment replicas)",
                     limits::kMaxPendingPods, "kMaxPendingPods");
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

void AddViolations(const Workload& w, v1::ValidateResponse* out) {
  auto unique = [&](auto list, absl::string_view kind, bool namespaced) {
    if (list == nullptr) return;
    CheckUnique(
        *list, kind,
        [namespaced](const v1::ObjectMeta& m) {
          return namespaced ? NamespacedName(m) : m.name();
        },
        out, namespaced);
  };
  unique(w.node_classes, "NodeClass", false);
  unique(w.node_overlays, "NodeOverlay", false);
  unique(w.nodes, "Node", false);
  unique(w.node_claims, "NodeClaim", false);
  unique(w.daemon_sets, "DaemonSet", true);
  unique(w.persistent_volume_claims, "PersistentVolumeClaim", true);
  unique(w.persistent_volumes, "PersistentVolume", false);
  unique(w.storage_classes, "StorageClass", false);
  unique(w.namespaces, "Namespace", false);
  unique(w.pod_disruption_budgets, "PodDisruptionBudget", true);
  // Node and NodeClaim status quantities: valid wherever they are read or
  // not (a node the request cannot use was never parsed; found by
  // tests/fuzz).
  auto status = [&](auto list, absl::string_view kind) {
    if (list == nullptr) return;
    for (const auto& o : *list) {
      Reporter r([&] { return absl::StrCat(kind, " ", o.metadata().name()); },
                 out);
      CheckQuantities([] { return std::string("status.capacity"); },
                      o.status().capacity(), r);
      CheckQuantities([] { return std::string("status.allocatable"); },
                      o.status().allocatable(), r);
    }
  };
  status(w.nodes, "Node");
  status(w.node_claims, "NodeClaim");
  if (w.node_pools != nullptr) {
    CheckUnique(
        *w.node_pools, "NodePool",
        [](const v1::ObjectMeta& m) { return m.name(); }, out,
        /*namespaced=*/false);
  }
  if (w.pods != nullptr) {
    for (const v1::Pod& p : *w.pods) {
      Reporter r(
          [&] { return absl::StrCat("Pod ", NamespacedName(p.metadata())); },
          out);
      CheckSpec(p.spec(), "spec", r);
    }
    CheckUnique(*w.pods, "Pod", NamespacedName, out);
  }
  if (w.deployments != nullptr) {
    for (const v1::Deployment& d : *w.deployments) {
      Reporter r(
          [&] {
            return absl::StrCat("Deployment ", NamespacedName(d.metadata()));
          },
          out);
      if (d.spec().has_replicas() && d.spec().replicas() < 0) {
        r.Add("spec.replicas",
              absl::StrCat("Invalid value: ", d.spec().replicas(),
                           ": must be greater than or equal to 0"));
      }
      CheckSpec(d.spec().template_().spec(), "spec.template.spec", r);
    }
    CheckUnique(*w.deployments, "Deployment", NamespacedName, out);
  }
}

}  // namespace

void AddWorkloadViolations(const Workload& w, v1::ValidateResponse* out) {
  AddViolations(w, out);
}

absl::Status CheckWorkload(const Workload& w) {
  if (absl::Status s = CheckLimits(w); !s.ok()) return s;
  v1::ValidateResponse found;
  AddViolations(w, &found);
  // A NodePool requirement the CRD's schema refuses (no key, no or an
  // unknown operator, Gt without one integer, a restricted key) would make
  // every decision built on it meaningless (found by tests/fuzz: an empty
  // requirement reached the NodeClaims). Validate reports these with the
  // rest of the NodePool's rules.
  if (w.node_pools != nullptr) {
    for (const v1::NodePool& np : *w.node_pools) {
      Violations v(absl::StrCat("NodePool ", np.metadata().name()), &found);
      CheckCrdRequirements(np.spec().template_().spec().requirements(),
                           "spec.template.spec.requirements",
                           RequirementsOwner::kNodePool, &v);
    }
  }
  if (found.violations().empty()) return absl::OkStatus();
  constexpr int kShown = 5;
  std::string message;
  for (int i = 0; i < found.violations_size() && i < kShown; ++i) {
    const v1::FieldViolation& f = found.violations(i);
    absl::StrAppend(&message, i == 0 ? "" : "; ", f.object(), ": ",
                    f.field_path(), ": ", f.message());
  }
  if (found.violations_size() > kShown) {
    absl::StrAppend(&message, "; and ", found.violations_size() - kShown,
                    " more");
  }
  return absl::InvalidArgumentError(message);
}

}  // namespace nodeplan::validation
