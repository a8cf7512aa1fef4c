#include "disruption/render.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "disruption/pod_rules.h"
#include "disruption/pricing.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "nodeplan/quantity.h"

namespace nodeplan::disruption {
namespace {

// Requests of the pods still running on `node` as a quantity map: those
// not terminal, whose requests parse (summed once by the view).
void SetRequests(const ClusterView& view, const NodeView& node,
                 google::protobuf::Map<std::string, std::string>* out) {
  const ResourceVector& sum = node.requests;
  for (Resource r :
       {Resource::kCpu, Resource::kMemory, Resource::kEphemeralStorage}) {
    if (sum.Present(r) && sum.Get(r) != 0) {
      (*out)[std::string(ResourceName(r))] =
          ResourceQuantityText(ResourceName(r), sum.Get(r), false);
    }
  }
  for (const ResourceVector::Extended& e : sum.extended()) {
    if (e.milli == 0) continue;
    const std::string name(view.pod_resource_names().KeyText(e.name));
    (*out)[name] = ResourceQuantityText(name, e.milli, true);
  }
}

void SetAllocatable(const ClusterView& view, const CompiledInstanceType& t,
                    v1::NewNodeClaim* out) {
  auto& la = *out->mutable_launch_allocatable();
  la.clear();
  const ResourceVector& a = t.allocatable;
  for (Resource r : {Resource::kCpu, Resource::kMemory, Resource::kPods,
                     Resource::kEphemeralStorage}) {
    if (a.Present(r) && a.Get(r) != 0) {
      la[std::string(ResourceName(r))] =
          ResourceQuantityText(ResourceName(r), a.Get(r), false);
    }
  }
  for (const ResourceVector::Extended& e : a.extended()) {
    if (e.milli == 0) continue;
    const std::string name(view.interner().KeyText(e.name));
    la[name] = ResourceQuantityText(name, e.milli, true);
  }
}

v1::NodeSelectorRequirement* FindRequirement(v1::NodeClaim* nc,
                                             absl::string_view key) {
  for (v1::NodeSelectorRequirement& r :
       *nc->mutable_spec()->mutable_requirements()) {
    if (r.key() == key) return &r;
  }
  return nullptr;
}

// Inserts a requirement keeping the scheduler's key order.
v1::NodeSelectorRequirement* AddRequirement(v1::NodeClaim* nc,
                                            absl::string_view key) {
  auto* reqs = nc->mutable_spec()->mutable_requirements();
  reqs->Add()->set_key(std::string(key));
  for (int i = reqs->size() - 1; i > 0 && reqs->Get(i - 1).key() > key; --i) {
    reqs->SwapElements(i, i - 1);
  }
  return FindRequirement(nc, key);
}

// A replacement from the NodePool's template (static drift).
v1::NewNodeClaim TemplateReplacement(const PoolView& pool) {
  v1::NewNodeClaim out;
  out.set_node_pool(pool.name);
  v1::NodeClaim& nc = *out.mutable_node_claim();
  nc.set_api_version("karpenter.sh/v1");
  nc.set_kind("NodeClaim");
  const v1::NodeClaimTemplate& tmpl = pool.proto->spec().template_();
  v1::ObjectMeta& md = *nc.mutable_metadata();
  md.set_generate_name(absl::StrCat(pool.name, "-"));
  for (const auto& [k, v] : tmpl.metadata().labels())
    (*md.mutable_labels())[k] = v;
  (*md.mutable_labels())[labels::kNodePool] = pool.name;
  for (const auto& [k, v] : tmpl.metadata().annotations()) {
    (*md.mutable_annotations())[k] = v;
  }
  (*md.mutable_annotations())[labels::kNodePoolHashAnnotation] = pool.hash;
  (*md.mutable_annotations())[labels::kNodePoolHashVersionAnnotation] =
      kNodePoolHashVersion;
  v1::OwnerReference* owner = md.add_owner_references();
  owner->set_api_version("karpenter.sh/v1");
  owner->set_kind("NodePool");
  owner->set_name(pool.name);
  owner->set_uid(pool.proto->metadata().uid());
  owner->set_block_owner_deletion(true);
  v1::NodeClaimSpec& spec = *nc.mutable_spec();
  *spec.mutable_taints() = tmpl.spec().taints();
  *spec.mutable_startup_taints() = tmpl.spec().startup_taints();
  *spec.mutable_requirements() = tmpl.spec().requirements();
  v1::NodeSelectorRequirement* np = spec.add_requirements();
  np->set_key(labels::kNodePool);
  np->set_operator_("In");
  np->add_values(pool.name);
  *spec.mutable_node_class_ref() = tmpl.spec().node_class_ref();
  spec.set_expire_after(
      tmpl.spec().expire_after().empty() ? "720h" : tmpl.spec().expire_after());
  spec.set_termination_grace_period(tmpl.spec().termination_grace_period());
  return out;
}

// The node's identity and offering, shared by CommandCandidate and
// NodeCandidacy.
template <typename Out>
void SetNodeFields(const NodeView& n, Out* out) {
  out->set_node(n.node != nullptr ? n.node->metadata().name() : "");
  out->set_node_claim(n.claim != nullptr ? n.claim->metadata().name() : "");
  out->set_node_pool(n.pool_label);
  out->set_instance_type(n.instance_type_name);
  out->set_zone(n.zone);
  out->set_capacity_type(n.capacity_type);
  out->set_price(n.price);
}

}  // namespace

v1::CommandCandidate RenderCandidate(const ClusterView& view,
                                     const Candidate& c) {
  v1::CommandCandidate out;
  SetNodeFields(view.nodes()[c.node], &out);
  out.set_price(c.price);
  out.set_disruption_cost(c.disruption_cost);
  for (int p : c.reschedulable) out.add_pods(std::string(view.pods()[p].key));
  return out;
}

v1::DisruptionCommand RenderCommand(ClusterView& view, const Command& cmd,
                                    bool indexed) {
  v1::DisruptionCommand out;
  out.set_method(MethodName(cmd.method));
  out.set_reason(ReasonName(MethodReason(cmd.method)));
  out.set_decision(cmd.is_delete() ? "delete" : "replace");
  for (const Candidate& c : cmd.candidates) {
    *out.add_candidates() = RenderCandidate(view, c);
  }
  std::map<std::string, int> table;
  for (const SimulatedNodeClaim& r : cmd.replacements) {
    const PoolView& pool = view.pools()[r.pool];
    if (r.claim.node_pool().empty()) {
      *out.add_replacements() = TemplateReplacement(pool);
      continue;
    }
    v1::NewNodeClaim nnc = r.claim;
    const CompiledCatalog& cat = *pool.catalog;
    nnc.clear_instance_types();
    for (int t : r.options) nnc.add_instance_types(cat.instance_type(t).name);
    v1::NodeClaim* nc = nnc.mutable_node_claim();
    // The instance-type requirement lists the options in byte order.
    std::vector<std::string> names(nnc.instance_types().begin(),
                                   nnc.instance_types().end());
    std::sort(names.begin(), names.end());
    v1::NodeSelectorRequirement* it =
        FindRequirement(nc, labels::kInstanceType);
    if (it == nullptr) it = AddRequirement(nc, labels::kInstanceType);
    it->clear_values();
    it->set_operator_(names.empty() ? "DoesNotExist" : "In");
    for (const std::string& n : names) it->add_values(n);
    // A spot pin added by consolidation.
    const Requirement* ct = r.requirements.Find(cat.capacity_type_key());
    if (ct != nullptr && !ct->complement() && ct->values().size() == 1) {
      v1::NodeSelectorRequirement* x =
          FindRequirement(nc, labels::kCapacityType);
      if (x == nullptr) x = AddRequirement(nc, labels::kCapacityType);
      x->set_operator_("In");
      x->clear_values();
      x->add_values(std::string(view.interner().ValueText(ct->values()[0].id)));
    }
    // Launch: the cheapest available compatible offering of the options.
    int best_t = -1, best_o = -1;
    double best = kMaxPrice;
    OfferingFilter filter(cat, r.requirements);
    for (int t : r.options) {
      const auto& offs = cat.instance_type(t).offerings;
      for (size_t o = 0; o < offs.size(); ++o) {
        if (!Available(offs[o]) || !filter.Compatible(offs[o])) continue;
        if (offs[o].price < best) {
          best = offs[o].price;
          best_t = t;
          best_o = static_cast<int>(o);
        }
      }
    }
    nnc.clear_launch();
    nnc.clear_launch_allocatable();
    if (best_t >= 0) {
      const CompiledOffering& o = cat.instance_type(best_t).offerings[best_o];
      v1::Launch* l = nnc.mutable_launch();
      l->set_instance_type(cat.instance_type(best_t).name);
      l->set_zone(std::string(view.interner().ValueText(o.zone.id)));
      l->set_capacity_type(
          std::string(view.interner().ValueText(o.capacity_type.id)));
      l->set_price(o.price);
      if (o.reservation_id.id != kNoId) {
        l->set_reservation_id(
            std::string(view.interner().ValueText(o.reservation_id.id)));
      }
      SetAllocatable(view, cat.instance_type(best_t), &nnc);
    }
    if (indexed) {
      for (const std::string& n : nnc.instance_types()) table.emplace(n, 0);
    }
    *out.add_replacements() = std::move(nnc);
  }
  if (indexed && !table.empty()) {
    int i = 0;
    for (auto& [name, index] : table) {
      index = i++;
      out.add_instance_type_names(name);
    }
    for (v1::NewNodeClaim& nnc : *out.mutable_replacements()) {
      for (const std::string& n : nnc.instance_types()) {
        nnc.add_instance_type_indices(table[n]);
      }
      nnc.clear_instance_types();
      if (v1::NodeSelectorRequirement* it =
              FindRequirement(nnc.mutable_node_claim(), labels::kInstanceType);
          it != nullptr && it->operator_() == "In") {
        it->clear_values();
      }
    }
  }
  for (const v1::ExistingNodePlacement& e : cmd.existing) {
    *out.add_existing_nodes() = e;
  }
  out.set_savings_per_hour(cmd.savings);
  for (const v1::BalancedScore& s : cmd.scores) *out.add_scores() = s;
  return out;
}

void RenderCandidacy(ClusterView& view, const ConditionsResult& conditions,
                     const Engine& engine, v1::DisruptResponse* out) {
  std::vector<int> order;
  for (size_t i = 0; i < view.nodes().size(); ++i) {
    const NodeView& n = view.nodes()[i];
    if (n.managed || n.has_pool_label) order.push_back(static_cast<int>(i));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return view.nodes()[a].name < view.nodes()[b].name;
  });
  for (int i : order) {
    const NodeView& n = view.nodes()[i];
    v1::NodeCandidacy& c = *out->add_candidates();
    SetNodeFields(n, &c);
    if (n.node != nullptr) {
      *c.mutable_allocatable() = n.node->status().allocatable();
      SetRequests(view, n, c.mutable_requests());
    }
    const auto& graceful = engine.Candidates(false)[i];
    const auto& eventual = engine.Candidates(true)[i];
    const Candidate* any = graceful.has_value()   ? &*graceful
                           : eventual.has_value() ? &*eventual
                                                  : nullptr;
    if (any != nullptr) {
      c.set_disruption_cost(any->disruption_cost);
      for (int p : any->reschedulable)
        c.add_pods(std::string(view.pods()[p].key));
    }
    for (bool ev : {false, true}) {
      const CandidateCheck& check = engine.Checks(ev)[i];
      v1::Eligibility* e = ev ? c.mutable_eventual() : c.mutable_graceful();
      e->set_eligible(check.eligible);
      e->set_message(check.message);
    }
    for (Method m : kMethods) {
      v1::MethodEligibility* me = c.add_methods();
      me->set_method(MethodName(m));
      const bool ev = IsEventual(m);
      const auto& cand = engine.Candidates(ev)[i];
      if (!cand.has_value()) {
        me->set_eligible(false);
        me->set_message(engine.Checks(ev)[i].message);
        continue;
      }
      std::string why = MethodFilter(view, conditions, m, *cand);
      me->set_eligible(why.empty());
      me->set_message(why);
    }
  }
}

void RenderBudgets(const ClusterView& view, const Engine& engine,
                   v1::DisruptResponse* out) {
  std::vector<int> order(view.pools().size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return view.pools()[a].name < view.pools()[b].name;
  });
  for (int p : order) {
    for (Reason r : kReasons) {
      const BudgetState& b = engine.Budgets(r)[p];
      v1::BudgetAllowance& a = *out->add_budgets();
      a.set_node_pool(view.pools()[p].name);
      a.set_reason(ReasonName(r));
      a.set_allowed(b.allowed);
      a.set_raw(b.allowance.raw);
      a.set_nodes(b.nodes);
      a.set_disrupting(b.disrupting);
      for (bool active : b.allowance.active) a.add_active(active);
    }
  }
}

}  // namespace nodeplan::disruption
