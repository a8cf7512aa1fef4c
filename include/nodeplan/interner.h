#ifndef NODEPLAN_INTERNER_H_
#define NODEPLAN_INTERNER_H_

// Label keys and values interned once into dense int32 ids.
//
// A compiled snapshot (catalog + NodePools) owns a base Interner, fills it,
// then shares it read-only (`const Interner&`, e.g. through a
// std::shared_ptr<const Interner>) across threads. Each scheduling call meets
// new strings (pod labels, selector values), so it makes an overlay:
// `Interner call(&base)`. The overlay's ids continue after the base's, so ids
// from the base stay valid and comparable inside the overlay; the base is never
// written through the overlay. An overlay costs nothing until it interns a
// string it has not seen.
//
// Keys and values live in two separate id spaces (a key id and a value id may
// be equal). Extended resource names (nvidia.com/gpu, hugepages-2Mi) are
// interned in the key space too (see resources.h).
//
// Thread safety: const member functions may run concurrently; interning needs
// exclusive access. Lookups (Find*, *Text, Value) never allocate.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace nodeplan {

using LabelKeyId = int32_t;
using LabelValueId = int32_t;
inline constexpr int32_t kNoId = -1;

// Go's strconv.Atoi, which Karpenter uses for Gt/Lt/Gte/Lte and for the
// integer bound checks: an optional '+' or '-', then one or more decimal
// digits, nothing else (no spaces, no underscores). Returns nullopt on a
// syntax error or when the value does not fit int64.
std::optional<int64_t> ParseGoInt(absl::string_view text);

// The value Atoi returns *alongside* its error, which Karpenter uses because it
// ignores the error ("prevalidated"): 0 on a syntax error, INT64_MAX/INT64_MIN
// when out of range, else the value.
int64_t GoAtoiIgnoringError(absl::string_view text);

// An interned label value with its integer parse remembered, so bound checks
// (Gt/Lt/Gte/Lte) never re-parse text.
struct LabelValue {
  LabelValueId id = kNoId;
  // The text parses with ParseGoInt.
  bool is_int = false;
  // is_int and the text is exactly the canonical decimal of int_value ("7",
  // "-3"; not "007" or "+7"). Used by Requirement::Any.
  bool canonical_int = false;
  // GoAtoiIgnoringError(text): meaningful when is_int, and the lenient value
  // Karpenter reads for Gt/Lt/Gte/Lte operands otherwise.
  int64_t int_value = 0;

  friend bool operator==(const LabelValue& a, const LabelValue& b) {
    return a.id == b.id;
  }
};

class Interner {
 public:
  // A base interner.
  Interner() = default;
  // An overlay over `base`, which must outlive this object and must not be
  // modified while it exists. Overlays may be stacked.
  explicit Interner(const Interner* base);

  // A copy owns copies of this object's strings (ids unchanged) and shares
  // its base, which must then outlive the copy too.
  Interner(const Interner& other);
  Interner& operator=(const Interner& other);
  Interner(Interner&&) = default;
  Interner& operator=(Interner&&) = default;

  // Returns the id of `key`, interning it if new (in this object, never in
  // the base).
  LabelKeyId InternKey(absl::string_view key);
  LabelValue InternValue(absl::string_view value);

  // kNoId / nullopt when the string was never interned here or in a base.
  LabelKeyId FindKey(absl::string_view key) const;
  std::optional<LabelValue> FindValue(absl::string_view value) const;

  // Text of an id from this interner or a base. An id out of range yields "".
  absl::string_view KeyText(LabelKeyId id) const;
  absl::string_view ValueText(LabelValueId id) const;
  // The LabelValue of an id (id == kNoId when out of range).
  LabelValue Value(LabelValueId id) const;

  // Number of ids in use, bases included: ids are [0, key_count()).
  int32_t key_count() const { return key_offset_ + LocalKeys(); }
  int32_t value_count() const { return value_offset_ + LocalValues(); }
  const Interner* base() const { return base_; }

 private:
  struct ValueInfo {
    bool is_int;
    bool canonical_int;
    int64_t int_value;
  };
  int32_t LocalKeys() const { return static_cast<int32_t>(keys_.size()); }
  int32_t LocalValues() const { return static_cast<int32_t>(values_.size()); }

  const Interner* base_ = nullptr;
  int32_t key_offset_ = 0;
  int32_t value_offset_ = 0;
  // std::deque keeps element addresses stable, so the string_view keys of the
  // maps stay valid as strings are added (and across moves).
  std::deque<std::string> keys_;
  std::deque<std::string> values_;
  std::vector<ValueInfo> value_info_;
  absl::flat_hash_map<absl::string_view, LabelKeyId> key_ids_;
  absl::flat_hash_map<absl::string_view, LabelValueId> value_ids_;
};

// The strings an interner gained after some point, in id order: what a
// cached computation interned, kept so that a later hit interns the same
// strings at the same ids (the cached result's ids then mean the same text).
struct InternedStrings {
  std::vector<std::string> keys, values;

  // Those of `in` from key id `first_key` and value id `first_value` on.
  static InternedStrings Since(const Interner& in, LabelKeyId first_key,
                               LabelValueId first_value);
  // Interns them into `in`; true when each got the id it had, that is when
  // `in` held what the source held at that point. Else `in` holds a prefix
  // of them, in order: what the computation itself would intern first.
  bool ReplayInto(Interner& in) const;
};

// Appends every string of `in` (keys, then values, in id order, each
// length-prefixed) to `*key`: a cache key part naming exactly the ids a
// computation over `in` would hand out.
void AppendInternerContents(const Interner& in, std::string* key);

}  // namespace nodeplan

#endif  // NODEPLAN_INTERNER_H_
