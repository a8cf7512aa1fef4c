#include "render.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "json_to_yaml.h"
#include "nodeplan/digest.h"
#include "nodeplan/quantity.h"

namespace nodeplan::cli {
namespace {

constexpr double kHoursPerMonth = 730;

std::string Plural(int n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// The part of a label key after its domain, without "instance-":
// "eks.amazonaws.com/instance-generation" -> "generation".
std::string ShortKey(absl::string_view key) {
  absl::string_view name = key.substr(key.find('/') + 1);
  if (absl::StartsWith(name, "instance-")) name.remove_prefix(9);
  return std::string(name);
}

// Requested fraction of allocatable for `resource`, or a negative number
// when either side is missing or unparsable.
double Fraction(const v1::NewNodeClaim& nc, const std::string& resource,
                bool milli) {
  auto req = nc.requests().find(resource);
  auto alloc = nc.launch_allocatable().find(resource);
  if (req == nc.requests().end() || alloc == nc.launch_allocatable().end()) {
    return -1;
  }
  absl::StatusOr<int64_t> r =
      milli ? ParseQuantityMilli(req->second) : ParseQuantityValue(req->second);
  absl::StatusOr<int64_t> a = milli ? ParseQuantityMilli(alloc->second)
                                    : ParseQuantityValue(alloc->second);
  if (!r.ok() || !a.ok() || *a <= 0) return -1;
  return static_cast<double>(*r) / static_cast<double>(*a);
}

std::string Bar(double fraction) {
  return fraction < 0 ? "-" : UtilizationBar(fraction, 8);
}

// The proto JSON mapping with map entries in key order: protobuf's own
// MessageToJsonString follows the map's hash order, which differs from run
// to run, so the message is serialized deterministically (sorted map keys)
// and converted from that.
absl::StatusOr<std::string> DeterministicJson(
    const google::protobuf::Message& m, bool pretty) {
  std::string binary = DeterministicBytes(m);
  if (binary.empty() && m.ByteSizeLong() != 0) {
    return absl::InternalError("cannot serialize the response");
  }
  static constexpr char kUrlPrefix[] = "type.googleapis.com";
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          kUrlPrefix, google::protobuf::DescriptorPool::generated_pool()));
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  std::string json;
  auto status = google::protobuf::util::BinaryToJsonString(
      resolver.get(),
      absl::StrCat(kUrlPrefix, "/", m.GetDescriptor()->full_name()), binary,
      &json, options);
  if (!status.ok()) return absl::InternalError(std::string(status.message()));
  return json;
}

}  // namespace

absl::StatusOr<std::string> RenderJson(const google::protobuf::Message& m) {
  absl::StatusOr<std::string> json = DeterministicJson(m, /*pretty=*/true);
  if (json.ok() && (json->empty() || json->back() != '\n')) {
    json->push_back('\n');
  }
  return json;
}

absl::StatusOr<std::string> RenderYaml(const google::protobuf::Message& m) {
  absl::StatusOr<std::string> json = DeterministicJson(m, /*pretty=*/false);
  if (!json.ok()) return json;
  return JsonToYaml(*json);
}

absl::StatusOr<std::string> RenderApplyReady(const v1::ScheduleResponse& r) {
  std::string out;
  for (const v1::NewNodeClaim& nc : r.new_node_claims()) {
    if (!nc.has_node_claim()) continue;  // nothing to apply
    absl::StatusOr<std::string> doc = RenderYaml(nc.node_claim());
    if (!doc.ok()) return doc;
    if (!out.empty()) out += "---\n";
    out += *doc;
  }
  return out;
}

size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string UtilizationBar(double fraction, int width) {
  const double clamped = std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(std::lround(clamped * width));
  std::string bar;
  for (int i = 0; i < width; ++i) bar += i < filled ? "█" : "░";
  return absl::StrFormat("%s %3d%%", bar,
                         static_cast<int>(std::lround(fraction * 100)));
}

std::string FormatColumns(const std::vector<std::vector<std::string>>& rows,
                          const std::vector<bool>& right,
                          const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - DisplayWidth(row[c]), ' ');
      const bool r = c < right.size() && right[c];
      if (c > 0) line += "  ";
      line += r ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : "");
    }
    out += line + "\n";
  }
  return out;
}

std::string SummarizeRequirements(const v1::NodePool& node_pool) {
  std::vector<std::string> parts;
  for (const v1::NodeSelectorRequirement& r :
       node_pool.spec().template_().spec().requirements()) {
    const std::string& op = r.operator_();
    const std::string values = absl::StrJoin(r.values(), "/");
    if (op == "In") {
      parts.push_back(values);
    } else if (op == "NotIn") {
      parts.push_back(absl::StrCat(ShortKey(r.key()), " not ", values));
    } else if (op == "Exists") {
      parts.push_back(absl::StrCat("has ", ShortKey(r.key())));
    } else if (op == "DoesNotExist") {
      parts.push_back(absl::StrCat("no ", ShortKey(r.key())));
    } else {
      const char* sym = op == "Gt"    ? ">"
                        : op == "Lt"  ? "<"
                        : op == "Gte" ? ">="
                                      : "<=";
      parts.push_back(absl::StrCat(ShortKey(r.key()), " ", sym, " ", values));
    }
  }
  return absl::StrJoin(parts, " · ");
}

