// VerifyDisruption: an independent check of a DisruptResponse (nodeplan/
// verify.h). It reads the request's protos with plain string logic and the
// verifier's own quantity code, never lib/disruption, and re-checks the
// placements of every command with Verify().

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/catalog.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/verify.h"
#include "verify/pod_facts.h"
#include "verify/verifier.h"

namespace nodeplan {
namespace {

using verify_internal::SelectorMatches;

std::string Key(const v1::Pod& p) {
  return absl::StrCat(NamespaceOf(p.metadata()), "/", p.metadata().name());
}

bool Terminal(const v1::Pod& p) {
  return p.status().phase() == "Succeeded" || p.status().phase() == "Failed";
}

// Pods a removed node's replacement capacity must hold.
bool MustMove(const v1::Pod& p) {
  const bool terminating = !p.metadata().deletion_timestamp().empty();
  const bool active = !Terminal(p) && !terminating;
  return (active || (terminating && IsOwnedByStatefulSet(p))) &&
         !IsOwnedByDaemonSet(p) && !IsOwnedByNode(p);
}

// Karpenter's EvictionCost, written out again: 1 + deletion cost / 2^27 +
// priority / 2^25, clamped to [-10, 10]. A node whose pods all cost 0 or
// less is empty to Karpenter (Candidate.IsEmpty) though they still run.
double EvictionCost(const v1::Pod& p) {
  double cost = 1.0;
  auto it = p.metadata().annotations().find(labels::kPodDeletionCostAnnotation);
  double deletion = 0;
  if (it != p.metadata().annotations().end() &&
      absl::SimpleAtod(it->second, &deletion))
    cost += deletion / 134217728.0;
  if (p.spec().has_priority())
    cost += static_cast<double>(p.spec().priority()) / 33554432.0;
  return std::clamp(cost, -10.0, 10.0);
}

std::string Find(const google::protobuf::Map<std::string, std::string>& m,
                 const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? "" : it->second;
}

// The Node's own label: what Karpenter reads for initialized and registered.
std::string NodeLabel(const v1::Node& n, const std::string& key) {
  return Find(n.metadata().labels(), key);
}

// The metadata Karpenter's cluster state reads for a managed node
// (StateNode.Labels and Annotations): the NodeClaim's until the Node carries
// karpenter.sh/registered=true, the Node's after (found by tests/fuzz: a Node
// without the NodePool label whose NodeClaim has one).
const v1::ObjectMeta& StateMeta(const v1::Node& n, const v1::NodeClaim* c) {
  if (c == nullptr || NodeLabel(n, labels::kRegistered) == "true")
    return n.metadata();
  return c->metadata();
}

constexpr char kOptimized[] = "optimized-consolidation";

bool Graceful(const std::string& method) {
  return method == "emptiness" || method == "multi-node-consolidation" ||
         method == "single-node-consolidation" || method == kOptimized;
}

std::string ReasonOf(const std::string& method) {
  if (method == "emptiness") return "Empty";
  if (method == "drift" || method == "static-drift") return "Drifted";
  return "Underutilized";
}

class DisruptionChecker {
 public:
  DisruptionChecker(const v1::DisruptRequest& req,
                    const v1::DisruptResponse& resp)
      : req_(req), resp_(resp) {
    for (const v1::Node& n : req.nodes()) nodes_[n.metadata().name()] = &n;
    for (const v1::NodeClaim& c : req.node_claims()) {
      claims_[c.metadata().name()] = &c;
      if (!c.status().provider_id().empty()) {
        claim_by_provider_[c.status().provider_id()] = &c;
      }
    }
    for (const v1::NodePool& p : req.node_pools()) {
      pools_[p.metadata().name()] = &p;
    }
    for (const std::string& m : req.marked_for_deletion()) marked_.insert(m);
    for (const v1::Pod& p : req.pods()) {
      if (!p.spec().node_name().empty()) {
        pods_on_[p.spec().node_name()].push_back(&p);
      }
    }
  }

  std::vector<Violation> Run() {
    std::set<std::string> methods;
    for (const v1::DisruptionCommand& cmd : resp_.commands()) {
      methods.insert(cmd.method());
      CheckShape(cmd);
      for (const v1::CommandCandidate& c : cmd.candidates()) {
        CheckCandidate(cmd, c);
      }
      CheckSavings(cmd);
      CheckPlacements(cmd);
    }
    if (methods.size() > 1) {
      Add("command", "response", "commands of more than one method in a pass");
    }
    if (methods.contains(kOptimized)) {
      Add("command", "response",
          "an optimized consolidation among Karpenter's commands");
    }
    CheckBudgets();
    if (resp_.optimized().has_command()) CheckOptimized();
    return std::move(out_);
  }

