// Taints and tolerations (Karpenter pkg/scheduling/taints.go, core/v1
// Toleration.ToleratesTaint).

#include "nodeplan/taints.h"

#include <string_view>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"

namespace nodeplan {
namespace {

struct KeyEffect {
  absl::string_view key;
  absl::string_view effect;
};
constexpr KeyEffect kEphemeral[] = {
    {taints::kNotReady, taints::kNoSchedule},
    {taints::kNotReady, taints::kNoExecute},
    {taints::kUnreachable, taints::kNoSchedule},
    {taints::kCloudProviderUninitialized, taints::kNoSchedule},
    {taints::kUnregistered, taints::kNoExecute},
};

}  // namespace

bool ToleratesTaint(const v1::Toleration& toleration, const v1::Taint& taint) {
  if (!toleration.effect().empty() && toleration.effect() != taint.effect()) {
    return false;
  }
  if (!toleration.key().empty() && toleration.key() != taint.key()) {
    return false;
  }
  const std::string& op = toleration.operator_();
  if (op.empty() || op == "Equal") return toleration.value() == taint.value();
  if (op == "Exists") return true;
  if (op == "Lt" || op == "Gt") {
    std::optional<int64_t> taint_value = ParseGoInt(taint.value());
    std::optional<int64_t> toleration_value = ParseGoInt(toleration.value());
    if (!taint_value.has_value() || !toleration_value.has_value()) return false;
    return op == "Lt" ? *taint_value < *toleration_value
                      : *taint_value > *toleration_value;
  }
  return false;
}

namespace {

template <typename Tolerations>
bool AnyTolerates(const Tolerations& tolerations, const v1::Taint& taint) {
  for (const v1::Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

}  // namespace

int FirstUntoleratedTaint(absl::Span<const v1::Taint> taints,
                          absl::Span<const v1::Toleration> tolerations) {
  for (size_t i = 0; i < taints.size(); ++i) {
    if (!AnyTolerates(tolerations, taints[i])) return static_cast<int>(i);
  }
  return -1;
}

v1::Toleration PreferNoScheduleToleration() {
  v1::Toleration t;
  t.set_operator_("Exists");
  t.set_effect(std::string(taints::kPreferNoSchedule));
  return t;
}

bool IsPreferNoScheduleToleration(const v1::Toleration& toleration) {
  return toleration.key().empty() && toleration.operator_() == "Exists" &&
         toleration.effect() == taints::kPreferNoSchedule;
}

std::vector<int> UntoleratedTaints(const TaintList& taints,
                                   const TolerationList& tolerations) {
  std::vector<int> out;
  for (int i = 0; i < taints.size(); ++i) {
    if (!AnyTolerates(tolerations, taints.Get(i))) out.push_back(i);
  }
  return out;
}

bool Tolerates(const TaintList& taints, const TolerationList& tolerations) {
  for (const v1::Taint& taint : taints) {
    if (!AnyTolerates(tolerations, taint)) return false;
  }
  return true;
}

absl::Status TolerationStatus(const TaintList& taints,
                              const TolerationList& tolerations) {
  std::vector<int> bad = UntoleratedTaints(taints, tolerations);
  if (bad.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrJoin(bad, "; ", [&](std::string* out, int i) {
        absl::StrAppend(out, "did not tolerate taint (taint=",
                        TaintText(taints.Get(i)), ")");
      }));
}

std::string TaintText(const v1::Taint& taint) {
  if (taint.value().empty())
    return absl::StrCat(taint.key(), ":", taint.effect());
  return absl::StrCat(taint.key(), "=", taint.value(), ":", taint.effect());
}

bool MatchTaint(const v1::Taint& a, const v1::Taint& b) {
  return a.key() == b.key() && a.effect() == b.effect();
}

bool IsKnownEphemeralTaint(const v1::Taint& taint) {
  for (const KeyEffect& e : kEphemeral) {
    if (taint.key() == e.key && taint.effect() == e.effect) return true;
  }
  return absl::StartsWith(taint.key(), taints::kReadinessPrefix);
}

TaintList EffectiveNodeTaints(const NodeTaintsInput& input) {
  TaintList out;
  const TaintList* source = input.node_taints;
  if ((input.managed && !input.registered) || input.node_taints == nullptr) {
    source = input.nodeclaim_taints;
  }
  if (source == nullptr) return out;
  if (!input.managed || input.initialized) {
    out = *source;
    return out;
  }
  for (const v1::Taint& t : *source) {
    if (IsKnownEphemeralTaint(t)) continue;
    bool startup = false;
    if (input.nodeclaim_startup_taints != nullptr) {
      for (const v1::Taint& s : *input.nodeclaim_startup_taints) {
        if (MatchTaint(s, t)) startup = true;
      }
    }
    if (!startup) *out.Add() = t;
  }
  return out;
}

namespace {

bool LabelIsTrue(const v1::Node* node, absl::string_view key) {
  if (node == nullptr) return false;
  auto it =
      node->metadata().labels().find(std::string_view(key.data(), key.size()));
  return it != node->metadata().labels().end() && it->second == "true";
}

}  // namespace

bool StateNodeInitialized(const v1::Node* node, const v1::NodeClaim* claim) {
  return claim == nullptr || LabelIsTrue(node, labels::kInitialized);
}

bool StateNodeRegistered(const v1::Node* node, const v1::NodeClaim* claim) {
  return claim == nullptr || LabelIsTrue(node, labels::kRegistered);
}

TaintList StateNodeTaints(const v1::Node* node, const v1::NodeClaim* claim) {
  NodeTaintsInput in;
  TaintList cordoned;
  if (node != nullptr) in.node_taints = &node->spec().taints();
  if (node != nullptr && node->spec().unschedulable()) {
    cordoned = node->spec().taints();
    const bool tainted = absl::c_any_of(cordoned, [](const v1::Taint& t) {
      return t.key() == taints::kUnschedulable &&
             t.effect() == taints::kNoSchedule;
    });
    if (!tainted) {
      v1::Taint* t = cordoned.Add();
      t->set_key(std::string(taints::kUnschedulable));
      t->set_effect(std::string(taints::kNoSchedule));
    }
    in.node_taints = &cordoned;
  }
  if (claim != nullptr) {
    in.nodeclaim_taints = &claim->spec().taints();
    in.nodeclaim_startup_taints = &claim->spec().startup_taints();
  }
  in.managed = claim != nullptr;
  in.registered = StateNodeRegistered(node, claim);
  in.initialized = StateNodeInitialized(node, claim);
  return EffectiveNodeTaints(in);
}

}  // namespace nodeplan
