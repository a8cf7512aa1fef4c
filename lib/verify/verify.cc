// The plan verifier: see include/nodeplan/verify.h for the rules.

#include "nodeplan/verify.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/labels.h"
#include "nodeplan/workload.h"
#include "validation/workload_checks.h"
#include "verify/amount.h"
#include "verify/label_domain.h"
#include "verify/pod_facts.h"

namespace nodeplan {
namespace {

using verify_internal::Amount;
using verify_internal::Domain;
using verify_internal::Expr;
using verify_internal::LabelSpace;
using verify_internal::PodFacts;
using verify_internal::Resources;

enum class SiteKind { kNode, kNodeClaim, kNew };

// One instance-type option of a new NodeClaim, as it would be launched.
struct OptionView {
  const v1::InstanceType* type = nullptr;
  LabelSpace labels;
  Resources allocatable;
};

// A place pods can be: an existing Node, an in-flight NodeClaim, or a new
// NodeClaim of the plan.
struct Site {
  SiteKind kind = SiteKind::kNode;
  std::string name;
  std::string subject;
  // Existing nodes and in-flight NodeClaims have one view; new NodeClaims
  // one per valid instance-type option.
  std::vector<OptionView> views;
  std::vector<v1::Taint> hard_taints;
  std::optional<Resources> allocatable;  // existing nodes
  std::vector<int> bound;                // indices into Verifier::pods_
  std::vector<int> placed;
  std::string node_pool;
  Resources capacity;  // for limits: existing capacity or launch capacity
};

struct PodEntry {
  PodFacts facts;
  bool pending = false;
  int site = -1;
};

bool IsTerminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}

bool OwnedByDaemonSetOrNode(const v1::Pod& pod) {
  for (const auto& ref : pod.metadata().owner_references()) {
    if (ref.kind() == "DaemonSet" || ref.kind() == "Node") return true;
  }
  return false;
}

Expr ToExpr(const v1::NodeSelectorRequirement& r) {
  Expr e;
  e.key = verify_internal::NormalizeKey(r.key());
  e.op = r.operator_();
  e.values.assign(r.values().begin(), r.values().end());
  return e;
}

bool IsKnownEphemeralTaint(const v1::Taint& t) {
  const std::string& k = t.key();
  const std::string& e = t.effect();
  if (k.rfind("readiness.k8s.io/", 0) == 0) return true;
  return (k == labels::kNotReadyTaint &&
          (e == "NoSchedule" || e == "NoExecute")) ||
         (k == labels::kUnreachableTaint && e == "NoSchedule") ||
         (k == labels::kUninitializedTaint && e == "NoSchedule") ||
         (k == labels::kUnregisteredTaint && e == "NoExecute");
}

std::string Canonical(const google::protobuf::Message& m) {
  return DeterministicBytes(m);
}

class Verifier {
 public:
  Verifier(const v1::ScheduleRequest& request,
           const v1::ScheduleResponse& response)
      : request_(request), response_(response) {}

  std::vector<Violation> Run() {
    IndexCatalog();
    CollectPods();
    IndexExistingSites();
    CheckCoverage();
    BuildNewSites();
    CheckPlacements();
    CheckHostPorts();
    CheckLimits();
    CheckSpread();
    CheckAffinity();
    CheckAntiAffinity();
    return std::move(violations_);
  }

 private:
  void Add(const std::string& rule, const std::string& subject,
           const std::string& message) {
    const std::string key = absl::StrCat(rule, "\n", subject, "\n", message);
    if (!reported_.insert(key).second) return;
    violations_.push_back(Violation{rule, subject, message});
  }

  // --- catalog ---

  void IndexCatalog() {
    for (const auto& nc : request_.node_classes()) {
      node_classes_.emplace(nc.metadata().name(), &nc);
    }
    for (const auto& u : request_.unavailable_offerings()) {
      unavailable_.insert({u.instance_type(), u.zone(), u.capacity_type()});
    }
    for (const auto& pool : request_.node_pools()) {
      pools_.emplace(pool.metadata().name(), &pool);
    }
  }

  // The catalog a NodePool launches from: the request's explicit catalog,
  // else the embedded AWS catalog for the NodePool's NodeClass (built by
  // the catalog library; the verifier only reads its figures).
  const v1::Catalog* PoolCatalog(const v1::NodePool& pool) {
    if (request_.catalog().instance_types_size() > 0)
      return &request_.catalog();
    if (!request_.catalog_ref().empty() && request_.catalog_ref() != "aws") {
      Add("input", "nodepool " + pool.metadata().name(),
          "unknown catalog_ref \"" + request_.catalog_ref() + "\"");
      return nullptr;
    }
    const std::string& class_name =
        pool.spec().template_().spec().node_class_ref().name();
    auto cached = aws_by_class_.find(class_name);
    if (cached != aws_by_class_.end()) return cached->second;
    auto nc = node_classes_.find(class_name);
    absl::StatusOr<v1::Catalog> catalog =
        AwsCatalog(nc == node_classes_.end() ? nullptr : nc->second);
    const v1::Catalog* result = nullptr;
    if (!catalog.ok()) {
      Add("input", "nodepool " + pool.metadata().name(),
          "embedded AWS catalog: " + std::string(catalog.status().message()));
    } else {
      aws_catalogs_.push_back(*std::move(catalog));
      result = &aws_catalogs_.back();
    }
    aws_by_class_.emplace(class_name, result);
    return result;
  }

  const v1::InstanceType* FindType(const v1::NodePool& pool,
                                   const std::string& name) {
    const v1::Catalog* catalog = PoolCatalog(pool);
    if (catalog == nullptr) return nullptr;
    auto& index = types_[catalog];
    if (index.empty()) {
      for (const auto& it : catalog->instance_types())
        index.emplace(it.name(), &it);
    }
    auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
  }

  bool OfferingUsable(const v1::InstanceType& type, const v1::Offering& o) {
    if (o.has_available() && !o.available()) return false;
    return unavailable_.count({type.name(), o.zone(), o.capacity_type()}) == 0;
  }

  std::optional<Resources> Allocatable(const v1::InstanceType& type,
                                       const std::string& subject) {
    auto cached = allocatable_cache_.find(&type);
    if (cached != allocatable_cache_.end()) return cached->second;
    std::optional<Resources> computed = ComputeAllocatable(type, subject);
    allocatable_cache_.emplace(&type, computed);
    return computed;
  }

