// Rules spread, affinity and anti-affinity.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/labels.h"
#include "verify/verifier.h"

namespace nodeplan::verify_internal {

const std::optional<std::set<std::string>>& Verifier::DomainsOf(
    int site, const std::string& key) {
  auto cached = domains_cache_.find({site, key});
  if (cached != domains_cache_.end()) return cached->second;
  std::optional<std::set<std::string>> out = std::set<std::string>{};
  for (const OptionView& view : sites_[site].views) {
    auto values = verify_internal::Lookup(view.Labels(), key).PresentValues();
    if (!values) {
      out.reset();
      break;
    }
    out->insert(values->begin(), values->end());
  }
  return domains_cache_.emplace(std::make_pair(site, key), std::move(out))
      .first->second;
}

std::optional<std::string> Verifier::PinnedDomain(int site,
                                                  const std::string& key) {
  const auto& d = DomainsOf(site, key);
  if (d && d->size() == 1) return *d->begin();
  return std::nullopt;
}

const std::set<std::string>& Verifier::CatalogDomains(const std::string& key) {
  auto it = catalog_domains_.find(key);
  if (it != catalog_domains_.end()) return it->second;
  std::set<std::string> values;
  // Karpenter's buildDomainGroups reads each NodePool's template
  // requirements and labels and its instance types' requirements; the
  // karpenter.sh/nodepool label its NodeClaims get is none of these, so a
  // NodePool's name is a domain only once a node carries it (or a template
  // names it: an In requirement's values, any requirement's values when the
  // NodePool has instance types, as Requirement.Values lists a NotIn's).
  if (key == labels::kNodePool) {
    for (const auto& pool : request_.node_pools()) {
      const auto& tmpl = pool.spec().template_();
      if (auto it = tmpl.metadata().labels().find(key);
          it != tmpl.metadata().labels().end())
        values.insert(it->second);
      const v1::Catalog* catalog = PoolCatalog(pool);
      const bool has_types =
          catalog != nullptr && catalog->instance_types_size() > 0;
      for (const auto& r : tmpl.spec().requirements())
        if (r.key() == key && (r.operator_() == "In" || has_types))
          values.insert(r.values().begin(), r.values().end());
    }
    return catalog_domains_.emplace(key, std::move(values)).first->second;
  }
  for (const auto& pool : request_.node_pools()) {
    const v1::Catalog* catalog = PoolCatalog(pool);
    if (catalog == nullptr) continue;
    for (const auto& type : catalog->instance_types()) {
      std::string why;
      const OptionLabelSet labels =
          OptionLabels(pool, type, ClaimRequirements{}, &why);
      if (!labels) continue;
      const LabelLookup lookup(*labels.base, labels.overlay.get(), nullptr);
      auto present = verify_internal::Lookup(lookup, key).PresentValues();
      if (present) values.insert(present->begin(), present->end());
    }
  }
  return catalog_domains_.emplace(key, std::move(values)).first->second;
}

bool Verifier::PodExprsAllowValue(const PodFacts& pod,
                                  const std::vector<Expr>& term,
                                  const std::string& key,
                                  const std::string& value) {
  const Domain d = Domain::Fixed(value);
  for (const Expr& e : pod.node_selector) {
    if (e.key == key && !d.Possibly(e)) return false;
  }
  for (const Expr& e : term) {
    if (e.key == key && !d.Possibly(e)) return false;
  }
  return true;
}

bool Verifier::SiteMatchesPodFilter(const PodFacts& pod, int site) {
  for (const OptionView& view : sites_[site].views) {
    if (!verify_internal::PodFitsDefinitely(pod, view.Labels())) return false;
  }
  return true;
}

bool Verifier::SiteTolerated(const PodFacts& pod, int site) {
  for (const auto& t : sites_[site].hard_taints) {
    if (!verify_internal::Tolerates(pod.tolerations, t)) return false;
  }
  return true;
}

void Verifier::CheckSpread() {
  struct Group {
    std::vector<int> owners;
    const v1::TopologySpreadConstraint* constraint = nullptr;
    v1::LabelSelector selector;
    int owner_example = -1;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < pods_.size(); ++i) {
    const PodEntry& entry = pods_[i];
    if (!entry.pending || entry.site < 0) continue;
    for (const auto& c : entry.facts.spec->topology_spread_constraints()) {
      if (c.when_unsatisfiable() != "DoNotSchedule" &&
          !c.when_unsatisfiable().empty()) {
        continue;
      }
      if (!c.has_label_selector()) continue;
      v1::LabelSelector selector = c.label_selector();
      for (const auto& key : c.match_label_keys()) {
        auto it = entry.facts.labels.find(key);
        if (it == entry.facts.labels.end()) continue;
        auto* e = selector.add_match_expressions();
        e->set_key(key);
        e->set_operator_("In");
        e->add_values(it->second);
      }
      v1::TopologySpreadConstraint without_keys = c;
      without_keys.clear_match_label_keys();
      *without_keys.mutable_label_selector() = selector;
      v1::PodSpec filter;
      *filter.mutable_node_selector() = entry.facts.spec->node_selector();
      *filter.mutable_affinity()
           ->mutable_node_affinity()
           ->mutable_required_during_scheduling_ignored_during_execution() =
          entry.facts.spec->affinity()
              .node_affinity()
              .required_during_scheduling_ignored_during_execution();
      *filter.mutable_tolerations() = entry.facts.spec->tolerations();
      const std::string signature =
          absl::StrCat(entry.facts.ns, "\n", DeterministicBytes(without_keys),
                       "\n", DeterministicBytes(filter));
      Group& g = groups[signature];
      if (g.owners.empty()) {
        g.constraint = &c;
        g.selector = selector;
        g.owner_example = static_cast<int>(i);
      }
      g.owners.push_back(static_cast<int>(i));
    }
  }
  for (const auto& [signature, g] : groups)
    CheckSpreadGroup(g.owners, *g.constraint, g.selector, g.owner_example);
}

void Verifier::CheckSpreadGroup(const std::vector<int>& owners,
                                const v1::TopologySpreadConstraint& c,
                                const v1::LabelSelector& selector,
                                int example) {
  const PodFacts& owner = pods_[example].facts;
  const std::string key = verify_internal::NormalizeKey(c.topology_key());
  const bool honor_affinity = c.node_affinity_policy() != "Ignore";
  const bool honor_taints = c.node_taints_policy() == "Honor";
  const bool hostname = key == labels::kHostname;
  auto selected = [&](const PodFacts& pod) {
    return pod.ns == owner.ns &&
           verify_internal::SelectorMatches(selector, pod.labels);
  };
  auto site_counts = [&](int site) {
    if (honor_affinity && !SiteMatchesPodFilter(owner, site)) return false;
    if (honor_taints && !SiteTolerated(owner, site)) return false;
    return true;
  };
  // existing(d): bound pods on counted existing nodes; all(d): plus every
  // selected new pod on a node pinned to d (never fewer than Karpenter
  // counted when it placed any of them).
  std::map<std::string, Amount> existing, all, owners_in;
  std::set<std::string> universe;
  for (size_t s = 0; s < sites_.size(); ++s) {
    const Site& site = sites_[s];
    if (site.kind == SiteKind::kNew) {
      if (auto d = DomainsOf(static_cast<int>(s), key)) {
        universe.insert(d->begin(), d->end());
      }
      continue;
    }
    if (!site_counts(static_cast<int>(s))) continue;
    auto d = PinnedDomain(static_cast<int>(s), key);
    if (!d) continue;
    universe.insert(*d);
    for (int b : site.bound) {
      if (!pods_[b].terminating && selected(pods_[b].facts)) {
        ++existing[*d];
        ++all[*d];
      }
    }
  }
  for (size_t i = 0; i < pods_.size(); ++i) {
    if (!pods_[i].pending || pods_[i].site < 0) continue;
    if (!selected(pods_[i].facts)) continue;
    if (auto d = PinnedDomain(pods_[i].site, key)) ++all[*d];
  }
  std::set<int> owner_set(owners.begin(), owners.end());
  for (int o : owners) {
    if (!selected(pods_[o].facts)) continue;
    if (auto d = PinnedDomain(pods_[o].site, key)) ++owners_in[*d];
  }
  Amount minimum = 0;
  std::string min_domain;
  if (!hostname) {
    const std::set<std::string>& catalog = CatalogDomains(key);
    universe.insert(catalog.begin(), catalog.end());
    // Under relaxation Karpenter may use any one of the pod's required
    // terms; the largest per-term minimum is never above the one it used.
    std::vector<std::vector<Expr>> terms = owner.required_terms;
    if (terms.empty()) terms.push_back({});
    bool any = false;
    for (const auto& term : terms) {
      std::vector<std::string> eligible;
      for (const auto& v : universe) {
        if (!honor_affinity || PodExprsAllowValue(owner, term, key, v)) {
          eligible.push_back(v);
        }
      }
      if (eligible.empty()) continue;
      Amount term_min = -1;
      std::string term_domain;
      for (const auto& v : eligible) {
        auto it = all.find(v);
        const Amount n = it == all.end() ? 0 : it->second;
        if (term_min < 0 || n < term_min) {
          term_min = n;
          term_domain = v;
        }
      }
      if (c.has_min_domains() &&
          static_cast<int64_t>(eligible.size()) < c.min_domains()) {
        term_min = 0;
      }
      if (!any || term_min > minimum) {
        minimum = term_min;
        min_domain = term_domain;
      }
      any = true;
    }
    if (!any) return;
  }
  std::set<std::string> reported;
  for (int o : owners) {
    const auto& domains = DomainsOf(pods_[o].site, key);
    if (!domains) continue;
    const std::string subject = "pod " + pods_[o].facts.key;
    if (domains->empty()) {
      Add("topology-spread", subject,
          absl::StrCat("on ", sites_[pods_[o].site].subject, " which has no ",
                       key, " label"));
      continue;
    }
    const bool self = selected(pods_[o].facts);
    const bool pinned = domains->size() == 1;
    for (const auto& d : *domains) {
      auto e = existing.find(d);
      auto m = owners_in.find(d);
      const Amount count = (e == existing.end() ? 0 : e->second) +
                           (m == owners_in.end() ? 0 : m->second) +
                           (!pinned && self ? 1 : 0);
      if (count - minimum <= c.max_skew()) continue;
      if (pinned && !reported.insert(d).second) continue;
      Add("topology-spread", subject,
          absl::StrCat(
              key, " maxSkew ", c.max_skew(), ": domain ", d,
              " holds at least ", static_cast<int64_t>(count),
              " selected pods, ",
              hostname ? std::string("more than maxSkew")
                       : absl::StrCat("while domain ", min_domain, " holds ",
                                      static_cast<int64_t>(minimum))));
    }
  }
}

const std::map<std::string, std::map<std::string, std::string>>&
Verifier::NamespaceLabels() {
  if (namespace_labels_.empty()) {
    for (const auto& ns : request_.namespaces()) {
      if (ns.metadata().name().empty()) continue;
      namespace_labels_.emplace(
          ns.metadata().name(),
          std::map<std::string, std::string>(ns.metadata().labels().begin(),
                                             ns.metadata().labels().end()));
    }
    for (const PodEntry& pod : pods_) namespace_labels_[pod.facts.ns];
    for (auto& [name, labels] : namespace_labels_) {
      labels[nodeplan::labels::kNamespaceName] = name;
    }
  }
  return namespace_labels_;
}

namespace {

// The term as the API server stores it after admission: for each key of
// matchLabelKeys (mismatchLabelKeys) the owner carries, `key In [value]`
// (`key NotIn [value]`) joins the label selector. Written apart from the
// scheduler's merge on purpose.
v1::PodAffinityTerm AdmittedTerm(
    const v1::PodAffinityTerm& term,
    const std::map<std::string, std::string>& owner_labels) {
  v1::PodAffinityTerm out = term;
  if (!out.has_label_selector()) return out;
  for (const auto& [keys, op] :
       {std::pair{&term.match_label_keys(), "In"},
        std::pair{&term.mismatch_label_keys(), "NotIn"}}) {
    for (const std::string& key : *keys) {
      auto value = owner_labels.find(key);
      if (value == owner_labels.end()) continue;
      auto* e = out.mutable_label_selector()->add_match_expressions();
      e->set_key(key);
      e->set_operator_(op);
      e->add_values(value->second);
    }
  }
  return out;
}

}  // namespace

std::vector<int> Verifier::MatchingPods(const v1::PodAffinityTerm& term,
                                        const PodFacts& owner) {
  std::set<std::string> namespaces(term.namespaces().begin(),
                                   term.namespaces().end());
  if (term.has_namespace_selector()) {
    for (const auto& [name, labels] : NamespaceLabels()) {
      if (verify_internal::SelectorMatches(term.namespace_selector(), labels)) {
        namespaces.insert(name);
      }
    }
  } else if (namespaces.empty()) {
    namespaces.insert(owner.ns);
  }
  std::vector<int> out;
  if (!term.has_label_selector()) return out;
  for (size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i].site < 0) continue;
    const PodFacts& pod = pods_[i].facts;
    if (namespaces.count(pod.ns) == 0) continue;
    if (!verify_internal::SelectorMatches(term.label_selector(), pod.labels)) {
      continue;
    }
    out.push_back(static_cast<int>(i));
  }
  return out;
}

