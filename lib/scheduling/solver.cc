// Solve: one scheduling round (round.h) from options to response.

#include "scheduling/solver.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/workload.h"
#include "scheduling/round.h"
#include "validation/workload_checks.h"

namespace nodeplan::scheduling {

absl::StatusOr<Options> ParseOptions(const v1::ScheduleOptions& o) {
  Options out;
  if (o.preference_policy() == "Ignore") {
    out.ignore_preferences = true;
  } else if (!o.preference_policy().empty() &&
             o.preference_policy() != "Respect") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.preferencePolicy: \"", o.preference_policy(),
                     "\" is not one of Respect, Ignore"));
  }
  if (o.min_values_policy() == "BestEffort") {
    out.best_effort_min_values = true;
  } else if (!o.min_values_policy().empty() &&
             o.min_values_policy() != "Strict") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.minValuesPolicy: \"", o.min_values_policy(),
                     "\" is not one of Strict, BestEffort"));
  }
  if (o.max_instance_types() < 0)
    return absl::InvalidArgumentError(
        "options.maxInstanceTypes: must not be negative");
  if (o.max_instance_types() > 0)
    out.max_instance_types = o.max_instance_types();
  out.reserved_capacity = !o.has_reserved_capacity() || o.reserved_capacity();
  if (o.spread_bookkeeping() == "Karpenter") {
    out.karpenter_spread_groups = true;
  } else if (!o.spread_bookkeeping().empty() &&
             o.spread_bookkeeping() != "Consistent") {
    return absl::InvalidArgumentError(
        absl::StrCat("options.spreadBookkeeping: \"", o.spread_bookkeeping(),
                     "\" is not one of Consistent, Karpenter"));
  }
  if (o.instance_type_encoding() == "Indexed") {
    out.indexed_instance_types = true;
  } else if (!o.instance_type_encoding().empty() &&
             o.instance_type_encoding() != "Names") {
    return absl::InvalidArgumentError(absl::StrCat(
        "options.instanceTypeEncoding: \"", o.instance_type_encoding(),
        "\" is not one of Names, Indexed"));
  }
  return out;
}

const DestinationGate& NoGate() {
  static const auto* gate = new DestinationGate();
  return *gate;
}

absl::Status CheckRequestWorkload(const v1::ScheduleRequest& state) {
  validation::Workload workload;
  workload.pods = &state.pods();
  workload.deployments = &state.deployments();
  workload.SetClusterObjects(state);
  return validation::CheckWorkload(workload);
}

namespace {

// A round of `state` set up and run, not rendered.
absl::StatusOr<std::unique_ptr<Round>> RunRound(
    const Compiled& snapshot, const v1::ScheduleRequest& state,
    const DestinationGate* gate, const PreparedPods* prepared,
    const std::vector<TypeSet>* pool_types,
    const std::vector<char>* pending_subset = nullptr) {
  // A gated call is one of disruption's simulations over objects its
  // Disrupt call already validated: checking all of the cluster's pods again
  // per simulation cost about 15% of a 1,000-node decision.
  if (gate == nullptr) {
    if (auto s = CheckRequestWorkload(state); !s.ok()) return s;
  }
  auto opt = ParseOptions(state.options());
  if (!opt.ok()) return opt.status();
  opt->gate = gate;
  if (prepared != nullptr && prepared->request == &state)
    opt->prepared = prepared;
  if (pool_types != nullptr && pool_types->size() != snapshot.pools.size())
    return absl::InternalError("Solve: one TypeSet per NodePool expected");
  opt->pool_types = pool_types;
  opt->pending_subset = pending_subset;
  auto round = std::make_unique<Round>(snapshot, state, *opt);
  if (auto s = round->Setup(); !s.ok()) return s;
  round->Run();
  round->ReleasePlacementState();
  return round;
}

absl::Status SolveWith(const Compiled& snapshot,
                       const v1::ScheduleRequest& state,
                       const DestinationGate* gate,
                       const PreparedPods* prepared,
                       const std::vector<TypeSet>* pool_types,
                       v1::ScheduleResponse* out) {
  auto round = RunRound(snapshot, state, gate, prepared, pool_types);
  if (!round.ok()) return round.status();
  (*round)->Render(out);
  return absl::OkStatus();
}

}  // namespace