  std::optional<Resources> ComputeAllocatable(const v1::InstanceType& type,
                                              const std::string& subject) {
    Resources capacity, sum;
    std::string error;
    const v1::Overhead& overhead = type.overhead();
    for (const auto* part :
         {&overhead.kube_reserved(), &overhead.system_reserved(),
          &overhead.eviction_threshold()}) {
      Resources r;
      if (!verify_internal::ParseResources(*part, r, &error)) {
        Add("input", subject,
            absl::StrCat("instance type ", type.name(), ": malformed ", error));
        return std::nullopt;
      }
      verify_internal::AddInto(sum, r);
    }
    if (!verify_internal::ParseResources(type.capacity(), capacity, &error)) {
      Add("input", subject,
          absl::StrCat("instance type ", type.name(), ": malformed ", error));
      return std::nullopt;
    }
    Resources allocatable;
    Amount hugepages = 0;
    for (const auto& [name, v] : capacity) {
      auto it = sum.find(name);
      allocatable[name] = v - (it == sum.end() ? 0 : it->second);
      if (name.rfind("hugepages-", 0) == 0) hugepages += v;
    }
    if (hugepages > 0 && allocatable.count("memory")) {
      allocatable["memory"] =
          std::max<Amount>(0, allocatable["memory"] - hugepages);
    }
    return allocatable;
  }

  // The labels an option would carry: NodePool template labels, the
  // NodePool name, the instance type's labels and requirements, then the
  // NodePool's and the NodeClaim's requirements, zone and capacity type
  // from the offerings those allow. nullopt (with *why) if nothing is left.
  // The labels an option would carry. Cached per (NodePool, instance type,
  // requirements), since plans repeat them; the instance-type requirement
  // (often hundreds of names) is checked apart so that it stays out of the
  // cache key.
  std::optional<LabelSpace> OptionLabels(
      const v1::NodePool& pool, const v1::InstanceType& type,
      const std::vector<Expr>& claim_requirements, const std::string& hostname,
      std::string* why) {
    ClaimRequirements split = SplitRequirements(claim_requirements);
    return OptionLabels(pool, type, split, hostname, why);
  }

  struct ClaimRequirements {
    std::vector<Expr> other;          // without hostname, instance type
    std::vector<Expr> instance_type;  // on node.kubernetes.io/instance-type
    std::string signature;            // of `other`
  };

  static ClaimRequirements SplitRequirements(const std::vector<Expr>& reqs) {
    ClaimRequirements out;
    for (const Expr& e : reqs) {
      if (e.key == labels::kHostname) continue;
      (e.key == labels::kInstanceType ? out.instance_type : out.other)
          .push_back(e);
    }
    out.signature = verify_internal::ExprsToString(out.other);
    return out;
  }

  std::optional<LabelSpace> OptionLabels(const v1::NodePool& pool,
                                         const v1::InstanceType& type,
                                         const ClaimRequirements& reqs,
                                         const std::string& hostname,
                                         std::string* why) {
    const Domain name = Domain::Fixed(type.name());
    for (const Expr& e : reqs.instance_type) {
      if (!name.Possibly(e)) {
        *why = absl::StrCat("the NodeClaim's ", labels::kInstanceType,
                            " requirement excludes it");
        return std::nullopt;
      }
    }
    const std::string key = absl::StrCat(pool.metadata().name(), "\n",
                                         type.name(), "\n", reqs.signature);
    auto it = option_cache_.find(key);
    if (it == option_cache_.end()) {
      std::string reason;
      std::optional<LabelSpace> computed =
          ComputeOptionLabels(pool, type, reqs.other, &reason);
      it = option_cache_
               .emplace(key, std::make_pair(std::move(computed), reason))
               .first;
    }
    if (!it->second.first) {
      *why = it->second.second;
      return std::nullopt;
    }
    LabelSpace space = *it->second.first;
    if (!hostname.empty()) space[labels::kHostname] = Domain::Fixed(hostname);
    return space;
  }

  std::optional<LabelSpace> ComputeOptionLabels(
      const v1::NodePool& pool, const v1::InstanceType& type,
      const std::vector<Expr>& claim_requirements, std::string* why) {
    LabelSpace space;
    for (const auto& [k, v] : pool.spec().template_().metadata().labels()) {
      space[verify_internal::NormalizeKey(k)] = Domain::Fixed(v);
    }
    space[labels::kNodePool] = Domain::Fixed(pool.metadata().name());
    space[labels::kRegistered] = Domain::Fixed("true");
    space[labels::kInitialized] = Domain::Fixed("true");
    for (const auto& [k, v] : type.labels()) {
      space[verify_internal::NormalizeKey(k)] = Domain::Fixed(v);
    }
    space[labels::kInstanceType] = Domain::Fixed(type.name());
    std::vector<Expr> narrowing;
    for (const auto& r : type.requirements()) narrowing.push_back(ToExpr(r));
    for (const auto& r : pool.spec().template_().spec().requirements()) {
      narrowing.push_back(ToExpr(r));
    }
    for (const Expr& e : claim_requirements) {
      if (e.key != labels::kHostname) narrowing.push_back(e);
    }
    for (const Expr& e : narrowing) {
      verify_internal::NarrowSpace(space, e);
      const Domain& d = space[e.key];
      if (d.Empty()) {
        *why = absl::StrCat("requirement ", verify_internal::ExprsToString({e}),
                            " excludes it");
        return std::nullopt;
      }
    }
    auto domain_or_unknown = [&](const char* key) {
      auto it = space.find(key);
      return it == space.end() ? Domain::Unknown() : it->second;
    };
    const Domain zone = domain_or_unknown(labels::kZone);
    const Domain capacity_type = domain_or_unknown(labels::kCapacityType);
    Domain zones, capacity_types;
    zones.values.clear();
    capacity_types.values.clear();
    for (const auto& o : type.offerings()) {
      if (!OfferingUsable(type, o)) continue;
      if (!zone.Possibly(Expr{labels::kZone, "In", {o.zone()}})) continue;
      if (!capacity_type.Possibly(
              Expr{labels::kCapacityType, "In", {o.capacity_type()}})) {
        continue;
      }
      zones.values.insert(o.zone());
      capacity_types.values.insert(o.capacity_type());
    }
    if (zones.values.empty()) {
      *why = absl::StrCat("no available offering in zones ", zone.ToString(),
                          " with capacity types ", capacity_type.ToString());
      return std::nullopt;
    }
    space[labels::kZone] = zones;
    space[labels::kCapacityType] = capacity_types;
    return space;
  }

  // --- pods ---

