#include "render_html.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/quantity.h"
#include "nodeplan/resources.h"
#include "nodeplan/workload.h"
#include "render.h"

namespace nodeplan::cli {
namespace {

constexpr double kHoursPerMonth = 730;
constexpr char kOverhead[] = "DaemonSet";
// Tallest column, in pixels; every column is proportional to it.
constexpr double kColumnHeight = 180;
constexpr double kMinColumnHeight = 8;
constexpr int kColumnWidth = 34;
constexpr int kBinWidth = 112;
constexpr int kLabelHeight = 98;
// Pods named per unschedulable reason before "and N more".
constexpr int kPodsPerReason = 40;

std::string Escape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A label line that fits a bin (the tooltip has it whole).
std::string Clip(const std::string& line) {
  constexpr size_t kChars = 20;
  if (DisplayWidth(line) <= kChars) return line;
  std::string out;
  size_t n = 0;
  for (char c : line) {
    const bool start = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (start && ++n > kChars - 1) break;
    out += c;
  }
  return out + "…";
}

std::string Cores(int64_t milli) {
  return absl::StrFormat("%.2f", static_cast<double>(milli) / 1000.0);
}

std::string Gi(int64_t bytes) {
  return absl::StrFormat("%.1fGi", static_cast<double>(bytes) / (1 << 30));
}

std::string Plural(int n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

int64_t Quantity(const google::protobuf::Map<std::string, std::string>& list,
                 const std::string& name, bool milli) {
  auto it = list.find(name);
  if (it == list.end()) return 0;
  absl::StatusOr<int64_t> v =
      milli ? ParseQuantityMilli(it->second) : ParseQuantityValue(it->second);
  return v.ok() ? *v : 0;
}

std::string Label(const v1::ObjectMeta& meta, const std::string& key) {
  auto it = meta.labels().find(key);
  return it == meta.labels().end() ? std::string() : it->second;
}

// ---- pods -------------------------------------------------------------------

struct PodFacts {
  std::string owner;
  int64_t cpu_milli = 0;
  int64_t memory = 0;
};

// "Deployment/web" for a pod of a ReplicaSet that a Deployment made (the
// ReplicaSet's name is the Deployment's plus "-<pod-template-hash>"),
// "<Kind>/<name>" for any other owner, "app=<label>" or "standalone" without.
std::string OwnerOf(const v1::ObjectMeta& meta) {
  for (const v1::OwnerReference& ref : meta.owner_references()) {
    if (ref.kind() == "DaemonSet") return kOverhead;
    if (ref.kind() == "ReplicaSet") {
      const std::string hash = Label(meta, "pod-template-hash");
      if (!hash.empty() && absl::EndsWith(ref.name(), "-" + hash)) {
        return absl::StrCat(
            "Deployment/",
            ref.name().substr(0, ref.name().size() - hash.size() - 1));
      }
    }
    return absl::StrCat(ref.kind(), "/", ref.name());
  }
  if (const std::string app = Label(meta, "app"); !app.empty()) {
    return "app=" + app;
  }
  return "standalone";
}

bool Terminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}

class PodIndex {
 public:
  template <typename Request>
  explicit PodIndex(const Request& request) {
    for (const v1::Pod& pod : request.pods()) {
      if (Terminal(pod)) continue;
      by_key_.try_emplace(workload::PodKey(pod),
                          Facts(pod.spec(), OwnerOf(pod.metadata())));
    }
    for (const v1::Deployment& d : request.deployments()) {
      const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
      if (replicas <= 0) continue;
      const v1::Pod first = workload::DeploymentReplica(d, 0);
      const PodFacts facts =
          Facts(first.spec(), absl::StrCat("Deployment/", d.metadata().name()));
      const std::string prefix = workload::PodKey(first);
      const std::string stem = prefix.substr(0, prefix.size() - 1);  // "-0"
      for (int i = 0; i < replicas; ++i) {
        by_key_.try_emplace(absl::StrCat(stem, i), facts);
      }
    }
  }

  const PodFacts* Find(const std::string& key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : &it->second;
  }

 private:
  PodFacts Facts(const v1::PodSpec& spec, std::string owner) {
    PodFacts f;
    f.owner = std::move(owner);
    absl::StatusOr<ResourceVector> r = PodRequests(spec, names_);
    if (r.ok()) {
      f.cpu_milli = r->cpu_milli();
      f.memory = r->memory();
    }
    return f;
  }

