// Round views: a pod class at each relaxation level, and the topology groups
// (spread, affinity, anti-affinity) its constraints belong to.

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/taints.h"
#include "scheduling/round.h"

namespace nodeplan::scheduling {

namespace {

// of a list hashed as a set by XOR, where equal entries cancel in pairs.
std::vector<std::string> OddOnes(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    if ((j - i) % 2 == 1) out.push_back(v[i]);
    i = j;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Views and relaxation

bool Round::Relax(const PodClass& cls, RelaxState& s) const {
  if (static_cast<int>(cls.required_terms.size()) - s.req_dropped > 1) {
    ++s.req_dropped;
    return true;
  }
  if (s.aff_dropped < static_cast<int>(cls.pref_affinity.size())) {
    ++s.aff_dropped;
    return true;
  }
  if (s.anti_dropped < static_cast<int>(cls.pref_anti.size())) {
    ++s.anti_dropped;
    return true;
  }
  if (s.node_dropped < static_cast<int>(cls.preferred_node.size())) {
    ++s.node_dropped;
    return true;
  }
  if (s.anyway_dropped < cls.anyway_spreads) {
    ++s.anyway_dropped;
    return true;
  }
  if (any_pns_taint_ && !s.pns) {
    for (const auto& t : cls.tolerations)
      if (IsPreferNoScheduleToleration(t)) return false;
    s.pns = true;
    return true;
  }
  return false;
}

const View* Round::GetView(int ci, int level) {
  ClassState& cs = classes_[ci];
  if (cs.levels.empty()) cs.levels.push_back(RelaxState{});
  while (static_cast<int>(cs.levels.size()) <= level) {
    RelaxState next = cs.levels.back();
    if (!Relax(cs.cls, next)) return nullptr;
    cs.levels.push_back(next);
  }
  if (static_cast<int>(cs.views.size()) <= level) cs.views.resize(level + 1);
  if (cs.views[level]) return cs.views[level].get();
  const PodClass& cls = cs.cls;
  const RelaxState& s = cs.levels[level];
  auto v = std::make_unique<View>();
  v->strict = cls.node_selector;
  if (static_cast<int>(cls.required_terms.size()) > s.req_dropped)
    v->strict.Add(cls.required_terms[s.req_dropped]);
  v->reqs = v->strict;
  if (!opt_.ignore_preferences &&
      static_cast<int>(cls.preferred_node.size()) > s.node_dropped)
    v->reqs.Add(cls.preferred_node[s.node_dropped].second);
  v->tols = cls.tolerations;
  if (s.pns) v->tols.push_back(PreferNoScheduleToleration());
  // Topology groups the pod owns at this relaxation level.
  const std::vector<int>& spread_groups = SpreadGroups(cs, s, v->tols);
  for (int g : spread_groups)
    if (g >= 0) v->groups.push_back(g);
  for (const auto& t : cls.req_affinity)
    v->groups.push_back(GroupFor(GroupType::kAffinity, t.topology_key(),
                                 cls.ns_id, &t, nullptr, cls, false));
  if (!opt_.ignore_preferences)
    for (size_t i = s.aff_dropped; i < cls.pref_affinity.size(); ++i)
      v->groups.push_back(GroupFor(
          GroupType::kAffinity, cls.pref_affinity[i].second.topology_key(),
          cls.ns_id, &cls.pref_affinity[i].second, nullptr, cls, false));
  for (const auto& t : cls.req_anti)
    v->groups.push_back(GroupFor(GroupType::kAntiAffinity, t.topology_key(),
                                 cls.ns_id, &t, nullptr, cls, false));
  if (!opt_.ignore_preferences)
    for (size_t i = s.anti_dropped; i < cls.pref_anti.size(); ++i)
      v->groups.push_back(GroupFor(
          GroupType::kAntiAffinity, cls.pref_anti[i].second.topology_key(),
          cls.ns_id, &cls.pref_anti[i].second, nullptr, cls, false));
  for (const auto& t : cls.req_anti)
    v->inverse.push_back(GroupFor(GroupType::kAntiAffinity, t.topology_key(),
                                  cls.ns_id, &t, nullptr, cls, true));
  for (int g : v->groups)
    if (groups_[g].type != GroupType::kAntiAffinity) v->monotone_filter = false;
  std::sort(v->groups.begin(), v->groups.end());
  v->groups.erase(std::unique(v->groups.begin(), v->groups.end()),
                  v->groups.end());
  std::sort(v->inverse.begin(), v->inverse.end());
  v->inverse.erase(std::unique(v->inverse.begin(), v->inverse.end()),
                   v->inverse.end());
  cs.views[level] = std::move(v);
  return cs.views[level].get();
}

// Karpenter drops ScheduleAnyway spreads one per step, the first one left,
// moving the last constraint into its slot (preferences.go
// removeTopologySpreadScheduleAnyway): with three or more, the order is not
// declaration order. The order and the groups carry over from one level to
// the next (a drop is a swap with the last entry), so each relaxation step
// costs time linear in the constraints, not quadratic or worse.
const std::vector<int>& Round::SpreadGroups(
    ClassState& cs, const RelaxState& s,
    const std::vector<v1::Toleration>& tols) {
  const PodClass& cls = cs.cls;
  SpreadOrder& so = cs.spread_order;
  if (!so.valid || so.dropped > s.anyway_dropped) {
    so.order.clear();
    for (const auto& t : cls.spreads) so.order.push_back(&t);
    so.dropped = 0;
    so.scan = 0;
    so.groups_valid = false;
    so.valid = true;
  }
  const bool keep_groups = so.groups_valid &&
                           so.groups_req_dropped == s.req_dropped &&
                           so.groups_pns == s.pns;
  if (!keep_groups) so.groups_valid = false;
  while (so.dropped < s.anyway_dropped) {
    while (so.scan < so.order.size() &&
           so.order[so.scan]->when_unsatisfiable() != "ScheduleAnyway")
      ++so.scan;
    if (so.scan == so.order.size()) break;
    so.order[so.scan] = so.order.back();
    so.order.pop_back();
    if (so.groups_valid) {
      so.groups[so.scan] = so.groups.back();
      so.groups.pop_back();
    }
    ++so.dropped;
  }
  if (!so.groups_valid) {
    so.groups.clear();
    for (const v1::TopologySpreadConstraint* t : so.order) {
      if (t->when_unsatisfiable() == "ScheduleAnyway" &&
          opt_.ignore_preferences) {
        so.groups.push_back(-1);
        continue;
      }
      so.groups.push_back(opt_.karpenter_spread_groups
                              ? GroupFor(GroupType::kSpread, t->topology_key(),
                                         cls.ns_id, nullptr, t, cls, false,
                                         s.req_dropped, &tols)
                              : GroupFor(GroupType::kSpread, t->topology_key(),
                                         cls.ns_id, nullptr, t, cls, false));
    }
    so.groups_valid = true;
    so.groups_req_dropped = s.req_dropped;
    so.groups_pns = s.pns;
  }
  return so.groups;
}

namespace {

// For each of `keys` the owner pod carries: `key <op> [its value]` added to
// `selector` (matchLabelKeys with In, mismatchLabelKeys with NotIn).
void MergeLabelKeys(const google::protobuf::RepeatedPtrField<std::string>& keys,
                    const char* op, const v1::Pod* owner,
                    v1::LabelSelector& selector) {
  if (owner == nullptr) return;
  for (const std::string& k : keys) {
    auto it = owner->metadata().labels().find(k);
    if (it == owner->metadata().labels().end()) continue;
    v1::LabelSelectorRequirement* e = selector.add_match_expressions();
    e->set_key(k);
    e->set_operator_(op);
    e->add_values(it->second);
  }
}

}  // namespace

int Round::GroupFor(GroupType type, const std::string& key_text,
                    LabelValueId ns_default, const v1::PodAffinityTerm* term,
                    const v1::TopologySpreadConstraint* tsc,
                    const PodClass& cls, bool inverse, size_t first_term,
                    const std::vector<v1::Toleration>* tols) {
  TopologyGroup g;
  g.type = type;
  g.key = in_.InternKey(key_text);
  g.inverse = inverse;
  v1::LabelSelector selector_copy;
  const v1::LabelSelector* selector = nullptr;
  std::string sig = absl::StrCat(static_cast<int>(type), inverse ? "I" : "",
                                 "|", key_text, "|");
  if (tsc != nullptr) {
    g.max_skew = tsc->max_skew();
    if (tsc->has_min_domains()) g.min_domains = tsc->min_domains();
    g.namespaces = {ns_default};
    if (tsc->has_label_selector()) {
      selector_copy = tsc->label_selector();
      // matchLabelKeys (Karpenter's topology.go applies them itself).
      MergeLabelKeys(tsc->match_label_keys(), "In", cls.example, selector_copy);
      selector = &selector_copy;
    }
    g.filter.active = true;
    g.filter.honor_taints = tsc->node_taints_policy() == "Honor";
    g.filter.honor_affinity = tsc->node_affinity_policy() != "Ignore";
    g.filter.tolerations = tols ? *tols : cls.tolerations;
    // Node filter: nodeSelector, ANDed with each required term (ORed) the
    // pod still has at its relaxation level.
    if (cls.required_terms.empty()) {
      g.filter.alternatives.push_back(cls.node_selector);
    } else {
      for (size_t i = first_term; i < cls.required_terms.size(); ++i) {
        Requirements r = cls.node_selector;
        r.Add(cls.required_terms[i]);
        g.filter.alternatives.push_back(std::move(r));
      }
    }
    absl::StrAppend(&sig, g.max_skew, "|", g.filter.honor_taints,
                    g.filter.honor_affinity, "|");
    if (tols == nullptr) {
      // One group per constraint: minDomains is part of it, so a pod's own
      // minDomains decides its global minimum. (Karpenter's hash leaves it
      // out, below: the pod that creates the group decides for all.)
      absl::StrAppend(&sig, "m", g.min_domains, "|");
      for (const Requirements& r : g.filter.alternatives)
        absl::StrAppend(&sig, r.String(in_), ";");
      if (g.filter.honor_taints)
        for (const auto& t : cls.tolerations)
          absl::StrAppend(&sig, t.key(), ",", t.operator_(), ",", t.value(),
                          ",", t.effect(), ";");
    } else {
      // spreadBookkeeping "Karpenter": Karpenter shares a spread group
      // between pods whose TopologyGroup.Hash (topologygroup.go) is equal.
      // That hash sees a requirement only through its exported fields, the
      // key (and minValues), and hashes the filter's terms and the
      // tolerations as sets by XOR, so identical entries cancel in pairs;
      // minDomains is not hashed at all, so the group keeps the minDomains
      // of the pod that created it (the first pending pod in input order:
      // NewTopology builds every pod's groups before the first placement).
      // The first pod's filter then serves the whole group, and a relaxation
      // that changes the terms or tolerations (dropping a required term,
      // tolerating PreferNoSchedule) moves the pod to another group that has
      // counted only the bound pods and the placements made since it was
      // created. (benchmarks/karpenter cases random-30, random-172,
      // random-593, random-710, random-757, random-861.)
      std::vector<std::string> key_sets, tol_set;
      for (const Requirements& r : g.filter.alternatives) {
        std::vector<std::string> keys;
        for (const Requirement& q : r) keys.emplace_back(in_.KeyText(q.key()));
        std::sort(keys.begin(), keys.end());
        key_sets.push_back(absl::StrJoin(keys, ","));
      }
      for (const auto& t : g.filter.tolerations)
        tol_set.push_back(absl::StrCat(t.key(), ",", t.operator_(), ",",
                                       t.value(), ",", t.effect()));
      absl::StrAppend(&sig, absl::StrJoin(OddOnes(key_sets), ";"), "|",
                      absl::StrJoin(OddOnes(tol_set), ";"), "|");
    }
  } else {
    g.max_skew = std::numeric_limits<int32_t>::max();
    if (term->has_label_selector()) {
      selector_copy = term->label_selector();
      // What the API server merges into the selector when it admits the pod
      // (MatchLabelKeysInPodAffinity, on by default since Kubernetes 1.31):
      // Karpenter reads the merged selector. Merging again a selector that
      // already went through the API server changes nothing.
      MergeLabelKeys(term->match_label_keys(), "In", cls.example,
                     selector_copy);
      MergeLabelKeys(term->mismatch_label_keys(), "NotIn", cls.example,
                     selector_copy);
      selector = &selector_copy;
    }
    for (const auto& x : Namespaces().Select(*term, cls.ns, in_))
      g.namespaces.push_back(in_.InternValue(x).id);
  }
  std::sort(g.namespaces.begin(), g.namespaces.end());
  for (LabelValueId x : g.namespaces)
    absl::StrAppend(&sig, in_.ValueText(x), ",");
  absl::StrAppend(&sig, "|", SelectorSignature(selector));
  auto it = group_index_.find(sig);
  if (it != group_index_.end()) return it->second;
  g.selector = CompileSelector(selector, in_);
  // Initial domains from the NodePools, those whose taints the pod creating
  // the group tolerates when taints are honoured. Pod affinity and
  // anti-affinity groups always honour them: their node filter is Karpenter's
  // zero value, whose empty taint policy is not "Ignore"
  // (topologydomaingroup.go ForEachDomain). So a zone anti-affinity of a pod
  // that does not tolerate the only NodePool's taint (even PreferNoSchedule,
  // before relaxation adds the toleration) has no zone to go to.
  // (benchmarks/karpenter cases random-568, random-861, random-924.)
  const bool honor_taints = tsc == nullptr || g.filter.honor_taints;
  const std::vector<v1::Toleration>& creator_tols =
      tsc != nullptr ? g.filter.tolerations : cls.tolerations;
  const DomainUniverse& universe =
      base_ != nullptr ? *base_->universe_ : *universe_;
  if (auto u = universe.find(g.key); u != universe.end()) {
    for (const auto& [domain, pools] : u->second) {
      bool ok = !honor_taints;
      for (int p : pools) {
        if (ok) break;
        if (Tolerates(c_.pools[p].taints, creator_tols, nullptr)) ok = true;
      }
      if (ok) g.Register(domain);
    }
  }
  CountDomains(g);
  int idx = static_cast<int>(groups_.size());
  groups_.push_back(std::move(g));
  group_index_.emplace(std::move(sig), idx);
  if (inverse) inverse_groups_.push_back(idx);
  return idx;
}

const std::vector<TopologyNode>& Round::TopologyNodes() {
  if (base_ != nullptr) return base_->topology_nodes_;
  if (!topology_nodes_built_) {
    topology_nodes_built_ = true;
    topology_nodes_.resize(req_.nodes_size());
    // A registered node's labels as requirements are what CompileExisting
    // built for it, when they name its hostname (it adds the hostname
    // requirement, which the labels then already hold): copied, not
    // interned a second time.
    std::vector<const Requirements*> compiled(req_.nodes_size(), nullptr);
    for (const ExistingNode& e : existing_nodes_)
      if (!e.is_claim && e.request_node >= 0)
        compiled[e.request_node] = &e.reqs;
    std::vector<std::pair<absl::string_view, absl::string_view>> labels;
    for (int i = 0; i < req_.nodes_size(); ++i) {
      const v1::Node& node = req_.nodes(i);
      TopologyNode& t = topology_nodes_[i];
      t.taints.assign(node.spec().taints().begin(), node.spec().taints().end());
      const auto& map = node.metadata().labels();
      if (compiled[i] != nullptr && map.contains(labels::kHostname)) {
        t.labels = *compiled[i];
        continue;
      }
      // In key order, so that new strings get ids in a stable order.
      labels.assign(map.begin(), map.end());
      std::sort(labels.begin(), labels.end());
      for (const auto& [k, v] : labels)
        t.labels.Add(Requirement::In(in_.InternKey(k), in_.InternValue(v)));
    }
  }
  return topology_nodes_;
}

namespace {

// The value of label `key` in `labels` (a node's labels as requirements).
LabelValueId SingleValue(const Requirements& labels, LabelKeyId key) {
  if (key == kNoId) return kNoId;
  const Requirement* r = labels.Find(key);
  return r == nullptr || r->complement() || r->values().size() != 1
             ? kNoId
             : r->values()[0].id;
}

}  // namespace

LabelValueId Round::NodeDomain(int node, LabelKeyId key, bool hostname) {
  LabelValueId domain = SingleValue(TopologyNodes()[node].labels, key);
  if (domain == kNoId && hostname)
    domain = in_.InternValue(req_.nodes(node).metadata().name()).id;
  return domain;
}

void Round::CountDomains(TopologyGroup& g) {
  if (g.inverse) return;
  const bool hostname = g.key == k_.hostname;
  const std::vector<TopologyNode>& nodes = TopologyNodes();
  for (int i = 0; i < req_.nodes_size(); ++i) {
    if (!node_removed_.empty() && node_removed_[i]) continue;
    if (!g.filter.Matches(nodes[i].taints, nodes[i].labels, nullptr)) continue;
    if (LabelValueId d = NodeDomain(i, g.key, hostname); d != kNoId)
      g.Register(d);
  }
  for (const auto& e : existing_)
    if (e.node->is_claim && hostname) g.Register(e.node->hostname.id);
  // The bound pods' labels are the compiled cluster's to give; without
  // them this round cannot count (SetupSimulation and ClusterModel::Simulate
  // report it Unavailable).
  if (const Round& owner = base_ != nullptr ? *base_ : *this;
      owner.bound_labels_skipped_ && !owner.bound_.empty()) {
    needed_skipped_labels_ = true;
    return;
  }
  ForEachBound([&](const BoundPod& b) {
    if (b.node < 0 || b.terminating) return;
    if (!std::binary_search(g.namespaces.begin(), g.namespaces.end(), b.ns))
      return;
    if (!g.selector.Matches(b.labels)) return;
    LabelValueId domain = NodeDomain(b.node, g.key, hostname);
    if (domain == kNoId) return;
    if (!g.filter.Matches(nodes[b.node].taints, nodes[b.node].labels, nullptr))
      return;
    g.RecordDomain(domain);
  });
}

}  // namespace nodeplan::scheduling