  void CollectPods() {
    for (const auto& pod : request_.pods()) {
      PodEntry entry;
      std::string error;
      if (!verify_internal::ExtractPodFacts(pod.metadata(), pod.spec(),
                                            entry.facts, &error)) {
        Add("input", "pod " + workload::PodKey(pod), "malformed " + error);
        continue;
      }
      if (IsTerminal(pod)) continue;
      if (!pod.spec().node_name().empty()) {
        entry.pending = false;
        bound_node_.push_back(pod.spec().node_name());
      } else if (OwnedByDaemonSetOrNode(pod)) {
        continue;
      } else if (!pod.metadata().deletion_timestamp().empty()) {
        // Being deleted: not provisionable (Karpenter's IsProvisionable),
        // so not planned (found by tests/fuzz).
        continue;
      } else {
        entry.pending = true;
        bound_node_.push_back("");
      }
      AddPod(std::move(entry));
    }
    for (const auto& d : request_.deployments()) {
      const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
      for (int i = 0; i < replicas; ++i) {
        expanded_.push_back(workload::DeploymentReplica(d, i));
        const v1::Pod& pod = expanded_.back();
        PodEntry entry;
        std::string error;
        if (!verify_internal::ExtractPodFacts(pod.metadata(), pod.spec(),
                                              entry.facts, &error)) {
          Add("input", "pod " + workload::PodKey(pod), "malformed " + error);
          break;
        }
        entry.pending = true;
        bound_node_.push_back("");
        AddPod(std::move(entry));
      }
    }
    for (const auto& ds : request_.daemon_sets()) {
      PodFacts facts;
      std::string error;
      v1::ObjectMeta meta = ds.spec().template_().metadata();
      meta.set_name(ds.metadata().name());
      meta.set_namespace_(ds.metadata().namespace_());
      if (!verify_internal::ExtractPodFacts(meta, DaemonSpec(ds), facts,
                                            &error)) {
        Add("input", "daemonset " + ds.metadata().name(), "malformed " + error);
        continue;
      }
      daemons_.push_back(std::move(facts));
    }
  }

  // What a DaemonSet costs a node: its newest running pod (the one it
  // controls with the latest creationTimestamp; the earliest listed on a tie)
  // keeping the template's required node affinity, else its template.
  const v1::PodSpec& DaemonSpec(const v1::DaemonSet& ds) {
    const v1::Pod* newest = nullptr;
    for (const auto& pod : request_.pods()) {
      if (pod.metadata().namespace_() != ds.metadata().namespace_()) continue;
      const v1::OwnerReference* controller = nullptr;
      for (const auto& ref : pod.metadata().owner_references()) {
        if (ref.controller()) {
          controller = &ref;
          break;
        }
      }
      if (controller == nullptr) continue;
      const bool owned = ds.metadata().uid().empty()
                             ? controller->kind() == "DaemonSet" &&
                                   controller->name() == ds.metadata().name()
                             : controller->uid() == ds.metadata().uid();
      if (!owned) continue;
      if (newest != nullptr && pod.metadata().creation_timestamp() <=
                                   newest->metadata().creation_timestamp()) {
        continue;
      }
      newest = &pod;
    }
    const v1::PodSpec& tmpl = ds.spec().template_().spec();
    if (newest == nullptr) return tmpl;
    v1::PodSpec& spec = daemon_specs_.emplace_back(newest->spec());
    const v1::NodeAffinity& pinned = tmpl.affinity().node_affinity();
    if (pinned.has_required_during_scheduling_ignored_during_execution()) {
      *spec.mutable_affinity()
           ->mutable_node_affinity()
           ->mutable_required_during_scheduling_ignored_during_execution() =
          pinned.required_during_scheduling_ignored_during_execution();
    }
    return spec;
  }

  void AddPod(PodEntry entry) {
    const int index = static_cast<int>(pods_.size());
    if (entry.pending) {
      if (!pending_index_.emplace(entry.facts.key, index).second) {
        Add("input", "pod " + entry.facts.key,
            "two pending pods share this namespace/name");
      }
    }
    pods_.push_back(std::move(entry));
  }

  // --- existing sites ---

  void IndexExistingSites() {
    for (const auto& node : request_.nodes()) {
      Site site;
      site.kind = SiteKind::kNode;
      site.name = node.metadata().name();
      site.subject = "node " + site.name;
      OptionView view;
      for (const auto& [k, v] : node.metadata().labels()) {
        view.labels[verify_internal::NormalizeKey(k)] = Domain::Fixed(v);
      }
      if (!view.labels.count(labels::kHostname)) {
        view.labels[labels::kHostname] = Domain::Fixed(site.name);
      }
      auto nodepool = node.metadata().labels().find(labels::kNodePool);
      const bool managed = nodepool != node.metadata().labels().end();
      if (managed) site.node_pool = nodepool->second;
      auto initialized = node.metadata().labels().find(labels::kInitialized);
      const bool is_initialized =
          initialized != node.metadata().labels().end() &&
          initialized->second == "true";
      for (const auto& t : node.spec().taints()) {
        if (t.effect() == "PreferNoSchedule") continue;
        if (managed && !is_initialized && IsKnownEphemeralTaint(t)) continue;
        site.hard_taints.push_back(t);
      }
      std::string error;
      Resources allocatable;
      if (node.status().allocatable_size() > 0) {
        if (verify_internal::ParseResources(node.status().allocatable(),
                                            allocatable, &error)) {
          site.allocatable = allocatable;
        } else {
          Add("input", site.subject, "malformed allocatable " + error);
        }
      }
      if (!verify_internal::ParseResources(node.status().capacity(),
                                           site.capacity, &error)) {
        Add("input", site.subject, "malformed capacity " + error);
      }
      site.views.push_back(std::move(view));
      node_sites_.emplace(site.name, static_cast<int>(sites_.size()));
      sites_.push_back(std::move(site));
    }
    for (const auto& claim : request_.node_claims()) {
      Site site;
      site.kind = SiteKind::kNodeClaim;
      site.name = claim.metadata().name();
      site.subject = "nodeclaim " + site.name;
      OptionView view;
      for (const auto& [k, v] : claim.metadata().labels()) {
        view.labels[verify_internal::NormalizeKey(k)] = Domain::Fixed(v);
      }
      for (const auto& r : claim.spec().requirements()) {
        const Expr e = ToExpr(r);
        if (e.key != labels::kHostname)
          verify_internal::NarrowSpace(view.labels, e);
      }
      const std::string hostname = claim.status().node_name().empty()
                                       ? site.name
                                       : claim.status().node_name();
      view.labels[labels::kHostname] = Domain::Fixed(hostname);
      auto nodepool = claim.metadata().labels().find(labels::kNodePool);
      if (nodepool != claim.metadata().labels().end()) {
        site.node_pool = nodepool->second;
      }
      for (const auto& t : claim.spec().taints()) {
        if (t.effect() != "PreferNoSchedule") site.hard_taints.push_back(t);
      }
      std::string error;
      Resources allocatable;
      if (claim.status().allocatable_size() > 0 &&
          verify_internal::ParseResources(claim.status().allocatable(),
                                          allocatable, &error)) {
        site.allocatable = allocatable;
      }
      verify_internal::ParseResources(claim.status().capacity(), site.capacity,
                                      nullptr);
      site.views.push_back(std::move(view));
      claim_sites_.emplace(site.name, static_cast<int>(sites_.size()));
      sites_.push_back(std::move(site));
    }
    for (size_t i = 0; i < pods_.size(); ++i) {
      if (pods_[i].pending) continue;
      auto it = node_sites_.find(bound_node_[i]);
      if (it == node_sites_.end()) continue;  // bound to a node we don't know
      pods_[i].site = it->second;
      sites_[it->second].bound.push_back(static_cast<int>(i));
    }
  }

