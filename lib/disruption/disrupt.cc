// The public entry points: Disrupt and ValidateCommand
// (include/nodeplan/disrupt.h).

#include "nodeplan/disrupt.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "canonical/canonical_order.h"
#include "disruption/clock.h"
#include "disruption/cluster_view.h"
#include "disruption/compiled_simulator.h"
#include "disruption/compiled_state.h"
#include "disruption/conditions.h"
#include "disruption/drain.h"
#include "disruption/engine.h"
#include "disruption/optimized.h"
#include "disruption/pod_rules.h"
#include "disruption/render.h"
#include "disruption/request_simulator.h"
#include "nodeplan/library_version.h"
#include "nodeplan/quantity.h"
#include "validation/workload_checks.h"

namespace nodeplan {
namespace {

using disruption::ClusterView;
using disruption::Command;
using disruption::ConditionsResult;
using disruption::Engine;
using disruption::EventLog;
using disruption::Method;

absl::Status CheckOptions(const v1::DisruptOptions& o) {
  if (!o.preference_policy().empty() && o.preference_policy() != "Respect" &&
      o.preference_policy() != "Ignore") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.preferencePolicy: \"", o.preference_policy(),
                     "\" is not one of Respect, Ignore"));
  }
  if (!o.min_values_policy().empty() && o.min_values_policy() != "Strict" &&
      o.min_values_policy() != "BestEffort") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.minValuesPolicy: \"", o.min_values_policy(),
                     "\" is not one of Strict, BestEffort"));
  }
  if (o.max_instance_types() < 0) {
    return absl::InvalidArgumentError(
        "options.maxInstanceTypes: must not be negative");
  }
  if (!o.instance_type_encoding().empty() &&
      o.instance_type_encoding() != "Names" &&
      o.instance_type_encoding() != "Indexed") {
    return absl::InvalidArgumentError(absl::StrCat(
        "options.instanceTypeEncoding: \"", o.instance_type_encoding(),
        "\" is not one of Names, Indexed"));
  }
  if (!o.packing().empty() && o.packing() != "Karpenter" &&
      o.packing() != "Optimized") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.packing: \"", o.packing(),
                     "\" is not one of Karpenter, Optimized"));
  }
  if (o.packing_budget() < 0) {
    return absl::InvalidArgumentError(
        "options.packingBudget: must not be negative");
  }
  return absl::OkStatus();
}

// The earliest time at which the answer can change by itself.
std::optional<absl::Time> NextDecision(const ClusterView& view,
                                       const ConditionsResult& conditions,
                                       const Engine& engine,
                                       const disruption::DrainResult& drains) {
  std::optional<absl::Time> next;
  auto consider = [&](absl::Time t) {
    if (t <= view.now()) return;
    if (!next.has_value() || t < *next) next = t;
  };
  for (const disruption::ClaimConditions& c : conditions.nodes) {
    if (c.consolidatable_at.has_value()) consider(*c.consolidatable_at);
  }
  for (const disruption::NodeView& n : view.nodes()) {
    if (n.claim == nullptr) continue;
    const v1::NodeClaim& claim = *n.claim;
    if (!claim.metadata().creation_timestamp().empty()) {
      absl::StatusOr<absl::Time> created =
          disruption::ParseTimestamp(claim.metadata().creation_timestamp(), "");
      if (created.ok()) {
        consider(*created + absl::Hours(1));  // instance-type drift check
        absl::Duration expire = absl::Hours(720);
        const std::string& text = claim.spec().expire_after();
        bool never = false;
        if (!text.empty()) {
          absl::StatusOr<int64_t> nanos = ParseDuration(text);
          never = !nanos.ok() || *nanos == kNeverDuration;
          if (!never) expire = absl::Nanoseconds(*nanos);
        }
        if (!never) consider(*created + expire);
      }
    }
  }
  for (const disruption::PodView& p : view.pods()) {
    if (std::optional<absl::Time> until = p.facts.do_not_disrupt.Until()) {
      consider(*until);
    }
  }
  for (disruption::Reason r : disruption::kReasons) {
    for (const disruption::BudgetState& b : engine.Budgets(r)) {
      if (b.allowance.changes_at.has_value()) consider(*b.allowance.changes_at);
    }
  }
  if (drains.next_deadline.has_value()) consider(*drains.next_deadline);
  return next;
}

