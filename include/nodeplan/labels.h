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

inline constexpr char kNodePool[] = "karpenter.sh/nodepool";
inline constexpr char kCapacityType[] = "karpenter.sh/capacity-type";
inline constexpr char kInitialized[] = "karpenter.sh/initialized";
inline constexpr char kRegistered[] = "karpenter.sh/registered";
inline constexpr char kDoNotSyncTaints[] = "karpenter.sh/do-not-sync-taints";
inline constexpr char kZone[] = "topology.kubernetes.io/zone";
inline constexpr char kRegion[] = "topology.kubernetes.io/region";
inline constexpr char kInstanceType[] = "node.kubernetes.io/instance-type";
inline constexpr char kArch[] = "kubernetes.io/arch";
inline constexpr char kOs[] = "kubernetes.io/os";
inline constexpr char kWindowsBuild[] = "node.kubernetes.io/windows-build";
inline constexpr char kHostname[] = "kubernetes.io/hostname";
// The reservation-id label of Karpenter's AWS provider: the default of a
// catalog's reservationIDLabel (each cloud provider names its own).
inline constexpr char kAwsCapacityReservationId[] =
    "karpenter.k8s.aws/capacity-reservation-id";
// The label the API server puts on every Namespace (its own name), which
// namespace selectors of affinity terms match.
inline constexpr char kNamespaceName[] = "kubernetes.io/metadata.name";

inline constexpr char kCapacityTypeSpot[] = "spot";
inline constexpr char kCapacityTypeOnDemand[] = "on-demand";
inline constexpr char kCapacityTypeReserved[] = "reserved";
inline constexpr char kArchAmd64[] = "amd64";
inline constexpr char kArchArm64[] = "arm64";

// Deprecated aliases NormalizeLabelKey maps to the keys above.
inline constexpr char kZoneBeta[] = "failure-domain.beta.kubernetes.io/zone";
inline constexpr char kRegionBeta[] =
    "failure-domain.beta.kubernetes.io/region";
inline constexpr char kArchBeta[] = "beta.kubernetes.io/arch";
inline constexpr char kOsBeta[] = "beta.kubernetes.io/os";
inline constexpr char kInstanceTypeBeta[] = "beta.kubernetes.io/instance-type";

// Annotations Karpenter reads or writes.
inline constexpr char kDoNotDisrupt[] = "karpenter.sh/do-not-disrupt";
inline constexpr char kNodePoolHashAnnotation[] = "karpenter.sh/nodepool-hash";
inline constexpr char kNodePoolHashVersionAnnotation[] =
    "karpenter.sh/nodepool-hash-version";
inline constexpr char kNodeClaimMinValuesRelaxed[] =
    "karpenter.sh/nodeclaim-min-values-relaxed";
inline constexpr char kNodeClaimTerminationTimestamp[] =
    "karpenter.sh/nodeclaim-termination-timestamp";
// Kubernetes' ReplicaSet scale-down hint, which Karpenter adds to a pod's
// eviction cost.
inline constexpr char kPodDeletionCostAnnotation[] =
    "controller.kubernetes.io/pod-deletion-cost";

// Taint keys: Karpenter's own, and the node lifecycle taints of Kubernetes
// that Karpenter tolerates while a node starts.
inline constexpr char kDisruptedTaint[] = "karpenter.sh/disrupted";
inline constexpr char kUnregisteredTaint[] = "karpenter.sh/unregistered";
inline constexpr char kNotReadyTaint[] = "node.kubernetes.io/not-ready";
inline constexpr char kUnreachableTaint[] = "node.kubernetes.io/unreachable";
inline constexpr char kUninitializedTaint[] =
    "node.cloudprovider.kubernetes.io/uninitialized";

// The finalizer Karpenter's termination controller puts on nodes and
// NodeClaims.
inline constexpr char kTerminationFinalizer[] = "karpenter.sh/termination";

// The restricted domain (karpenter.sh).
inline constexpr char kRestrictedDomain[] = "karpenter.sh";

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
