#ifndef NODEPLAN_LIB_DISRUPTION_RENDER_H_
#define NODEPLAN_LIB_DISRUPTION_RENDER_H_

// DisruptResponse pieces from the engine's value types.

#include "disruption/engine.h"
#include "nodeplan/v1/disrupt.pb.h"

namespace nodeplan::disruption {

v1::CommandCandidate RenderCandidate(const ClusterView& view,
                                     const Candidate& c);

// The command with its replacements (options cheapest first, the
// instance-type requirement and a spot pin matching them, the launch
// offering), in "Names" or "Indexed" encoding.
v1::DisruptionCommand RenderCommand(ClusterView& view, const Command& cmd,
                                    bool indexed);

// Every managed node (a NodeClaim or a karpenter.sh/nodepool label), by name.
void RenderCandidacy(ClusterView& view, const ConditionsResult& conditions,
                     const Engine& engine, v1::DisruptResponse* out);

void RenderBudgets(const ClusterView& view, const Engine& engine,
                   v1::DisruptResponse* out);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_RENDER_H_