// Everything one pass works on, built from the request in order: the view,
// the conditions at `now`, the simulator, the events and the engine.
struct Pass {
  static absl::StatusOr<std::unique_ptr<Pass>> Start(
      const v1::DisruptRequest& request, disruption::HeldCluster held = {}) {
    if (absl::Status s = CheckOptions(request.options()); !s.ok()) return s;
    validation::Workload workload;
    workload.SetAllObjects(request);
    workload.pods = nullptr;  // checked as the view reads them, or by `held`
    workload.pending_checked_elsewhere = held.pending_pods;
    if (!held.pods_checked) {
      // The view checks each pod while it reads it (one visit per pod,
      // not two); whatever fails, the checks run again in the original
      // order for the original answer.
      if (std::unique_ptr<ClusterView> view =
              ViewCheckingPods(request, workload)) {
        return std::unique_ptr<Pass>(new Pass(std::move(view), held));
      }
      workload.pods = &request.pods();
    }
    if (absl::Status s = validation::CheckWorkload(workload); !s.ok()) {
      return s;
    }
    absl::StatusOr<std::unique_ptr<ClusterView>> view =
        ClusterView::Build(request, held.pods);
    if (!view.ok()) return view.status();
    return std::unique_ptr<Pass>(new Pass(*std::move(view), held));
  }

  // The view of `request` when every object passes validation, with the
  // pods checked as the view reads them; null otherwise. `others` holds
  // every object to check but the pods.
  static std::unique_ptr<ClusterView> ViewCheckingPods(
      const v1::DisruptRequest& request, validation::Workload others) {
    if (!validation::CheckWorkload(others).ok()) return nullptr;
    bool pods_failed = false;
    absl::StatusOr<std::unique_ptr<ClusterView>> view =
        ClusterView::Build(request, nullptr, &pods_failed);
    if (!view.ok()) return nullptr;
    others.pending_checked_elsewhere = (*view)->unbound_pods();
    if (!validation::CheckWorkloadLimits(others).ok()) return nullptr;
    return *std::move(view);
  }

  std::unique_ptr<ClusterView> view;
  ConditionsResult conditions;
  disruption::CompiledSimulator simulator;
  EventLog events;
  Engine engine;

 private:
  Pass(std::unique_ptr<ClusterView> v, disruption::HeldCluster held)
      : view(std::move(v)),
        conditions(disruption::ComputeConditions(*view)),
        simulator(*view, conditions, held),
        engine(*view, conditions, simulator, events) {}
};