 private:
  void Add(const std::string& rule, const std::string& subject,
           const std::string& message) {
    out_.push_back(Violation{rule, subject, message});
  }

  // A label of the node as Karpenter's cluster state sees it (StateMeta).
  std::string Label(const v1::Node& n, const std::string& key) {
    return Find(StateMeta(n, ClaimOf(n)).labels(), key);
  }

  const v1::NodeClaim* ClaimOf(const v1::Node& n) {
    if (!n.spec().provider_id().empty()) {
      auto it = claim_by_provider_.find(n.spec().provider_id());
      return it == claim_by_provider_.end() ? nullptr : it->second;
    }
    for (const v1::NodeClaim& c : req_.node_claims()) {
      if (c.status().node_name() == n.metadata().name()) return &c;
    }
    return nullptr;
  }

  void CheckShape(const v1::DisruptionCommand& cmd) {
    const std::string subject = "command " + cmd.method();
    if (cmd.reason() != ReasonOf(cmd.method())) {
      Add("command", subject, "reason " + cmd.reason() + " does not match");
    }
    const bool del = cmd.decision() == "delete";
    if (del != (cmd.replacements_size() == 0)) {
      Add("command", subject,
          "decision " + cmd.decision() + " with " +
              std::to_string(cmd.replacements_size()) + " replacements");
    }
    if (absl::StrContains(cmd.method(), "consolidation") &&
        cmd.method() != kOptimized && cmd.replacements_size() > 1) {
      Add("command", subject, "consolidation launches more than one NodeClaim");
    }
    if (cmd.method() == "emptiness" && !del) {
      Add("command", subject, "emptiness replaces nodes");
    }
  }

  void CheckCandidate(const v1::DisruptionCommand& cmd,
                      const v1::CommandCandidate& c) {
    const std::string subject = "node " + c.node();
    auto it = nodes_.find(c.node());
    if (it == nodes_.end()) {
      Add("candidate", subject, "not a Node of the request");
      return;
    }
    const v1::Node& n = *it->second;
    const v1::NodeClaim* claim = ClaimOf(n);
    if (claim == nullptr) {
      Add("candidate", subject, "has no NodeClaim");
      return;
    }
    if (NodeLabel(n, labels::kInitialized) != "true") {
      Add("candidate", subject, "is not initialized");
    }
    // Karpenter's StateNode.Deleted(): with a NodeClaim, only the
    // NodeClaim's deletion (or InstanceTerminating) counts, not the Node's
    // deletionTimestamp (found by tests/fuzz).
    if (!claim->metadata().deletion_timestamp().empty() ||
        marked_.contains(c.node())) {
      Add("candidate", subject, "is already being deleted");
    }
    for (const std::string& nom : req_.nominated()) {
      if (nom == c.node()) Add("candidate", subject, "is nominated");
    }
    if (Find(StateMeta(n, claim).annotations(), labels::kDoNotDisrupt) ==
        "true") {
      Add("candidate", subject, "carries karpenter.sh/do-not-disrupt=true");
    }
    if (!pools_.contains(Label(n, labels::kNodePool))) {
      Add("candidate", subject, "its NodePool is not in the request");
    }
    // Pod protections bind graceful methods always, eventual ones unless the
    // NodeClaim has a terminationGracePeriod.
    const bool pods_bind = Graceful(cmd.method()) ||
                           claim->spec().termination_grace_period().empty();
    if (!pods_bind) return;
    for (const v1::Pod* p : pods_on_[c.node()]) {
      if (Terminal(*p) || !p->metadata().deletion_timestamp().empty()) continue;
      auto a = p->metadata().annotations().find(labels::kDoNotDisrupt);
      if (a != p->metadata().annotations().end() && a->second == "true") {
        Add("candidate", subject,
            "pod " + Key(*p) + " carries karpenter.sh/do-not-disrupt=true");
      }
      // Karpenter's PDB check (pkg/utils/pdb): only evictable pods count;
      // several matching budgets block, a single one blocks at zero
      // disruptions allowed unless it always allows evicting unhealthy pods
      // and the pod is Ready=False.
      std::map<std::string, std::string> labels(p->metadata().labels().begin(),
                                                p->metadata().labels().end());
      std::vector<const v1::PodDisruptionBudget*> matching;
      for (const v1::PodDisruptionBudget& b : req_.pod_disruption_budgets()) {
        if (NamespaceOf(b.metadata()) != NamespaceOf(p->metadata())) continue;
        if (!b.spec().has_selector() ||
            !SelectorMatches(b.spec().selector(), labels)) {
          continue;
        }
        matching.push_back(&b);
      }
      v1::Taint disrupted;
      disrupted.set_key(labels::kDisruptedTaint);
      disrupted.set_effect("NoSchedule");
      const std::vector<v1::Toleration> tolerations(
          p->spec().tolerations().begin(), p->spec().tolerations().end());
      const bool evictable = !IsOwnedByNode(*p) && !verify_internal::Tolerates(
                                                       tolerations, disrupted);
      bool not_ready = false;
      for (const v1::PodCondition& cond : p->status().conditions()) {
        if (cond.type() == "Ready" && cond.status() == "False") {
          not_ready = true;
        }
      }
      const bool zero = matching.size() == 1 &&
                        matching[0]->status().disruptions_allowed() == 0 &&
                        !(matching[0]->spec().unhealthy_pod_eviction_policy() ==
                              "AlwaysAllow" &&
                          not_ready);
      if (evictable && (matching.size() > 1 || zero)) {
        Add("candidate", subject,
            "pod " + Key(*p) + " is protected by a PodDisruptionBudget");
      }
    }
  }