  Interner names_;
  absl::flat_hash_map<std::string, PodFacts> by_key_;
};

// Accumulates a bin's blocks: one per owner, the overhead first, the others
// by name.
class BlockStack {
 public:
  void Add(const std::string& owner, int pods, int64_t cpu, int64_t memory) {
    PictureBlock& b = by_owner_[owner];
    b.owner = owner;
    b.pods += pods;
    b.cpu_milli += cpu;
    b.memory += memory;
  }
  void AddPod(const PodIndex& index, const std::string& key) {
    const PodFacts* f = index.Find(key);
    if (f == nullptr) {
      Add("unknown", 1, 0, 0);
    } else {
      Add(f->owner, 1, f->cpu_milli, f->memory);
    }
  }
  int64_t cpu() const {
    int64_t s = 0;
    for (const auto& [_, b] : by_owner_) s += b.cpu_milli;
    return s;
  }
  int64_t memory() const {
    int64_t s = 0;
    for (const auto& [_, b] : by_owner_) s += b.memory;
    return s;
  }
  std::vector<PictureBlock> Take() {
    std::vector<PictureBlock> out;
    if (auto it = by_owner_.find(kOverhead); it != by_owner_.end()) {
      out.push_back(it->second);
      by_owner_.erase(it);
    }
    for (auto& [_, b] : by_owner_) out.push_back(std::move(b));
    by_owner_.clear();
    return out;
  }

 private:
  std::map<std::string, PictureBlock> by_owner_;
};

// A double field named lower_bound at the top of `m` or in one of its
// message fields, when set and positive.
std::optional<double> FindLowerBound(const google::protobuf::Message& m,
                                     int depth = 0) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->is_repeated()) continue;
    if (f->name() == "lower_bound" &&
        f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE) {
      const double v = r->GetDouble(m, f);
      if (v > 0) return v;
    }
    if (depth == 0 &&
        f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
        r->HasField(m, f)) {
      if (auto v = FindLowerBound(r->GetMessage(m, f), 1)) return v;
    }
  }
  return std::nullopt;
}

// Group order: the request's NodePools, then unmanaged nodes.
class Groups {
 public:
  explicit Groups(const google::protobuf::RepeatedPtrField<v1::NodePool>& nps) {
    for (const v1::NodePool& np : nps) {
      Get(np.metadata().name()).summary = SummarizeRequirements(np);
    }
  }
  PictureGroup& Get(const std::string& node_pool) {
    auto [it, inserted] = index_.try_emplace(node_pool, groups_.size());
    if (inserted) {
      groups_.emplace_back();
      groups_.back().node_pool = node_pool;
    }
    return groups_[it->second];
  }
  std::vector<PictureGroup> Take() {
    std::vector<PictureGroup> out;
    std::optional<PictureGroup> unmanaged;
    for (PictureGroup& g : groups_) {
      if (g.bins.empty()) continue;
      if (g.node_pool.empty()) {
        unmanaged = std::move(g);
      } else {
        out.push_back(std::move(g));
      }
    }
    if (unmanaged) out.push_back(*std::move(unmanaged));
    return out;
  }

 private:
  std::deque<PictureGroup> groups_;  // stable addresses
  absl::flat_hash_map<std::string, size_t> index_;
};

// Existing capacity: Nodes, and NodeClaims that have no Node yet, with the
// pods bound to them. Returns bin name -> (group, bin index).
template <typename Request>
absl::flat_hash_map<std::string, std::pair<PictureGroup*, size_t>> ExistingBins(
    const Request& request, const PodIndex& index, Groups& groups,
    absl::flat_hash_map<std::string, BlockStack>& stacks) {
  absl::flat_hash_map<std::string, std::pair<PictureGroup*, size_t>> bins;
  auto add = [&](const v1::ObjectMeta& meta, const std::string& kind,
                 const google::protobuf::Map<std::string, std::string>& alloc) {
    PictureBin bin;
    bin.name = meta.name();
    bin.kind = kind;
    bin.instance_type = Label(meta, labels::kInstanceType);
    bin.zone = Label(meta, labels::kZone);
    bin.capacity_type = Label(meta, labels::kCapacityType);
    bin.cpu_milli = Quantity(alloc, "cpu", true);
    bin.memory = Quantity(alloc, "memory", false);
    PictureGroup& g = groups.Get(Label(meta, labels::kNodePool));
    g.bins.push_back(std::move(bin));
    bins.try_emplace(meta.name(), &g, g.bins.size() - 1);
  };
  absl::flat_hash_map<std::string, std::string> claim_of_node;
  for (const v1::NodeClaim& nc : request.node_claims()) {
    if (!nc.status().node_name().empty()) {
      claim_of_node[nc.status().node_name()] = nc.metadata().name();
    }
  }
  for (const v1::Node& n : request.nodes()) {
    add(n.metadata(), "Node", n.status().allocatable());
  }
  for (const v1::NodeClaim& nc : request.node_claims()) {
    if (bins.contains(nc.status().node_name())) {
      // One bin per machine: a NodeClaim's placements land on its Node.
      // Copied first: try_emplace may rehash and move the Node's entry.
      const std::pair<PictureGroup*, size_t> node_bin =
          bins.at(nc.status().node_name());
      bins.try_emplace(nc.metadata().name(), node_bin);
      continue;
    }
    add(nc.metadata(), "in-flight NodeClaim", nc.status().allocatable());
  }
  for (const v1::Pod& pod : request.pods()) {
    if (Terminal(pod) || pod.spec().node_name().empty()) continue;
    if (!bins.contains(pod.spec().node_name())) continue;
    stacks[bins[pod.spec().node_name()]
               .first->bins[bins[pod.spec().node_name()].second]
               .name]
        .AddPod(index, workload::PodKey(pod));
  }
  return bins;
}