absl::StatusOr<v1::DisruptResponse> Run(const v1::DisruptRequest& request,
                                        disruption::HeldCluster held) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = Pass::Start(request, held);
  if (!pass.ok()) return pass.status();
  ClusterView& view = *(*pass)->view;
  ConditionsResult& conditions = (*pass)->conditions;
  EventLog& events = (*pass)->events;
  Engine& engine = (*pass)->engine;
  std::optional<Method> method;
  absl::StatusOr<std::vector<Command>> commands = engine.Run(&method);
  if (!commands.ok()) return commands.status();

  v1::DisruptResponse out;
  out.set_library_version(LibraryVersion());
  const bool indexed = request.options().instance_type_encoding() == "Indexed";
  for (const Command& cmd : *commands) {
    *out.add_commands() = disruption::RenderCommand(view, cmd, indexed);
    const std::string reason =
        disruption::ReasonName(disruption::MethodReason(cmd.method));
    for (const disruption::Candidate& c : cmd.candidates) {
      const disruption::NodeView& n = view.nodes()[c.node];
      if (n.node != nullptr) {
        events.Add("Node", n.node->metadata().name(), "Normal",
                   "DisruptionTerminating",
                   absl::StrCat("Disrupting Node: ", reason));
      }
      if (n.claim != nullptr) {
        events.Add("NodeClaim", n.claim->metadata().name(), "Normal",
                   "DisruptionTerminating",
                   absl::StrCat("Disrupting NodeClaim: ", reason));
      }
    }
  }
  if (method.has_value()) out.set_method(disruption::MethodName(*method));
  disruption::RenderBudgets(view, engine, &out);
  disruption::RenderCandidacy(view, conditions, engine, &out);
  for (v1::NodeClaimConditions& c : conditions.rendered) {
    *out.add_conditions() = std::move(c);
  }
  for (v1::Expiration& e : disruption::ComputeExpirations(view)) {
    *out.add_expirations() = std::move(e);
  }
  disruption::DrainResult drains = disruption::ComputeDrains(view);
  for (v1::Drain& d : drains.drains) *out.add_drains() = std::move(d);
  for (v1::AnnotationWrite& a : conditions.annotations) {
    *out.add_annotations() = std::move(a);
  }
  for (v1::AnnotationWrite& a : drains.annotations) {
    *out.add_annotations() = std::move(a);
  }
  for (const disruption::PodView& p : view.pods()) {
    if (const std::optional<std::string>& why =
            p.facts.do_not_disrupt.invalid()) {
      events.Add(
          "Pod", p.key, "Warning", "InvalidDoNotDisruptAnnotation",
          absl::StrCat("Invalid karpenter.sh/do-not-disrupt annotation: ", *why,
                       ", ignoring annotation"));
    }
  }
  for (v1::DisruptionEvent& e : events.Take()) *out.add_events() = std::move(e);
  if (std::optional<absl::Time> next =
          NextDecision(view, conditions, engine, drains)) {
    out.set_next_decision_at(disruption::FormatTimestamp(*next));
  }
  // nodeplan's own proposal, after (and apart from) Karpenter's answer.
  if (request.options().packing() == "Optimized") {
    if (absl::Status s = disruption::ProposeOptimized(view, conditions, engine,
                                                      (*pass)->simulator, &out);
        !s.ok()) {
      return s;
    }
  }
  return out;
}

// nodeplan's own proposal (DisruptResponse.optimized), not a Karpenter
// method: validated as a consolidation of its shape.
constexpr char kOptimizedMethod[] = "optimized-consolidation";

absl::StatusOr<Method> ParseMethod(absl::string_view name) {
  for (Method m : disruption::kMethods) {
    if (name == disruption::MethodName(m)) return m;
  }
  // Its candidates are multi-node consolidation's, within the same budget.
  if (name == kOptimizedMethod) return Method::kMultiNodeConsolidation;
  return absl::InvalidArgumentError(
      absl::StrCat("command.method: \"", name,
                   "\" is not one of emptiness, static-drift, drift, "
                   "multi-node-consolidation, single-node-consolidation, "
                   "optimized-consolidation"));
}

