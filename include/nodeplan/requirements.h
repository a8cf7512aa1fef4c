#ifndef NODEPLAN_REQUIREMENTS_H_
#define NODEPLAN_REQUIREMENTS_H_

// Karpenter's requirements algebra (pkg/scheduling/requirement.go,
// requirements.go) over interned label keys and values.
//
// A Requirement constrains one label key: a concrete value set (In,
// DoesNotExist) or a complement set (NotIn, Exists) plus optional inclusive
// integer bounds (gte/lte, from Gt/Lt/Gte/Lte) and minValues. Requirements is
// a small sorted map key -> Requirement with at most one entry per key.
//
// Every operation here is deterministic. Where Karpenter depends on Go map
// order or randomness the rule chosen is documented at the function.
//
// Values inside a Requirement are LabelValues (id + integer parse), so the
// algebra itself (Has, Intersection, HasIntersection, Compatible as a bool)
// needs no Interner and never allocates for the boolean tests. Text output
// (String, messages, NodeSelectorRequirements, Any) takes the Interner that
// produced the ids.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan {

// NodeSelectorOperator plus Karpenter's Gte/Lte.
enum class SelectorOperator : uint8_t {
  kIn,
  kNotIn,
  kExists,
  kDoesNotExist,
  kGt,
  kLt,
  kGte,
  kLte,
};

// "In" -> kIn, ... "Lte" -> kLte (case-sensitive, as Kubernetes); nullopt for
// anything else.
std::optional<SelectorOperator> ParseSelectorOperator(absl::string_view text);
absl::string_view SelectorOperatorName(SelectorOperator op);

class Requirement {
 public:
  // Exists on key kNoId; use the factories.
  Requirement() = default;
  // key In [value], as In(key, value) returns it, built in place (e.g. by
  // emplace_back into a Requirements::Storage).
  Requirement(LabelKeyId key, const LabelValue& value)
      : key_(key), complement_(false), values_(1, value) {}

  // NewRequirementWithFlexibility. `values` is read for In/NotIn (duplicates
  // collapse) and values[0] for Gt/Lt/Gte/Lte (its lenient Atoi value: a
  // non-integer reads as 0, as Karpenter's ignored parse error does; callers
  // validate first). Gt INT64_MAX yields DoesNotExist *without* minValues (as
  // Karpenter); Lt INT64_MIN wraps to lte = INT64_MAX (Go's wrap-around).
  // Exists/DoesNotExist ignore values. The key is used as given: normalize it
  // (labels::NormalizeLabelKey) before interning, as the proto conversions
  // below do. Gt/Lt/Gte/Lte with no value is a caller bug; it is treated as
  // the operand 0 rather than crashing.
  static Requirement Make(LabelKeyId key, SelectorOperator op,
                          absl::Span<const LabelValue> values,
                          std::optional<int32_t> min_values = std::nullopt);
  static Requirement In(LabelKeyId key, absl::Span<const LabelValue> values);
  // key In [value]: what In(key, {value}) returns, without Make's sort and
  // dedup (the common case: a label).
  static Requirement In(LabelKeyId key, const LabelValue& value) {
    return Requirement(key, value);
  }
  static Requirement NotIn(LabelKeyId key, absl::Span<const LabelValue> values);
  static Requirement Exists(LabelKeyId key);
  static Requirement DoesNotExist(LabelKeyId key);
  // Inclusive bounds (Gte n / Lte n); Gt n == Gte(n+1), Lt n == Lte(n-1).
  static Requirement Gte(LabelKeyId key, int64_t n);
  static Requirement Lte(LabelKeyId key, int64_t n);

  LabelKeyId key() const { return key_; }
  // true: allowed = every value except values(); false: allowed = values().
  bool complement() const { return complement_; }
  // Sorted by id, unique.
  absl::Span<const LabelValue> values() const { return values_; }
  std::optional<int64_t> gte() const {
    return (flags_ & kHasGte) != 0 ? std::optional<int64_t>(gte_)
                                   : std::nullopt;
  }
  std::optional<int64_t> lte() const {
    return (flags_ & kHasLte) != 0 ? std::optional<int64_t>(lte_)
                                   : std::nullopt;
  }
  std::optional<int32_t> min_values() const {
    return (flags_ & kHasMinValues) != 0 ? std::optional<int32_t>(min_values_)
                                         : std::nullopt;
  }
  void set_min_values(std::optional<int32_t> m) {
    SetFlag(kHasMinValues, m.has_value());
    min_values_ = m.value_or(0);
  }