  // maxUnavailable 0 / "0%", minAvailable "100%", or several PDBs.
  bool FullyBlocked(const v1::Pod& p) {
    std::map<std::string, std::string> labels(p.metadata().labels().begin(),
                                              p.metadata().labels().end());
    int matching = 0;
    bool full = false;
    for (const v1::PodDisruptionBudget& b : req_.pod_disruption_budgets()) {
      if (NamespaceOf(b.metadata()) != NamespaceOf(p.metadata()) ||
          !b.spec().has_selector() ||
          !SelectorMatches(b.spec().selector(), labels)) {
        continue;
      }
      ++matching;
      full = full || b.spec().max_unavailable() == "0" ||
             b.spec().max_unavailable() == "0%" ||
             b.spec().min_available() == "100%";
    }
    return matching > 1 || full;
  }

  // A node's own offering price.
  double NodePrice(const v1::Node& n) {
    const v1::NodePool* pool = PoolOf(n);
    if (pool == nullptr) return 0;
    const v1::Catalog* cat = CatalogOf(*pool);
    if (cat == nullptr) return 0;
    for (const v1::InstanceType& t : cat->instance_types()) {
      if (t.name() != Label(n, labels::kInstanceType)) continue;
      for (const v1::Offering& o : t.offerings()) {
        if (o.zone() == Label(n, labels::kZone) &&
            o.capacity_type() == Label(n, labels::kCapacityType)) {
          return o.price();
        }
      }
    }
    return 0;
  }

  const v1::NodePool* PoolOf(const v1::Node& n) {
    auto it = pools_.find(Label(n, labels::kNodePool));
    return it == pools_.end() ? nullptr : it->second;
  }

  const v1::Catalog* CatalogOf(const v1::NodePool& pool) {
    if (req_.catalog().instance_types_size() > 0) return &req_.catalog();
    const std::string& name =
        pool.spec().template_().spec().node_class_ref().name();
    auto it = aws_.find(name);
    if (it != aws_.end()) return &it->second;
    const v1::NodeClass* nc = nullptr;
    for (const v1::NodeClass& c : req_.node_classes()) {
      if (c.metadata().name() == name) nc = &c;
    }
    absl::StatusOr<v1::Catalog> cat = AwsCatalog(nc);
    if (!cat.ok()) return nullptr;
    return &aws_.emplace(name, *std::move(cat)).first->second;
  }