// ---- drawing ----------------------------------------------------------------

// Golden-angle hues over the owners in name order: neighbours differ.
std::map<std::string, std::string> Colours(const Picture& p) {
  std::map<std::string, std::string> colours;
  for (const PictureGroup& g : p.groups) {
    for (const PictureBin& b : g.bins) {
      for (const PictureBlock& k : b.blocks) colours[k.owner];
    }
  }
  if (p.proposal.has_value()) {
    for (const PictureGroup& g : p.proposal->groups) {
      for (const PictureBin& b : g.bins) {
        for (const PictureBlock& k : b.blocks) colours[k.owner];
      }
    }
  }
  int i = 0;
  for (auto& [owner, colour] : colours) {
    if (owner == kOverhead) {
      colour = "#9e9e9e";
      continue;
    }
    const double hue = std::fmod(20 + 137.508 * i++, 360.0);
    colour = absl::StrFormat("hsl(%.0f,62%%,%d%%)", hue, 48 + (i % 3) * 8);
  }
  return colours;
}

std::string BlockTitle(const PictureBlock& b) {
  return absl::StrCat(b.owner == kOverhead ? "DaemonSet overhead" : b.owner,
                      ": ", Plural(b.pods, "pod", "pods"), ", ",
                      Cores(b.cpu_milli), " CPU, ", Gi(b.memory));
}

struct Scale {
  int64_t cpu = 1;
  int64_t memory = 1;
};

double ColumnHeight(int64_t alloc, int64_t max) {
  if (alloc <= 0) return kMinColumnHeight;
  return std::max(kMinColumnHeight, kColumnHeight * static_cast<double>(alloc) /
                                        static_cast<double>(max));
}

// One column: the frame, then the blocks from the bottom; requests above
// allocatable are clipped at the top and marked red.
void DrawColumn(std::string& out, const PictureBin& bin, bool cpu, int x,
                double top, double height,
                const std::map<std::string, std::string>& colours) {
  const int64_t alloc = cpu ? bin.cpu_milli : bin.memory;
  const double base = top + height;
  absl::StrAppendFormat(&out,
                        "<rect class=\"col\" x=\"%d\" y=\"%.1f\" width=\"%d\" "
                        "height=\"%.1f\"/>",
                        x, top, kColumnWidth, height);
  double y = base;
  int64_t used = 0;
  for (const PictureBlock& b : bin.blocks) {
    const int64_t v = cpu ? b.cpu_milli : b.memory;
    used += v;
    if (v <= 0 || alloc <= 0) continue;
    const double h = std::min(
        height * static_cast<double>(v) / static_cast<double>(alloc), y - top);
    if (h <= 0) continue;
    y -= h;
    absl::StrAppendFormat(
        &out,
        "<rect class=\"pod\" data-owner=\"%s\" x=\"%d\" y=\"%.2f\" "
        "width=\"%d\" height=\"%.2f\" fill=\"%s\"><title>%s</title></rect>",
        Escape(b.owner), x, y, kColumnWidth, h, colours.at(b.owner),
        Escape(BlockTitle(b)));
  }
  if (alloc > 0 && used > alloc) {
    absl::StrAppendFormat(&out,
                          "<rect class=\"over\" x=\"%d\" y=\"%.1f\" "
                          "width=\"%d\" height=\"3\"/>",
                          x, top, kColumnWidth);
  }
  const double pct =
      alloc > 0 ? 100.0 * static_cast<double>(used) / static_cast<double>(alloc)
                : 0;
  absl::StrAppendFormat(&out,
                        "<text class=\"pct\" x=\"%d\" y=\"%.1f\">%.0f%%</text>",
                        x + kColumnWidth / 2, top - 3, pct);
}

int Pods(const PictureBin& b) {
  int n = 0;
  for (const PictureBlock& k : b.blocks) {
    if (k.owner != kOverhead) n += k.pods;
  }
  return n;
}

// Pods in all the bins `b` stands for.
int PodsTotal(const PictureBin& b) {
  return b.averaged ? Pods(b) : Pods(b) * b.count;
}