absl::StatusOr<v1::ValidateCommandResponse> RunValidate(
    const v1::ValidateCommandRequest& request) {
  absl::StatusOr<Method> method = ParseMethod(request.command().method());
  if (!method.ok()) return method.status();
  const bool optimized = request.command().method() == kOptimizedMethod;
  v1::ValidateCommandResponse out;
  *out.mutable_command() = request.command();
  if (*method == Method::kDrift || *method == Method::kStaticDrift) {
    out.set_valid(true);
    return out;
  }
  absl::StatusOr<std::unique_ptr<Pass>> pass = Pass::Start(request.request());
  if (!pass.ok()) return pass.status();
  ClusterView& view = *(*pass)->view;
  disruption::Simulator& simulator = (*pass)->simulator;
  Engine& engine = (*pass)->engine;
  // The command's candidates, by node name, among the method's candidates
  // now.
  absl::flat_hash_set<std::string> wanted;
  for (const v1::CommandCandidate& c : request.command().candidates()) {
    wanted.insert(c.node());
  }
  std::vector<disruption::Candidate> current =
      engine.MethodCandidates(*method, false);
  std::vector<disruption::Candidate> still;
  for (const disruption::Candidate& c : current) {
    if (wanted.contains(view.nodes()[c.node].name)) still.push_back(c);
  }
  std::vector<int32_t> budget =
      engine.BudgetMap(disruption::MethodReason(*method));
  if (*method == Method::kEmptiness) {
    if (still.empty()) {
      out.set_reason(
          absl::StrCat(wanted.size(), " candidates are no longer valid"));
      return out;
    }
    std::vector<disruption::Candidate> valid;
    for (const disruption::Candidate& c : still) {
      if (view.nodes()[c.node].nominated || budget[c.pool] == 0) continue;
      --budget[c.pool];
      valid.push_back(c);
    }
    if (valid.empty()) {
      out.set_reason(absl::StrCat(
          wanted.size(),
          " candidates failed validation because it they were nominated for a "
          "pod or would violate disruption budgets"));
      return out;
    }
    out.mutable_command()->clear_candidates();
    for (const disruption::Candidate& c : valid) {
      *out.mutable_command()->add_candidates() =
          disruption::RenderCandidate(view, c);
    }
    out.set_valid(true);
    return out;
  }
  if (still.size() != wanted.size()) {
    out.set_reason(absl::StrCat(wanted.size() - still.size(),
                                " candidates are no longer valid"));
    return out;
  }
  for (const disruption::Candidate& c : still) {
    if (view.nodes()[c.node].nominated) {
      out.set_reason("a candidate was nominated during validation");
      return out;
    }
    if (budget[c.pool] == 0) {
      out.set_reason(
          "a candidate can no longer be disrupted without violating budgets");
      return out;
    }
    --budget[c.pool];
  }
  if (optimized) {
    absl::StatusOr<std::string> why = disruption::RevalidateOptimized(
        view, (*pass)->conditions, engine, simulator, still, request.command());
    if (!why.ok()) return why.status();
    out.set_valid(why->empty());
    out.set_reason(*std::move(why));
    return out;
  }
  std::vector<int> nodes;
  for (const disruption::Candidate& c : still) nodes.push_back(c.node);
  absl::StatusOr<disruption::SimulationResult> sim =
      simulator.Simulate(nodes, /*consolidation=*/true);
  if (!sim.ok()) return sim.status();
  if (!sim->all_non_pending_scheduled) {
    out.set_reason(sim->errors);
    return out;
  }
  const bool is_delete = request.command().replacements_size() == 0;
  if (sim->new_claims.empty()) {
    if (!is_delete) {
      out.set_reason("scheduling simulation produced new results");
      return out;
    }
    out.set_valid(true);
    return out;
  }
  if (sim->new_claims.size() > 1 || is_delete) {
    out.set_reason("scheduling simulation produced new results");
    return out;
  }
  // The command's options must all still be options.
  absl::flat_hash_set<std::string> now_options(
      sim->new_claims[0].claim.instance_types().begin(),
      sim->new_claims[0].claim.instance_types().end());
  const v1::DisruptionCommand& cmd = request.command();
  const v1::NewNodeClaim& replacement = cmd.replacements(0);
  auto has = [&](const std::string& name) {
    return now_options.contains(name);
  };
  for (const std::string& name : replacement.instance_types()) {
    if (!has(name)) {
      out.set_reason("scheduling simulation produced new results");
      return out;
    }
  }
  for (int index : replacement.instance_type_indices()) {
    if (index < 0 || index >= cmd.instance_type_names_size() ||
        !has(cmd.instance_type_names(index))) {
      out.set_reason("scheduling simulation produced new results");
      return out;
    }
  }
  out.set_valid(true);
  return out;
}

}  // namespace

absl::StatusOr<v1::DisruptResponse> Disrupt(const v1::DisruptRequest& request) {
  return canonical::InCanonicalOrder(
      request, [](const v1::DisruptRequest& r) { return Run(r, {}); });
}

namespace disruption {

absl::StatusOr<v1::DisruptResponse> DisruptHeld(
    const v1::DisruptRequest& request, HeldCluster held) {
  return canonical::InCanonicalOrder(
      request, [held](const v1::DisruptRequest& r) { return Run(r, held); });
}

}  // namespace disruption

absl::StatusOr<v1::ValidateCommandResponse> ValidateCommand(
    const v1::ValidateCommandRequest& request) {
  return canonical::InCanonicalOrder(request, RunValidate);
}

}  // namespace nodeplan
