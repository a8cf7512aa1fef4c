// NodePool hash v3: hard-coded walkers for the seven Go types Karpenter hashes
// (NodePool.Hash in kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go, which
// runs mitchellh/hashstructure v2 with SlicesAsSets and IgnoreZeroValue over
// the template; include/nodeplan/hash.h). Each walker returns
// the hash of its value; a struct hash starts from the hash of the Go type's
// bare name and folds every non-zero field in declaration order.

#include <cstdint>
#include <string>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "hash/fnv.h"
#include "nodeplan/hash.h"
#include "nodeplan/quantity.h"

namespace nodeplan {
namespace {

using hash_internal::AddField;
using hash_internal::Finish;
using hash_internal::Fnv1;
using hash_internal::FnvU64;
using hash_internal::Ordered;

// Karpenter's CRD default for spec.template.spec.expireAfter.
constexpr int64_t kDefaultExpireAfterNanos = 720LL * 3600 * 1000000000;
// Seconds from 0001-01-01 (Go's internal epoch) to 1970-01-01.
constexpr int64_t kUnixToGoInternal = 62135596800LL;

bool PresentEmpty(const v1::NodeClaimTemplate& t, absl::string_view path) {
  return absl::c_linear_search(t.present_empty_fields(), path);
}

// map[string]string: xor of ordered(key, value) over entries, then finish.
// Proto map order never matters here: xor is commutative.
uint64_t HashStringMap(
    const google::protobuf::Map<std::string, std::string>& m) {
  uint64_t h = 0;
  for (const auto& [key, value] : m) h ^= Ordered(Fnv1(key), Fnv1(value));
  return Finish(h);
}

// time.Time.MarshalBinary (version 1) of an RFC 3339 timestamp as
// metav1.Time decodes it: converted to the controller's local zone, which
// nodeplan takes to be UTC (Location() == Local, offset 0, not the "-1 means
// UTC" marker).
absl::StatusOr<uint64_t> HashGoTime(absl::string_view rfc3339,
                                    absl::string_view path) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": invalid RFC 3339 time \"", rfc3339, "\""));
  }
  const int64_t unix_seconds = absl::ToUnixSeconds(t);
  const int64_t sec = unix_seconds + kUnixToGoInternal;
  const int64_t nsec =
      absl::ToInt64Nanoseconds(t - absl::FromUnixSeconds(unix_seconds));
  std::string bytes;
  bytes.push_back(1);  // timeBinaryVersionV1
  for (int shift = 56; shift >= 0; shift -= 8) {
    bytes.push_back(static_cast<char>(static_cast<uint64_t>(sec) >> shift));
  }
  for (int shift = 24; shift >= 0; shift -= 8) {
    bytes.push_back(static_cast<char>(static_cast<uint64_t>(nsec) >> shift));
  }
  bytes.push_back(0);  // offset in minutes, big-endian int16: 0
  bytes.push_back(0);
  return Fnv1(bytes);
}

// corev1.Taint {Key, Value, Effect, TimeAdded *metav1.Time}.
absl::StatusOr<uint64_t> HashTaint(const v1::Taint& taint,
                                   absl::string_view path) {
  uint64_t h = Fnv1("Taint");
  if (!taint.key().empty()) h = AddField(h, "Key", Fnv1(taint.key()));
  if (!taint.value().empty()) h = AddField(h, "Value", Fnv1(taint.value()));
  if (!taint.effect().empty()) h = AddField(h, "Effect", Fnv1(taint.effect()));
  if (!taint.time_added().empty()) {
    // metav1.Time is a struct embedding time.Time (field name "Time").
    absl::StatusOr<uint64_t> go_time =
        HashGoTime(taint.time_added(), absl::StrCat(path, ".timeAdded"));
    if (!go_time.ok()) return go_time.status();
    h = AddField(h, "TimeAdded", AddField(Fnv1("Time"), "Time", *go_time));
  }
  return h;
}

// []corev1.Taint as a set: xor of the elements, no finish (empty -> 0).
absl::StatusOr<uint64_t> HashTaints(
    const google::protobuf::RepeatedPtrField<v1::Taint>& taints,
    absl::string_view path) {
  uint64_t h = 0;
  for (int i = 0; i < taints.size(); ++i) {
    absl::StatusOr<uint64_t> t =
        HashTaint(taints[i], absl::StrCat(path, "[", i, "]"));
    if (!t.ok()) return t.status();
    h ^= *t;
  }
  return h;
}

absl::StatusOr<int64_t> Duration(absl::string_view text,
                                 absl::string_view path) {
  absl::StatusOr<int64_t> nanos = ParseDuration(text);
  if (!nanos.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", nanos.status().message()));
  }
  return nanos;
}