SolvedRound::~SolvedRound() = default;

void SolvedRound::Render(v1::ScheduleResponse* out) { round_->Render(out); }

absl::flat_hash_set<std::string> SolvedRound::PlacedPods() const {
  absl::flat_hash_set<absl::string_view> unplaced(unschedulable_.begin(),
                                                  unschedulable_.end());
  absl::flat_hash_set<std::string> out;
  for (int p = 0; p < round_->PendingCount(); ++p)
    if (!unplaced.contains(round_->PendingKey(p)))
      out.insert(round_->PendingKey(p));
  return out;
}

void SolvedRound::Summarize() {
  const Round::Summary summary = round_->Summarize();
  cost_ = summary.cost;
  unschedulable_.reserve(summary.unschedulable.size());
  for (int p : summary.unschedulable)
    unschedulable_.push_back(round_->PendingKey(p));
  launched_pools_ = summary.launched_pools;
  launches_ = summary.launches;
}

absl::StatusOr<std::unique_ptr<SolvedRound>> SolveUnrendered(
    const Compiled& snapshot, const v1::ScheduleRequest& state,
    const DestinationGate& gate, const PreparedPods* prepared,
    std::vector<TypeSet> pool_types, std::vector<char> pending_subset) {
  std::unique_ptr<SolvedRound> out(new SolvedRound());
  out->pool_types_ = std::move(pool_types);
  out->pending_subset_ = std::move(pending_subset);
  if (!state.deployments().empty() && !out->pending_subset_.empty() &&
      (prepared == nullptr || prepared->request != &state))
    return absl::InternalError(
        "SolveUnrendered: a pending subset with Deployments needs their "
        "prepared replicas");
  auto round =
      RunRound(snapshot, state, &gate, prepared, &out->pool_types_,
               out->pending_subset_.empty() ? nullptr : &out->pending_subset_);
  if (!round.ok()) return round.status();
  out->round_ = *std::move(round);
  out->Summarize();
  return out;
}

absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   v1::ScheduleResponse* out) {
  return SolveWith(snapshot, state, nullptr, nullptr, nullptr, out);
}

absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   const DestinationGate& gate, v1::ScheduleResponse* out) {
  return SolveWith(snapshot, state, &gate, nullptr, nullptr, out);
}

absl::Status Solve(const Compiled& snapshot, const v1::ScheduleRequest& state,
                   const DestinationGate& gate, const PreparedPods* prepared,
                   v1::ScheduleResponse* out,
                   const std::vector<TypeSet>* pool_types) {
  return SolveWith(snapshot, state, &gate, prepared, pool_types, out);
}

PreparedPods PreparePods(const v1::ScheduleRequest& state) {
  PreparedPods out;
  out.request = &state;
  out.arena = std::make_unique<google::protobuf::Arena>();
  for (const auto& d : state.deployments()) {
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    for (int i = 0; i < replicas; ++i) {
      auto* pod =
          google::protobuf::Arena::CreateMessage<v1::Pod>(out.arena.get());
      workload::DeploymentReplica(d, i, pod);
      out.expanded.push_back(pod);
    }
  }
  out.signatures.resize(state.pods_size());
  std::vector<std::pair<absl::string_view, absl::string_view>> labels;
  for (int i = 0; i < state.pods_size(); ++i) {
    const v1::Pod& p = state.pods(i);
    if (p.spec().node_name().empty())
      AppendClassSignature(p, NamespaceOf(p.metadata()), /*moved=*/false,
                           &out.signatures[i], &labels);
  }
  SignReplicas(state, out.expanded, &out.deployment_signatures,
               &out.replica_signatures, &labels);
  return out;
}

}  // namespace nodeplan::scheduling