  // Consolidation must save money: every option's dearest offering its
  // requirements allow (in the capacity type it would launch) is below the
  // candidates' summed price.
  void CheckSavings(const v1::DisruptionCommand& cmd) {
    if (!absl::StrContains(cmd.method(), "consolidation")) return;
    if (req_.node_overlays_size() > 0) return;  // prices change
    double sum = 0;
    for (const v1::CommandCandidate& c : cmd.candidates()) {
      auto it = nodes_.find(c.node());
      if (it != nodes_.end()) sum += NodePrice(*it->second);
    }
    double dearest_sum = 0;
    for (const v1::NewNodeClaim& r : cmd.replacements()) {
      double dearest = 0;
      auto pool = pools_.find(r.node_pool());
      if (pool == pools_.end()) continue;
      const v1::Catalog* cat = CatalogOf(*pool->second);
      if (cat == nullptr) continue;
      std::set<std::string> zones, cts;
      for (const v1::NodeSelectorRequirement& q :
           r.node_claim().spec().requirements()) {
        if (q.operator_() != "In") continue;
        if (q.key() == labels::kZone) {
          zones.insert(q.values().begin(), q.values().end());
        }
        if (q.key() == labels::kCapacityType) {
          cts.insert(q.values().begin(), q.values().end());
        }
      }
      for (const std::string& name : r.instance_types()) {
        for (const v1::InstanceType& t : cat->instance_types()) {
          if (t.name() != name) continue;
          double worst = -1;
          for (const char* ct : {"reserved", "spot", "on-demand"}) {
            for (const v1::Offering& o : t.offerings()) {
              if (o.capacity_type() != ct) continue;
              if (!verify_internal::OfferingAvailable(o)) continue;
              if (!zones.empty() && !zones.contains(o.zone())) continue;
              if (!cts.empty() && !cts.contains(o.capacity_type())) continue;
              worst = std::max(worst, o.price());
            }
            if (worst >= 0) break;
          }
          if (worst >= sum - 1e-12) {
            Add("savings", "command " + cmd.method(),
                absl::StrCat("option ", name, " may launch at $", worst,
                             "/hour, not below the candidates' $", sum));
          }
          dearest = std::max(dearest, worst);
        }
      }
      dearest_sum += dearest;
    }
    // N nodes into M: the replacements together, each at its dearest
    // option, cost less than the candidates.
    if (cmd.method() == kOptimized && cmd.replacements_size() > 1 &&
        dearest_sum >= sum - 1e-12) {
      Add("savings", "command " + cmd.method(),
          absl::StrCat("the replacements may launch at $", dearest_sum,
                       "/hour together, not below the candidates' $", sum));
    }
  }

  // nodeplan's optimized consolidation: a proposal apart from the commands,
  // checked as a consolidation command on its own (its budget is not shared
  // with the commands: it is an alternative to them).
  void CheckOptimized() {
    const v1::DisruptionCommand& cmd = resp_.optimized().command();
    const std::string subject = "optimized " + cmd.method();
    if (cmd.method() != kOptimized) {
      Add("command", subject, "an optimized proposal of another method");
    }
    if (cmd.reason() != "Underutilized") {
      Add("command", subject, "reason " + cmd.reason() + " does not match");
    }
    if ((cmd.decision() == "delete") != (cmd.replacements_size() == 0)) {
      Add("command", subject,
          "decision " + cmd.decision() + " with " +
              std::to_string(cmd.replacements_size()) + " replacements");
    }
    for (const v1::CommandCandidate& c : cmd.candidates()) {
      CheckCandidate(cmd, c);
    }
    CheckSavings(cmd);
    CheckPlacements(cmd);
    std::map<std::pair<std::string, std::string>, int> taken;
    for (const v1::CommandCandidate& c : cmd.candidates()) {
      ++taken[{c.node_pool(), "Underutilized"}];
    }
    CheckAllowed(taken);
  }

