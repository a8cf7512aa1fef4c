#ifndef NODEPLAN_TOOLS_RENDER_DISRUPT_H_
#define NODEPLAN_TOOLS_RENDER_DISRUPT_H_

// The `nodeplan disrupt` table: one row per managed node (NodePool, type,
// zone, capacity type, price, CPU and memory requested against allocatable,
// pods, and what disruption does with it or why not), then the command with
// its savings, expirations, drains, and the budgets per NodePool and reason.

#include <string>

#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::cli {

std::string RenderDisruptTable(const v1::DisruptResponse& response);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_RENDER_DISRUPT_H_