  // --- coverage ---

  void Place(const std::string& key, int site, const std::string& where) {
    auto it = pending_index_.find(key);
    if (it == pending_index_.end()) {
      Add("coverage", "pod " + key,
          absl::StrCat("placed on ", where, " but is not a pending pod"));
      return;
    }
    ++seen_[key];
    if (seen_[key] > 1) {
      Add("coverage", "pod " + key,
          absl::StrCat("appears ", seen_[key], " times in the plan (again on ",
                       where, ")"));
      return;
    }
    if (site >= 0) {
      pods_[it->second].site = site;
      sites_[site].placed.push_back(it->second);
    }
  }

  void CheckCoverage() {
    // Placements on existing capacity first, so sites are known.
    for (const auto& placement : response_.existing_nodes()) {
      int site = -1;
      const std::string& kind = placement.kind();
      if (kind != "NodeClaim") {
        auto it = node_sites_.find(placement.name());
        if (it != node_sites_.end()) site = it->second;
      }
      if (site < 0 && kind != "Node") {
        auto it = claim_sites_.find(placement.name());
        if (it != claim_sites_.end()) site = it->second;
      }
      const std::string where =
          absl::StrCat(kind.empty() ? "node" : kind, " ", placement.name());
      if (site < 0) {
        Add("node", where, "the request holds no such Node or NodeClaim");
      }
      for (const auto& pod : placement.pods()) Place(pod, site, where);
    }
    for (const auto& u : response_.unschedulable()) {
      Place(u.pod(), -1, "the unschedulable list");
      if (u.reason().empty()) {
        Add("reason", "pod " + u.pod(), "unschedulable without a reason");
      }
    }
  }

  // --- new NodeClaims ---

  void BuildNewSites() {
    for (const auto& claim : response_.new_node_claims()) {
      const int index = static_cast<int>(sites_.size());
      sites_.emplace_back();
      Site& site = sites_.back();
      site.kind = SiteKind::kNew;
      site.name = claim.name();
      site.subject = "nodeclaim " + claim.name();
      site.node_pool = claim.node_pool();
      const std::string where = "new NodeClaim " + claim.name();
      for (const auto& pod : claim.pods()) Place(pod, index, where);
      BuildNewSite(claim, sites_.back());
    }
    for (const auto& [key, index] : pending_index_) {
      if (seen_.count(key) == 0) {
        Add("coverage", "pod " + key,
            "pending but neither placed nor listed as unschedulable");
      }
    }
  }

  void BuildNewSite(const v1::NewNodeClaim& claim, Site& site) {
    auto pool_it = pools_.find(claim.node_pool());
    if (pool_it == pools_.end()) {
      Add("node", site.subject,
          absl::StrCat("NodePool \"", claim.node_pool(),
                       "\" is not in the request"));
      return;
    }
    const v1::NodePool& pool = *pool_it->second;
    if (PoolCatalog(pool) == nullptr) return;
    for (const auto& t : pool.spec().template_().spec().taints()) {
      if (t.effect() != "PreferNoSchedule") site.hard_taints.push_back(t);
    }
    std::vector<Expr> claim_requirements;
    for (const auto& r : claim.node_claim().spec().requirements()) {
      claim_requirements.push_back(ToExpr(r));
    }
    const ClaimRequirements split = SplitRequirements(claim_requirements);
    if (claim.instance_types().empty()) {
      Add("instance-type", site.subject, "no instance-type options");
    }
    std::set<std::string> distinct;
    bool launch_listed = false;
    for (const auto& name : claim.instance_types()) {
      if (!distinct.insert(name).second) {
        Add("instance-type", site.subject,
            absl::StrCat("option ", name, " is listed twice"));
        continue;
      }
      launch_listed |= name == claim.launch().instance_type();
      const v1::InstanceType* type = FindType(pool, name);
      if (type == nullptr) {
        Add("node", site.subject,
            absl::StrCat("instance type ", name, " is not in the catalog"));
        continue;
      }
      std::string why;
      std::optional<LabelSpace> labels =
          OptionLabels(pool, *type, split, claim.name(), &why);
      if (!labels) {
        Add("instance-type", site.subject,
            absl::StrCat("option ", name, " is incompatible: ", why));
        continue;
      }
      std::optional<Resources> allocatable = Allocatable(*type, site.subject);
      if (!allocatable) continue;
      site.views.push_back(
          OptionView{type, std::move(*labels), std::move(*allocatable)});
    }
    CheckLaunch(claim, pool, claim_requirements, launch_listed, site);
  }

  void CheckLaunch(const v1::NewNodeClaim& claim, const v1::NodePool& pool,
                   const std::vector<Expr>& claim_requirements,
                   bool launch_listed, Site& site) {
    const v1::Launch& launch = claim.launch();
    if (!launch_listed) {
      Add("launch", site.subject,
          absl::StrCat("launch instance type \"", launch.instance_type(),
                       "\" is not among the options"));
    }
    const v1::InstanceType* found = FindType(pool, launch.instance_type());
    if (found == nullptr) return;
    const v1::InstanceType& type = *found;
    Resources capacity;
    verify_internal::ParseResources(type.capacity(), capacity, nullptr);
    site.capacity = capacity;
    std::string why;
    std::vector<Expr> pinned = claim_requirements;
    pinned.push_back(Expr{labels::kZone, "In", {launch.zone()}});
    pinned.push_back(
        Expr{labels::kCapacityType, "In", {launch.capacity_type()}});
    if (!OptionLabels(pool, type, pinned, claim.name(), &why)) {
      Add("launch", site.subject,
          absl::StrCat("launch ", launch.instance_type(), " in ", launch.zone(),
                       " (", launch.capacity_type(),
                       ") is not allowed: ", why));
      return;
    }
    const v1::Offering* offering = nullptr;
    for (const auto& o : type.offerings()) {
      if (o.zone() == launch.zone() &&
          o.capacity_type() == launch.capacity_type() &&
          (launch.reservation_id().empty() ||
           o.reservation_id() == launch.reservation_id()) &&
          OfferingUsable(type, o)) {
        offering = &o;
        break;
      }
    }
    if (offering == nullptr) {
      Add("launch", site.subject,
          absl::StrCat("no available offering of ", type.name(), " in ",
                       launch.zone(), " (", launch.capacity_type(), ")"));
      return;
    }
    if (request_.node_overlays_size() == 0) {
      const double tolerance =
          1e-9 * std::max(1.0, std::fabs(offering->price()));
      if (std::fabs(offering->price() - launch.price()) > tolerance) {
        Add("launch", site.subject,
            absl::StrCat("launch price ", launch.price(), " but ", type.name(),
                         " in ", launch.zone(), " (", launch.capacity_type(),
                         ") costs ", offering->price()));
      }
    }
  }

