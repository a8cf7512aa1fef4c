#include "nodeplan/interner.h"

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeplan {
namespace {

// Go's ParseInt(s, 10, 64) core: returns {ok, value}; on overflow the value
// saturates (as Go returns alongside ErrRange) and ok is false; on a syntax
// error the value is 0.
struct GoParse {
  bool ok;
  int64_t value;
};

GoParse ParseGo(absl::string_view s) {
  if (s.empty()) return {false, 0};
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
    if (s.empty()) return {false, 0};
  }
  // Magnitude as unsigned; the limit for negatives is one larger.
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t magnitude = 0;
  bool overflow = false;
  for (char c : s) {
    if (c < '0' || c > '9') return {false, 0};
    if (overflow) continue;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) {
      overflow = true;
      continue;
    }
    magnitude = magnitude * 10 + digit;
  }
  if (overflow) {
    return {false, negative ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max()};
  }
  if (negative) {
    // -(2^63) is representable; compute without signed overflow.
    return {true, static_cast<int64_t>(~magnitude + 1)};
  }
  return {true, static_cast<int64_t>(magnitude)};
}

}  // namespace

std::optional<int64_t> ParseGoInt(absl::string_view text) {
  GoParse p = ParseGo(text);
  if (!p.ok) return std::nullopt;
  return p.value;
}

int64_t GoAtoiIgnoringError(absl::string_view text) {
  return ParseGo(text).value;
}

Interner::Interner(const Interner* base)
    : base_(base),
      key_offset_(base == nullptr ? 0 : base->key_count()),
      value_offset_(base == nullptr ? 0 : base->value_count()) {}

Interner::Interner(const Interner& other) { *this = other; }

Interner& Interner::operator=(const Interner& other) {
  if (this == &other) return *this;
  base_ = other.base_;
  key_offset_ = other.key_offset_;
  value_offset_ = other.value_offset_;
  keys_ = other.keys_;
  values_ = other.values_;
  value_info_ = other.value_info_;
  // The maps view this object's strings, not the other's.
  key_ids_.clear();
  key_ids_.reserve(keys_.size());
  for (size_t i = 0; i < keys_.size(); ++i)
    key_ids_.emplace(absl::string_view(keys_[i]),
                     key_offset_ + static_cast<int32_t>(i));
  value_ids_.clear();
  value_ids_.reserve(values_.size());
  for (size_t i = 0; i < values_.size(); ++i)
    value_ids_.emplace(absl::string_view(values_[i]),
                       value_offset_ + static_cast<int32_t>(i));
  return *this;
}

LabelKeyId Interner::FindKey(absl::string_view key) const {
  if (base_ != nullptr) {
    LabelKeyId id = base_->FindKey(key);
    if (id != kNoId) return id;
  }
  auto it = key_ids_.find(key);
  return it == key_ids_.end() ? kNoId : it->second;
}

std::optional<LabelValue> Interner::FindValue(absl::string_view value) const {
  if (base_ != nullptr) {
    std::optional<LabelValue> v = base_->FindValue(value);
    if (v.has_value()) return v;
  }
  auto it = value_ids_.find(value);
  if (it == value_ids_.end()) return std::nullopt;
  return Value(it->second);
}

LabelKeyId Interner::InternKey(absl::string_view key) {
  LabelKeyId id = FindKey(key);
  if (id != kNoId) return id;
  id = key_offset_ + LocalKeys();
  keys_.emplace_back(key);
  key_ids_.emplace(absl::string_view(keys_.back()), id);
  return id;
}

LabelValue Interner::InternValue(absl::string_view value) {
  std::optional<LabelValue> found = FindValue(value);
  if (found.has_value()) return *found;
  const LabelValueId id = value_offset_ + LocalValues();
  values_.emplace_back(value);
  value_ids_.emplace(absl::string_view(values_.back()), id);
  GoParse p = ParseGo(value);
  ValueInfo info{p.ok, p.ok && absl::StrCat(p.value) == value, p.value};
  value_info_.push_back(info);
  return LabelValue{id, info.is_int, info.canonical_int, info.int_value};
}

absl::string_view Interner::KeyText(LabelKeyId id) const {
  if (id < 0) return "";
  if (id < key_offset_) return base_->KeyText(id);
  const int32_t local = id - key_offset_;
  if (local >= LocalKeys()) return "";
  return keys_[local];
}

absl::string_view Interner::ValueText(LabelValueId id) const {
  if (id < 0) return "";
  if (id < value_offset_) return base_->ValueText(id);
  const int32_t local = id - value_offset_;
  if (local >= LocalValues()) return "";
  return values_[local];
}

LabelValue Interner::Value(LabelValueId id) const {
  if (id < 0) return LabelValue{};
  if (id < value_offset_) return base_->Value(id);
  const int32_t local = id - value_offset_;
  if (local >= LocalValues()) return LabelValue{};
  const ValueInfo& info = value_info_[local];
  return LabelValue{id, info.is_int, info.canonical_int, info.int_value};
}

InternedStrings InternedStrings::Since(const Interner& in, LabelKeyId first_key,
                                       LabelValueId first_value) {
  InternedStrings out;
  for (LabelKeyId id = first_key; id < in.key_count(); ++id)
    out.keys.emplace_back(in.KeyText(id));
  for (LabelValueId id = first_value; id < in.value_count(); ++id)
    out.values.emplace_back(in.ValueText(id));
  return out;
}

bool InternedStrings::ReplayInto(Interner& in) const {
  const LabelKeyId first_key = in.key_count();
  for (size_t i = 0; i < keys.size(); ++i)
    if (in.InternKey(keys[i]) != first_key + static_cast<LabelKeyId>(i))
      return false;
  const LabelValueId first_value = in.value_count();
  for (size_t i = 0; i < values.size(); ++i)
    if (in.InternValue(values[i]).id !=
        first_value + static_cast<LabelValueId>(i))
      return false;
  return true;
}

void AppendInternerContents(const Interner& in, std::string* key) {
  auto add = [key](absl::string_view part) {
    absl::StrAppend(key, part.size(), ":", part, ";");
  };
  for (LabelKeyId id = 0; id < in.key_count(); ++id) add(in.KeyText(id));
  add("|");
  for (LabelValueId id = 0; id < in.value_count(); ++id) add(in.ValueText(id));
}

}  // namespace nodeplan