void Verifier::CheckAffinity() {
  std::map<std::string, std::vector<int>> cache;
  for (size_t i = 0; i < pods_.size(); ++i) {
    const PodEntry& entry = pods_[i];
    if (!entry.pending || entry.site < 0) continue;
    for (const auto& written :
         entry.facts.spec->affinity()
             .pod_affinity()
             .required_during_scheduling_ignored_during_execution()) {
      const v1::PodAffinityTerm term =
          AdmittedTerm(written, entry.facts.labels);
      const std::string key =
          verify_internal::NormalizeKey(term.topology_key());
      const std::string cache_key =
          absl::StrCat(entry.facts.ns, "\n", DeterministicBytes(term));
      auto it = cache.find(cache_key);
      if (it == cache.end()) {
        it = cache.emplace(cache_key, MatchingPods(term, entry.facts)).first;
      }
      const std::vector<int>& matches = it->second;
      const auto& domains = DomainsOf(entry.site, key);
      if (!domains) continue;
      const std::string subject = "pod " + entry.facts.key;
      if (domains->empty()) {
        Add("pod-affinity", subject,
            absl::StrCat("on ", sites_[entry.site].subject, " which has no ",
                         key, " label"));
        continue;
      }
      // The node-affinity terms Karpenter could have been scheduling with
      // when it put the pod here: relaxation drops required terms front to
      // back, so the term in force is one this site can satisfy (a pod
      // whose first term fits nowhere bootstraps its affinity under the
      // next one). None satisfiable is another rule's violation: keep all.
      std::vector<std::vector<Expr>> live_terms;
      for (const auto& t : entry.facts.required_terms) {
        std::vector<Expr> all = entry.facts.node_selector;
        all.insert(all.end(), t.begin(), t.end());
        for (const OptionView& view : sites_[entry.site].views) {
          if (verify_internal::AllPossibly(view.Labels(), all)) {
            live_terms.push_back(t);
            break;
          }
        }
      }
      if (live_terms.empty()) live_terms = entry.facts.required_terms;
      if (live_terms.empty()) live_terms.push_back({});
      // Domains (pinned) holding a matching pod other than this one.
      std::set<std::string> occupied;
      bool self_matches = false;
      // Per live term: whether a bound matching pod sits in a domain that
      // term allows. Karpenter lets a self-selecting pod start a domain only
      // when no matching pod counts in the domains its own requirements
      // (under the term in force) allow, so one live term without such a
      // pod is enough (Karpenter's nextDomainAffinity).
      std::vector<char> term_blocked(live_terms.size(), 0);
      for (int m : matches) {
        if (m == static_cast<int>(i)) {
          self_matches = true;
          continue;
        }
        if (pods_[m].terminating) continue;
        if (auto d = PinnedDomain(pods_[m].site, key)) {
          occupied.insert(*d);
          if (!pods_[m].pending) {
            for (size_t t = 0; t < live_terms.size(); ++t) {
              if (PodExprsAllowValue(entry.facts, live_terms[t], key, *d)) {
                term_blocked[t] = 1;
              }
            }
          }
        }
      }
      const bool may_start_domain =
          self_matches && domains->size() == 1 &&
          std::find(term_blocked.begin(), term_blocked.end(), 0) !=
              term_blocked.end();
      for (const auto& d : *domains) {
        if (occupied.count(d)) continue;
        if (may_start_domain) continue;  // this pod may have started it
        Add("pod-affinity", subject,
            absl::StrCat(key, " ", d, " on ", sites_[entry.site].subject,
                         " holds no other pod matching the required "
                         "affinity term"));
      }
    }
  }
}

