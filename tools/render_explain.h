#ifndef NODEPLAN_TOOLS_RENDER_EXPLAIN_H_
#define NODEPLAN_TOOLS_RENDER_EXPLAIN_H_

// The `nodeplan explain` text: for a pod, where it goes (or that it cannot)
// and each NodePool in the scheduler's order with its first failing check or
// why it fits; for a NodePool, its admitted types, limits, budgets and pods.

#include <string>

#include "nodeplan/v1/explain.pb.h"

namespace nodeplan::cli {

std::string RenderPodExplanation(const v1::PodExplanation& e);
std::string RenderNodePoolExplanation(const v1::NodePoolExplanation& e);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_RENDER_EXPLAIN_H_