  // The candidates' pods land on what remains plus the replacements, and
  // those placements obey every scheduling rule (Verify).
  void CheckPlacements(const v1::DisruptionCommand& cmd) {
    std::set<std::string> removed;
    for (const v1::CommandCandidate& c : cmd.candidates())
      removed.insert(c.node());
    std::set<std::string> placed;
    for (const v1::NewNodeClaim& r : cmd.replacements()) {
      placed.insert(r.pods().begin(), r.pods().end());
    }
    for (const v1::ExistingNodePlacement& e : cmd.existing_nodes()) {
      if (removed.contains(e.name())) {
        Add("rescheduling", "node " + e.name(),
            "pods are moved onto a node the command removes");
      }
      placed.insert(e.pods().begin(), e.pods().end());
    }
    if (cmd.method() == "static-drift") return;  // no simulation
    for (const std::string& node : removed) {
      for (const v1::Pod* p : pods_on_[node]) {
        if (!MustMove(*p)) continue;
        // Pods Karpenter does not move: do-not-disrupt (drift with a grace
        // period) and pods held by a fully blocking PDB.
        auto a = p->metadata().annotations().find(labels::kDoNotDisrupt);
        const bool protected_pod =
            a != p->metadata().annotations().end() || FullyBlocked(*p);
        if (cmd.method() == "emptiness") {
          if (EvictionCost(*p) > 0)
            Add("emptiness", "node " + node, "pod " + Key(*p) + " still runs");
          continue;
        }
        if (!placed.contains(Key(*p)) && !protected_pod &&
            Graceful(cmd.method())) {
          Add("rescheduling", "pod " + Key(*p),
              "of node " + node + " has no place after the command");
        }
      }
    }
    if (cmd.method() == "emptiness") return;
    // The plan the command implies, checked as a scheduling plan.
    v1::ScheduleRequest sreq;
    *sreq.mutable_node_pools() = req_.node_pools();
    *sreq.mutable_node_classes() = req_.node_classes();
    if (req_.has_catalog()) *sreq.mutable_catalog() = req_.catalog();
    sreq.set_catalog_ref(req_.catalog_ref());
    *sreq.mutable_node_overlays() = req_.node_overlays();
    *sreq.mutable_daemon_sets() = req_.daemon_sets();
    *sreq.mutable_persistent_volume_claims() = req_.persistent_volume_claims();
    *sreq.mutable_persistent_volumes() = req_.persistent_volumes();
    *sreq.mutable_storage_classes() = req_.storage_classes();
    *sreq.mutable_csi_nodes() = req_.csi_nodes();
    *sreq.mutable_unavailable_offerings() = req_.unavailable_offerings();
    *sreq.mutable_namespaces() = req_.namespaces();
    for (const v1::Node& n : req_.nodes()) {
      if (!removed.contains(n.metadata().name())) *sreq.add_nodes() = n;
    }
    for (const v1::NodeClaim& c : req_.node_claims()) {
      if (!removed.contains(c.status().node_name()))
        *sreq.add_node_claims() = c;
    }
    for (const v1::Pod& p : req_.pods()) {
      if (p.spec().node_name().empty()) {
        // Pending pods may take the replacement's room too.
        if (placed.contains(Key(p))) *sreq.add_pods() = p;
        continue;
      }
      // A moved pod is rescheduled as it is: the pending pods' filters
      // (gated, nominated elsewhere) are not Karpenter's for it.
      auto as_pending = [](const v1::Pod& pod) {
        v1::Pod moved = pod;
        moved.mutable_spec()->clear_node_name();
        moved.mutable_spec()->clear_scheduling_gates();
        moved.mutable_status()->clear_nominated_node_name();
        moved.mutable_status()->set_phase("Pending");
        return moved;
      };
      if (removed.contains(p.spec().node_name())) {
        if (!placed.contains(Key(p))) continue;
        v1::Pod moved = as_pending(p);
        moved.mutable_metadata()->clear_deletion_timestamp();
        *sreq.add_pods() = moved;
      } else if (placed.contains(Key(p))) {
        // A pod of a deleting node moved by the simulation.
        *sreq.add_pods() = as_pending(p);
      } else {
        *sreq.add_pods() = p;
      }
    }
    v1::ScheduleResponse plan;
    for (const v1::NewNodeClaim& r : cmd.replacements()) {
      if (r.instance_types_size() == 0) continue;  // Indexed: not checked
      *plan.add_new_node_claims() = r;
    }
    for (const v1::ExistingNodePlacement& e : cmd.existing_nodes()) {
      *plan.add_existing_nodes() = e;
    }
    for (Violation& v : Verify(sreq, plan)) {
      // Pods of the request that the command does not move are pending
      // only in this reconstruction.
      if (v.rule == "coverage" &&
          absl::StrContains(v.message, "neither placed nor listed")) {
        continue;
      }
      v.subject = "command " + cmd.method() + ": " + v.subject;
      out_.push_back(std::move(v));
    }
  }

  // Per NodePool and reason: the commands take no more nodes than the
  // budgets allow; budgets without schedules are recomputed here.
  void CheckBudgets() {
    std::map<std::pair<std::string, std::string>, int> taken;
    for (const v1::DisruptionCommand& cmd : resp_.commands()) {
      for (const v1::CommandCandidate& c : cmd.candidates()) {
        ++taken[{c.node_pool(), cmd.reason()}];
      }
    }
    CheckAllowed(taken);
  }