void DrawBin(std::string& out, const PictureBin& bin, const std::string& pool,
             const Scale& scale,
             const std::map<std::string, std::string>& colours) {
  const double hc = ColumnHeight(bin.cpu_milli, scale.cpu);
  const double hm = ColumnHeight(bin.memory, scale.memory);
  const double top_pad = 16;
  const double column = std::max(hc, hm);
  const double height = top_pad + column + 14 + kLabelHeight;
  absl::StrAppendFormat(
      &out,
      "<svg class=\"bin\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
      "height=\"%.0f\" data-name=\"%s\" data-kind=\"%s\" data-nodepool=\"%s\" "
      "data-pods=\"%d\" data-count=\"%d\" data-pods-total=\"%d\"%s "
      "data-instance-type=\"%s\" data-note=\"%s\"%s>",
      kBinWidth, height, Escape(bin.name), Escape(bin.kind), Escape(pool),
      bin.averaged ? PodsTotal(bin) / bin.count : Pods(bin), bin.count,
      PodsTotal(bin), bin.averaged ? " data-averaged=\"true\"" : "",
      Escape(bin.instance_type), Escape(bin.note),
      bin.proposal.empty()
          ? ""
          : absl::StrCat(" data-proposal=\"", Escape(bin.proposal), "\""));
  absl::StrAppend(
      &out, "<title>",
      Escape(absl::StrCat(
          bin.count > 1 ? absl::StrCat(bin.count, " bins like ") : "", bin.kind,
          " ", bin.name, ": ",
          bin.averaged
              ? absl::StrCat(PodsTotal(bin), " pods in all, requests averaged")
              : Plural(Pods(bin), "pod", "pods"),
          ", allocatable ", Cores(bin.cpu_milli), " CPU, ", Gi(bin.memory),
          bin.note.empty() ? "" : "; " + bin.note,
          bin.proposal.empty() ? "" : "; " + bin.proposal)),
      "</title>");
  const double base = top_pad + column;
  const int x0 = (kBinWidth - 2 * kColumnWidth - 6) / 2;
  DrawColumn(out, bin, true, x0, base - hc, hc, colours);
  DrawColumn(out, bin, false, x0 + kColumnWidth + 6, base - hm, hm, colours);
  double y = base + 12;
  absl::StrAppendFormat(&out,
                        "<text class=\"axis\" x=\"%d\" y=\"%.0f\">CPU</text>"
                        "<text class=\"axis\" x=\"%d\" y=\"%.0f\">mem</text>",
                        x0 + kColumnWidth / 2, y, x0 + kColumnWidth * 3 / 2 + 6,
                        y);
  std::vector<std::string> lines;
  lines.push_back(bin.count > 1
                      ? absl::StrCat("×", bin.count, " ", bin.instance_type)
                      : bin.name);
  lines.push_back(
      bin.count > 1
          ? bin.kind
          : (bin.instance_type.empty() ? bin.kind : bin.instance_type));
  lines.push_back(bin.zone);
  lines.push_back(bin.capacity_type);
  lines.push_back(
      bin.averaged
          ? absl::StrFormat("avg %.1f pods",
                            static_cast<double>(PodsTotal(bin)) / bin.count)
          : Plural(Pods(bin), "pod", "pods"));
  if (bin.price >= 0) lines.push_back(absl::StrFormat("$%.4f/hour", bin.price));
  if (!bin.note.empty()) lines.push_back(bin.note);
  if (!bin.proposal.empty()) lines.push_back(bin.proposal);
  for (const std::string& line : lines) {
    y += 12;
    absl::StrAppendFormat(&out,
                          "<text class=\"lbl\" x=\"%d\" y=\"%.0f\">%s</text>",
                          kBinWidth / 2, y, Escape(Clip(line)));
  }
  out += "</svg>";
}

// Bins of one shape once, counted, when a group has too many to draw; if
// that is still too many, bins of one type, zone and capacity type once, their
// blocks averaged ("avg" in the label), largest types first.
std::vector<PictureBin> Aggregate(const std::vector<PictureBin>& bins) {
  if (static_cast<int>(bins.size()) <= kMaxBinsPerGroup) return bins;
  auto merge = [](const std::vector<PictureBin>& in, bool exact) {
    std::vector<PictureBin> out;
    std::vector<int> members;
    std::map<std::string, size_t> by_shape;
    for (const PictureBin& b : in) {
      std::string shape =
          absl::StrCat(b.kind, "|", b.instance_type, "|", b.zone, "|",
                       b.capacity_type, "|", b.cpu_milli, "|", b.memory, "|",
                       b.note, "|", b.proposal, "|", b.price);
      if (exact) {
        for (const PictureBlock& k : b.blocks) {
          absl::StrAppend(&shape, "|", k.owner, ":", k.pods, ":", k.cpu_milli,
                          ":", k.memory);
        }
      }
      auto [it, inserted] = by_shape.try_emplace(shape, out.size());
      if (inserted) {
        out.push_back(b);
        for (PictureBlock& k : out.back().blocks) {
          k.pods *= b.count;
          k.cpu_milli *= b.count;
          k.memory *= b.count;
        }
        continue;
      }
      PictureBin& into = out[it->second];
      into.count += b.count;
      into.averaged = into.averaged || !exact;
      for (const PictureBlock& k : b.blocks) {
        auto same = std::find_if(
            into.blocks.begin(), into.blocks.end(),
            [&](const PictureBlock& x) { return x.owner == k.owner; });
        if (same == into.blocks.end()) {
          into.blocks.push_back({k.owner, 0, 0, 0});
          same = into.blocks.end() - 1;
        }
        same->pods += k.pods * b.count;
        same->cpu_milli += k.cpu_milli * b.count;
        same->memory += k.memory * b.count;
      }
    }
    // Totals back to per-bin figures (exact merges divide evenly).
    for (PictureBin& b : out) {
      for (PictureBlock& k : b.blocks) {
        k.cpu_milli /= b.count;
        k.memory /= b.count;
        if (!b.averaged) k.pods /= b.count;
      }
      if (b.averaged) {
        std::stable_sort(b.blocks.begin(), b.blocks.end(),
                         [](const PictureBlock& x, const PictureBlock& y) {
                           return (x.owner == kOverhead) >
                                  (y.owner == kOverhead);
                         });
      }
    }
    return out;
  };
  std::vector<PictureBin> out = merge(bins, true);
  if (static_cast<int>(out.size()) <= kMaxBinsPerGroup) return out;
  out = merge(out, false);
  std::stable_sort(out.begin(), out.end(),
                   [](const PictureBin& a, const PictureBin& b) {
                     return std::tie(b.cpu_milli, b.memory) <
                            std::tie(a.cpu_milli, a.memory);
                   });
  return out;
}

