#include "scheduling/option_table.h"

namespace nodeplan::scheduling {

void OptionTable::Finish(const std::vector<int>& name_order,
                         absl::FunctionRef<const std::string&(int)> name,
                         v1::ScheduleResponse* out) {
  int32_t next = 0;
  for (int t : name_order)
    if (rank_[t] != kUnreferenced) rank_[t] = next++;
  auto* names = out->mutable_instance_type_names();
  names->Reserve(next);
  for (int t : name_order)
    if (rank_[t] != kUnreferenced) names->Add()->assign(name(t));
  for (v1::NewNodeClaim& claim : *out->mutable_new_node_claims())
    for (int32_t& index : *claim.mutable_instance_type_indices())
      index = rank_[index];
}

}  // namespace nodeplan::scheduling
