// Round rendering: NodeClaims, placements and reasons into the response.

#include <algorithm>
#include <limits>
#include <set>

#include "absl/base/attributes.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "nodeplan/digest.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "nodeplan/library_version.h"
#include "scheduling/round.h"

namespace nodeplan::scheduling {

// ---------------------------------------------------------------------------
// Rendering

std::string NodeClaimName(const std::string& pool, int ordinal, int salt) {
  // FNV-1a 64 of "<pool>/<ordinal>[/salt]" -> 5 characters of Kubernetes'
  // generateName alphabet.
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string s = absl::StrCat(pool, "/", ordinal);
  if (salt) absl::StrAppend(&s, "/", salt);
  uint64_t h = Fnv1a64(s);
  std::string out = pool + "-";
  for (int i = 0; i < 5; ++i) {
    out.push_back(kAlphabet[h % 27]);
    h /= 27;
  }
  return out;
}

void Round::Finalize(int ci, v1::NewNodeClaim* out, std::vector<int>* failed,
                     std::string* fail_reason) {
  ClaimDecision d;
  if (Decide(ci, &d, failed, fail_reason)) WriteClaim(ci, d, out);
}

bool Round::Decide(int ci, ClaimDecision* decision, std::vector<int>* failed,
                   std::string* fail_reason) {
  Claim& claim = claims_[ci];
  const Pool& pool = c_.pools[claim.pool];
  const PoolState& ps = pools_[claim.pool];
  Requirements& reqs = decision->reqs;
  reqs = claim.reqs;
  reqs.Remove(k_.hostname);
  if (!claim.reserved.empty()) {
    reqs.Remove(k_.capacity_type);
    reqs.Add(Requirement::In(k_.capacity_type, k_.v_reserved));
    absl::InlinedVector<LabelValue, 4> ids;
    for (auto [i, j] : claim.reserved)
      ids.push_back(c_.types[i].offerings[j].reservation);
    reqs.Add(Requirement::In(k_.reservation_id, ids));
  }
  // Minimum daemon overhead among groups that still have options.
  DenseResources& requests = decision->requests;
  requests = claim.requests;
  bool first = true;
  DenseResources min_oh;
  for (const DaemonGroup& g : ps.groups) {
    if (!g.types.Intersects(claim.options)) continue;
    if (first) {
      min_oh = g.overhead;
      first = false;
    } else {
      for (int d = 0; d < kMaxResourceDims; ++d)
        min_oh[d] = std::min(min_oh[d], g.overhead[d]);
    }
  }
  requests += min_oh;
  // Options by cheapest compatible offering (ties: catalog order), truncated.
  std::string sig = absl::StrCat(claim.pool, "|");
  for (LabelKeyId key : {k_.zone, k_.capacity_type, k_.reservation_id})
    if (const Requirement* r = reqs.Find(key))
      absl::StrAppend(&sig, r->String(in_), "|");
  auto [pit, fresh] = price_cache_.try_emplace(sig);
  if (fresh) {
    PriceEntry& e = pit->second;
    e.price.assign(n_, std::numeric_limits<double>::infinity());
    e.offers.assign(n_, 0);
    e.ct_mask.assign(n_, 0);
    PoolTypes(claim.pool).ForEach([&](size_t i) {
      const auto& offs = c_.types[i].offerings;
      for (size_t j = 0; j < offs.size() && j < 64; ++j)
        if ((pool.offering_mask[i] >> j & 1) &&
            OfferingCompatible(offs[j], reqs, k_)) {
          e.offers[i] |= uint64_t{1} << j;
          e.price[i] = std::min(e.price[i], offs[j].price);
          const LabelValue& ct = offs[j].capacity_type;
          auto at = std::find(ct_ids_.begin(), ct_ids_.end(), ct);
          if (at == ct_ids_.end()) at = ct_ids_.insert(at, ct);
          const size_t bit = at - ct_ids_.begin();
          if (bit < 64) {
            e.ct_mask[i] |= uint64_t{1} << bit;
          } else {
            e.ct_exact = false;
          }
        }
      e.order.push_back(static_cast<int>(i));
    });
    std::sort(e.order.begin(), e.order.end(), [&](int a, int b) {
      return e.price[a] != e.price[b] ? e.price[a] < e.price[b] : a < b;
    });
  }
  const std::vector<double>& prices = pit->second.price;
  const std::vector<uint64_t>& offers = pit->second.offers;
  // Options are a subset of the NodePool's types.
  std::vector<std::pair<double, int>>& opts = decision->opts;
  for (int i : pit->second.order) {
    if (static_cast<int>(opts.size()) >= opt_.max_instance_types) break;
    if (claim.options.Test(i)) opts.emplace_back(prices[i], i);
  }
  TypeSet& kept = decision->kept;
  kept = TypeSet(n_);
  for (auto& [price, i] : opts) kept.Set(i);
  if (!opt_.best_effort_min_values && reqs.HasMinValues()) {
    TypeSet ordered =
        kept;  // MinValuesOk walks in index order; fine for counting
    std::string e;
    Requirements copy = reqs;
    if (!MinValuesOk(ordered, copy, false, &e)) {
      for (int p : claim.pods) failed->push_back(p);
      *fail_reason = absl::StrCat(
          "pod didn\u2019t schedule because NodePool couldn\u2019t meet "
          "minValues "
          "requirements, validating minValues, ",
          e, " (NodePool=", pool.name, ")");
      return false;
    }
  }
  // Instance types and the capacity types their offerings can launch.
  absl::InlinedVector<LabelValue, 4> cts;
  if (pit->second.ct_exact) {
    uint64_t mask = 0;
    for (auto& [price, i] : opts) mask |= pit->second.ct_mask[i];
    for (; mask; mask &= mask - 1)
      cts.push_back(ct_ids_[__builtin_ctzll(mask)]);
  } else {
    for (auto& [price, i] : opts) {
      const auto& offs = c_.types[i].offerings;
      for (uint64_t m = offers[i]; m; m &= m - 1) {
        // A handful of distinct values among thousands of offerings.
        const LabelValue& ct = offs[__builtin_ctzll(m)].capacity_type;
        if (std::find(cts.begin(), cts.end(), ct) == cts.end())
          cts.push_back(ct);
      }
    }
  }
  // Its values are rendered from `kept` (below), so they are not built here.
  Requirement it_req = Requirement::DoesNotExist(k_.instance_type);
  if (const Requirement* old = reqs.Find(k_.instance_type))
    it_req.set_min_values(old->min_values());
  reqs.Remove(k_.instance_type);
  reqs.Add(it_req);
  Requirement ct_req = Requirement::In(k_.capacity_type, cts);
  if (const Requirement* old = reqs.Find(k_.capacity_type))
    ct_req.set_min_values(old->min_values());
  reqs.Remove(k_.capacity_type);
  reqs.Add(ct_req);

  // Launch: a held reserved offering first, else the cheapest compatible
  // available offering of a type the requests fit; ties keep catalog order.
  int& best_t = decision->best_t;
  int& best_o = decision->best_o;
  if (!claim.reserved.empty()) {
    // A held reservation launches first (cheapest, then catalog order).
    double best_price = std::numeric_limits<double>::infinity();
    for (auto [i, j] : claim.reserved) {
      if (!kept.Test(i) || !Fits(requests, c_.types[i].allocatable)) continue;
      double p = c_.types[i].offerings[j].price;
      if (best_t < 0 || p < best_price || (p == best_price && i < best_t)) {
        best_t = i;
        best_o = j;
        best_price = p;
      }
    }
  }
  // Options are in (cheapest compatible offering, catalog) order: the first
  // one the requests fit launches, at its cheapest non-reserved offering.
  for (size_t k = 0; best_t < 0 && k < opts.size(); ++k) {
    int i = opts[k].second;
    if (!Fits(requests, c_.types[i].allocatable)) continue;
    const auto& offs = c_.types[i].offerings;
    double best_price = std::numeric_limits<double>::infinity();
    for (uint64_t m = offers[i]; m; m &= m - 1) {
      int j = __builtin_ctzll(m);
      if (offs[j].capacity_type == k_.v_reserved) continue;
      if (offs[j].price < best_price) {
        best_price = offs[j].price;
        best_t = i;
        best_o = j;
      }
    }
  }
  if (best_t < 0 && !opts.empty()) {
    best_t = opts[0].second;
    for (size_t j = 0; j < c_.types[best_t].offerings.size(); ++j)
      if (pool.offering_mask[best_t] >> j & 1) {
        best_o = static_cast<int>(j);
        break;
      }
  }
  return true;
}

void Round::WriteClaim(int ci, const ClaimDecision& decision,
                       v1::NewNodeClaim* out) {
  const Claim& claim = claims_[ci];
  const Pool& pool = c_.pools[claim.pool];
  const Requirements& reqs = decision.reqs;
  const DenseResources& requests = decision.requests;
  const std::vector<std::pair<double, int>>& opts = decision.opts;
  const TypeSet& kept = decision.kept;
  const int best_t = decision.best_t, best_o = decision.best_o;
  v1::NodeClaim& nc = *out->mutable_node_claim();
  nc.set_api_version("karpenter.sh/v1");
  nc.set_kind("NodeClaim");
  auto* md = nc.mutable_metadata();
  out->set_node_pool(pool.name);
  const auto& tmpl = pool.proto.spec().template_();
  auto& labels = *md->mutable_labels();
  for (const auto& [k, v] : tmpl.metadata().labels()) labels[k] = v;
  labels[labels::kNodePool] = pool.name;
  if (!pool.nodeclass_label_key.empty())
    labels[pool.nodeclass_label_key] = pool.nodeclass_name;
  for (const Requirement& r : reqs) {
    const std::string key(in_.KeyText(r.key()));
    if (wk_.Contains(r.key()) || r.key() == k_.hostname ||
        r.key() == k_.registered || r.key() == k_.initialized ||
        labels.contains(key))
      continue;
    if (absl::StrContains(key, "karpenter.sh/")) continue;
    const SelectorOperator op = r.Operator();
    if (op == SelectorOperator::kDoesNotExist) continue;
    if (op == SelectorOperator::kIn) {
      labels[key] = r.Any(in_);  // the smallest value in string order
    } else {
      // The smallest integer >= max(gte, 0) the requirement allows; a
      // number not interned is in no value list.
      int64_t v = std::max<int64_t>(r.gte().value_or(0), 0);
      auto allows = [&](int64_t n) {
        const std::string text = absl::StrCat(n);
        return r.Has(
            in_.FindValue(text).value_or(LabelValue{kNoId, true, true, n}));
      };
      while (!allows(v) && (!r.lte() || v <= *r.lte())) ++v;
      labels[key] = absl::StrCat(v);
    }
  }
  auto& ann = *md->mutable_annotations();
  for (const auto& [k, v] : tmpl.metadata().annotations()) ann[k] = v;
  ann[labels::kNodePoolHashAnnotation] = pool.hash;
  ann[labels::kNodePoolHashVersionAnnotation] = kNodePoolHashVersion;
  ann[labels::kNodeClaimMinValuesRelaxed] =
      claim.min_values_relaxed ? "true" : "false";
  auto* owner = md->add_owner_references();
  owner->set_api_version("karpenter.sh/v1");
  owner->set_kind("NodePool");
  owner->set_name(pool.name);
  owner->set_uid(pool.proto.metadata().uid());
  owner->set_block_owner_deletion(true);
  auto* spec = nc.mutable_spec();
  *spec->mutable_taints() = tmpl.spec().taints();
  *spec->mutable_startup_taints() = tmpl.spec().startup_taints();
  *spec->mutable_node_class_ref() = tmpl.spec().node_class_ref();
  spec->set_expire_after(
      tmpl.spec().expire_after().empty() ? "720h" : tmpl.spec().expire_after());
  spec->set_termination_grace_period(tmpl.spec().termination_grace_period());
  std::vector<std::pair<std::string, const Requirement*>> sorted_reqs;
  for (const Requirement& r : reqs) {
    if (r.key() == k_.hostname || r.key() == k_.registered ||
        r.key() == k_.initialized)
      continue;
    sorted_reqs.emplace_back(in_.KeyText(r.key()), &r);
  }
  std::sort(sorted_reqs.begin(), sorted_reqs.end());
  if (name_order_.empty()) {
    // Instance-type names in byte order, once: option lists are long.
    name_order_.resize(n_);
    for (size_t i = 0; i < n_; ++i) name_order_[i] = static_cast<int>(i);
    std::sort(name_order_.begin(), name_order_.end(), [&](int a, int b) {
      return c_.types[a].name < c_.types[b].name;
    });
  }
  // Option names: every NodeClaim lists up to max_instance_types of them
  // twice (instanceTypes and the instance-type requirement). On an arena
  // each name is stored once per response, in one arena-owned block that
  // every list points into (UnsafeArenaAddAllocated), where
  // RepeatedPtrField::Add makes an allocation, a cleanup and a copy per
  // string (schedule.h: such a response is for reading, not editing).
  google::protobuf::Arena* arena = out->GetArena();
  const bool indexed = option_table_.has_value();
  if (arena != nullptr && !indexed && name_arena_ != arena) {
    name_arena_ = arena;
    name_block_ =
        google::protobuf::Arena::Create<std::vector<std::string>>(arena);
    name_block_->reserve(n_);  // at most one per type: pointers stay valid
    name_slot_.assign(n_, -1);
  }
  // Called once per option name (~800k at 5,000 pods): kept inline, which
  // GCC stops doing on its own once Round has external linkage.
  auto add_name = [&](google::protobuf::RepeatedPtrField<std::string>* field,
                      int i) ABSL_ATTRIBUTE_ALWAYS_INLINE {
    if (arena == nullptr) {
      field->Add()->assign(c_.types[i].name);
      return;
    }
    if (name_slot_[i] < 0) {
      name_slot_[i] = static_cast<int>(name_block_->size());
      name_block_->push_back(c_.types[i].name);
    }
    field->UnsafeArenaAddAllocated(&(*name_block_)[name_slot_[i]]);
  };
  // Values go straight into the proto: the instance-type requirement alone
  // carries up to max_instance_types names per NodeClaim.
  for (const auto& [key, r] : sorted_reqs) {
    auto start = [&, &key = key, r = r](const char* op) {
      auto* x = spec->add_requirements();
      x->set_key(key);
      x->set_operator_(op);
      if (r->min_values().value_or(0) > 0) x->set_min_values(*r->min_values());
      return x;
    };
    if (r->key() == k_.instance_type) {
      // Option names in byte order (name_order_), the kept ones only.
      if (opts.empty()) {
        start("DoesNotExist");
        continue;
      }
      if (indexed) {
        // No values until expanded from the indices: an unexpanded object
        // is rejected by the API server, never launched wider than planned.
        start("In");
        continue;
      }
      auto* names = start("In")->mutable_values();
      names->Reserve(static_cast<int>(opts.size()));
      for (int i : name_order_)
        if (kept.Test(i)) add_name(names, i);
      continue;
    }
    if (r->gte()) start("Gte")->add_values(absl::StrCat(*r->gte()));
    if (r->lte()) start("Lte")->add_values(absl::StrCat(*r->lte()));
    const SelectorOperator op = r->Operator();
    if (op == SelectorOperator::kDoesNotExist) {
      start("DoesNotExist");
      continue;
    }
    if (op == SelectorOperator::kExists) {
      if (!r->gte() && !r->lte()) start("Exists");
      continue;
    }
    auto* x = start(op == SelectorOperator::kIn ? "In" : "NotIn");
    auto* out_vals = x->mutable_values();
    const std::vector<absl::string_view> texts = r->SortedValueTexts(in_);
    out_vals->Reserve(static_cast<int>(texts.size()));
    for (absl::string_view v : texts)
      out_vals->Add()->assign(v.data(), v.size());
  }
  auto& rq = *spec->mutable_resources()->mutable_requests();
  for (int d = 0; d < dims_.size(); ++d)
    if (requests[d] != 0) {
      rq[dims_.Name(d)] = dims_.Format(d, requests[d]);
      (*out->mutable_requests())[dims_.Name(d)] = dims_.Format(d, requests[d]);
    }
  if (indexed) {
    auto* indices = out->mutable_instance_type_indices();
    indices->Reserve(static_cast<int>(opts.size()));
    for (auto& [price, i] : opts) option_table_->Add(i, indices);
  } else {
    out->mutable_instance_types()->Reserve(static_cast<int>(opts.size()));
    for (auto& [price, i] : opts) add_name(out->mutable_instance_types(), i);
  }
  if (best_t >= 0 && best_o >= 0) {
    const Offering& o = c_.types[best_t].offerings[best_o];
    auto* l = out->mutable_launch();
    l->set_instance_type(c_.types[best_t].name);
    l->set_zone(std::string(in_.ValueText(o.zone.id)));
    l->set_capacity_type(std::string(in_.ValueText(o.capacity_type.id)));
    l->set_price(o.price);
    if (o.reservation.id != kNoId)
      l->set_reservation_id(std::string(in_.ValueText(o.reservation.id)));
    auto& la = *out->mutable_launch_allocatable();
    for (int d = 0; d < dims_.size(); ++d)
      if (c_.types[best_t].allocatable[d] != 0)
        la[dims_.Name(d)] = dims_.Format(d, c_.types[best_t].allocatable[d]);
  }
  for (int p : claim.pods) out->add_pods(pending_[p].key);
}

Round::Summary Round::Summarize() {
  Summary out;
  std::vector<char> failed_pod(pending_.size(), 0);
  std::vector<int> failed;
  std::string reason;
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    ClaimDecision d;
    failed.clear();
    if (!Decide(static_cast<int>(ci), &d, &failed, &reason)) {
      for (int p : failed) failed_pod[p] = 1;
      continue;
    }
    // Render adds the launch price it wrote (none without a launch).
    if (d.best_t >= 0 && d.best_o >= 0)
      out.cost += c_.types[d.best_t].offerings[d.best_o].price;
    out.launched_pools.push_back(claims_[ci].pool);
    out.launches.emplace_back(claims_[ci].pool, d.best_t);
  }
  std::sort(out.launched_pools.begin(), out.launched_pools.end());
  out.launched_pools.erase(
      std::unique(out.launched_pools.begin(), out.launched_pools.end()),
      out.launched_pools.end());
  for (size_t p = 0; p < pending_.size(); ++p)
    if (failed_pod[p] || (placed_claim_[p] < 0 && placed_existing_[p] < 0))
      out.unschedulable.push_back(static_cast<int>(p));
  return out;
}