  // Karpenter's derived operator: complement -> NotIn if it excludes values
  // else Exists (bounded requirements report Exists); concrete -> In if it
  // has values else DoesNotExist.
  SelectorOperator Operator() const;
  // Concrete: number of values; complement: INT64_MAX - number excluded.
  int64_t Len() const;
  // Membership and bounds: with any bound set the value must be an integer
  // within [gte, lte].
  bool Has(const LabelValue& value) const;
  // Intersection(other) is non-empty in Karpenter's sense (1.3): inverted
  // bounds -> false; both complement -> true; else some concrete value
  // survives. Never allocates.
  bool HasIntersection(const Requirement& other) const;
  // Karpenter's Intersection (1.2); the result keeps this->key(). minValues
  // is the maximum of both.
  Requirement Intersection(const Requirement& other) const;

  // Any(): a concrete value. In -> the smallest value in string order
  // (Karpenter: arbitrary). NotIn/Exists -> the smallest integer in
  // [gte or 0, lte] whose decimal text is not excluded, as text (Karpenter: a
  // random integer in that range); when lte < 0 and gte is unset the range
  // starts at lte (Karpenter would panic). DoesNotExist -> "".
  std::string Any(const Interner& names) const;
  // Value texts in Go string order.
  std::vector<absl::string_view> SortedValueTexts(const Interner& names) const;
  // Karpenter's Requirement.String(): "key In [a b]" (values sorted, more
  // than 5 printed as the first 5 then "and N others"), "key Exists",
  // "key DoesNotExist", "key NotIn [x]", then " >=N", " <=N",
  // " minValues N" when set.
  std::string String(const Interner& names) const;

  friend bool operator==(const Requirement& a, const Requirement& b);

 private:
  // Which of the optional integers are set: one byte for the three instead
  // of a std::optional each (a catalog holds tens of thousands of
  // requirements, so their size is its memory and much of its build time).
  static constexpr uint8_t kHasGte = 1;
  static constexpr uint8_t kHasLte = 2;
  static constexpr uint8_t kHasMinValues = 4;
  void SetFlag(uint8_t flag, bool on) {
    flags_ = on ? (flags_ | flag) : (flags_ & ~flag);
  }
  void set_gte(std::optional<int64_t> v) {
    SetFlag(kHasGte, v.has_value());
    gte_ = v.value_or(0);
  }
  void set_lte(std::optional<int64_t> v) {
    SetFlag(kHasLte, v.has_value());
    lte_ = v.value_or(0);
  }

  LabelKeyId key_ = kNoId;
  int32_t min_values_ = 0;  // when kHasMinValues
  bool complement_ = true;
  uint8_t flags_ = 0;
  absl::InlinedVector<LabelValue, 1> values_;
  int64_t gte_ = 0;  // when kHasGte
  int64_t lte_ = 0;  // when kHasLte

  friend class Requirements;
};

// Options of Compatible. allow_undefined: keys the existing side may leave
// undefined (Karpenter's AllowUndefinedWellKnownLabels when it points at the
// well-known set); nullptr = none.
struct CompatibilityOptions {
  const WellKnownLabels* allow_undefined = nullptr;
};

class Requirements {
 public:
  using Storage = absl::InlinedVector<Requirement, 4>;

  Requirements() = default;
  // A copy owns its entries, also the copy of a viewing set (below).
  Requirements(const Requirements& other);
  Requirements& operator=(const Requirements& other);
  Requirements(Requirements&&) noexcept = default;
  Requirements& operator=(Requirements&&) noexcept = default;