  // --- placements: labels, taints, resources ---

  void CheckPlacements() {
    for (Site& site : sites_) {
      if (site.placed.empty()) continue;
      for (int p : site.placed) {
        const PodFacts& pod = pods_[p].facts;
        const std::string subject = "pod " + pod.key;
        for (const OptionView& view : site.views) {
          if (!verify_internal::PodFitsDefinitely(pod, view.labels)) {
            Add("node-selector", subject,
                absl::StrCat(
                    "on ", site.subject,
                    view.type ? " (option " + view.type->name() + ")" : "",
                    ": nodeSelector/required node affinity not met (",
                    DescribePodRequirements(pod, view.labels), ")"));
            break;
          }
        }
        for (const auto& taint : site.hard_taints) {
          if (!verify_internal::Tolerates(pod.tolerations, taint)) {
            Add("taints", subject,
                absl::StrCat("on ", site.subject, ": does not tolerate ",
                             taint.key(), "=", taint.value(), ":",
                             taint.effect()));
          }
        }
      }
      CheckResources(site);
    }
  }

  std::string DescribePodRequirements(const PodFacts& pod,
                                      const LabelSpace& labels) {
    std::vector<std::string> parts;
    auto describe = [&](const std::vector<Expr>& exprs) {
      for (const Expr& e : exprs) {
        if (!verify_internal::Lookup(labels, e.key).Definitely(e)) {
          parts.push_back(
              absl::StrCat(verify_internal::ExprsToString({e}), " vs node ",
                           verify_internal::Lookup(labels, e.key).ToString()));
        }
      }
    };
    describe(pod.node_selector);
    for (const auto& term : pod.required_terms) describe(term);
    return absl::StrJoin(parts, "; ");
  }

  // DaemonSets that could run on the view, given the site's taints.
  std::vector<const PodFacts*> DaemonsFor(const Site& site,
                                          const OptionView& view) {
    std::vector<const PodFacts*> out;
    for (const PodFacts& ds : daemons_) {
      bool tolerated = true;
      for (const auto& t : site.hard_taints) {
        tolerated &= verify_internal::Tolerates(ds.tolerations, t);
      }
      if (tolerated && verify_internal::PodFitsPossibly(ds, view.labels)) {
        out.push_back(&ds);
      }
    }
    return out;
  }

  static std::string Exceeded(const Resources& need, const Resources& have) {
    std::vector<std::string> parts;
    for (const auto& [name, v] : need) {
      if (v <= 0) continue;
      auto it = have.find(name);
      const Amount available = it == have.end() ? 0 : it->second;
      if (v > available) {
        parts.push_back(absl::StrCat(
            name, " ", verify_internal::FormatAmount(name, v), " > ",
            verify_internal::FormatAmount(name, available)));
      }
    }
    return absl::StrJoin(parts, ", ");
  }

  void CheckResources(const Site& site) {
    Resources placed;
    for (int p : site.placed)
      verify_internal::AddInto(placed, pods_[p].facts.requests);
    if (site.kind != SiteKind::kNew) {
      if (!site.allocatable) return;
      Resources total = placed;
      for (int b : site.bound)
        verify_internal::AddInto(total, pods_[b].facts.requests);
      // Only resources the new pods ask for can be the plan's fault.
      Resources relevant;
      for (const auto& [name, v] : placed) {
        if (v > 0) relevant[name] = total[name];
      }
      const std::string over = Exceeded(relevant, *site.allocatable);
      if (!over.empty()) {
        Add("resources", site.subject,
            absl::StrCat("bound and placed pods exceed allocatable: ", over));
      }
      return;
    }
    for (const OptionView& view : site.views) {
      Resources total = placed;
      for (const PodFacts* ds : DaemonsFor(site, view)) {
        verify_internal::AddInto(total, ds->requests);
      }
      const std::string over = Exceeded(total, view.allocatable);
      if (!over.empty()) {
        Add("resources", site.subject,
            absl::StrCat("option ", view.type->name(),
                         ": pods + DaemonSets exceed allocatable: ", over));
      }
    }
  }

  // --- host ports ---

  void CheckHostPorts() {
    for (const Site& site : sites_) {
      if (site.placed.empty()) continue;
      struct Entry {
        std::string owner;
        verify_internal::HostPort port;
        bool is_new;
      };
      std::vector<Entry> entries;
      for (int b : site.bound) {
        for (const auto& hp : pods_[b].facts.host_ports) {
          entries.push_back({"pod " + pods_[b].facts.key, hp, false});
        }
      }
      for (int p : site.placed) {
        for (const auto& hp : pods_[p].facts.host_ports) {
          entries.push_back({"pod " + pods_[p].facts.key, hp, true});
        }
      }
      for (size_t i = 0; i < entries.size(); ++i) {
        for (size_t j = i + 1; j < entries.size(); ++j) {
          if (!entries[i].is_new && !entries[j].is_new) continue;
          if (entries[i].owner == entries[j].owner) continue;
          if (verify_internal::HostPortsConflict(entries[i].port,
                                                 entries[j].port)) {
            Add("host-ports", site.subject,
                absl::StrCat(entries[i].owner, " and ", entries[j].owner,
                             " both use host port ", entries[i].port.port, "/",
                             entries[i].port.protocol));
          }
        }
      }
      if (site.kind != SiteKind::kNew) continue;
      for (const OptionView& view : site.views) {
        for (const PodFacts* ds : DaemonsFor(site, view)) {
          for (const auto& dp : ds->host_ports) {
            for (const Entry& e : entries) {
              if (verify_internal::HostPortsConflict(dp, e.port)) {
                Add("host-ports", site.subject,
                    absl::StrCat("option ", view.type->name(), ": DaemonSet ",
                                 ds->key, " and ", e.owner,
                                 " both use host port ", dp.port, "/",
                                 dp.protocol));
              }
            }
          }
        }
      }
    }
  }