absl::StatusOr<uint64_t> HashSpec(const v1::NodeClaimTemplate& t,
                                  bool* is_zero) {
  const v1::NodeClaimTemplateSpec& spec = t.spec();
  constexpr absl::string_view kPath = "spec.template.spec";
  uint64_t h = Fnv1("NodeClaimTemplateSpec");
  // Go's IsZero counts the hash-ignored Requirements too (an empty but
  // present list is not nil, so not zero).
  *is_zero =
      spec.requirements().empty() && !PresentEmpty(t, "spec.requirements");

  const bool taints = !spec.taints().empty() || PresentEmpty(t, "spec.taints");
  if (taints) {
    absl::StatusOr<uint64_t> v =
        HashTaints(spec.taints(), absl::StrCat(kPath, ".taints"));
    if (!v.ok()) return v.status();
    h = AddField(h, "Taints", *v);
    *is_zero = false;
  }
  const bool startup_taints =
      !spec.startup_taints().empty() || PresentEmpty(t, "spec.startupTaints");
  if (startup_taints) {
    absl::StatusOr<uint64_t> v = HashTaints(
        spec.startup_taints(), absl::StrCat(kPath, ".startupTaints"));
    if (!v.ok()) return v.status();
    h = AddField(h, "StartupTaints", *v);
    *is_zero = false;
  }
  if (spec.has_node_class_ref()) {
    // *NodeClassReference {Kind, Name, Group}: a non-nil pointer is never
    // zero, even when it points at an empty struct.
    const v1::NodeClassReference& ref = spec.node_class_ref();
    uint64_t r = Fnv1("NodeClassReference");
    if (!ref.kind().empty()) r = AddField(r, "Kind", Fnv1(ref.kind()));
    if (!ref.name().empty()) r = AddField(r, "Name", Fnv1(ref.name()));
    if (!ref.group().empty()) r = AddField(r, "Group", Fnv1(ref.group()));
    h = AddField(h, "NodeClassRef", r);
    *is_zero = false;
  }
  if (!spec.termination_grace_period().empty()) {
    // *metav1.Duration {Duration time.Duration}.
    absl::StatusOr<int64_t> nanos =
        Duration(spec.termination_grace_period(),
                 absl::StrCat(kPath, ".terminationGracePeriod"));
    if (!nanos.ok()) return nanos.status();
    if (*nanos == kNeverDuration) {
      return absl::InvalidArgumentError(absl::StrCat(
          kPath, ".terminationGracePeriod: \"Never\" is not a duration"));
    }
    uint64_t d = Fnv1("Duration");
    if (*nanos != 0) {
      d = AddField(d, "Duration", FnvU64(static_cast<uint64_t>(*nanos)));
    }
    h = AddField(h, "TerminationGracePeriod", d);
    *is_zero = false;
  }
  // NillableDuration {*time.Duration (embedded, "Duration"), Raw (ignored)}.
  // Absent means the CRD default; "Never" leaves both fields nil (zero).
  int64_t expire = kDefaultExpireAfterNanos;
  if (!spec.expire_after().empty()) {
    absl::StatusOr<int64_t> nanos =
        Duration(spec.expire_after(), absl::StrCat(kPath, ".expireAfter"));
    if (!nanos.ok()) return nanos.status();
    expire = *nanos;
  }
  if (expire != kNeverDuration) {
    // A non-nil *time.Duration is hashed even when it is 0.
    h = AddField(h, "ExpireAfter",
                 AddField(Fnv1("NillableDuration"), "Duration",
                          FnvU64(static_cast<uint64_t>(expire))));
    *is_zero = false;
  }
  return h;
}

}  // namespace

absl::StatusOr<std::string> NodeClaimTemplateHash(
    const v1::NodeClaimTemplate& t) {
  uint64_t h = Fnv1("NodeClaimTemplate");

  // karpenter v1.ObjectMeta {Labels, Annotations}: zero (skipped) when both
  // maps are nil, even if "metadata: {}" was written.
  const v1::TemplateMetadata& meta = t.metadata();
  const bool labels =
      !meta.labels().empty() || PresentEmpty(t, "metadata.labels");
  const bool annotations =
      !meta.annotations().empty() || PresentEmpty(t, "metadata.annotations");
  if (labels || annotations) {
    uint64_t m = Fnv1("ObjectMeta");
    if (labels) m = AddField(m, "Labels", HashStringMap(meta.labels()));
    if (annotations) {
      m = AddField(m, "Annotations", HashStringMap(meta.annotations()));
    }
    h = AddField(h, "ObjectMeta", m);
  }

  bool spec_is_zero = true;
  absl::StatusOr<uint64_t> spec = HashSpec(t, &spec_is_zero);
  if (!spec.ok()) return spec.status();
  if (!spec_is_zero) h = AddField(h, "Spec", *spec);
  return absl::StrCat(h);
}

absl::StatusOr<std::string> NodePoolHash(const v1::NodePool& node_pool) {
  absl::StatusOr<std::string> h =
      NodeClaimTemplateHash(node_pool.spec().template_());
  if (!h.ok()) {
    return absl::Status(h.status().code(),
                        absl::StrCat("NodePool ", node_pool.metadata().name(),
                                     ": ", h.status().message()));
  }
  return h;
}

}  // namespace nodeplan
