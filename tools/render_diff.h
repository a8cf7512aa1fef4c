#ifndef NODEPLAN_TOOLS_RENDER_DIFF_H_
#define NODEPLAN_TOOLS_RENDER_DIFF_H_

// The `nodeplan diff` text: cost before and after, NodeClaims added and
// removed, pods that change sides, and the NodeClaims that would drift with
// the budgets that pace their replacement.

#include <string>

#include "nodeplan/v1/diff.pb.h"

namespace nodeplan::cli {

std::string RenderDiff(const v1::DiffResponse& diff);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_RENDER_DIFF_H_
