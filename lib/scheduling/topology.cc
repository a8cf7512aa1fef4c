#include "scheduling/topology.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/labels.h"

namespace nodeplan::scheduling {
namespace {

Req DoesNotExist(Id key) {
  Req r;
  r.key = key;
  r.complement = false;
  return r;
}

void InsertSorted(Req& r, Id v) {
  auto it = std::lower_bound(r.values.begin(), r.values.end(), v);
  if (it == r.values.end() || *it != v) r.values.insert(it, v);
}

}  // namespace

bool NodeFilter::Matches(const std::vector<v1::Taint>& taints, const Reqs& reqs,
                         const WellKnown* allow, const Interner& in) const {
  if (!active) return true;
  if (honor_affinity && !alternatives.empty()) {
    bool any = false;
    for (const Reqs& alt : alternatives)
      if (Compatible(reqs, alt, allow, in, nullptr)) {
        any = true;
        break;
      }
    if (!any) return false;
  }
  if (honor_taints && !Tolerates(taints, tolerations, nullptr)) return false;
  return true;
}

bool TopologyGroup::Selects(Id ns, const Labels& labels) const {
  if (!std::binary_search(namespaces.begin(), namespaces.end(), ns))
    return false;
  return selector.Matches(labels);
}

void TopologyGroup::Register(Id domain) {
  if (counts.emplace(domain, 0).second) {
    domains.push_back(domain);
    ++empty;
  }
}

void TopologyGroup::RecordDomain(Id domain) {
  auto [it, inserted] = counts.emplace(domain, 0);
  if (inserted) {
    domains.push_back(domain);
    ++empty;
  }
  if (it->second == 0) --empty;
  ++it->second;
}

Req TopologyGroup::Next(Id ns, const Labels& labels, const Req& pod_domains,
                        const Req& node_domains, const Interner& in) const {
  const bool hostname_single = !node_domains.complement &&
                               node_domains.values.size() == 1 &&
                               in.Str(key) == labels::kHostname;
  const bool self = Selects(ns, labels);
  Req out = DoesNotExist(key);
  auto better = [&](Id a, int32_t ca, Id b, int32_t cb) {
    if (b == kNoId) return true;
    if (ca != cb) return ca < cb;
    return in.Str(a) < in.Str(b);
  };
  switch (type) {
    case GroupType::kSpread: {
      if (hostname_single) {
        Id host = node_domains.values[0];
        int32_t c = Count(host) + (self ? 1 : 0);
        if (c <= max_skew) out.values.push_back(host);
        return out;
      }
      // Global minimum over the domains the pod supports.
      int32_t min = std::numeric_limits<int32_t>::max();
      if (in.Str(key) == labels::kHostname) {
        min = 0;
      } else {
        int32_t supported = 0;
        for (Id d : domains)
          if (Has(pod_domains, d, in)) {
            ++supported;
            min = std::min(min, Count(d));
          }
        if (min_domains >= 0 && supported < min_domains) min = 0;
      }
      Id best = kNoId;
      int32_t best_count = 0;
      auto consider = [&](Id d) {
        auto it = counts.find(d);
        if (it == counts.end()) return;
        int32_t c = it->second + (self ? 1 : 0);
        if (static_cast<int64_t>(c) - min <= max_skew &&
            better(d, c, best, best_count)) {
          best = d;
          best_count = c;
        }
      };
      if (!node_domains.complement) {
        for (Id d : node_domains.values) consider(d);
      } else {
        for (Id d : domains)
          if (Has(node_domains, d, in)) consider(d);
      }
      if (best != kNoId) out.values.push_back(best);
      return out;
    }
    case GroupType::kAffinity: {
      auto any_compatible = [&]() {
        for (Id d : domains)
          if (Has(pod_domains, d, in) && Count(d) > 0) return true;
        return false;
      };
      auto bootstrap = [&]() {
        return self && (static_cast<int32_t>(domains.size()) == empty ||
                        !any_compatible());
      };
      if (hostname_single) {
        Id host = node_domains.values[0];
        if (!Has(pod_domains, host, in)) return out;
        if (Count(host) > 0 || bootstrap()) out.values.push_back(host);
        return out;
      }
      if (!node_domains.complement) {
        for (Id d : node_domains.values)
          if (Has(pod_domains, d, in) && Count(d) > 0) InsertSorted(out, d);
      } else {
        for (Id d : domains)
          if (Has(pod_domains, d, in) && Count(d) > 0 &&
              Has(node_domains, d, in))
            InsertSorted(out, d);
      }
      if (!out.values.empty() || !bootstrap()) return out;
      Id first_both = kNoId, first_pod = kNoId;
      for (Id d : domains) {
        if (Has(pod_domains, d, in) && Has(node_domains, d, in) &&
            (first_both == kNoId || in.Str(d) < in.Str(first_both)))
          first_both = d;
        if (Has(pod_domains, d, in) &&
            (first_pod == kNoId || in.Str(d) < in.Str(first_pod)))
          first_pod = d;
      }
      if (first_both != kNoId) InsertSorted(out, first_both);
      if (first_pod != kNoId) InsertSorted(out, first_pod);
      return out;
    }
    case GroupType::kAntiAffinity: {
      if (hostname_single) {
        Id host = node_domains.values[0];
        if (Count(host) == 0) out.values.push_back(host);
        return out;
      }
      if (!node_domains.complement) {
        for (Id d : node_domains.values) {
          auto it = counts.find(d);
          if (it != counts.end() && it->second == 0 && Has(pod_domains, d, in))
            InsertSorted(out, d);
        }
      } else {
        for (Id d : domains)
          if (Count(d) == 0 && Has(node_domains, d, in) &&
              Has(pod_domains, d, in))
            InsertSorted(out, d);
      }
      return out;
    }
  }
  return out;
}

std::string TopologyGroup::Describe(const Interner& in, const Req& pod_domains,
                                    const Req& node_domains) const {
  const char* t = type == GroupType::kSpread     ? "topology spread"
                  : type == GroupType::kAffinity ? "pod affinity"
                                                 : "pod anti-affinity";
  std::vector<std::pair<std::string, int32_t>> c;
  for (Id d : domains) c.emplace_back(in.Str(d), Count(d));
  std::sort(c.begin(), c.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < c.size() && i < 25; ++i)
    parts.push_back(absl::StrCat(c[i].first, ":", c[i].second));
  if (c.size() > 25)
    parts.push_back(absl::StrCat("and ", c.size() - 25, " others"));
  return absl::StrCat("unsatisfiable topology constraint for ", t,
                      ", key=", in.Str(key), " (counts = {",
                      absl::StrJoin(parts, ", "),
                      "}, podDomains = ", ReqString(pod_domains, in),
                      ", nodeDomains = ", ReqString(node_domains, in), ")");
}

}  // namespace nodeplan::scheduling
