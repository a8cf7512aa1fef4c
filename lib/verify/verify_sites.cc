// The verifier's sites: the request's pods, existing nodes and in-flight
// NodeClaims, and the plan's new NodeClaims.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/labels.h"
#include "nodeplan/workload.h"
#include "verify/verifier.h"

namespace nodeplan::verify_internal {

bool Verifier::CollectPod(const v1::Pod& pod) {
  PodEntry entry;
  std::string error;
  if (!verify_internal::ExtractPodFacts(pod.metadata(), pod.spec(), entry.facts,
                                        &error)) {
    Add("input", "pod " + workload::PodKey(pod), "malformed " + error);
    return false;
  }
  if (IsTerminal(pod)) return true;
  if (!pod.spec().node_name().empty() &&
      deleting_nodes_.contains(pod.spec().node_name()) &&
      LeavesDeletingNode(pod)) {
    entry.pending = true;
    bound_node_.push_back("");
  } else if (!pod.spec().node_name().empty()) {
    entry.pending = false;
    entry.terminating = !pod.metadata().deletion_timestamp().empty();
    bound_node_.push_back(pod.spec().node_name());
  } else if (OwnedByDaemonSetOrNode(pod)) {
    return true;
  } else if (!pod.metadata().deletion_timestamp().empty() ||
             pod.spec().scheduling_gates_size() > 0 ||
             !pod.status().nominated_node_name().empty()) {
    // Being deleted (found by tests/fuzz), gated or being preempted for:
    // not provisionable (Karpenter's IsProvisionable), so not planned.
    return true;
  } else {
    entry.pending = true;
    bound_node_.push_back("");
  }
  AddPod(std::move(entry));
  return true;
}

void Verifier::CollectPods() {
  // Karpenter's StateNode.Deleted: the NodeClaim deleting or terminating,
  // or, without a NodeClaim, the Node deleting.
  std::map<std::string, const v1::NodeClaim*> claim_of;
  for (const auto& c : request_.node_claims())
    if (!c.status().node_name().empty())
      claim_of.emplace(c.status().node_name(), &c);
  for (const auto& n : request_.nodes()) {
    auto it = claim_of.find(n.metadata().name());
    const bool deleting = it != claim_of.end()
                              ? ClaimDeleting(*it->second)
                              : !n.metadata().deletion_timestamp().empty();
    if (deleting) deleting_nodes_.insert(n.metadata().name());
  }
  for (const auto& pod : request_.pods()) CollectPod(pod);
  // A replica is a pod like any other: one whose template sets
  // spec.nodeName is created bound, not pending (found by tests/fuzz).
  // Replicas differ only in their name and uid, which no rule but coverage
  // reads: the first replica's facts serve the others under their own keys.
  for (const auto& d : request_.deployments()) {
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    if (replicas <= 0) continue;
    expanded_.push_back(workload::DeploymentReplica(d, 0));
    const size_t before = pods_.size();
    const size_t bound_before = bound_node_.size();
    if (!CollectPod(expanded_.back())) continue;  // every replica alike
    if (pods_.size() == before) continue;         // not planned, all alike
    const PodEntry first = pods_.back();
    const std::string bound =
        bound_node_.size() > bound_before ? bound_node_.back() : "";
    const std::string prefix = first.facts.ns + "/" + d.metadata().name() + "-";
    for (int i = 1; i < replicas; ++i) {
      PodEntry entry = first;
      entry.facts.key = prefix + std::to_string(i);
      bound_node_.push_back(bound);
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

const v1::PodSpec& Verifier::DaemonSpec(const v1::DaemonSet& ds) {
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

void Verifier::AddPod(PodEntry entry) {
  const int index = static_cast<int>(pods_.size());
  if (entry.pending) {
    if (!pending_index_.emplace(entry.facts.key, index).second) {
      Add("input", "pod " + entry.facts.key,
          "two pending pods share this namespace/name");
    }
  }
  pods_.push_back(std::move(entry));
}

void Verifier::IndexExistingSites() {
  // A Node's NodeClaim, by the node name in its status.
  std::map<std::string, const v1::NodeClaim*> claim_of_node;
  for (const auto& claim : request_.node_claims()) {
    if (!claim.status().node_name().empty())
      claim_of_node[claim.status().node_name()] = &claim;
  }
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
      site.hostname_from_name = true;
    }
    auto nodepool = node.metadata().labels().find(labels::kNodePool);
    if (nodepool != node.metadata().labels().end()) {
      site.node_pool = nodepool->second;
    }
    // Karpenter's StateNode, written out again: with a NodeClaim the node
    // is managed; until its karpenter.sh/registered label says "true" the
    // NodeClaim's taints stand in for the Node's; until it is initialized,
    // known ephemeral and startup taints are ignored and the NodeClaim's
    // allocatable fills what the Node reports as zero.
    auto claim_it = claim_of_node.find(site.name);
    const v1::NodeClaim* claim =
        claim_it == claim_of_node.end() ? nullptr : claim_it->second;
    auto label_true = [&](const std::string& key) {
      auto it = node.metadata().labels().find(key);
      return it != node.metadata().labels().end() && it->second == "true";
    };
    const bool managed = claim != nullptr;
    const bool registered = label_true(labels::kRegistered);
    const bool initialized = !managed || label_true(labels::kInitialized);
    // A cordoned Node carries node.kubernetes.io/unschedulable:NoSchedule
    // (added by Kubernetes' node lifecycle controller when a manifest lacks
    // it); only the Node's own taints, when they are the ones that count.
    google::protobuf::RepeatedPtrField<v1::Taint> node_taints =
        node.spec().taints();
    if (node.spec().unschedulable()) {
      bool tainted = false;
      for (const auto& t : node_taints)
        tainted |= t.key() == "node.kubernetes.io/unschedulable" &&
                   t.effect() == "NoSchedule";
      if (!tainted) {
        v1::Taint* t = node_taints.Add();
        t->set_key("node.kubernetes.io/unschedulable");
        t->set_effect("NoSchedule");
      }
    }
    const auto& taints =
        managed && !registered ? claim->spec().taints() : node_taints;
    for (const auto& t : taints) {
      if (t.effect() == "PreferNoSchedule") continue;
      if (!initialized) {
        if (IsKnownEphemeralTaint(t)) continue;
        bool startup = false;
        for (const auto& s : claim->spec().startup_taints()) {
          if (s.key() == t.key() && s.effect() == t.effect()) startup = true;
        }
        if (startup) continue;
      }
      site.hard_taints.push_back(t);
    }
    std::string error;
    Resources allocatable;
    if (node.status().allocatable_size() > 0 || !initialized) {
      if (verify_internal::ParseResources(node.status().allocatable(),
                                          allocatable, &error)) {
        Resources claimed;
        if (!initialized &&
            verify_internal::ParseResources(claim->status().allocatable(),
                                            claimed, nullptr)) {
          for (const auto& [name, amount] : claimed) {
            if (allocatable[name] == 0) allocatable[name] = amount;
          }
        }
        site.allocatable = allocatable;
      } else {
        Add("input", site.subject, "malformed allocatable " + error);
      }
    }
    if (!verify_internal::ParseResources(node.status().capacity(),
                                         site.capacity, &error)) {
      Add("input", site.subject, "malformed capacity " + error);
    }
    site.deleting = deleting_nodes_.contains(site.name);
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
    site.deleting = ClaimDeleting(claim);
    site.has_node = !claim.status().node_name().empty() &&
                    node_sites_.contains(claim.status().node_name());
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

void Verifier::BuildNewSites() {
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
    if (seen_[index] == 0) {
      Add("coverage", "pod " + key,
          "pending but neither placed nor listed as unschedulable");
    }
  }
}

void Verifier::BuildNewSite(const v1::NewNodeClaim& claim, Site& site) {
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
  const ClaimRequirements split =
      SplitRequirements(claim_requirements, /*index_values=*/true);
  if (claim.instance_types().empty()) {
    Add("instance-type", site.subject, "no instance-type options");
  }
  absl::flat_hash_set<absl::string_view> distinct;
  bool launch_listed = false;
  const auto hostname =
      claim.name().empty()
          ? nullptr
          : std::make_shared<const Domain>(Domain::Fixed(claim.name()));
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
    OptionLabelSet labels = OptionLabels(pool, *type, split, &why);
    if (!labels) {
      Add("instance-type", site.subject,
          absl::StrCat("option ", name, " is incompatible: ", why));
      continue;
    }
    const std::optional<Resources>& allocatable =
        Allocatable(*type, site.subject);
    if (!allocatable) continue;
    OptionView view;
    view.type = type;
    view.shared = std::move(labels);
    view.hostname = hostname;
    view.allocatable = &*allocatable;
    site.views.push_back(std::move(view));
  }
  CheckLaunch(claim, pool, claim_requirements, launch_listed, site);
  CheckMinValues(claim, pool, site);
}

namespace {

// The values Karpenter's minValues counts for `key` on one instance type
// (InstanceTypes.SatisfiesMinValues reads Requirements.Get(key).Values()):
// its name, a label's value, an In's or NotIn's listed values. Zones and
// capacity types are those of every offering, and several requirements on
// the key count the union: never fewer values than Karpenter counts, so a
// correct plan is never flagged.
std::set<std::string> MinValuesOf(const v1::InstanceType& type,
                                  const std::string& key) {
  std::set<std::string> out;
  if (key == "node.kubernetes.io/instance-type") return {type.name()};
  if (key == labels::kZone || key == labels::kCapacityType) {
    for (const auto& o : type.offerings()) {
      out.insert(key == labels::kZone ? o.zone() : o.capacity_type());
    }
    return out;
  }
  for (const auto& [k, v] : type.labels()) {
    if (NormalizeKey(k) == key) return {v};
  }
  for (const auto& r : type.requirements()) {
    if (NormalizeKey(r.key()) != key) continue;
    if (r.operator_() == "In" || r.operator_() == "NotIn") {
      out.insert(r.values().begin(), r.values().end());
    }
  }
  return out;
}

}  // namespace

void Verifier::CheckMinValues(const v1::NewNodeClaim& claim,
                              const v1::NodePool& pool, const Site& site) {
  std::map<std::string, int32_t> floors;
  auto take = [&](const v1::NodeSelectorRequirement& r) {
    if (!r.has_min_values()) return;
    int32_t& floor = floors[NormalizeKey(r.key())];
    floor = std::max(floor, r.min_values());
  };
  for (const auto& r : claim.node_claim().spec().requirements()) take(r);
  if (request_.options().min_values_policy() != "BestEffort") {
    for (const auto& r : pool.spec().template_().spec().requirements()) {
      take(r);
    }
  }
  for (const auto& [key, floor] : floors) {
    std::set<std::string> seen;
    for (const auto& name : claim.instance_types()) {
      if (const v1::InstanceType* type = FindType(pool, name)) {
        std::set<std::string> values = MinValuesOf(*type, key);
        seen.insert(values.begin(), values.end());
      }
    }
    if (static_cast<int32_t>(seen.size()) < floor) {
      Add("min-values", site.subject,
          absl::StrCat("the instance-type options give ", seen.size(),
                       " distinct values of ", key, ", minValues is ", floor));
    }
  }
}

void Verifier::CheckLaunch(const v1::NewNodeClaim& claim,
                           const v1::NodePool& pool,
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
  pinned.push_back(Expr{labels::kCapacityType, "In", {launch.capacity_type()}});
  if (!OptionLabels(pool, type, pinned, &why)) {
    Add("launch", site.subject,
        absl::StrCat("launch ", launch.instance_type(), " in ", launch.zone(),
                     " (", launch.capacity_type(), ") is not allowed: ", why));
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
    const double tolerance = 1e-9 * std::max(1.0, std::fabs(offering->price()));
    if (std::fabs(offering->price() - launch.price()) > tolerance) {
      Add("launch", site.subject,
          absl::StrCat("launch price ", launch.price(), " but ", type.name(),
                       " in ", launch.zone(), " (", launch.capacity_type(),
                       ") costs ", offering->price()));
    }
  }
}

}  // namespace nodeplan::verify_internal
