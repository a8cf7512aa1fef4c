#ifndef NODEPLAN_LIB_SCHEDULING_INTERN_H_
#define NODEPLAN_LIB_SCHEDULING_INTERN_H_

// String interning for label keys and values: the scheduler compares small
// integers, never strings, in its inner loops. Ids are assigned in first-seen
// order, which follows input order, so nothing depends on hash-map iteration.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace nodeplan::scheduling {

using Id = uint32_t;
inline constexpr Id kNoId = 0xffffffffu;

class Interner {
 public:
  Interner() = default;
  // An overlay over `parent`, which must outlive it and not change while it
  // exists: ids of the parent's strings stay valid, new strings get ids after
  // the parent's. A scheduling round interns pod and node strings into an
  // overlay, so the compiled snapshot (and a compiled cluster) it reads stays
  // immutable and can be shared by concurrent rounds. Overlays stack.
  explicit Interner(const Interner* parent)
      : parent_(parent), base_(parent == nullptr ? 0 : parent->size()) {}

  Id Intern(absl::string_view s) {
    if (parent_ != nullptr)
      if (Id id = parent_->Find(s); id != kNoId) return id;
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    Id id = static_cast<Id>(base_ + strs_.size());
    strs_.emplace_back(s);
    ints_.push_back(ParseInt(s));
    ids_.emplace(std::string(s), id);
    return id;
  }
  Id Find(absl::string_view s) const {
    if (parent_ != nullptr)
      if (Id id = parent_->Find(s); id != kNoId) return id;
    auto it = ids_.find(s);
    return it == ids_.end() ? kNoId : it->second;
  }
  const std::string& Str(Id id) const {
    return id < base_ ? parent_->Str(id) : strs_[id - base_];
  }
  // The value as a decimal integer (Go's strconv.Atoi), if it is one.
  const std::optional<int64_t>& Int(Id id) const {
    return id < base_ ? parent_->Int(id) : ints_[id - base_];
  }
  size_t size() const { return base_ + strs_.size(); }

 private:
  static std::optional<int64_t> ParseInt(absl::string_view s) {
    if (s.empty()) return std::nullopt;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
      neg = s[0] == '-';
      i = 1;
      if (s.size() == 1) return std::nullopt;
    }
    __int128 v = 0;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      v = v * 10 + (s[i] - '0');
      if (v > static_cast<__int128>(INT64_MAX) + 1) return std::nullopt;
    }
    if (neg) v = -v;
    if (v > INT64_MAX || v < INT64_MIN) return std::nullopt;
    return static_cast<int64_t>(v);
  }

  const Interner* parent_ = nullptr;
  size_t base_ = 0;
  absl::flat_hash_map<std::string, Id> ids_;
  // A deque, so that a reference from Str stays valid while more strings
  // are interned (a caller may hold a key's text while interning values).
  std::deque<std::string> strs_;
  std::vector<std::optional<int64_t>> ints_;
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_INTERN_H_
