#ifndef NODEPLAN_LIB_SCHEDULING_OPTION_TABLE_H_
#define NODEPLAN_LIB_SCHEDULING_OPTION_TABLE_H_

// The render side of instanceTypeEncoding "Indexed" (schedule.proto): every
// NodeClaim lists its options as indices into one table of names per
// response. Which types the table holds is known only once every NodeClaim
// is rendered, so NodeClaims first list catalog type numbers (Add), and
// Finish() then names each referenced type once, in byte order, and
// rewrites every list in place into positions in that table: one pass over
// the integers, no allocation per name.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "google/protobuf/repeated_field.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::scheduling {

class OptionTable {
 public:
  explicit OptionTable(size_t types) : rank_(types, kUnreferenced) {}

  // Appends catalog type `type` to a NodeClaim's `indices`.
  void Add(int type, google::protobuf::RepeatedField<int32_t>* indices) {
    rank_[type] = kReferenced;
    indices->Add(type);
  }

  // `name_order` lists every catalog type with names in byte order (types
  // never added may be left out); `name(t)` is type t's name. Writes
  // out->instance_type_names and turns every NodeClaim's
  // instance_type_indices from catalog numbers into table positions.
  void Finish(const std::vector<int>& name_order,
              absl::FunctionRef<const std::string&(int)> name,
              v1::ScheduleResponse* out);

 private:
  static constexpr int32_t kUnreferenced = -1;
  static constexpr int32_t kReferenced = 0;  // until Finish ranks it
  std::vector<int32_t> rank_;                // catalog type -> table position
};

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_OPTION_TABLE_H_