  // --- limits ---

  void CheckLimits() {
    for (const auto& pool : request_.node_pools()) {
      const auto& limits = pool.spec().limits();
      if (limits.empty()) continue;
      const std::string& name = pool.metadata().name();
      Resources used;
      int existing = 0, launched = 0;
      for (const Site& site : sites_) {
        if (site.node_pool != name) continue;
        if (site.kind == SiteKind::kNew) {
          ++launched;
        } else {
          ++existing;
        }
        verify_internal::AddInto(used, site.capacity);
      }
      if (launched == 0) continue;
      Resources limit;
      std::string error;
      if (!verify_internal::ParseResources(limits, limit, &error)) {
        Add("input", "nodepool " + name, "malformed limit " + error);
        continue;
      }
      for (const auto& [resource, max] : limit) {
        if (resource == "nodes") {
          if (static_cast<Amount>(existing) * 1000 >= max) {
            Add("limits", "nodepool " + name,
                absl::StrCat(launched, " launches while ", existing,
                             " existing nodes already reach the nodes limit"));
          }
          continue;
        }
        auto it = used.find(resource);
        const Amount total = it == used.end() ? 0 : it->second;
        if (total > max) {
          Add("limits", "nodepool " + name,
              absl::StrCat(resource, " ",
                           verify_internal::FormatAmount(resource, total),
                           " of existing and launched capacity exceeds limit ",
                           verify_internal::FormatAmount(resource, max)));
        }
      }
    }
  }

  // --- topology ---

  // The values a site's label `key` may take; nullopt when unbounded.
  // Cached: sites do not change once the checks run.
  const std::optional<std::set<std::string>>& DomainsOf(
      int site, const std::string& key) {
    auto cached = domains_cache_.find({site, key});
    if (cached != domains_cache_.end()) return cached->second;
    std::optional<std::set<std::string>> out = std::set<std::string>{};
    for (const OptionView& view : sites_[site].views) {
      auto values = verify_internal::Lookup(view.labels, key).PresentValues();
      if (!values) {
        out.reset();
        break;
      }
      out->insert(values->begin(), values->end());
    }
    return domains_cache_.emplace(std::make_pair(site, key), std::move(out))
        .first->second;
  }

  std::optional<std::string> PinnedDomain(int site, const std::string& key) {
    const auto& d = DomainsOf(site, key);
    if (d && d->size() == 1) return *d->begin();
    return std::nullopt;
  }

  // Every value of `key` that some NodePool x instance type can produce.
  const std::set<std::string>& CatalogDomains(const std::string& key) {
    auto it = catalog_domains_.find(key);
    if (it != catalog_domains_.end()) return it->second;
    std::set<std::string> values;
    for (const auto& pool : request_.node_pools()) {
      const v1::Catalog* catalog = PoolCatalog(pool);
      if (catalog == nullptr) continue;
      for (const auto& type : catalog->instance_types()) {
        std::string why;
        auto labels = OptionLabels(pool, type, ClaimRequirements{}, "", &why);
        if (!labels) continue;
        auto present = verify_internal::Lookup(*labels, key).PresentValues();
        if (present) values.insert(present->begin(), present->end());
      }
    }
    return catalog_domains_.emplace(key, std::move(values)).first->second;
  }

  bool PodExprsAllowValue(const PodFacts& pod, const std::vector<Expr>& term,
                          const std::string& key, const std::string& value) {
    const Domain d = Domain::Fixed(value);
    for (const Expr& e : pod.node_selector) {
      if (e.key == key && !d.Possibly(e)) return false;
    }
    for (const Expr& e : term) {
      if (e.key == key && !d.Possibly(e)) return false;
    }
    return true;
  }

  bool SiteMatchesPodFilter(const PodFacts& pod, int site) {
    for (const OptionView& view : sites_[site].views) {
      if (!verify_internal::PodFitsDefinitely(pod, view.labels)) return false;
    }
    return true;
  }

  bool SiteTolerated(const PodFacts& pod, int site) {
    for (const auto& t : sites_[site].hard_taints) {
      if (!verify_internal::Tolerates(pod.tolerations, t)) return false;
    }
    return true;
  }

  void CheckSpread() {
    struct Group {
      std::vector<int> owners;
      const v1::TopologySpreadConstraint* constraint = nullptr;
      v1::LabelSelector selector;
      int owner_example = -1;
    };
    std::map<std::string, Group> groups;
    for (size_t i = 0; i < pods_.size(); ++i) {
      const PodEntry& entry = pods_[i];
      if (!entry.pending || entry.site < 0) continue;
      for (const auto& c : entry.facts.spec->topology_spread_constraints()) {
        if (c.when_unsatisfiable() != "DoNotSchedule" &&
            !c.when_unsatisfiable().empty()) {
          continue;
        }
        if (!c.has_label_selector()) continue;
        v1::LabelSelector selector = c.label_selector();
        for (const auto& key : c.match_label_keys()) {
          auto it = entry.facts.labels.find(key);
          if (it == entry.facts.labels.end()) continue;
          auto* e = selector.add_match_expressions();
          e->set_key(key);
          e->set_operator_("In");
          e->add_values(it->second);
        }
        v1::TopologySpreadConstraint without_keys = c;
        without_keys.clear_match_label_keys();
        *without_keys.mutable_label_selector() = selector;
        v1::PodSpec filter;
        *filter.mutable_node_selector() = entry.facts.spec->node_selector();
        *filter.mutable_affinity()
             ->mutable_node_affinity()
             ->mutable_required_during_scheduling_ignored_during_execution() =
            entry.facts.spec->affinity()
                .node_affinity()
                .required_during_scheduling_ignored_during_execution();
        *filter.mutable_tolerations() = entry.facts.spec->tolerations();
        const std::string signature =
            absl::StrCat(entry.facts.ns, "\n", Canonical(without_keys), "\n",
                         Canonical(filter));
        Group& g = groups[signature];
        if (g.owners.empty()) {
          g.constraint = &c;
          g.selector = selector;
          g.owner_example = static_cast<int>(i);
        }
        g.owners.push_back(static_cast<int>(i));
      }
    }
    for (const auto& [signature, g] : groups)
      CheckSpreadGroup(g.owners, *g.constraint, g.selector, g.owner_example);
  }