void Verifier::CheckAntiAffinity() {
  std::set<std::tuple<int, int, std::string>> reported;
  std::map<std::string, std::vector<int>> matches;
  for (size_t i = 0; i < pods_.size(); ++i) {
    const PodEntry& owner = pods_[i];
    if (owner.site < 0) continue;
    for (const auto& written :
         owner.facts.spec->affinity()
             .pod_anti_affinity()
             .required_during_scheduling_ignored_during_execution()) {
      const v1::PodAffinityTerm term =
          AdmittedTerm(written, owner.facts.labels);
      const std::string key =
          verify_internal::NormalizeKey(term.topology_key());
      // A bound pod's term counts where its node's labels put it
      // (Karpenter's updateInverseAntiAffinity reads node.Labels): on a
      // node without a hostname label, nowhere for the hostname key.
      if (!owner.pending && key == labels::kHostname &&
          sites_[owner.site].hostname_from_name)
        continue;
      const auto& owner_domains = DomainsOf(owner.site, key);
      if (!owner_domains || owner_domains->empty()) continue;
      const std::string cache_key =
          absl::StrCat(owner.facts.ns, "\n", DeterministicBytes(term));
      auto cached = matches.find(cache_key);
      if (cached == matches.end()) {
        cached =
            matches.emplace(cache_key, MatchingPods(term, owner.facts)).first;
      }
      for (int m : cached->second) {
        if (m == static_cast<int>(i)) continue;
        if (!owner.pending && !pods_[m].pending)
          continue;  // not the plan's doing
        // A pod being deleted no longer counts against a pending pod's
        // anti-affinity, but its own anti-affinity still holds.
        if (owner.pending && pods_[m].terminating) continue;
        const auto& other = DomainsOf(pods_[m].site, key);
        if (!other) continue;
        std::vector<std::string> shared;
        std::set_intersection(owner_domains->begin(), owner_domains->end(),
                              other->begin(), other->end(),
                              std::back_inserter(shared));
        if (shared.empty()) continue;
        const int a = std::min<int>(static_cast<int>(i), m);
        const int b = std::max<int>(static_cast<int>(i), m);
        if (!reported.insert({a, b, key}).second) continue;
        const PodEntry& victim = owner.pending ? owner : pods_[m];
        const PodEntry& other_pod = owner.pending ? pods_[m] : owner;
        Add("pod-anti-affinity", "pod " + victim.facts.key,
            absl::StrCat("shares ", key, " ", absl::StrJoin(shared, ","),
                         " with pod ", other_pod.facts.key,
                         " (required anti-affinity of ", owner.facts.key, "; ",
                         sites_[victim.site].subject, " vs ",
                         sites_[other_pod.site].subject, ")"));
      }
    }
  }
}

}  // namespace nodeplan::verify_internal