  // Nodes taken per (NodePool, reason) against the response's and the
  // recomputed budgets.
  void CheckAllowed(
      const std::map<std::pair<std::string, std::string>, int>& taken) {
    std::map<std::pair<std::string, std::string>, int> allowed;
    for (const v1::BudgetAllowance& b : resp_.budgets()) {
      allowed[{b.node_pool(), b.reason()}] = b.allowed();
    }
    for (const auto& [key, n] : taken) {
      auto it = allowed.find(key);
      if (it == allowed.end()) {
        Add("budget", "nodepool " + key.first,
            "no budget reported for " + key.second);
        continue;
      }
      if (n > it->second) {
        Add("budget", "nodepool " + key.first,
            absl::StrCat(n, " ", key.second, " disruptions, ", it->second,
                         " allowed"));
      }
      const int independent = IndependentAllowance(key.first, key.second);
      if (independent >= 0 && n > independent) {
        Add("budget", "nodepool " + key.first,
            absl::StrCat(n, " ", key.second, " disruptions, budgets allow ",
                         independent));
      }
    }
  }

  // max(min over unscheduled budgets applying to `reason` - disrupting, 0);
  // -1 when a scheduled budget applies (not recomputed here).
  int IndependentAllowance(const std::string& pool_name,
                           const std::string& reason) {
    auto p = pools_.find(pool_name);
    if (p == pools_.end()) return -1;
    int nodes = 0, disrupting = 0;
    for (const v1::Node& n : req_.nodes()) {
      if (Label(n, labels::kNodePool) != pool_name) continue;
      const v1::NodeClaim* c = ClaimOf(n);
      if (c == nullptr || NodeLabel(n, labels::kInitialized) != "true") {
        continue;
      }
      bool terminating = false;
      for (const v1::Condition& cond : c->status().conditions()) {
        if (cond.type() == "InstanceTerminating" && cond.status() == "True") {
          terminating = true;
        }
      }
      if (terminating) continue;
      ++nodes;
      bool ready = false;
      for (const v1::NodeCondition& cond : n.status().conditions()) {
        if (cond.type() == "Ready" && cond.status() == "True") ready = true;
      }
      // MarkedForDeletion(): as for candidates, a managed Node's own
      // deletionTimestamp does not count.
      if (!ready || !c->metadata().deletion_timestamp().empty() ||
          marked_.contains(n.metadata().name())) {
        ++disrupting;
      }
    }
    std::vector<v1::Budget> budgets(
        p->second->spec().disruption().budgets().begin(),
        p->second->spec().disruption().budgets().end());
    const auto& present_empty =
        p->second->spec().disruption().present_empty_fields();
    if (budgets.empty() && std::find(present_empty.begin(), present_empty.end(),
                                     "budgets") == present_empty.end()) {
      budgets.emplace_back();
      budgets.back().set_nodes("10%");
    }
    long best = 2147483647;
    for (const v1::Budget& b : budgets) {
      if (!b.schedule().empty()) return -1;
      bool applies = b.reasons().empty() &&
                     std::find(b.present_empty_fields().begin(),
                               b.present_empty_fields().end(),
                               "reasons") == b.present_empty_fields().end();
      for (const std::string& r : b.reasons()) applies |= r == reason;
      if (!applies) continue;
      std::string v = b.nodes().empty() ? "10%" : b.nodes();
      long value;
      if (absl::EndsWith(v, "%")) {
        long pct;
        if (!absl::SimpleAtoi(v.substr(0, v.size() - 1), &pct)) return 0;
        value = static_cast<long>(std::ceil(pct * nodes / 100.0));
      } else if (!absl::SimpleAtoi(v, &value)) {
        return 0;
      }
      best = std::min(best, value);
    }
    return static_cast<int>(std::max(0L, best - disrupting));
  }

  const v1::DisruptRequest& req_;
  const v1::DisruptResponse& resp_;
  std::map<std::string, const v1::Node*> nodes_;
  std::map<std::string, const v1::NodeClaim*> claims_, claim_by_provider_;
  std::map<std::string, const v1::NodePool*> pools_;
  std::map<std::string, std::vector<const v1::Pod*>> pods_on_;
  std::map<std::string, v1::Catalog> aws_;
  std::set<std::string> marked_;
  std::vector<Violation> out_;
};

}  // namespace

std::vector<Violation> VerifyDisruption(const v1::DisruptRequest& request,
                                        const v1::DisruptResponse& response) {
  return DisruptionChecker(request, response).Run();
}

}  // namespace nodeplan
