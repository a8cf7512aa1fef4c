#include "scheduling/topology.h"

#include <algorithm>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/labels.h"

namespace nodeplan::scheduling {

bool NodeFilter::Matches(const std::vector<v1::Taint>& taints,
                         const Requirements& reqs,
                         const WellKnownLabels* allow) const {
  if (!active) return true;
  if (honor_affinity && !alternatives.empty()) {
    bool any = false;
    for (const Requirements& alt : alternatives)
      if (reqs.IsCompatible(alt, {allow})) {
        any = true;
        break;
      }
    if (!any) return false;
  }
  if (honor_taints && !Tolerates(taints, tolerations, nullptr)) return false;
  return true;
}

bool TopologyGroup::Selects(LabelValueId ns, const LabelSet& labels) const {
  if (!std::binary_search(namespaces.begin(), namespaces.end(), ns))
    return false;
  return selector.Matches(labels);
}

void TopologyGroup::Register(LabelValueId domain) {
  if (counts.emplace(domain, 0).second) {
    domains.push_back(domain);
    ++empty;
  }
}

void TopologyGroup::RecordDomain(LabelValueId domain) {
  auto [it, inserted] = counts.emplace(domain, 0);
  if (inserted) {
    domains.push_back(domain);
    ++empty;
  }
  if (it->second == 0) --empty;
  ++it->second;
}

Requirement TopologyGroup::Next(LabelValueId ns, const LabelSet& labels,
                                const Requirement& pod_domains,
                                const Requirement& node_domains,
                                const Interner& in, int* tied) const {
  if (tied != nullptr) *tied = 0;
  const bool hostname_single = !node_domains.complement() &&
                               node_domains.values().size() == 1 &&
                               in.KeyText(key) == labels::kHostname;
  const bool self = Selects(ns, labels);
  // The allowed domains; In sorts them by id and drops duplicates.
  absl::InlinedVector<LabelValue, 4> out;
  auto result = [&]() { return Requirement::In(key, out); };
  auto has = [&in](const Requirement& r, LabelValueId d) {
    return r.Has(in.Value(d));
  };
  auto better = [&](LabelValueId a, int32_t ca, LabelValueId b, int32_t cb) {
    if (b == kNoId) return true;
    if (ca != cb) return ca < cb;
    return in.ValueText(a) < in.ValueText(b);
  };
  switch (type) {
    case GroupType::kSpread: {
      if (hostname_single) {
        const LabelValue& host = node_domains.values()[0];
        int32_t c = Count(host.id) + (self ? 1 : 0);
        if (c <= max_skew) out.push_back(host);
        return result();
      }
      // Global minimum over the domains the pod supports.
      int32_t min = std::numeric_limits<int32_t>::max();
      if (in.KeyText(key) == labels::kHostname) {
        min = 0;
      } else {
        int32_t supported = 0;
        for (LabelValueId d : domains)
          if (has(pod_domains, d)) {
            ++supported;
            min = std::min(min, Count(d));
          }
        if (min_domains >= 0 && supported < min_domains) min = 0;
      }
      LabelValueId best = kNoId;
      int32_t best_count = 0;
      auto consider = [&](LabelValueId d) {
        auto it = counts.find(d);
        if (it == counts.end()) return;
        int32_t c = it->second + (self ? 1 : 0);
        if (static_cast<int64_t>(c) - min <= max_skew &&
            better(d, c, best, best_count)) {
          best = d;
          best_count = c;
        }
      };
      if (!node_domains.complement()) {
        for (const LabelValue& d : node_domains.values()) consider(d.id);
      } else {
        for (LabelValueId d : domains)
          if (has(node_domains, d)) consider(d);
      }
      if (best != kNoId) out.push_back(in.Value(best));
      // The valid domains counted as the chosen one (it among them), when
      // the choice was made over the group's own domains (the node names no
      // values for the key). Over a node's In values Karpenter mostly takes
      // the first listed (a small Go map iterates from a random slot and
      // wraps, so the first inserted value leads unless the start falls
      // past it), so those ties are not reported.
      if (tied != nullptr && best != kNoId && node_domains.complement()) {
        for (LabelValueId d : domains) {
          auto it = counts.find(d);
          if (has(node_domains, d) && it->second + (self ? 1 : 0) == best_count)
            ++*tied;
        }
      }
      return result();
    }
    case GroupType::kAffinity: {
      auto any_compatible = [&]() {
        for (LabelValueId d : domains)
          if (has(pod_domains, d) && Count(d) > 0) return true;
        return false;
      };
      auto bootstrap = [&]() {
        return self && (static_cast<int32_t>(domains.size()) == empty ||
                        !any_compatible());
      };
      if (hostname_single) {
        const LabelValue& host = node_domains.values()[0];
        if (!pod_domains.Has(host)) return result();
        if (Count(host.id) > 0 || bootstrap()) out.push_back(host);
        return result();
      }
      if (!node_domains.complement()) {
        for (const LabelValue& d : node_domains.values())
          if (pod_domains.Has(d) && Count(d.id) > 0) out.push_back(d);
      } else {
        for (LabelValueId d : domains)
          if (has(pod_domains, d) && Count(d) > 0 && has(node_domains, d))
            out.push_back(in.Value(d));
      }
      if (!out.empty() || !bootstrap()) return result();
      LabelValueId first_both = kNoId, first_pod = kNoId;
      for (LabelValueId d : domains) {
        if (has(pod_domains, d) && has(node_domains, d) &&
            (first_both == kNoId || in.ValueText(d) < in.ValueText(first_both)))
          first_both = d;
        if (has(pod_domains, d) &&
            (first_pod == kNoId || in.ValueText(d) < in.ValueText(first_pod)))
          first_pod = d;
      }
      if (first_both != kNoId) out.push_back(in.Value(first_both));
      if (first_pod != kNoId) out.push_back(in.Value(first_pod));
      return result();
    }
    case GroupType::kAntiAffinity: {
      if (hostname_single) {
        const LabelValue& host = node_domains.values()[0];
        if (Count(host.id) == 0) out.push_back(host);
        return result();
      }
      if (!node_domains.complement()) {
        for (const LabelValue& d : node_domains.values()) {
          auto it = counts.find(d.id);
          if (it != counts.end() && it->second == 0 && pod_domains.Has(d))
            out.push_back(d);
        }
      } else {
        for (LabelValueId d : domains)
          if (Count(d) == 0 && has(node_domains, d) && has(pod_domains, d))
            out.push_back(in.Value(d));
      }
      return result();
    }
  }
  return result();
}

std::string TopologyGroup::Describe(const Interner& in,
                                    const Requirement& pod_domains,
                                    const Requirement& node_domains) const {
  const char* t = type == GroupType::kSpread     ? "topology spread"
                  : type == GroupType::kAffinity ? "pod affinity"
                                                 : "pod anti-affinity";
  std::vector<std::pair<std::string, int32_t>> c;
  for (LabelValueId d : domains) c.emplace_back(in.ValueText(d), Count(d));
  std::sort(c.begin(), c.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < c.size() && i < 25; ++i)
    parts.push_back(absl::StrCat(c[i].first, ":", c[i].second));
  if (c.size() > 25)
    parts.push_back(absl::StrCat("and ", c.size() - 25, " others"));
  return absl::StrCat("unsatisfiable topology constraint for ", t,
                      ", key=", in.KeyText(key), " (counts = {",
                      absl::StrJoin(parts, ", "),
                      "}, podDomains = ", pod_domains.String(in),
                      ", nodeDomains = ", node_domains.String(in), ")");
}

}  // namespace nodeplan::scheduling
