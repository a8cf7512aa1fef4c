#ifndef NODEPLAN_LABELS_H_
#define NODEPLAN_LABELS_H_

// Karpenter's label vocabulary (pkg/apis/v1/labels.go): well-known labels,
// normalization aliases, restricted labels and domains; plus key sets and
// interned label sets used by requirements, selectors and the index.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "nodeplan/interner.h"

namespace nodeplan {
namespace labels {

inline constexpr absl::string_view kNodePool = "karpenter.sh/nodepool";
inline constexpr absl::string_view kCapacityType = "karpenter.sh/capacity-type";
inline constexpr absl::string_view kInitialized = "karpenter.sh/initialized";
inline constexpr absl::string_view kRegistered = "karpenter.sh/registered";
inline constexpr absl::string_view kDoNotSyncTaints =
    "karpenter.sh/do-not-sync-taints";
inline constexpr absl::string_view kZone = "topology.kubernetes.io/zone";
inline constexpr absl::string_view kRegion = "topology.kubernetes.io/region";
inline constexpr absl::string_view kInstanceType =
    "node.kubernetes.io/instance-type";
inline constexpr absl::string_view kArch = "kubernetes.io/arch";
inline constexpr absl::string_view kOs = "kubernetes.io/os";
inline constexpr absl::string_view kWindowsBuild =
    "node.kubernetes.io/windows-build";
inline constexpr absl::string_view kHostname = "kubernetes.io/hostname";

inline constexpr absl::string_view kCapacityTypeSpot = "spot";
inline constexpr absl::string_view kCapacityTypeOnDemand = "on-demand";
inline constexpr absl::string_view kCapacityTypeReserved = "reserved";
inline constexpr absl::string_view kArchAmd64 = "amd64";
inline constexpr absl::string_view kArchArm64 = "arm64";

// The restricted domain (karpenter.sh).
inline constexpr absl::string_view kRestrictedDomain = "karpenter.sh";

// Karpenter's WellKnownLabels, sorted: capacity-type, nodepool, arch, os,
// instance-type, windows-build, region, zone.
absl::Span<const absl::string_view> KarpenterWellKnownLabels();
// RestrictedLabels: {kubernetes.io/hostname}.
absl::Span<const absl::string_view> RestrictedLabels();
// Keys added to NodeClaim templates only for DaemonSet simulation
// (karpenter.sh/registered, karpenter.sh/initialized); never node labels.
absl::Span<const absl::string_view> SchedulingSimulationKeys();

// NormalizedLabels: beta/legacy aliases to their GA key
// (failure-domain.beta.kubernetes.io/zone -> topology.kubernetes.io/zone,
// .../region, beta.kubernetes.io/arch, beta.kubernetes.io/os,
// beta.kubernetes.io/instance-type). Any other key is returned unchanged.
// Applied to every requirement key at construction, as Karpenter does.
absl::string_view NormalizeLabelKey(absl::string_view key);

// The text before the first '/', or "" when the key has no '/'
// (GetLabelDomain).
absl::string_view LabelDomain(absl::string_view key);

}  // namespace labels

// A set of label keys as a bitmap over key ids.
class LabelKeySet {
 public:
  void Insert(LabelKeyId id);
  bool Contains(LabelKeyId id) const {
    return id >= 0 && static_cast<size_t>(id) / 64 < bits_.size() &&
           ((bits_[id / 64] >> (id % 64)) & 1) != 0;
  }
  bool empty() const { return count_ == 0; }
  int size() const { return count_; }
  // Member ids in ascending order.
  std::vector<LabelKeyId> Ids() const;

 private:
  std::vector<uint64_t> bits_;
  int count_ = 0;
};

// The well-known label set a catalog / cloud provider works with: Karpenter's
// own keys plus the provider's (Catalog.well_known_labels, e.g.
// karpenter.k8s.aws/instance-family). It is the AllowUndefined set of
// Compatible(..., allow undefined well-known labels) and the list printed by
// IsRestrictedLabel. Keys are interned in the interner given at construction
// (normally the snapshot's base interner).
class WellKnownLabels {
 public:
  // Karpenter's set only.
  explicit WellKnownLabels(Interner& interner);
  // Karpenter's set plus `extra` (duplicates ignored).
  WellKnownLabels(Interner& interner, absl::Span<const std::string> extra);

  bool Contains(LabelKeyId id) const { return keys_.Contains(id); }
  bool Contains(absl::string_view key) const;
  const LabelKeySet& keys() const { return keys_; }
  // The keys as text, sorted (Go's sets.List order), for messages and the
  // deterministic "typo of" hint scan.
  const std::vector<std::string>& sorted_names() const { return names_; }
  // ids in the same order as sorted_names().
  const std::vector<LabelKeyId>& sorted_ids() const { return ids_; }

 private:
  void Add(Interner& interner, absl::string_view key);
  void Finish();
  LabelKeySet keys_;
  std::vector<std::string> names_;
  std::vector<LabelKeyId> ids_;
};

// IsRestrictedLabel: OK for a well-known key; otherwise an InvalidArgument
// error when the key's domain is karpenter.sh or a subdomain of it, or the key
// is kubernetes.io/hostname, with Karpenter's text:
//   using label <key> is not allowed as it might interfere with the internal
//   provisioning logic; specify a well known label: [<sorted well-known>], or a
//   custom label that does not use a restricted domain: [karpenter.sh]
absl::Status IsRestrictedLabel(absl::string_view key,
                               const WellKnownLabels& well_known);
// True for karpenter.sh and *.karpenter.sh domains (the domain test alone,
// well-known keys not excepted).
bool IsRestrictedLabelDomain(absl::string_view key);

// An interned label map (node labels, pod labels): (key id, value) pairs
// sorted by key id, one entry per key. Lookups never allocate.
class LabelSet {
 public:
  LabelSet() = default;
  // Interns every key and value (keys NOT normalized: these are real labels).
  static LabelSet FromMap(
      const google::protobuf::Map<std::string, std::string>& labels,
      Interner& interner);
  static LabelSet FromPairs(
      absl::Span<const std::pair<std::string, std::string>> labels,
      Interner& interner);

  // Sets (or replaces) one label.
  void Set(LabelKeyId key, LabelValue value);
  // nullptr when absent.
  const LabelValue* Find(LabelKeyId key) const;
  bool Has(LabelKeyId key) const { return Find(key) != nullptr; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<std::pair<LabelKeyId, LabelValue>>& entries() const {
    return entries_;
  }

 private:
  std::vector<std::pair<LabelKeyId, LabelValue>> entries_;
};

}  // namespace nodeplan

#endif  // NODEPLAN_LABELS_H_
