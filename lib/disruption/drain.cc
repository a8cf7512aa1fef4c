#include "disruption/drain.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "disruption/candidates.h"
#include "disruption/clock.h"
#include "disruption/pod_rules.h"
#include "nodeplan/labels.h"
#include "nodeplan/quantity.h"

namespace nodeplan::disruption {
namespace {

// The kubelet's default terminationGracePeriodSeconds.
constexpr int64_t kDefaultPodGracePeriod = 30;

bool IsCritical(const v1::Pod& pod) {
  return pod.spec().priority_class_name() == "system-cluster-critical" ||
         pod.spec().priority_class_name() == "system-node-critical";
}

// Tier 0-3 as groupPodsByPriority orders them.
int Tier(const PodView& pod) {
  return (IsCritical(*pod.pod) ? 2 : 0) + (pod.facts.daemon_set ? 1 : 0);
}

// Karpenter's MinDrainTime: how long a drain stays open after it starts,
// for pods the scheduler bound before it saw the disrupted taint.
constexpr absl::Duration kMinDrainTime = absl::Seconds(5);

int ClaimsWithProviderId(const ClusterView& view, absl::string_view id) {
  if (id.empty()) return 0;
  int count = 0;
  for (const v1::NodeClaim& c : view.request().node_claims()) {
    if (c.status().provider_id() == id) ++count;
  }
  return count;
}

std::optional<absl::Time> Parse(absl::string_view text) {
  if (text.empty()) return std::nullopt;
  absl::StatusOr<absl::Time> t = ParseTimestamp(text, "");
  if (!t.ok()) return std::nullopt;
  return *t;
}

}  // namespace

DrainResult ComputeDrains(const ClusterView& view) {
  DrainResult result;
  const absl::Time now = view.now();
  for (size_t i = 0; i < view.nodes().size(); ++i) {
    const NodeView& n = view.nodes()[i];
    if (n.node == nullptr || n.node->metadata().deletion_timestamp().empty()) {
      continue;
    }
    if (!n.managed && !n.has_pool_label) continue;
    // The controller finalizes only Nodes that carry its finalizer. A Node
    // listed without finalizers is taken to carry it (it could not still
    // exist otherwise, and requests often omit them); one whose finalizers
    // are all someone else's is not Karpenter's to drain.
    const auto& finalizers = n.node->metadata().finalizers();
    if (!finalizers.empty() &&
        std::find(finalizers.begin(), finalizers.end(),
                  labels::kTerminationFinalizer) == finalizers.end()) {
      continue;
    }
    v1::Drain d;
    d.set_node(n.name);
    // The termination controller looks the NodeClaim up by the Node's
    // provider ID; when several NodeClaims carry it, it drains as if there
    // were none (no termination time, no minimum drain time).
    const v1::NodeClaim* claim =
        ClaimsWithProviderId(view, n.node->spec().provider_id()) > 1 ? nullptr
                                                                     : n.claim;
    // The termination time: the NodeClaim's annotation, or (the lifecycle
    // controller writes it on deletion) deletionTimestamp +
    // terminationGracePeriod.
    std::optional<absl::Time> termination;
    if (claim != nullptr) {
      d.set_node_claim(claim->metadata().name());
      auto it = claim->metadata().annotations().find(
          std::string(labels::kNodeClaimTerminationTimestamp));
      if (it != claim->metadata().annotations().end()) {
        termination = Parse(it->second);
        d.set_termination_timestamp(it->second);
      } else if (!claim->spec().termination_grace_period().empty()) {
        absl::StatusOr<int64_t> tgp =
            ParseDuration(claim->spec().termination_grace_period());
        if (tgp.ok() && *tgp != kNeverDuration) {
          std::optional<absl::Time> deleted =
              Parse(claim->metadata().deletion_timestamp());
          termination = deleted.value_or(now) + absl::Nanoseconds(*tgp);
          d.set_termination_timestamp(FormatTimestamp(*termination));
          v1::AnnotationWrite w;
          w.set_kind("NodeClaim");
          w.set_name(claim->metadata().name());
          w.set_key(std::string(labels::kNodeClaimTerminationTimestamp));
          w.set_value(d.termination_timestamp());
          result.annotations.push_back(std::move(w));
        }
      }
    }
    // IsWaitingEviction: not terminal, not tolerating the disrupted taint,
    // not stuck terminating (over a minute past its deletion), not mirror.
    std::vector<int> waiting;
    for (int p : SortedPods(view, static_cast<int>(i))) {
      const v1::Pod& pod = *view.pods()[p].pod;
      const PodFacts& f = view.pods()[p].facts;
      if (f.terminal || ToleratesDisruptedTaint(pod) || f.mirror) continue;
      if (f.terminating) {
        std::optional<absl::Time> del =
            Parse(pod.metadata().deletion_timestamp());
        if (del.has_value() && now - *del > absl::Minutes(1)) continue;
      }
      waiting.push_back(p);
    }
    std::vector<char> forced(view.pods().size(), 0);
    for (int p : waiting) {
      const v1::Pod& pod = *view.pods()[p].pod;
      if (!termination.has_value()) continue;
      bool eligible = !view.pods()[p].facts.terminating;
      if (!eligible) {
        std::optional<absl::Time> del =
            Parse(pod.metadata().deletion_timestamp());
        eligible = del.has_value() && *del > *termination;
      }
      if (!eligible) continue;
      const int64_t pod_grace =
          pod.spec().has_termination_grace_period_seconds()
              ? pod.spec().termination_grace_period_seconds()
              : kDefaultPodGracePeriod;
      const absl::Time delete_at = *termination - absl::Seconds(pod_grace);
      if (now > delete_at) {
        const int64_t left = static_cast<int64_t>(
            absl::ToDoubleSeconds(*termination - now));  // truncates
        v1::ForceDelete* f = d.add_force_delete();
        f->set_pod(std::string(view.pods()[p].key));
        f->set_grace_period_seconds(std::max<int64_t>(left, 1));
        forced[p] = 1;
      } else if (!result.next_deadline.has_value() ||
                 delete_at < *result.next_deadline) {
        result.next_deadline = delete_at;
      }
    }
    // The first non-empty tier is evicted; later tiers wait.
    int tier = 4;
    for (int p : waiting) tier = std::min(tier, Tier(view.pods()[p]));
    EvictionBudget budget(view.pdbs());
    for (int p : waiting) {
      const v1::Pod& pod = *view.pods()[p].pod;
      const absl::string_view key = view.pods()[p].key;
      if (forced[p]) continue;
      auto wait = [&](std::string why) {
        v1::WaitingPod* w = d.add_waiting_on();
        w->set_pod(std::string(key));
        w->set_reason(std::move(why));
      };
      if (Tier(view.pods()[p]) != tier) {
        wait(absl::StrCat("evicted after the pods of an earlier tier (",
                          tier == 0   ? "non-critical pods"
                          : tier == 1 ? "non-critical DaemonSet pods"
                          : tier == 2 ? "critical pods"
                                      : "critical DaemonSet pods",
                          ") are gone"));
        continue;
      }
      const PodFacts& f = view.pods()[p].facts;
      if (f.terminating) {
        wait("terminating");
        continue;
      }
      if (f.do_not_disrupt.ActiveAt(now)) {
        wait("pod has \"karpenter.sh/do-not-disrupt\" annotation");
        continue;
      }
      // The eviction API refuses a pod that several PDBs select whatever
      // they allow, and Karpenter reports it in its own words.
      if (view.pdbs().Matching(pod, view.pods()[p].labels).size() > 1) {
        wait("eviction does not support multiple PDBs");
        continue;
      }
      std::string refused = budget.Admit(pod, view.pods()[p].labels);
      if (!refused.empty()) {
        wait(absl::StrCat(
            "evicting pod violates a PDB (PodDisruptionBudget=", refused, ")"));
        continue;
      }
      d.add_evict(std::string(key));
    }
    // awaitDrain finishes only once the NodeClaim's Drained condition has
    // been Unknown for the minimum drain time: a NodeClaim without the
    // condition gets it (Unknown, now) in this pass, so it is not done yet.
    bool min_drain_time_passed = true;
    if (claim != nullptr) {
      const v1::Condition* drained = FindCondition(*claim, "Drained");
      if (drained == nullptr) {
        min_drain_time_passed = false;
      } else if (drained->status() == "Unknown") {
        std::optional<absl::Time> since =
            Parse(drained->last_transition_time());
        const absl::Time done = since.value_or(now) + kMinDrainTime;
        if (now - since.value_or(now) < kMinDrainTime) {
          min_drain_time_passed = false;
          if (waiting.empty() && (!result.next_deadline.has_value() ||
                                  done < *result.next_deadline)) {
            result.next_deadline = done;
          }
        }
      }
    }
    d.set_node_removed(waiting.empty() && min_drain_time_passed);
    result.drains.push_back(std::move(d));
  }
  std::sort(result.drains.begin(), result.drains.end(),
            [](const v1::Drain& a, const v1::Drain& b) {
              return a.node() < b.node();
            });
  return result;
}

}  // namespace nodeplan::disruption
