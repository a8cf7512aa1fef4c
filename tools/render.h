#ifndef NODEPLAN_TOOLS_RENDER_H_
#define NODEPLAN_TOOLS_RENDER_H_

// Output of `nodeplan schedule`: the ScheduleResponse as JSON (the proto's
// JSON mapping), as YAML (the same mapping in YAML), as NodeClaim manifests
// ready for `kubectl apply -f -`, or as a table for people.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "nodeplan/v1/karpenter.pb.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::cli {

// Pretty-printed proto JSON mapping (lowerCamelCase names, defaults omitted),
// newline-terminated.
absl::StatusOr<std::string> RenderJson(const google::protobuf::Message& m);
// The same mapping as YAML.
absl::StatusOr<std::string> RenderYaml(const google::protobuf::Message& m);
// Every new NodeClaim's manifest as a YAML document ("---" between them).
absl::StatusOr<std::string> RenderApplyReady(const v1::ScheduleResponse& r);

// The table: new NodeClaims grouped by NodePool (a header line summarising
// the NodePool's requirements when `node_pools` has it), pods placed on
// existing capacity, unschedulable pods with their reasons, and the total
// cost per hour and per month (730 hours).
std::string RenderScheduleTable(const v1::ScheduleResponse& response,
                                const std::vector<v1::NodePool>& node_pools);

// "on-demand · c/m/r · generation > 4 · amd64 · linux".
std::string SummarizeRequirements(const v1::NodePool& node_pool);

// A fixed-width utilisation bar with its percentage: "███████░ 88%".
std::string UtilizationBar(double fraction, int width);

// Display width of UTF-8 text (code points; the bars' blocks are one column).
size_t DisplayWidth(const std::string& s);

// "Lower bound: $0.221/hour: $0.277/hour is at most 26% above the cheapest
// possible" (ScheduleResponse.cost_bound; the percentage rounded up), or why
// the bound is unavailable.
std::string CostBoundLine(const v1::ScheduleResponse& response);

// Rows of cells as aligned columns (two spaces apart); columns listed in
// `right` are right-aligned. Each line is prefixed by `indent`.
std::string FormatColumns(const std::vector<std::vector<std::string>>& rows,
                          const std::vector<bool>& right,
                          const std::string& indent);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_RENDER_H_
