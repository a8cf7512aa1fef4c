// ExpandInstanceTypes (include/nodeplan/schedule.h): an instanceTypeEncoding
// "Indexed" response back into the "Names" response, byte for byte.
//
// The whole response is checked before anything is written, so a response
// that does not expand is left as it was.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nodeplan/labels.h"
#include "nodeplan/schedule.h"

namespace nodeplan {
namespace {

// The requirement an Indexed render writes as `In` without values, or null.
v1::NodeSelectorRequirement* Unexpanded(v1::NewNodeClaim& claim) {
  for (v1::NodeSelectorRequirement& r :
       *claim.mutable_node_claim()->mutable_spec()->mutable_requirements())
    if (r.key() == labels::kInstanceType && r.operator_() == "In" &&
        r.values().empty())
      return &r;
  return nullptr;
}

// Table positions as a bit set: the positions a NodeClaim lists, read back
// in ascending order (the requirement's byte order), with no sort.
class PositionSet {
 public:
  explicit PositionSet(int size) : words_((size + 63) / 64, 0) {}
  // False if `position` is already in the set.
  bool Insert(int32_t position) {
    uint64_t& w = words_[position >> 6];
    const uint64_t bit = uint64_t{1} << (position & 63);
    if (w & bit) return false;
    w |= bit;
    return true;
  }
  // Calls f(position) in ascending order and empties the set.
  template <typename F>
  void Drain(F&& f) {
    for (size_t i = 0; i < words_.size(); ++i)
      for (uint64_t w = words_[i]; w != 0; w &= w - 1)
        f(static_cast<int32_t>(i * 64 + __builtin_ctzll(w)));
    std::fill(words_.begin(), words_.end(), 0);
  }

 private:
  std::vector<uint64_t> words_;
};

absl::Status Check(v1::ScheduleResponse& response, PositionSet& seen) {
  const int names = response.instance_type_names_size();
  for (int c = 0; c < response.new_node_claims_size(); ++c) {
    v1::NewNodeClaim& claim = *response.mutable_new_node_claims(c);
    const auto& indices = claim.instance_type_indices();
    if (indices.empty()) continue;
    const std::string at = absl::StrCat("newNodeClaims[", c, "]");
    if (!claim.instance_types().empty())
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": has both instanceTypes and instanceTypeIndices"));
    if (Unexpanded(claim) == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(
          at, ".nodeClaim.spec.requirements: no ", labels::kInstanceType,
          " requirement `In` without values to expand into"));
    for (int j = 0; j < indices.size(); ++j) {
      const int32_t index = indices[j];
      if (index < 0 || index >= names)
        return absl::InvalidArgumentError(absl::StrCat(
            at, ".instanceTypeIndices[", j, "]: ", index,
            " is not a position in instanceTypeNames (", names, " names)"));
      if (!seen.Insert(index))
        return absl::InvalidArgumentError(absl::StrCat(
            at, ".instanceTypeIndices[", j, "]: ", index, " is listed twice"));
    }
    seen.Drain([](int32_t) {});
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ExpandInstanceTypes(v1::ScheduleResponse* response) {
  if (response == nullptr)
    return absl::InvalidArgumentError("ExpandInstanceTypes: response is null");
  auto& table = *response->mutable_instance_type_names();
  PositionSet positions(table.size());
  if (absl::Status s = Check(*response, positions); !s.ok()) return s;
  // On an arena, every list points at the table's own strings (each name
  // stored once, as ScheduleOnArena renders them): no copy per name.
  google::protobuf::Arena* const arena = response->GetArena();
  auto add = [&](google::protobuf::RepeatedPtrField<std::string>* field,
                 int32_t index) {
    if (arena != nullptr) {
      field->UnsafeArenaAddAllocated(table.Mutable(index));
    } else {
      field->Add()->assign(table.Get(index));
    }
  };
  for (v1::NewNodeClaim& claim : *response->mutable_new_node_claims()) {
    auto& indices = *claim.mutable_instance_type_indices();
    if (indices.empty()) continue;
    auto* options = claim.mutable_instance_types();
    options->Reserve(indices.size());
    for (int32_t index : indices) {
      add(options, index);
      positions.Insert(index);
    }
    auto* values = Unexpanded(claim)->mutable_values();
    values->Reserve(indices.size());
    positions.Drain([&](int32_t index) { add(values, index); });
    indices.Clear();
  }
  if (arena != nullptr) {
    // The strings stay alive (the arena owns them) for the lists above.
    table.UnsafeArenaExtractSubrange(0, table.size(), nullptr);
  } else {
    table.Clear();
  }
  return absl::OkStatus();
}

}  // namespace nodeplan