void Round::Render(v1::ScheduleResponse* out) {
  v1::ScheduleResponse& resp = *out;
  resp.set_library_version(LibraryVersion());
  resp.set_ignored_pods(ignored_);
  std::vector<std::string> reasons = errors_;
  absl::flat_hash_map<std::string, int> per_pool;
  std::set<std::string> used_names;
  double cost = 0;
  if (opt_.indexed_instance_types) option_table_.emplace(n_);
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    // Rendered in place (on the response's arena, if any); a NodeClaim that
    // fails minValues at the end is taken off again.
    v1::NewNodeClaim& nnc = *resp.add_new_node_claims();
    std::vector<int> failed;
    std::string reason;
    Finalize(static_cast<int>(ci), &nnc, &failed, &reason);
    if (!failed.empty()) {
      for (int p : failed) {
        reasons[p] = reason;
        placed_claim_[p] = -1;
      }
      resp.mutable_new_node_claims()->RemoveLast();
      continue;
    }
    const std::string& pool = c_.pools[claims_[ci].pool].name;
    int ordinal = per_pool[pool]++;
    std::string name;
    for (int salt = 0;; ++salt) {
      name = NodeClaimName(pool, ordinal, salt);
      if (used_names.insert(name).second) break;
    }
    nnc.set_name(name);
    nnc.mutable_node_claim()->mutable_metadata()->set_name(name);
    cost += nnc.launch().price();
  }
  for (const Existing& e : existing_) {
    if (e.pods.empty()) continue;
    auto* x = resp.add_existing_nodes();
    x->set_name(e.node->name);
    x->set_kind(e.node->is_claim ? "NodeClaim" : "Node");
    for (int p : e.pods) x->add_pods(pending_[p].key);
  }
  if (option_table_)
    option_table_->Finish(
        name_order_,
        [&](int t) -> const std::string& { return c_.types[t].name; }, out);
  for (size_t p = 0; p < pending_.size(); ++p) {
    if (placed_claim_[p] >= 0 || placed_existing_[p] >= 0) continue;
    auto* u = resp.add_unschedulable();
    u->set_pod(pending_[p].key);
    u->set_reason(reasons[p].empty() ? "not scheduled" : reasons[p]);
  }
  resp.set_cost(cost);
}

}  // namespace nodeplan::scheduling
