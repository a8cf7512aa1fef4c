#include "disruption/pod_rules.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "disruption/clock.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/quantity.h"
#include "nodeplan/taints.h"

namespace nodeplan::disruption {

bool IsTerminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}
bool IsTerminating(const v1::Pod& pod) {
  return !pod.metadata().deletion_timestamp().empty();
}
bool IsActive(const v1::Pod& pod) {
  return !IsTerminal(pod) && !IsTerminating(pod);
}
bool IsPending(const v1::Pod& pod) { return pod.status().phase() == "Pending"; }

bool IsProvisionable(const v1::Pod& pod) {
  bool failed_to_schedule = false;
  for (const v1::PodCondition& c : pod.status().conditions()) {
    if (c.type() == "PodScheduled" && c.reason() == "Unschedulable") {
      failed_to_schedule = true;
    }
  }
  return failed_to_schedule && pod.spec().node_name().empty() &&
         pod.status().nominated_node_name().empty() &&
         !IsOwnedByDaemonSet(pod) && !IsOwnedByNode(pod);
}

DoNotDisrupt DoNotDisrupt::Of(const v1::Pod& pod) {
  DoNotDisrupt out;
  auto it = pod.metadata().annotations().find(labels::kDoNotDisrupt);
  if (it == pod.metadata().annotations().end()) return out;
  if (it->second == "true") {
    out.kind_ = Kind::kTrue;
    return out;
  }
  absl::StatusOr<absl::Duration> d = DoNotDisruptDuration(it->second);
  if (!d.ok()) {
    out.kind_ = Kind::kInvalid;
    out.invalid_ = std::string(d.status().message());
    return out;
  }
  out.kind_ = Kind::kDuration;
  out.duration_ = *d;
  if (pod.status().start_time().empty()) return out;
  absl::StatusOr<absl::Time> start =
      ParseTimestamp(pod.status().start_time(), "status.startTime");
  if (!start.ok()) return out;
  out.has_start_ = true;
  out.start_ = *start;
  return out;
}

bool DoNotDisrupt::ActiveAt(absl::Time now) const {
  switch (kind_) {
    case Kind::kNone:
    case Kind::kInvalid:
      return false;
    case Kind::kTrue:
      return true;
    case Kind::kDuration:
      // No start time, or an unreadable one: protected (fail safe).
      return !has_start_ || now - start_ < duration_;
  }
  return false;
}

std::optional<absl::Time> DoNotDisrupt::Until() const {
  if (kind_ != Kind::kDuration || !has_start_) return std::nullopt;
  return start_ + duration_;
}

bool ToleratesDisruptedTaint(const v1::Pod& pod) {
  static const TaintList* kDisruptedTaint = [] {
    auto* list = new TaintList();
    v1::Taint* t = list->Add();
    t->set_key(std::string(taints::kDisrupted));
    t->set_effect(std::string(taints::kNoSchedule));
    return list;
  }();
  return Tolerates(*kDisruptedTaint, pod.spec().tolerations());
}

bool IsEvictable(const v1::Pod& pod, absl::Time now) {
  return IsActive(pod) && !ToleratesDisruptedTaint(pod) &&
         !IsOwnedByNode(pod) && !DoNotDisrupt::Of(pod).ActiveAt(now);
}

double EvictionCost(const v1::Pod& pod) {
  double cost = 1.0;
  auto it =
      pod.metadata().annotations().find(labels::kPodDeletionCostAnnotation);
  double deletion_cost = 0;
  if (it != pod.metadata().annotations().end() &&
      absl::SimpleAtod(it->second, &deletion_cost)) {
    cost += deletion_cost / std::pow(2.0, 27.0);
  }
  if (pod.spec().has_priority()) {
    cost += static_cast<double>(pod.spec().priority()) / std::pow(2.0, 25.0);
  }
  if (cost < -10.0) return -10.0;
  if (cost > 10.0) return 10.0;
  return cost;
}

PodFacts PodFacts::Of(const v1::Pod& pod) {
  PodFacts f;
  f.terminal = IsTerminal(pod);
  f.terminating = IsTerminating(pod);
  f.pending = IsPending(pod);
  f.daemon_set = IsOwnedByDaemonSet(pod);
  f.stateful_set = IsOwnedByStatefulSet(pod);
  f.mirror = IsOwnedByNode(pod);
  f.eviction_cost = EvictionCost(pod);
  f.do_not_disrupt = DoNotDisrupt::Of(pod);
  return f;
}

bool PodFacts::reschedulable() const {
  return (active() || (stateful_set && terminating)) && !daemon_set && !mirror;
}

bool PodFacts::disruptable(absl::Time now) const {
  return !active() || !do_not_disrupt.ActiveAt(now);
}

}  // namespace nodeplan::disruption