std::string RenderScheduleTable(const v1::ScheduleResponse& response,
                                const std::vector<v1::NodePool>& node_pools) {
  std::string out;
  // NodePools in order of first appearance.
  std::vector<std::string> pools;
  for (const v1::NewNodeClaim& nc : response.new_node_claims()) {
    if (std::find(pools.begin(), pools.end(), nc.node_pool()) == pools.end()) {
      pools.push_back(nc.node_pool());
    }
  }
  for (const std::string& pool : pools) {
    std::string header = absl::StrCat("NodePool ", pool);
    for (const v1::NodePool& np : node_pools) {
      if (np.metadata().name() == pool) {
        const std::string summary = SummarizeRequirements(np);
        if (!summary.empty()) absl::StrAppend(&header, "  ", summary);
      }
    }
    out += header + "\n";
    std::vector<std::vector<std::string>> rows = {{"NODECLAIM", "TYPE", "ZONE",
                                                   "CAPACITY", "$/HOUR", "PODS",
                                                   "CPU", "MEMORY", "OPTIONS"}};
    for (const v1::NewNodeClaim& nc : response.new_node_claims()) {
      if (nc.node_pool() != pool) continue;
      rows.push_back({nc.name(), nc.launch().instance_type(),
                      nc.launch().zone(), nc.launch().capacity_type(),
                      absl::StrFormat("%.4f", nc.launch().price()),
                      absl::StrCat(nc.pods_size()),
                      Bar(Fraction(nc, "cpu", /*milli=*/true)),
                      Bar(Fraction(nc, "memory", /*milli=*/false)),
                      absl::StrCat(nc.instance_types_size())});
    }
    out += FormatColumns(
        rows, {false, false, false, false, true, true, false, false, true},
        "  ");
  }
  if (response.new_node_claims().empty()) out += "No new NodeClaims.\n";

  int on_existing = 0;
  std::vector<std::string> per_node;
  for (const v1::ExistingNodePlacement& e : response.existing_nodes()) {
    on_existing += e.pods_size();
    per_node.push_back(absl::StrCat(e.name(), ": ", e.pods_size()));
  }
  if (on_existing > 0) {
    absl::StrAppend(&out,
                    "On existing nodes: ", Plural(on_existing, "pod", "pods"),
                    " (", absl::StrJoin(per_node, ", "), ")\n");
  }
  if (!response.unschedulable().empty()) {
    absl::StrAppend(&out, "Unschedulable: ",
                    Plural(response.unschedulable_size(), "pod", "pods"), "\n");
    std::vector<std::vector<std::string>> rows;
    for (const v1::UnschedulablePod& u : response.unschedulable()) {
      rows.push_back({u.pod(), u.reason()});
    }
    out += FormatColumns(rows, {false, false}, "  ");
  }
  if (response.ignored_pods() > 0) {
    absl::StrAppend(&out, "Not pending (ignored): ",
                    Plural(response.ignored_pods(), "pod", "pods"), "\n");
  }
  absl::StrAppendFormat(&out, "Total: %s, $%.3f/hour ($%.0f/month)\n",
                        Plural(response.new_node_claims_size(), "new NodeClaim",
                               "new NodeClaims"),
                        response.cost(), response.cost() * kHoursPerMonth);
  // Responses of this library always carry it; hand-built ones may not.
  if (response.has_cost_bound())
    absl::StrAppend(&out, CostBoundLine(response), "\n");
  return out;
}

std::string CostBoundLine(const v1::ScheduleResponse& response) {
  const v1::CostBound& b = response.cost_bound();
  if (!b.available()) {
    return absl::StrCat("Lower bound: unavailable (",
                        b.reason().empty() ? "not computed" : b.reason(), ")");
  }
  std::string covers;
  if (b.relaxed_pods() > 0 || b.excluded_pods() > 0) {
    covers = absl::StrCat("; covers the ", b.covered_pods(), " placed pods");
    if (b.relaxed_pods() > 0)
      absl::StrAppend(&covers, ", ", b.relaxed_pods(),
                      " of them by requests, taints and limits only");
  }
  const double cost = response.cost(), lb = b.lower_bound();
  std::string gap;
  if (cost <= lb + 1e-9) {
    gap = "the cheapest possible";
  } else if (lb <= 0) {
    gap = "no lower bound above $0";
  } else {
    // Rounded up: "at most" must stay true.
    gap = absl::StrFormat("at most %.0f%% above the cheapest possible",
                          std::ceil((cost / lb - 1) * 100 - 1e-9));
  }
  return absl::StrFormat("Lower bound: $%.3f/hour: $%.3f/hour is %s%s", lb,
                         cost, gap, covers);
}

}  // namespace nodeplan::cli