  void CheckSpreadGroup(const std::vector<int>& owners,
                        const v1::TopologySpreadConstraint& c,
                        const v1::LabelSelector& selector, int example) {
    const PodFacts& owner = pods_[example].facts;
    const std::string key = verify_internal::NormalizeKey(c.topology_key());
    const bool honor_affinity = c.node_affinity_policy() != "Ignore";
    const bool honor_taints = c.node_taints_policy() == "Honor";
    const bool hostname = key == labels::kHostname;
    auto selected = [&](const PodFacts& pod) {
      return pod.ns == owner.ns &&
             verify_internal::SelectorMatches(selector, pod.labels);
    };
    auto site_counts = [&](int site) {
      if (honor_affinity && !SiteMatchesPodFilter(owner, site)) return false;
      if (honor_taints && !SiteTolerated(owner, site)) return false;
      return true;
    };
    // existing(d): bound pods on counted existing nodes; all(d): plus every
    // selected new pod on a node pinned to d (never fewer than Karpenter
    // counted when it placed any of them).
    std::map<std::string, Amount> existing, all, owners_in;
    std::set<std::string> universe;
    for (size_t s = 0; s < sites_.size(); ++s) {
      const Site& site = sites_[s];
      if (site.kind == SiteKind::kNew) {
        if (auto d = DomainsOf(static_cast<int>(s), key)) {
          universe.insert(d->begin(), d->end());
        }
        continue;
      }
      if (!site_counts(static_cast<int>(s))) continue;
      auto d = PinnedDomain(static_cast<int>(s), key);
      if (!d) continue;
      universe.insert(*d);
      for (int b : site.bound) {
        if (selected(pods_[b].facts)) {
          ++existing[*d];
          ++all[*d];
        }
      }
    }
    for (size_t i = 0; i < pods_.size(); ++i) {
      if (!pods_[i].pending || pods_[i].site < 0) continue;
      if (!selected(pods_[i].facts)) continue;
      if (auto d = PinnedDomain(pods_[i].site, key)) ++all[*d];
    }
    std::set<int> owner_set(owners.begin(), owners.end());
    for (int o : owners) {
      if (!selected(pods_[o].facts)) continue;
      if (auto d = PinnedDomain(pods_[o].site, key)) ++owners_in[*d];
    }
    Amount minimum = 0;
    std::string min_domain;
    if (!hostname) {
      const std::set<std::string>& catalog = CatalogDomains(key);
      universe.insert(catalog.begin(), catalog.end());
      // Under relaxation Karpenter may use any one of the pod's required
      // terms; the largest per-term minimum is never above the one it used.
      std::vector<std::vector<Expr>> terms = owner.required_terms;
      if (terms.empty()) terms.push_back({});
      bool any = false;
      for (const auto& term : terms) {
        std::vector<std::string> eligible;
        for (const auto& v : universe) {
          if (!honor_affinity || PodExprsAllowValue(owner, term, key, v)) {
            eligible.push_back(v);
          }
        }
        if (eligible.empty()) continue;
        Amount term_min = -1;
        std::string term_domain;
        for (const auto& v : eligible) {
          auto it = all.find(v);
          const Amount n = it == all.end() ? 0 : it->second;
          if (term_min < 0 || n < term_min) {
            term_min = n;
            term_domain = v;
          }
        }
        if (c.has_min_domains() &&
            static_cast<int64_t>(eligible.size()) < c.min_domains()) {
          term_min = 0;
        }
        if (!any || term_min > minimum) {
          minimum = term_min;
          min_domain = term_domain;
        }
        any = true;
      }
      if (!any) return;
    }
    std::set<std::string> reported;
    for (int o : owners) {
      const auto& domains = DomainsOf(pods_[o].site, key);
      if (!domains) continue;
      const std::string subject = "pod " + pods_[o].facts.key;
      if (domains->empty()) {
        Add("topology-spread", subject,
            absl::StrCat("on ", sites_[pods_[o].site].subject, " which has no ",
                         key, " label"));
        continue;
      }
      const bool self = selected(pods_[o].facts);
      const bool pinned = domains->size() == 1;
      for (const auto& d : *domains) {
        auto e = existing.find(d);
        auto m = owners_in.find(d);
        const Amount count = (e == existing.end() ? 0 : e->second) +
                             (m == owners_in.end() ? 0 : m->second) +
                             (!pinned && self ? 1 : 0);
        if (count - minimum <= c.max_skew()) continue;
        if (pinned && !reported.insert(d).second) continue;
        Add("topology-spread", subject,
            absl::StrCat(
                key, " maxSkew ", c.max_skew(), ": domain ", d,
                " holds at least ", static_cast<int64_t>(count),
                " selected pods, ",
                hostname ? std::string("more than maxSkew")
                         : absl::StrCat("while domain ", min_domain, " holds ",
                                        static_cast<int64_t>(minimum))));
      }
    }
  }

  // Labels of every namespace the request knows: its Namespace objects,
  // then the namespaces its pods live in, each with the
  // kubernetes.io/metadata.name label the API server always sets.
  const std::map<std::string, std::map<std::string, std::string>>&
  NamespaceLabels() {
    if (namespace_labels_.empty()) {
      for (const auto& ns : request_.namespaces()) {
        if (ns.metadata().name().empty()) continue;
        namespace_labels_.emplace(
            ns.metadata().name(),
            std::map<std::string, std::string>(ns.metadata().labels().begin(),
                                               ns.metadata().labels().end()));
      }
      for (const PodEntry& pod : pods_) namespace_labels_[pod.facts.ns];
      for (auto& [name, labels] : namespace_labels_) {
        labels["kubernetes.io/metadata.name"] = name;
      }
    }
    return namespace_labels_;
  }

  // Pods (index) in the term's namespaces matched by its label selector.
  // Namespaces: the listed ones plus, with a namespaceSelector, every known
  // namespace it matches; neither given -> the owner's own.
  std::vector<int> MatchingPods(const v1::PodAffinityTerm& term,
                                const PodFacts& owner) {
    std::set<std::string> namespaces(term.namespaces().begin(),
                                     term.namespaces().end());
    if (term.has_namespace_selector()) {
      for (const auto& [name, labels] : NamespaceLabels()) {
        if (verify_internal::SelectorMatches(term.namespace_selector(),
                                             labels)) {
          namespaces.insert(name);
        }
      }
    } else if (namespaces.empty()) {
      namespaces.insert(owner.ns);
    }
    std::vector<int> out;
    if (!term.has_label_selector()) return out;
    for (size_t i = 0; i < pods_.size(); ++i) {
      if (pods_[i].site < 0) continue;
      const PodFacts& pod = pods_[i].facts;
      if (namespaces.count(pod.ns) == 0) continue;
      if (!verify_internal::SelectorMatches(term.label_selector(),
                                            pod.labels)) {
        continue;
      }
      out.push_back(static_cast<int>(i));
    }
    return out;
  }

