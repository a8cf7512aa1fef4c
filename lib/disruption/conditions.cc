#include "disruption/conditions.h"

#include <algorithm>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "disruption/clock.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "nodeplan/quantity.h"

namespace nodeplan::disruption {
namespace {

const std::string* FindAnnotation(const StringMap& m, absl::string_view key) {
  auto it = m.find(std::string_view(key.data(), key.size()));
  return it == m.end() ? nullptr : &it->second;
}

v1::AnnotationWrite Write(absl::string_view kind, absl::string_view name,
                          absl::string_view key, absl::string_view value) {
  v1::AnnotationWrite w;
  w.set_kind(std::string(kind));
  w.set_name(std::string(name));
  w.set_key(std::string(key));
  w.set_value(std::string(value));
  return w;
}

// The NodeClaim's own karpenter.sh/nodepool label (the controllers read the
// NodeClaim, not the Node).
int ClaimPool(const ClusterView& view, const v1::NodeClaim& claim) {
  const std::string* pool =
      FindAnnotation(claim.metadata().labels(), labels::kNodePool);
  return pool == nullptr ? -1 : view.PoolIndex(*pool);
}

std::optional<absl::Time> CreationTime(const v1::NodeClaim& claim) {
  if (claim.metadata().creation_timestamp().empty()) return std::nullopt;
  absl::StatusOr<absl::Time> t = ParseTimestamp(
      claim.metadata().creation_timestamp(), "metadata.creationTimestamp");
  if (!t.ok()) return std::nullopt;
  return *t;
}

absl::Time ConditionTime(const v1::Condition* c, absl::Time fallback) {
  if (c == nullptr || c->last_transition_time().empty()) return fallback;
  absl::StatusOr<absl::Time> t =
      ParseTimestamp(c->last_transition_time(), "lastTransitionTime");
  return t.ok() ? *t : fallback;
}

// The consolidateAfter window's reference time: the last pod event, else the
// Initialized transition; nullopt when not initialized.
std::optional<absl::Time> WindowStart(const v1::NodeClaim& claim) {
  const v1::Condition* initialized = FindCondition(claim, "Initialized");
  if (initialized == nullptr || initialized->status() != "True") {
    return std::nullopt;
  }
  absl::Time t = ConditionTime(initialized, absl::InfinitePast());
  if (!claim.status().last_pod_event_time().empty()) {
    absl::StatusOr<absl::Time> e = ParseTimestamp(
        claim.status().last_pod_event_time(), "status.lastPodEventTime");
    if (e.ok()) t = *e;
  }
  return t;
}

// Consolidatable (consolidation.go): removed when consolidateAfter is Never
// or the NodeClaim is not initialized; absent while consolidateAfter runs
// from the last pod event (else the initialization); True afterwards.
void Consolidatable(const ClusterView& view, const PoolView& pool,
                    const v1::NodeClaim& claim, ClaimConditions& out,
                    v1::ConditionResult& rendered) {
  const v1::Condition* existing = FindCondition(claim, "Consolidatable");
  if (!pool.consolidate_after.has_value()) return;
  std::optional<absl::Time> t = WindowStart(claim);
  if (!t.has_value()) return;
  const absl::Duration after = *pool.consolidate_after;
  if (after > absl::ZeroDuration() && view.now() - *t < after) {
    out.consolidatable_at = *t + after;
    rendered.set_requeue_after(GoDuration(*t + after - view.now()));
    return;
  }
  out.consolidatable = true;
  rendered.set_status("True");
  const bool was_true = existing != nullptr && existing->status() == "True";
  rendered.set_last_transition_time(
      was_true && !existing->last_transition_time().empty()
          ? existing->last_transition_time()
          : FormatTimestamp(view.now()));
}

// The NodeClaim's hash annotations after the hash controller's re-stamp.
struct HashAnnotations {
  std::optional<std::string> hash, version;
};

// Drifted (drift.go): the first of static (hash) drift, requirements drift,
// instance type not found and the provider's answer. `local` is an overlay
// over the view's interner, shared by every NodeClaim of the pass (one
// overlay per NodeClaim cost more than the drift checks themselves).
std::string DriftReason(const ClusterView& view, const PoolView& pool,
                        const v1::NodeClaim& claim,
                        const HashAnnotations& claim_hash, Interner& local) {
  if (claim_hash.hash.has_value() && claim_hash.version.has_value() &&
      *claim_hash.version == kNodePoolHashVersion &&
      *claim_hash.hash != pool.hash) {
    return "NodePoolDrifted";
  }
  Requirements labels =
      RequirementsFromLabels(claim.metadata().labels(), local);
  if (!labels.IsCompatible(pool.requirements)) return "RequirementsDrifted";
  std::optional<absl::Time> created = CreationTime(claim);
  if (created.has_value() && view.now() - *created > absl::Hours(1)) {
    const CompiledCatalog& cat = *pool.catalog;
    const std::string* type =
        FindAnnotation(claim.metadata().labels(), labels::kInstanceType);
    const int t = type == nullptr ? -1 : cat.Find(*type);
    if (t < 0) return "InstanceTypeNotFound";
    const std::string* ct =
        FindAnnotation(claim.metadata().labels(), labels::kCapacityType);
    if (ct != nullptr && *ct == labels::kCapacityTypeReserved) {
      // A reserved NodeClaim may also match on-demand offerings; the
      // reservation labels are not checked.
      const LabelValue reserved =
          local.InternValue(labels::kCapacityTypeReserved);
      const LabelValue on_demand =
          local.InternValue(labels::kCapacityTypeOnDemand);
      labels.Remove(cat.capacity_type_key());
      labels.Add(
          Requirement::In(cat.capacity_type_key(), {reserved, on_demand}));
      labels.Remove(cat.reservation_id_key());
    }
    bool compatible = false;
    for (const CompiledOffering& o : cat.instance_type(t).offerings) {
      if (cat.OfferingCompatible(o, labels)) {
        compatible = true;
        break;
      }
    }
    if (!compatible) return "InstanceTypeNotFound";
  }
  auto provider =
      view.request().provider_drifted().find(claim.metadata().name());
  if (provider != view.request().provider_drifted().end()) {
    return provider->second.empty() ? std::string("Drifted") : provider->second;
  }
  return "";
}

}  // namespace

bool UnderConsolidateAfter(const ClusterView& view, int node,
                           absl::Time* until) {
  const NodeView& n = view.nodes()[node];
  if (n.claim == nullptr || n.pool < 0) return false;
  const PoolView& pool = view.pools()[n.pool];
  if (!pool.consolidate_after.has_value() ||
      *pool.consolidate_after <= absl::ZeroDuration()) {
    return false;
  }
  std::optional<absl::Time> t = WindowStart(*n.claim);
  if (!t.has_value() || view.now() - *t >= *pool.consolidate_after) {
    return false;
  }
  if (until != nullptr) *until = *t + *pool.consolidate_after;
  return true;
}

ConditionsResult ComputeConditions(const ClusterView& view) {
  ConditionsResult result;
  result.nodes.resize(view.nodes().size());
  // The hash controller: NodePools whose version annotation is not the
  // current one re-stamp their NodeClaims (version always; the hash only on
  // NodeClaims without a Drifted condition), then every NodePool gets its
  // hash and version.
  std::vector<v1::AnnotationWrite> claim_writes;
  absl::flat_hash_map<const v1::NodeClaim*, HashAnnotations> stamped;
  for (const NodeView& n : view.nodes()) {
    if (n.claim == nullptr) continue;
    const v1::NodeClaim& claim = *n.claim;
    HashAnnotations h;
    if (const std::string* v = FindAnnotation(
            claim.metadata().annotations(), labels::kNodePoolHashAnnotation)) {
      h.hash = *v;
    }
    if (const std::string* v =
            FindAnnotation(claim.metadata().annotations(),
                           labels::kNodePoolHashVersionAnnotation)) {
      h.version = *v;
    }
    const int p = ClaimPool(view, claim);
    if (p >= 0) {
      const PoolView& pool = view.pools()[p];
      const bool pool_outdated =
          !pool.has_hash_version_annotation ||
          pool.hash_version_annotation != kNodePoolHashVersion;
      if (pool_outdated && h.version != std::string(kNodePoolHashVersion)) {
        h.version = kNodePoolHashVersion;
        claim_writes.push_back(Write("NodeClaim", claim.metadata().name(),
                                     labels::kNodePoolHashVersionAnnotation,
                                     kNodePoolHashVersion));
        if (FindCondition(claim, "Drifted") == nullptr) {
          h.hash = pool.hash;
          claim_writes.push_back(Write("NodeClaim", claim.metadata().name(),
                                       labels::kNodePoolHashAnnotation,
                                       pool.hash));
        }
      }
    }
    stamped[&claim] = h;
  }
  for (const PoolView& pool : view.pools()) {
    const StringMap& a = pool.proto->metadata().annotations();
    const std::string* hash =
        FindAnnotation(a, labels::kNodePoolHashAnnotation);
    if (hash == nullptr || *hash != pool.hash) {
      result.annotations.push_back(Write(
          "NodePool", pool.name, labels::kNodePoolHashAnnotation, pool.hash));
    }
    if (!pool.has_hash_version_annotation ||
        pool.hash_version_annotation != kNodePoolHashVersion) {
      result.annotations.push_back(Write("NodePool", pool.name,
                                         labels::kNodePoolHashVersionAnnotation,
                                         kNodePoolHashVersion));
    }
  }
  for (v1::AnnotationWrite& w : claim_writes) {
    result.annotations.push_back(std::move(w));
  }

  Interner local(&view.interner());  // for DriftReason
  for (size_t i = 0; i < view.nodes().size(); ++i) {
    const NodeView& n = view.nodes()[i];
    if (n.claim == nullptr) continue;
    const v1::NodeClaim& claim = *n.claim;
    v1::NodeClaimConditions rendered;
    rendered.set_node_claim(claim.metadata().name());
    ClaimConditions& out = result.nodes[i];
    const int p = ClaimPool(view, claim);
    const bool deleting = !claim.metadata().deletion_timestamp().empty();
    if (p < 0 || deleting) {
      // Not reconciled: the conditions stand as given.
      if (const v1::Condition* c = FindCondition(claim, "Consolidatable")) {
        out.consolidatable = c->status() == "True";
        rendered.mutable_consolidatable()->set_status(c->status());
        rendered.mutable_consolidatable()->set_last_transition_time(
            c->last_transition_time());
      }
      if (const v1::Condition* c = FindCondition(claim, "Drifted")) {
        out.drifted = c->status() == "True";
        out.drift_reason = c->reason();
        out.drifted_since = ConditionTime(c, view.now());
        rendered.mutable_drifted()->set_status(c->status());
        rendered.mutable_drifted()->set_reason(c->reason());
        rendered.mutable_drifted()->set_last_transition_time(
            c->last_transition_time());
      }
      result.rendered.push_back(std::move(rendered));
      continue;
    }
    out.reconciled = true;
    const PoolView& pool = view.pools()[p];
    if (!pool.is_static) {
      Consolidatable(view, pool, claim, out,
                     *rendered.mutable_consolidatable());
    } else if (const v1::Condition* c =
                   FindCondition(claim, "Consolidatable")) {
      out.consolidatable = c->status() == "True";
      rendered.mutable_consolidatable()->set_status(c->status());
    }
    if (ConditionTrue(claim, "Launched")) {
      std::string reason =
          DriftReason(view, pool, claim, stamped[&claim], local);
      if (!reason.empty()) {
        const v1::Condition* existing = FindCondition(claim, "Drifted");
        const bool was_true =
            existing != nullptr && existing->status() == "True";
        out.drifted = true;
        out.drift_reason = reason;
        out.drifted_since =
            was_true ? ConditionTime(existing, view.now()) : view.now();
        v1::ConditionResult& d = *rendered.mutable_drifted();
        d.set_status("True");
        d.set_reason(reason);
        d.set_message(reason);
        d.set_last_transition_time(FormatTimestamp(out.drifted_since));
      }
    }
    result.rendered.push_back(std::move(rendered));
  }
  std::sort(
      result.rendered.begin(), result.rendered.end(),
      [](const v1::NodeClaimConditions& a, const v1::NodeClaimConditions& b) {
        return a.node_claim() < b.node_claim();
      });
  return result;
}

std::vector<v1::Expiration> ComputeExpirations(const ClusterView& view) {
  std::vector<v1::Expiration> out;
  for (const NodeView& n : view.nodes()) {
    if (n.claim == nullptr) continue;
    const v1::NodeClaim& claim = *n.claim;
    if (!claim.metadata().deletion_timestamp().empty()) continue;
    std::optional<absl::Time> created = CreationTime(claim);
    if (!created.has_value()) continue;
    const std::string& text = claim.spec().expire_after();
    absl::Duration expire = absl::Hours(720);
    if (!text.empty()) {
      absl::StatusOr<int64_t> nanos = ParseDuration(text);
      if (!nanos.ok() || *nanos == kNeverDuration) continue;
      expire = absl::Nanoseconds(*nanos);
    }
    const absl::Time at = *created + expire;
    v1::Expiration e;
    e.set_node_claim(claim.metadata().name());
    e.set_expires_at(FormatTimestamp(at));
    if (view.now() < at) {
      e.set_action("requeue");
      e.set_requeue_after(GoDuration(at - view.now()));
    } else {
      e.set_action("delete");
      e.set_reason("Expired");
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(),
            [](const v1::Expiration& a, const v1::Expiration& b) {
              return a.node_claim() < b.node_claim();
            });
  return out;
}

}  // namespace nodeplan::disruption