constexpr char kStyle[] = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 2px}
.sub{color:#666;font-size:12px;margin:0 0 8px}
.bins{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-end}
svg.bin{background:#fafafa;border:1px solid #ddd;border-radius:4px}
.col{fill:#fff;stroke:#888;stroke-width:1}
.pod{stroke:#fff;stroke-width:.4}
.over{fill:#d32f2f}
text{font:10px system-ui,sans-serif;text-anchor:middle;fill:#333}
.pct{fill:#555}.axis{fill:#777}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;margin:8px 0}
.sw{display:inline-block;width:12px;height:12px;vertical-align:-2px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
#totals td:nth-child(2){text-align:right;font-variant-numeric:tabular-nums}
.reason{color:#b71c1c}.pods{color:#555;font-size:12px}
.proposal{border-left:4px solid #1565c0;padding:0 0 4px 12px;margin:24px 0 0}
.proposal h2{color:#0d47a1}
)css";

}  // namespace

std::string RenderPicture(const Picture& picture) {
  const std::map<std::string, std::string> colours = Colours(picture);
  Scale scale;
  auto widen = [&scale](const PictureBin& b) {
    scale.cpu = std::max(scale.cpu, b.cpu_milli);
    scale.memory = std::max(scale.memory, b.memory);
  };
  for (const PictureGroup& g : picture.groups) {
    for (const PictureBin& b : g.bins) widen(b);
  }
  if (picture.proposal.has_value()) {
    for (const PictureGroup& g : picture.proposal->groups) {
      for (const PictureBin& b : g.bins) widen(b);
    }
  }
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">";
  absl::StrAppend(&out, "<title>", Escape(picture.title), "</title><style>",
                  kStyle, "</style></head>\n<body>\n<h1>",
                  Escape(picture.title), "</h1>\n");
  absl::StrAppend(
      &out,
      "<p class=\"sub\">Each bin is a node or NodeClaim: the left column its "
      "allocatable CPU, the right its allocatable memory (heights to scale, "
      "the tallest ",
      Cores(scale.cpu), " CPU and ", Gi(scale.memory),
      "). Pods are stacked by their requests, one colour per owner; "
      "DaemonSet overhead is grey at the bottom. Hover for details.</p>\n");

  // Legend: owners with their pods and requests over the whole page.
  std::map<std::string, PictureBlock> totals;
  for (const PictureGroup& g : picture.groups) {
    for (const PictureBin& b : g.bins) {
      for (const PictureBlock& k : b.blocks) {
        PictureBlock& t = totals[k.owner];
        t.owner = k.owner;
        t.pods += k.pods * b.count;
        t.cpu_milli += k.cpu_milli * b.count;
        t.memory += k.memory * b.count;
      }
    }
  }
  out += "<div class=\"legend\" id=\"legend\">";
  for (const auto& [owner, t] : totals) {
    absl::StrAppendFormat(&out,
                          "<span class=\"owner\" data-owner=\"%s\" "
                          "data-pods=\"%d\"><i class=\"sw\" "
                          "style=\"background:%s\"></i>%s</span>",
                          Escape(owner), t.pods, colours.at(owner),
                          Escape(BlockTitle(t)));
  }
  out += "</div>\n";

  int bins_drawn = 0;
  for (const PictureGroup& g : picture.groups) {
    const std::vector<PictureBin> bins = Aggregate(g.bins);
    int machines = 0;
    int pods = 0;
    double cost = 0;
    for (const PictureBin& b : bins) {
      machines += b.count;
      pods += PodsTotal(b);
      if (b.price > 0 && b.kind == "NodeClaim") cost += b.price * b.count;
    }
    absl::StrAppendFormat(
        &out, "<section class=\"nodepool\" data-nodepool=\"%s\"><h2>%s</h2>",
        Escape(g.node_pool),
        g.node_pool.empty() ? "Not managed by a NodePool"
                            : Escape("NodePool " + g.node_pool));
    std::string sub = absl::StrCat(Plural(machines, "bin", "bins"), ", ",
                                   Plural(pods, "pod", "pods"));
    if (cost > 0) absl::StrAppendFormat(&sub, ", new: $%.4f/hour", cost);
    if (!g.summary.empty()) absl::StrAppend(&sub, " · ", g.summary);
    if (bins.size() < g.bins.size()) {
      absl::StrAppend(&sub, " · ", g.bins.size(), " bins drawn as ",
                      bins.size(), ": alike bins once (×N)");
    }
    absl::StrAppend(&out, "<p class=\"sub\">", Escape(sub),
                    "</p>\n<div class=\"bins\">");
    for (const PictureBin& b : bins) {
      DrawBin(out, b, g.node_pool, scale, colours);
      ++bins_drawn;
    }
    out += "</div></section>\n";
  }
  if (bins_drawn == 0) out += "<p>No nodes and no new NodeClaims.</p>\n";

  if (picture.proposal.has_value()) {
    const Picture::Proposal& pr = *picture.proposal;
    absl::StrAppend(&out, "<section class=\"proposal\" id=\"", Escape(pr.id),
                    "\"><h2>", Escape(pr.heading), "</h2><p class=\"sub\">",
                    Escape(pr.summary), "</p>\n<table>");
    for (const Picture::Total& r : pr.rows) {
      absl::StrAppendFormat(&out, "<tr><td>%s</td><td id=\"%s\">%s</td></tr>",
                            Escape(r.label), Escape(r.id), Escape(r.value));
    }
    out += "</table>\n";
    if (!pr.groups.empty()) {
      out += "<div class=\"bins\">";
      for (const PictureGroup& g : pr.groups) {
        for (const PictureBin& b : g.bins) {
          DrawBin(out, b, g.node_pool, scale, colours);
        }
      }
      out += "</div>";
    }
    out += "</section>\n";
  }

  if (!picture.unschedulable.empty()) {
    absl::StrAppend(&out, "<h2>Unschedulable: ",
                    Plural(picture.unschedulable_pods, "pod", "pods"),
                    "</h2>\n<table id=\"unschedulable\">");
    for (const PictureReason& r : picture.unschedulable) {
      std::vector<std::string> shown;
      for (size_t i = 0; i < r.pods.size() && i < kPodsPerReason; ++i) {
        shown.push_back(Escape(r.pods[i]));
      }
      std::string list = absl::StrJoin(shown, ", ");
      if (r.pods.size() > kPodsPerReason) {
        absl::StrAppend(&list, " and ", r.pods.size() - kPodsPerReason,
                        " more");
      }
      absl::StrAppendFormat(&out,
                            "<tr class=\"unschedulable\" data-pods=\"%d\"><td>"
                            "%d</td><td><div class=\"reason\">%s</div><div "
                            "class=\"pods\">%s</div></td></tr>",
                            r.pods.size(), r.pods.size(), Escape(r.reason),
                            list);
    }
    out += "</table>\n";
  }

  out += "<h2>Totals</h2>\n<table id=\"totals\">";
  std::vector<Picture::Total> rows = picture.totals;
  if (picture.proposal.has_value()) rows.push_back(picture.proposal->savings);
  for (const Picture::Total& t : rows) {
    absl::StrAppendFormat(&out, "<tr><td>%s</td><td id=\"%s\">%s</td></tr>",
                          Escape(t.label), Escape(t.id), Escape(t.value));
  }
  out += "</table>\n";
  for (const std::string& note : picture.notes) {
    absl::StrAppend(&out, "<p class=\"sub\">", Escape(note), "</p>\n");
  }
  out += "</body></html>\n";
  return out;
}

namespace {

Picture::Total Row(std::string id, std::string label, std::string value) {
  return {std::move(id), std::move(label), std::move(value)};
}

std::vector<PictureReason> ByReason(
    const google::protobuf::RepeatedPtrField<v1::UnschedulablePod>& pods) {
  std::vector<PictureReason> out;
  absl::flat_hash_map<std::string, size_t> index;
  for (const v1::UnschedulablePod& u : pods) {
    auto [it, inserted] = index.try_emplace(u.reason(), out.size());
    if (inserted) out.push_back({u.reason(), {}});
    out[it->second].pods.push_back(u.pod());
  }
  return out;
}

// A NodeClaim a plan launches, with its pods and its DaemonSet overhead.
PictureBin NewClaimBin(const v1::NewNodeClaim& nc, const PodIndex& index,
                       const std::string& kind) {
  PictureBin bin;
  bin.name = nc.name();
  bin.kind = kind;
  bin.instance_type = nc.launch().instance_type();
  bin.zone = nc.launch().zone();
  bin.capacity_type = nc.launch().capacity_type();
  bin.price = nc.launch().price();
  bin.cpu_milli = Quantity(nc.launch_allocatable(), "cpu", true);
  bin.memory = Quantity(nc.launch_allocatable(), "memory", false);
  BlockStack s;
  for (const std::string& pod : nc.pods()) s.AddPod(index, pod);
  // What the NodeClaim requests beyond its pods is DaemonSet overhead.
  const int64_t cpu =
      std::max<int64_t>(0, Quantity(nc.requests(), "cpu", true) - s.cpu());
  const int64_t mem = std::max<int64_t>(
      0, Quantity(nc.requests(), "memory", false) - s.memory());
  if (cpu > 0 || mem > 0) s.Add(kOverhead, 0, cpu, mem);
  bin.blocks = s.Take();
  return bin;
}

std::string Money(double per_hour) {
  return absl::StrFormat("$%.3f/hour ($%.0f/month)", per_hour,
                         per_hour * kHoursPerMonth);
}

// nodeplan's optimized consolidation (DisruptResponse.optimized) beside
// Karpenter's decision; the nodes it removes are marked in `existing`.
template <typename Existing>
Picture::Proposal OptimizedProposal(const v1::OptimizedConsolidation& o,
                                    const PodIndex& index, Existing& existing) {
  Picture::Proposal pr;
  pr.id = "optimized";
  pr.heading = "nodeplan's optimized consolidation (not Karpenter's decision)";
  pr.savings =
      Row("total-optimized-savings",
          "Savings of nodeplan's proposal (not Karpenter's)",
          o.has_command()
              ? absl::StrFormat("$%.3f/hour", o.command().savings_per_hour())
              : std::string("none"));
  if (!o.has_command()) {
    pr.summary = absl::StrCat(
        "nodeplan's own search for a cheaper consolidation (N nodes into M "
        "NodeClaims) proposes nothing: ",
        o.reason(), ".");
    pr.rows.push_back(Row("optimized-karpenter-savings",
                          "Savings of Karpenter's commands",
                          Money(o.karpenter_savings_per_hour())));
    pr.rows.push_back(Row("optimized-sets-tried", "Candidate sets simulated",
                          absl::StrCat(o.candidate_sets_tried())));
    return pr;
  }
  const v1::DisruptionCommand& cmd = o.command();
  std::vector<std::string> removed;
  for (const v1::CommandCandidate& c : cmd.candidates()) {
    removed.push_back(c.node());
    auto it = existing.find(c.node());
    if (it == existing.end()) continue;
    it->second.first->bins[it->second.second].proposal =
        absl::StrCat("nodeplan: ", cmd.decision());
  }
  pr.summary = absl::StrCat(
      "An alternative to Karpenter's decision above, not what Karpenter "
      "does: ",
      cmd.decision(), " ", Plural(cmd.candidates_size(), "node", "nodes"),
      cmd.replacements_size() > 0
          ? absl::StrCat(" with ",
                         Plural(cmd.replacements_size(), "new NodeClaim",
                                "new NodeClaims"),
                         " (drawn below)")
          : std::string(),
      ", checked by nodeplan's verifier. Validate it again before acting on "
      "it (nodeplan disrupt --validate).");
  pr.rows.push_back(
      Row("optimized-removes", "Removes", absl::StrJoin(removed, ", ")));
  double launches = 0;
  for (const v1::NewNodeClaim& nc : cmd.replacements()) {
    launches += nc.launch().price();
  }
  pr.rows.push_back(Row(
      "optimized-launches", "Launches",
      absl::StrCat(Plural(cmd.replacements_size(), "NodeClaim", "NodeClaims"),
                   absl::StrFormat(", $%.3f/hour", launches))));
  pr.rows.push_back(
      Row("optimized-savings", "Saves", Money(cmd.savings_per_hour())));
  pr.rows.push_back(Row("optimized-guaranteed", "Saves at least",
                        absl::StrFormat("$%.3f/hour (every replacement at "
                                        "its dearest option)",
                                        o.guaranteed_savings_per_hour())));
  pr.rows.push_back(Row("optimized-over-karpenter",
                        "More than Karpenter's commands save",
                        absl::StrFormat("$%.3f/hour (Karpenter's: $%.3f/hour)",
                                        o.savings_over_karpenter_per_hour(),
                                        o.karpenter_savings_per_hour())));
  Groups groups({});
  for (const v1::NewNodeClaim& nc : cmd.replacements()) {
    groups.Get(nc.node_pool())
        .bins.push_back(NewClaimBin(nc, index, "proposed NodeClaim"));
  }
  pr.groups = groups.Take();
  return pr;
}

}  // namespace

Picture SchedulePicture(const v1::ScheduleRequest& request,
                        const v1::ScheduleResponse& response) {
  const PodIndex index(request);
  Groups groups(request.node_pools());
  absl::flat_hash_map<std::string, BlockStack> stacks;
  auto existing = ExistingBins(request, index, groups, stacks);
  int placed = 0;
  for (const v1::ExistingNodePlacement& e : response.existing_nodes()) {
    auto it = existing.find(e.name());
    if (it == existing.end()) continue;
    BlockStack& s = stacks[it->second.first->bins[it->second.second].name];
    for (const std::string& pod : e.pods()) s.AddPod(index, pod);
    placed += e.pods_size();
  }
  for (const v1::NewNodeClaim& nc : response.new_node_claims()) {
    placed += nc.pods_size();
    groups.Get(nc.node_pool())
        .bins.push_back(NewClaimBin(nc, index, "NodeClaim"));
  }
  Picture p;
  p.groups = groups.Take();
  for (PictureGroup& g : p.groups) {
    for (PictureBin& b : g.bins) {
      if (b.kind != "NodeClaim") b.blocks = stacks[b.name].Take();
      p.pods += Pods(b);
    }
  }
  p.title = absl::StrCat("nodeplan schedule: ",
                         Plural(response.new_node_claims_size(),
                                "new NodeClaim", "new NodeClaims"),
                         absl::StrFormat(", $%.3f/hour", response.cost()));
  p.unschedulable = ByReason(response.unschedulable());
  p.unschedulable_pods = response.unschedulable_size();
  p.new_node_claims = response.new_node_claims_size();
  p.cost = response.cost();
  p.totals.push_back(Row("total-nodeclaims", "New NodeClaims",
                         absl::StrCat(p.new_node_claims)));
  p.totals.push_back(
      Row("total-placed", "Pods placed by this plan", absl::StrCat(placed)));
  p.totals.push_back(Row("total-pods", "Pods on the bins (this plan and bound)",
                         absl::StrCat(p.pods)));
  p.totals.push_back(Row("total-unschedulable", "Unschedulable pods",
                         absl::StrCat(p.unschedulable_pods)));
  if (response.ignored_pods() > 0) {
    p.totals.push_back(Row("total-ignored", "Not pending (ignored)",
                           absl::StrCat(response.ignored_pods())));
  }
  p.totals.push_back(Row("total-cost", "Cost of new NodeClaims",
                         absl::StrFormat("$%.3f/hour ($%.0f/month)", p.cost,
                                         p.cost * kHoursPerMonth)));
  if (std::optional<double> lb = FindLowerBound(response)) {
    p.totals.push_back(Row("total-lower-bound", "Cost lower bound",
                           absl::StrFormat("$%.3f/hour", *lb)));
  }
  return p;
}

Picture DisruptPicture(const v1::DisruptRequest& request,
                       const v1::DisruptResponse& response) {
  const PodIndex index(request);
  Groups groups(request.node_pools());
  absl::flat_hash_map<std::string, BlockStack> stacks;
  auto existing = ExistingBins(request, index, groups, stacks);
  // What the pass does with each node.
  std::map<std::string, std::string> action;
  double savings = 0;
  for (const v1::DisruptionCommand& c : response.commands()) {
    savings += c.savings_per_hour();
    for (const v1::CommandCandidate& cand : c.candidates()) {
      action[cand.node()] = absl::StrCat(c.decision(), " (", c.reason(), ")");
    }
  }
  for (const v1::NodeCandidacy& c : response.candidates()) {
    auto it = existing.find(c.node().empty() ? c.node_claim() : c.node());
    if (it == existing.end()) continue;
    PictureBin& bin = it->second.first->bins[it->second.second];
    bin.price = c.price();
    if (bin.instance_type.empty()) bin.instance_type = c.instance_type();
    if (bin.zone.empty()) bin.zone = c.zone();
    if (bin.capacity_type.empty()) bin.capacity_type = c.capacity_type();
    if (auto a = action.find(c.node()); a != action.end()) {
      bin.note = a->second;
    } else if (!c.graceful().eligible() && !c.eventual().eligible()) {
      bin.note = "blocked: " + c.graceful().message();
    } else if (std::any_of(c.methods().begin(), c.methods().end(),
                           [](const v1::MethodEligibility& m) {
                             return m.eligible();
                           })) {
      bin.note = "candidate, kept for now";
    } else {
      bin.note = c.methods().empty()
                     ? std::string("kept")
                     : absl::StrCat("kept: ", c.methods(0).message());
    }
  }
  std::optional<Picture::Proposal> proposal;
  if (response.has_optimized()) {
    proposal = OptimizedProposal(response.optimized(), index, existing);
  }
  Picture p;
  p.groups = groups.Take();
  p.proposal = std::move(proposal);
  double cost = 0;
  for (PictureGroup& g : p.groups) {
    for (PictureBin& b : g.bins) {
      b.blocks = stacks[b.name].Take();
      p.pods += Pods(b);
      if (b.price > 0) cost += b.price;
    }
  }
  p.cost = cost;
  p.title =
      absl::StrCat("nodeplan disrupt: ",
                   Plural(response.commands_size(), "command", "commands"),
                   absl::StrFormat(", saves $%.3f/hour", savings));
  p.totals.push_back(Row("total-commands", "Commands",
                         absl::StrCat(response.commands_size())));
  p.totals.push_back(
      Row("total-pods", "Pods on the bins", absl::StrCat(p.pods)));
  p.totals.push_back(Row("total-cost", "Cost of the managed nodes",
                         absl::StrFormat("$%.3f/hour", cost)));
  p.totals.push_back(Row("total-savings", "Savings of the commands",
                         absl::StrFormat("$%.3f/hour", savings)));
  if (response.commands().empty()) {
    p.notes.push_back(
        absl::StrCat("No disruption now.",
                     response.next_decision_at().empty()
                         ? ""
                         : absl::StrCat(" The answer can change at ",
                                        response.next_decision_at(), ".")));
  }
  for (const v1::DisruptionCommand& c : response.commands()) {
    std::vector<std::string> names;
    for (const v1::CommandCandidate& cand : c.candidates()) {
      names.push_back(cand.node());
    }
    p.notes.push_back(absl::StrCat(c.method(), ": ", c.decision(), " ",
                                   absl::StrJoin(names, ", "), " (", c.reason(),
                                   ")"));
  }
  return p;
}

}  // namespace nodeplan::cli