  void CheckAffinity() {
    std::map<std::string, std::vector<int>> cache;
    for (size_t i = 0; i < pods_.size(); ++i) {
      const PodEntry& entry = pods_[i];
      if (!entry.pending || entry.site < 0) continue;
      for (const auto& term :
           entry.facts.spec->affinity()
               .pod_affinity()
               .required_during_scheduling_ignored_during_execution()) {
        const std::string key =
            verify_internal::NormalizeKey(term.topology_key());
        const std::string cache_key =
            absl::StrCat(entry.facts.ns, "\n", Canonical(term));
        auto it = cache.find(cache_key);
        if (it == cache.end()) {
          it = cache.emplace(cache_key, MatchingPods(term, entry.facts)).first;
        }
        const std::vector<int>& matches = it->second;
        const auto& domains = DomainsOf(entry.site, key);
        if (!domains) continue;
        const std::string subject = "pod " + entry.facts.key;
        if (domains->empty()) {
          Add("pod-affinity", subject,
              absl::StrCat("on ", sites_[entry.site].subject, " which has no ",
                           key, " label"));
          continue;
        }
        // Domains (pinned) holding a matching pod other than this one.
        std::set<std::string> occupied;
        bool self_matches = false;
        bool bound_match_elsewhere = false;
        for (int m : matches) {
          if (m == static_cast<int>(i)) {
            self_matches = true;
            continue;
          }
          if (auto d = PinnedDomain(pods_[m].site, key)) {
            occupied.insert(*d);
            if (!pods_[m].pending) {
              std::vector<std::vector<Expr>> terms = entry.facts.required_terms;
              if (terms.empty()) terms.push_back({});
              for (const auto& t : terms) {
                bound_match_elsewhere |=
                    PodExprsAllowValue(entry.facts, t, key, *d);
              }
            }
          }
        }
        for (const auto& d : *domains) {
          if (occupied.count(d)) continue;
          if (self_matches && !bound_match_elsewhere && domains->size() == 1) {
            continue;  // this pod may have started the domain
          }
          Add("pod-affinity", subject,
              absl::StrCat(key, " ", d, " on ", sites_[entry.site].subject,
                           " holds no other pod matching the required "
                           "affinity term"));
        }
      }
    }
  }

  void CheckAntiAffinity() {
    std::set<std::tuple<int, int, std::string>> reported;
    std::map<std::string, std::vector<int>> matches;
    for (size_t i = 0; i < pods_.size(); ++i) {
      const PodEntry& owner = pods_[i];
      if (owner.site < 0) continue;
      for (const auto& term :
           owner.facts.spec->affinity()
               .pod_anti_affinity()
               .required_during_scheduling_ignored_during_execution()) {
        const std::string key =
            verify_internal::NormalizeKey(term.topology_key());
        const auto& owner_domains = DomainsOf(owner.site, key);
        if (!owner_domains || owner_domains->empty()) continue;
        const std::string cache_key =
            absl::StrCat(owner.facts.ns, "\n", Canonical(term));
        auto cached = matches.find(cache_key);
        if (cached == matches.end()) {
          cached =
              matches.emplace(cache_key, MatchingPods(term, owner.facts)).first;
        }
        for (int m : cached->second) {
          if (m == static_cast<int>(i)) continue;
          if (!owner.pending && !pods_[m].pending)
            continue;  // not the plan's doing
          const auto& other = DomainsOf(pods_[m].site, key);
          if (!other) continue;
          std::vector<std::string> shared;
          std::set_intersection(owner_domains->begin(), owner_domains->end(),
                                other->begin(), other->end(),
                                std::back_inserter(shared));
          if (shared.empty()) continue;
          const int a = std::min<int>(static_cast<int>(i), m);
          const int b = std::max<int>(static_cast<int>(i), m);
          if (!reported.insert({a, b, key}).second) continue;
          const PodEntry& victim = owner.pending ? owner : pods_[m];
          const PodEntry& other_pod = owner.pending ? pods_[m] : owner;
          Add("pod-anti-affinity", "pod " + victim.facts.key,
              absl::StrCat("shares ", key, " ", absl::StrJoin(shared, ","),
                           " with pod ", other_pod.facts.key,
                           " (required anti-affinity of ", owner.facts.key,
                           "; ", sites_[victim.site].subject, " vs ",
                           sites_[other_pod.site].subject, ")"));
        }
      }
    }
  }

  const v1::ScheduleRequest& request_;
  const v1::ScheduleResponse& response_;
  std::vector<Violation> violations_;
  std::set<std::string> reported_;

  std::map<const v1::Catalog*, std::map<std::string, const v1::InstanceType*>>
      types_;
  std::map<std::string, const v1::NodeClass*> node_classes_;
  std::deque<v1::Catalog> aws_catalogs_;
  std::map<std::string, const v1::Catalog*> aws_by_class_;
  std::map<std::string, const v1::NodePool*> pools_;
  std::set<std::tuple<std::string, std::string, std::string>> unavailable_;
  std::map<std::string, std::set<std::string>> catalog_domains_;
  std::map<std::string, std::pair<std::optional<LabelSpace>, std::string>>
      option_cache_;
  std::map<const v1::InstanceType*, std::optional<Resources>>
      allocatable_cache_;
  std::map<std::pair<int, std::string>, std::optional<std::set<std::string>>>
      domains_cache_;

  std::deque<v1::Pod> expanded_;
  std::vector<PodEntry> pods_;
  // Built on first use by NamespaceLabels().
  std::map<std::string, std::map<std::string, std::string>> namespace_labels_;
  std::vector<std::string> bound_node_;
  std::vector<PodFacts> daemons_;
  std::deque<v1::PodSpec> daemon_specs_;  // DaemonSpec's copies, stable
  std::map<std::string, int> pending_index_;
  std::map<std::string, int> seen_;

  std::vector<Site> sites_;
  std::map<std::string, int> node_sites_;
  std::map<std::string, int> claim_sites_;
};

}  // namespace

std::vector<Violation> Verify(const v1::ScheduleRequest& request,
                              const v1::ScheduleResponse& response) {
  // A request past the limits is not expanded (Schedule refuses it too).
  validation::Workload workload;
  workload.pods = &request.pods();
  workload.deployments = &request.deployments();
  if (absl::Status s = validation::CheckWorkload(workload); !s.ok()) {
    return {Violation{"input", "request", std::string(s.message())}};
  }
  return Verifier(request, response).Run();
}

std::string FormatViolation(const Violation& v) {
  return absl::StrCat(v.rule, ": ", v.subject, ": ", v.message);
}

}  // namespace nodeplan