  // A set over entries stored elsewhere, e.g. many sets in one array of an
  // immutable container (CompiledCatalog keeps the embedded catalog's
  // ~49,000 entries in one block, not in one allocation per instance type).
  // `sorted` must have strictly increasing keys (else the entries are copied
  // and Add-ed, as FromSorted does) and stay valid and unchanged as long as
  // this set, or one moved from it, views it. Modifying the set (Add,
  // Remove, Reserve) first copies the entries into storage of its own.
  static Requirements Viewing(absl::Span<const Requirement> sorted);

  // Adds r; when the key exists already the entry becomes the intersection
  // (minValues keeps the maximum).
  void Add(const Requirement& r);
  void Add(const Requirements& other);
  // Drops the key if present.
  void Remove(LabelKeyId key);
  // Reserves room for `n` entries, so that building a large set (an instance
  // type's ~50 labels) does not regrow the storage entry by entry.
  void Reserve(size_t n) {
    Own();
    entries_.reserve(n);
  }
  // Bulk construction: the same result as Add-ing each entry in order, in
  // one pass when `entries` is sorted by strictly increasing key (the common
  // case: labels sorted by key id); otherwise it falls back to Add.
  static Requirements FromSorted(Storage entries);

  // nullptr when the key is undefined.
  const Requirement* Find(LabelKeyId key) const;
  bool Has(LabelKeyId key) const { return Find(key) != nullptr; }
  // Get(): the entry, or Exists for an undefined key.
  Requirement Get(LabelKeyId key) const;
  bool HasMinValues() const;

  size_t size() const { return entries().size(); }
  bool empty() const { return entries().empty(); }
  // Entries sorted by key id.
  Storage::const_iterator begin() const { return entries().begin(); }
  Storage::const_iterator end() const { return entries().end(); }
  absl::Span<const Requirement> entries() const {
    return view_.data() != nullptr ? view_ : absl::MakeConstSpan(entries_);
  }

  // Intersects (1.5), as a boolean: every key defined on both sides
  // intersects, or both operators are in {NotIn, DoesNotExist}. Symmetric.
  // Never allocates.
  bool Intersects(const Requirements& incoming) const;
  // The same check with Karpenter's error text: one error per failing key,
  // "key <k>, <incoming> not in <existing>", keys in string order, joined
  // with "; " (multierr). InvalidArgument on failure.
  absl::Status IntersectsStatus(const Requirements& incoming,
                                const Interner& names) const;

  // Compatible (1.6) as a boolean: every key of `incoming` that is not in
  // options.allow_undefined must be defined here unless its operator is NotIn
  // or DoesNotExist; then Intersects. Never allocates.
  bool IsCompatible(const Requirements& incoming,
                    const CompatibilityOptions& options = {}) const;
  // With Karpenter's message. For the undefined-key stage only the first
  // offender is reported (Karpenter: first in map order; here: smallest key
  // text): `label "<key>" does not have known values` plus the hint
  // ` (typo of "<candidate>"?)`. The hint scans the allowed-undefined keys in
  // sorted order, then this side's keys in sorted order, and takes the first
  // candidate that contains the key as a substring or ends with the key's
  // suffix (text after its first '/', or the whole key). Karpenter (HEAD)
  // scans in map order and no longer uses an edit distance.
  absl::Status Compatible(const Requirements& incoming,
                          const CompatibilityOptions& options,
                          const Interner& names) const;

  // Karpenter's Requirements.String(): entries except restricted labels
  // (kubernetes.io/hostname), each Requirement::String, sorted as strings,
  // joined with ", ".
  std::string String(const Interner& names) const;

  friend bool operator==(const Requirements& a, const Requirements& b) {
    return a.entries() == b.entries();
  }

 private:
  // Copies viewed entries into entries_ (before a modification).
  void Own();

  Storage entries_;
  // The viewed entries when data() is not null (then entries_ is empty).
  absl::Span<const Requirement> view_;
};

// ---- Conversions -----------------------------------------------------------

