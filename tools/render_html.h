#ifndef NODEPLAN_TOOLS_RENDER_HTML_H_
#define NODEPLAN_TOOLS_RENDER_HTML_H_

// `-o html`: one self-contained page (inline CSS and SVG drawn here, no
// script, no network fetch) that shows a plan as bins. Every node and
// NodeClaim is a bin of two columns, its allocatable CPU and its allocatable
// memory, each column's height proportional to that quantity; the pods it
// holds are stacked inside by their requests, one colour per owner
// (Deployment, StatefulSet, Job...), DaemonSet overhead in grey at the
// bottom. Bins are grouped by NodePool, labelled with instance type, zone,
// capacity type and price. Unschedulable pods are listed by reason, and the
// totals close the page.
//
// Readability at scale: within a bin, the pods of one owner form one block
// (its tooltip gives the count and the requests); a NodePool with more than
// kMaxBinsPerGroup bins shows bins of identical shape (type, zone, capacity
// type and the same pods per owner) once, marked "×N".
//
// The DOM is part of the contract (tests and scrapers read it): every bin is
// an <svg class="bin"> with data-name, data-kind ("NodeClaim", "Node" or
// "in-flight NodeClaim"), data-nodepool, data-pods (pods per bin), data-count
// (bins it stands for), data-pods-total (pods in all of them; averaged bins
// say data-averaged="true"); <section class="nodepool" data-nodepool> per
// group; #total-nodeclaims, #total-pods, #total-unschedulable and #total-cost
// hold the figures. A proposal is <section class="proposal" id=...> after
// the groups, its bins data-kind="proposed NodeClaim", and the bins it
// removes carry data-proposal; its savings are a row of the totals.

#include <optional>
#include <string>
#include <vector>

#include "nodeplan/v1/disrupt.pb.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::cli {

inline constexpr int kMaxBinsPerGroup = 60;

// What the page draws, independent of the command that produced it.
struct PictureBlock {
  std::string owner;  // "Deployment/inflate", "DaemonSet" for the overhead
  int pods = 0;
  int64_t cpu_milli = 0;
  int64_t memory = 0;  // bytes
};

struct PictureBin {
  std::string name;
  std::string kind;  // "NodeClaim", "Node", "in-flight NodeClaim"
  std::string instance_type, zone, capacity_type;
  double price = -1;      // USD/hour, negative when unknown
  int64_t cpu_milli = 0;  // allocatable
  int64_t memory = 0;
  std::vector<PictureBlock> blocks;  // bottom to top; overhead first
  std::string note;                  // what disruption does with it (data-note)
  // What a proposal beside the plan does with it (data-proposal), "" when
  // none: the plan's own `note` stays Karpenter's decision.
  std::string proposal;
  int count = 1;  // bins this one stands for
  // Bins of one type merged with different pods: the blocks' requests are
  // the average per bin, their pod counts the total over all `count`.
  bool averaged = false;
};

struct PictureGroup {
  std::string node_pool;  // "" for nodes no NodePool manages
  std::string summary;    // requirements in brief
  std::vector<PictureBin> bins;
};

struct PictureReason {
  std::string reason;
  std::vector<std::string> pods;
};

struct Picture {
  std::string title;
  std::vector<PictureGroup> groups;
  std::vector<PictureReason> unschedulable;
  struct Total {
    std::string id, label, value;  // <td id=ID>VALUE</td>
  };
  std::vector<Total> totals;
  int new_node_claims = 0;
  int pods = 0;  // pods on the page's bins (excluding overhead)
  int unschedulable_pods = 0;
  double cost = 0;                 // USD/hour of new NodeClaims
  std::vector<std::string> notes;  // paragraphs after the totals
  // An alternative shown beside the plan and apart from it (disrupt's
  // optimized consolidation, nodeplan's own proposal): a section of its own
  // after the NodePools, none of its figures in theirs.
  struct Proposal {
    std::string id;       // the section's id
    std::string heading;  // says whose proposal it is
    std::string summary;  // one paragraph under the heading
    Total savings;        // also a row of the totals
    std::vector<Total> rows;
    // What it launches, with its pods, per NodePool in response order.
    std::vector<PictureGroup> groups;
  };
  std::optional<Proposal> proposal;
};

std::string RenderPicture(const Picture& picture);

// The schedule page: existing nodes and in-flight NodeClaims of `request`
// with their bound pods and the pods placed on them, then the new NodeClaims
// of `response`. A double field `lower_bound` in the response or in a
// message field of it (a cost lower bound) is shown with the total when set.
Picture SchedulePicture(const v1::ScheduleRequest& request,
                        const v1::ScheduleResponse& response);

// The disrupt page: the cluster's nodes as bins with their bound pods, each
// labelled with what disruption does with it or why it stays. With
// `response.optimized` (options.packing Optimized), nodeplan's optimized
// consolidation as a proposal (#optimized), labelled as not Karpenter's
// decision: the nodes it removes, its replacements as bins and its savings
// against doing nothing and against Karpenter's command, or why there is
// none.
Picture DisruptPicture(const v1::DisruptRequest& request,
                       const v1::DisruptResponse& response);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_RENDER_HTML_H_