// NewNodeSelectorRequirementsWithMinValues: keys normalized, each entry added
// (same keys intersect). `use_min_values` false ignores min_values (core
// NodeSelectorRequirement, e.g. pod affinity). InvalidArgument for an unknown
// operator or Gt/Lt/Gte/Lte without a value (Karpenter would misbehave or
// panic on those; validation rejects them earlier), naming `field_path`[i].
absl::StatusOr<Requirements> RequirementsFromNodeSelector(
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>&
        requirements,
    Interner& interner, bool use_min_values = true,
    absl::string_view field_path = "requirements");

// One entry of a node selector, added to `out` (a key already there is
// intersected), as RequirementsFromNodeSelector does for each; errors name
// `field_path`.
absl::Status AddNodeSelectorRequirement(
    const v1::NodeSelectorRequirement& requirement, Interner& interner,
    bool use_min_values, absl::string_view field_path, Requirements& out);

// NewLabelRequirements: each label as `key In [value]` (keys normalized).
// Used for pod nodeSelector, NodePool template labels and node labels.
Requirements RequirementsFromLabels(
    const google::protobuf::Map<std::string, std::string>& labels,
    Interner& interner);
// The LabelSet overload uses the interned keys as they are (no
// normalization: a node's labels are matched as written).
Requirements RequirementsFromLabels(const LabelSet& labels);

// Which pod requirements to build (NewPodRequirements / Strict).
enum class PodRequirementsMode { kAll, kStrict };
// newPodRequirements: nodeSelector as In; in kAll mode the heaviest preferred
// node-affinity term (first of the maximum weight; Karpenter's sort is not
// stable) treated as required; the first required node-affinity term.
// Relaxation (dropping terms) is the caller's: pass a spec with terms removed.
absl::StatusOr<Requirements> PodRequirements(const v1::PodSpec& spec,
                                             Interner& interner,
                                             PodRequirementsMode mode);

// NodeSelectorRequirements() in Karpenter's canonical form: entries sorted by
// key text (Karpenter: map order); values sorted; a requirement with both
// bounds becomes two entries Gte then Lte; one bound -> Gte or Lte (never
// Gt/Lt), and a bound wins over a NotIn list (Karpenter drops the list then);
// complement with values -> NotIn; complement without -> Exists;
// concrete -> In or DoesNotExist. min_values copied to every emitted entry.
std::vector<v1::NodeSelectorRequirement> ToNodeSelectorRequirements(
    const Requirements& requirements, const Interner& names);
v1::NodeSelectorRequirement ToNodeSelectorRequirement(
    const Requirement& requirement, const Interner& names);

// Labels a NodeClaim gets from its requirements
// (resolveCustomLabelsFromRequirements): for each key that is not
// well-known, not restricted (kubernetes.io/hostname) and not a simulation key
// (karpenter.sh/registered, karpenter.sh/initialized), Any() when non-empty.
// Sorted by key text.
std::vector<std::pair<std::string, std::string>> RequirementLabels(
    const Requirements& requirements, const WellKnownLabels& well_known,
    const Interner& names);

// ---- minValues -------------------------------------------------------------

// InstanceTypes.SatisfiesMinValues over an ordered list of instance-type
// requirements: walking the list, per key with minValues accumulate the
// union of Get(key).values() of each type (Karpenter counts values(), so a
// NotIn type contributes its excluded values and an undefined key none) and
// stop at the first prefix where every such key reaches its floor.
struct MinValuesResult {
  // How many leading instance types were walked (all of them on failure;
  // 0 when no requirement has minValues).
  int needed = 0;
  // Keys still short, sorted by key id, with the distinct count reached.
  std::vector<std::pair<LabelKeyId, int>> unsatisfied;
  bool ok() const { return unsatisfied.empty(); }
};
MinValuesResult SatisfiesMinValues(
    const Requirements& requirements,
    absl::Span<const Requirements* const> instance_types);
// Karpenter's error as its structured error prints it: "minValues
// requirement is not met for label(s) (label(s)=[k1 k2])", the keys sorted
// (Karpenter lists them in map order).
std::string MinValuesMessage(const MinValuesResult& result,
                             const Interner& names);

}  // namespace nodeplan

#endif  // NODEPLAN_REQUIREMENTS_H_
