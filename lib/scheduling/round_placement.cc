// Round placement: one pod onto existing capacity or a NodeClaim, in
// Karpenter's order, with the topology, resource, limit and minValues checks.

#include <algorithm>
#include <deque>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "scheduling/go_sort.h"
#include "scheduling/round.h"

namespace nodeplan::scheduling {

// ---------------------------------------------------------------------------
// Placement

bool Round::AddTopology(const PodClass& cls, const View& v,
                        const std::vector<v1::Taint>& taints,
                        const Requirements& node_reqs,
                        const WellKnownLabels* allow, Requirements* out,
                        std::string* err, const Requirements* extra) {
  auto one = [&](int gi) {
    const TopologyGroup& g = groups_[gi];
    const Requirement exists = Requirement::Exists(g.key);
    const Requirement* pd = v.strict.Find(g.key);
    const Requirement* nd = node_reqs.Find(g.key);
    Requirement merged;
    if (extra != nullptr) {
      if (const Requirement* e = extra->Find(g.key)) {
        merged = nd ? nd->Intersection(*e) : *e;
        nd = &merged;
      }
    }
    int tied = 0;
    Requirement d =
        g.Next(cls.ns_id, cls.labels, pd ? *pd : exists, nd ? *nd : exists, in_,
               spread_ties_ != nullptr ? &tied : nullptr);
    if (tied > 1) spread_ties_->emplace_back(g.key, d.values()[0]);
    if (!d.complement() && d.values().empty()) {
      // Failures that stay failures as NodeClaims fill up (counts only
      // grow, a NodeClaim's hostname never changes): anti-affinity, and
      // hostname spread on a single-hostname node (its count is past the
      // skew; the hostname minimum is always 0).
      last_group_anti_ =
          g.type == GroupType::kAntiAffinity ||
          (g.type == GroupType::kSpread && g.key == k_.hostname &&
           nd != nullptr && !nd->complement() && nd->values().size() == 1);
      // On a single hostname these failures hold for every pod class that
      // owns the group (the same self-selection for spread), whatever its
      // own requirements: record them for the group, not just this view.
      if (g.key == k_.hostname && g.type != GroupType::kAffinity &&
          nd != nullptr && !nd->complement() && nd->values().size() == 1)
        last_shared_dead_ = SharedDeadSlot(gi, cls);
      if (err) *err = g.Describe(in_, pd ? *pd : exists, nd ? *nd : exists);
      return false;
    }
    out->Add(d);
    return true;
  };
  for (int gi : v.groups)
    if (!one(gi)) return false;
  for (int gi : inverse_groups_) {
    const TopologyGroup& g = groups_[gi];
    if (!g.Selects(cls.ns_id, cls.labels)) continue;
    if (!one(gi)) return false;
  }
  (void)taints;
  (void)allow;
  return true;
}

void Round::Record(const PodClass& cls, const View& v,
                   const std::vector<v1::Taint>& taints,
                   const Requirements& reqs, const WellKnownLabels* allow) {
  for (auto& g : groups_) {
    if (g.inverse) continue;
    if (!g.Selects(cls.ns_id, cls.labels)) continue;
    if (!g.filter.Matches(taints, reqs, allow)) continue;
    const Requirement* d = reqs.Find(g.key);
    if (d == nullptr || d->complement()) continue;
    if (g.type == GroupType::kAntiAffinity) {
      for (const LabelValue& x : d->values()) g.RecordDomain(x.id);
    } else if (d->values().size() == 1) {
      g.RecordDomain(d->values()[0].id);
    }
  }
  for (int gi : v.inverse) {
    const Requirement* d = reqs.Find(groups_[gi].key);
    if (d == nullptr || d->complement()) continue;
    for (const LabelValue& x : d->values()) groups_[gi].RecordDomain(x.id);
  }
}

const std::vector<int>& Round::SharedSlots(const PodClass& cls, const View& v) {
  const int ninv = static_cast<int>(inverse_groups_.size());
  if (v.slots_inverse == ninv) return v.slots;
  v.slots.clear();
  auto consider = [&](int gi) {
    const TopologyGroup& g = groups_[gi];
    if (g.key == k_.hostname && g.type != GroupType::kAffinity)
      v.slots.push_back(SharedDeadSlot(gi, cls));
  };
  for (int gi : v.groups) consider(gi);
  for (int gi : inverse_groups_)
    if (groups_[gi].Selects(cls.ns_id, cls.labels)) consider(gi);
  v.slots_inverse = ninv;
  return v.slots;
}

bool Round::CanAddExisting(Existing& e, const PodClass& cls, const View& v,
                           Requirements* merged) {
  const ExistingNode& n = *e.node;
  // Each test is pure, so the cheapest goes first: a full node (the common
  // case once a simulation has placed a few pods) costs one comparison.
  if (!Fits(cls.requests, e.remaining)) return false;
  if (!Tolerates(n.taints, v.tols, nullptr)) return false;
  if (!cls.ports.empty() && PortsConflict(e.ports, cls.ports)) return false;
  if (!Compatible(n.reqs, v.reqs, nullptr, in_, nullptr)) return false;
  *merged = n.reqs;
  merged->Add(v.reqs);
  if (!cls.volume_alts.empty()) {
    bool any = false;
    for (const Requirements& alt : cls.volume_alts)
      if (Compatible(n.reqs, alt, nullptr, in_, nullptr)) {
        any = true;
        break;
      }
    if (!any) return false;
  }
  Requirements topo;
  std::string err;
  if (!AddTopology(cls, v, n.taints, *merged, nullptr, &topo, &err))
    return false;
  if (!Compatible(*merged, topo, nullptr, in_, nullptr)) return false;
  merged->Add(topo);
  return true;
}

const TypeSet& Round::KeyCompat(const Requirement& r) {
  sig_.clear();
  absl::StrAppend(&sig_, r.key(), r.complement() ? "c" : "i", "|");
  for (const LabelValue& v : r.values()) absl::StrAppend(&sig_, v.id, ",");
  if (r.gte()) absl::StrAppend(&sig_, "g", *r.gte());
  if (r.lte()) absl::StrAppend(&sig_, "l", *r.lte());
  auto it = key_compat_.find(sig_);
  if (it != key_compat_.end()) return it->second;
  TypeSet b(n_, true);
  c_.type_index->AndIntersecting(r, &b);
  return key_compat_.emplace(sig_, std::move(b)).first->second;
}

const TypeSet& Round::OfferCompat(int pool, const Requirements& reqs) {
  std::string& sig = offer_sig_;
  sig.clear();
  absl::StrAppend(&sig, pool, "|");
  for (LabelKeyId key : {k_.zone, k_.capacity_type, k_.reservation_id}) {
    const Requirement* r = reqs.Find(key);
    if (r) absl::StrAppend(&sig, r->String(in_));
    absl::StrAppend(&sig, "|");
  }
  auto it = offer_compat_.find(sig);
  if (it != offer_compat_.end()) return it->second;
  TypeSet b(n_);
  const Pool& p = c_.pools[pool];
  PoolTypes(pool).ForEach([&](size_t i) {
    uint64_t mask = p.offering_mask[i];
    for (size_t j = 0; j < c_.types[i].offerings.size() && j < 64; ++j)
      if ((mask >> j & 1) &&
          OfferingCompatible(c_.types[i].offerings[j], reqs, k_)) {
        b.Set(i);
        return;
      }
  });
  return offer_compat_.emplace(sig, std::move(b)).first->second;
}

bool Round::MinValuesOk(const TypeSet& types, Requirements& reqs, bool relax,
                        std::string* err, bool* relaxed) const {
  if (!reqs.HasMinValues()) return true;
  // Karpenter's SatisfiesMinValues; which types suffice does not depend on
  // the order they are walked in, so index order serves.
  min_values_scratch_.clear();
  types.ForEach(
      [&](size_t i) { min_values_scratch_.push_back(&c_.types[i].reqs); });
  const MinValuesResult result = SatisfiesMinValues(reqs, min_values_scratch_);
  if (result.ok()) return true;
  if (relax) {
    // Each short floor lowered to what the types reach (none below one).
    for (const auto& [key, reached] : result.unsatisfied) {
      Requirement lowered = *reqs.Find(key);
      lowered.set_min_values(reached > 0 ? std::optional<int32_t>(reached)
                                         : std::nullopt);
      reqs.Remove(key);
      reqs.Add(lowered);
    }
    if (relaxed) *relaxed = true;
  }
  if (err) *err = MinValuesMessage(result, in_);
  return relax;
}

const TypeSet& Round::LimitOk(int pool) {
  PoolState& ps = pools_[pool];
  if (!ps.limit_dirty) return ps.limit_ok;
  const TypeSet& types = PoolTypes(pool);
  bool all = true;
  for (int d : ps.limited)
    if (ps.max_capacity[d] > ps.remaining[d]) all = false;
  if (all) {  // no limits, or none any type can reach yet
    ps.limit_ok = types;
    ps.limit_dirty = false;
    return ps.limit_ok;
  }
  ps.limit_ok = TypeSet(n_);
  types.ForEach([&](size_t i) {
    for (int d : ps.limited)
      if (c_.types[i].capacity[d] > ps.remaining[d]) return;
    ps.limit_ok.Set(i);
  });
  ps.limit_dirty = false;
  return ps.limit_ok;
}

Fail Round::FilterTypes(const Claim& claim, const PodClass& cls,
                        Requirements* merged, bool relax_min, Candidate* out,
                        std::string* err) {
  const PoolState& ps = pools_[claim.pool];
  // No merged requirements: the NodeClaim's own, unchanged.
  const Requirements& reqs = merged != nullptr ? *merged : claim.reqs;
  // The types left: the NodeClaim's options that meet the changed
  // requirements (req_ok), have an offering the requirements allow
  // (offer_ok) and fit the requests with some daemon group's overhead
  // (fit_any). Narrowed in place, one pass per set that can change: a pod
  // joining a NodeClaim with the requirements it already has (the next
  // replica of a Deployment) costs an intersection with the fitting types
  // only. The three sets apart are built only to explain a failure.
  TypeSet& remaining = filter_remaining_;
  remaining = claim.options;
  bool offer_changed = false;
  for (const Requirement& r : reqs) {
    if (merged == nullptr) break;
    const Requirement* old = claim.reqs.Find(r.key());
    if (old != nullptr && *old == r) continue;
    if (r.key() == k_.zone || r.key() == k_.capacity_type ||
        r.key() == k_.reservation_id)
      offer_changed = true;
    if (r.key() == k_.hostname) continue;
    remaining.AndWith(KeyCompat(r));
  }
  if (offer_changed && !remaining.None())
    remaining.AndWith(OfferCompat(claim.pool, reqs));
  const DenseResources base = claim.requests + cls.requests;
  const bool claim_port_conflict =
      !cls.ports.empty() && PortsConflict(claim.ports, cls.ports);
  // The daemon groups whose pods can run beside this pod (host ports).
  auto eligible = [&](const DaemonGroup& g) {
    return !claim_port_conflict &&
           (cls.ports.empty() || !PortsConflict(g.ports, cls.ports));
  };
  // fit_any: the types fitting base plus some eligible group's overhead.
  auto fit_any_into = [&](TypeSet* fit_any) {
    fit_any->Reset(n_, false);
    for (const DaemonGroup& g : ps.groups) {
      if (!eligible(g)) continue;
      TypeSet& f = filter_fit_;
      c_.fit.FittingInto(base + g.overhead, n_, &f);
      f.AndWith(g.types);
      fit_any->OrWith(f);
    }
  };
  if (!remaining.None()) {
    if (ps.groups.size() == 1) {
      const DaemonGroup& g = ps.groups[0];
      if (eligible(g)) {
        remaining.AndWith(g.types);
        c_.fit.AndFitting(base + g.overhead, &remaining);
      } else {
        remaining.Reset(n_, false);
      }
    } else {
      fit_any_into(&filter_fit_any_);
      remaining.AndWith(filter_fit_any_);
    }
  }
  std::string min_err;
  bool min_failed = false;
  if (!remaining.None() && merged != nullptr && merged->HasMinValues()) {
    if (!MinValuesOk(remaining, *merged, relax_min, err ? &min_err : nullptr,
                     &out->min_values_relaxed))
      min_failed = true;
  }
  if (!remaining.None() && !min_failed) {
    // The scratch buffer goes to the candidate (CommitClaim hands the
    // NodeClaim's old one back): no allocation per pod.
    std::swap(out->options, remaining);
    return Fail::kNone;
  }
  if (err == nullptr) return Fail::kOther;
  // Karpenter's InstanceTypeFilterError, from the three sets apart.
  TypeSet& req_ok = filter_req_ok_;
  req_ok = claim.options;
  for (const Requirement& r : reqs) {
    if (merged == nullptr) break;
    const Requirement* old = claim.reqs.Find(r.key());
    if (old != nullptr && *old == r) continue;
    if (r.key() != k_.hostname) req_ok.AndWith(KeyCompat(r));
  }
  TypeSet& offer_ok = filter_offer_ok_;
  offer_ok = offer_changed ? OfferCompat(claim.pool, reqs) : claim.options;
  offer_ok.AndWith(claim.options);
  TypeSet& fit_any = filter_fit_any_;
  fit_any_into(&fit_any);
  DenseResources min_oh, max_oh;
  bool tracked = false;
  for (const DaemonGroup& g : ps.groups) {
    if (!eligible(g) || !g.has_overhead) continue;
    if (!tracked) {
      min_oh = max_oh = g.overhead;
      tracked = true;
    } else {
      for (int d = 0; d < kMaxResourceDims; ++d) {
        min_oh[d] = std::min(min_oh[d], g.overhead[d]);
        max_oh[d] = std::max(max_oh[d], g.overhead[d]);
      }
    }
  }
  std::string rs;
  if (!tracked) {
    rs = dims_.String(cls.requests);
  } else {
    std::string a = dims_.String(cls.requests + min_oh);
    std::string b = dims_.String(cls.requests + max_oh);
    rs = a == b ? a : absl::StrCat("min=", a, ", max=", b);
  }
  std::string tail =
      absl::StrCat(", requirements=", reqs.String(in_), ", resources=", rs);
  if (min_failed) {
    *err = min_err + tail;
    return Fail::kOther;
  }
  TypeSet R = req_ok, O = offer_ok, F = fit_any;
  F.AndWith(O);  // Karpenter's fits() needs a compatible offering too
  bool r_any = !R.None(), f_any = !F.None(), o_any = !O.None();
  TypeSet rf = R;
  rf.AndWith(F);
  rf.AndNotWith(O);
  TypeSet ro = R;
  ro.AndWith(O);
  ro.AndNotWith(F);
  TypeSet fo = F;
  fo.AndWith(O);
  fo.AndNotWith(R);
  std::string msg;
  if (!r_any && !f_any && !o_any) {
    msg =
        "no instance type met the scheduling requirements or had enough "
        "resources or had a required offering";
  } else if (!r_any && !f_any) {
    msg =
        "no instance type met the scheduling requirements or had enough "
        "resources";
  } else if (!r_any && !o_any) {
    msg =
        "no instance type met the scheduling requirements or had a required "
        "offering";
  } else if (!f_any && !o_any) {
    msg = "no instance type had enough resources or had a required offering";
  } else if (!r_any) {
    msg = "no instance type met all requirements";
  } else if (!f_any) {
    msg = "no instance type has enough resources";
  } else if (!o_any) {
    msg = "no instance type has the required offering";
  } else if (!rf.None()) {
    msg =
        "no instance type which met the scheduling requirements and had enough "
        "resources, had a required offering";
  } else if (!fo.None()) {
    msg =
        "no instance type which had enough resources and the required offering "
        "met the scheduling requirements";
  } else if (!ro.None()) {
    msg =
        "no instance type which met the scheduling requirements and the "
        "required offering had the required resources";
  } else {
    msg = "no instance type met the requirements/resources/offering tuple";
  }
  *err = msg + tail;
  if (r_any && !f_any && o_any &&
      cls.requests[kDimCpu] >= int64_t{1000000} * 1000)
    *err += " (CPU request >= 1 Million, m vs M typo?)";
  return Fail::kOther;
}

// Reserved offerings (Strict mode, as provisioning uses) for a NodeClaim
// narrowed to cand->options under `reqs`: which it would hold, or why it
// cannot join.
Fail Round::ReserveOfferings(const Claim& claim, const Requirements& reqs,
                             Candidate* cand, std::string* err) {
  if (!opt_.reserved_capacity) return Fail::kNone;
  bool compatible_reserved = false;
  const Pool& p = c_.pools[claim.pool];
  // Only types with a reserved offering can contribute below.
  if (cand->options.Intersects(pools_[claim.pool].reserved_types))
    cand->options.ForEach([&](size_t i) {
      const auto& offs = c_.types[i].offerings;
      for (size_t j = 0; j < offs.size() && j < 64; ++j) {
        const Offering& o = offs[j];
        if (o.capacity_type != k_.v_reserved || !(p.offering_mask[i] >> j & 1))
          continue;
        if (!OfferingCompatible(o, reqs, k_)) continue;
        compatible_reserved = true;
        const Reservation& r = reservations_[o.reservation.id];
        bool held = r.holders.count(claim.hostname.id) > 0;
        if (held || static_cast<int32_t>(r.holders.size()) < r.capacity)
          cand->reserve.emplace_back(static_cast<int>(i), static_cast<int>(j));
      }
    });
  if (compatible_reserved && cand->reserve.empty()) {
    if (err)
      *err =
          "one or more instance types with compatible reserved offerings "
          "are available, but could not be reserved";
    return Fail::kReserved;
  }
  if (!claim.reserved.empty() && cand->reserve.empty()) {
    if (err)
      *err =
          "satisfying updated nodeclaim constraints would remove all "
          "compatible reserved offering options";
    return Fail::kReserved;
  }
  return Fail::kNone;
}

Fail Round::CanAddClaim(const Claim& claim, const PodClass& cls, const View& v,
                        bool relax_min, Candidate* out, std::string* err,
                        const Requirements* avoid) {
  // The next pod of the view this NodeClaim took last (a Deployment's next
  // replica): the NodeClaim's requirements already hold the view's, and
  // holding them again changes nothing (Add intersects). With no topology
  // group, volume alternative or minValues to merge (nor relaxed: a floor
  // relaxed away would come back with the view's), it joins with its
  // requirements as they are if some option still fits: no copy, no merge.
  // (Its taints were tolerated by the same view.)
  if (claim.joined_view == &v && avoid == nullptr && v.groups.empty() &&
      cls.volume_alts.empty() && !claim.reqs.HasMinValues() &&
      !v.reqs.HasMinValues() && !SelectedByInverseGroup(cls)) {
    Candidate cand;
    if (FilterTypes(claim, cls, nullptr, relax_min, &cand, err) !=
        Fail::kNone) {
      last_monotone_ = v.monotone_filter;
      return Fail::kOther;
    }
    if (Fail f = ReserveOfferings(claim, claim.reqs, &cand, err);
        f != Fail::kNone)
      return f;
    cand.same_reqs = true;
    *out = std::move(cand);
    return Fail::kNone;
  }
  const Pool& pool = c_.pools[claim.pool];
  if (!Tolerates(pool.taints, v.tols, err)) {
    last_monotone_ = true;
    return Fail::kOther;
  }
  if (!Compatible(claim.reqs, v.reqs, &wk_, in_, err)) {
    // Conflicting values stay conflicting as requirements only narrow; an
    // undefined key may become defined by a later pod.
    last_monotone_ = !claim.reqs.Intersects(v.reqs);
    if (err) *err = absl::StrCat("incompatible requirements, ", *err);
    return Fail::kOther;
  }
  // Topology first, on the requirements as they would merge, before paying
  // for the copy: most NodeClaims a pod cannot join fail here.
  Requirements early_topo;
  const bool early = cls.volume_alts.empty();
  Requirements narrowed;
  if (avoid != nullptr) {
    narrowed = v.reqs;
    narrowed.Add(*avoid);
  }
  if (early) {
    // A spread's tie that leaves no domain beside another group's choice
    // (an affinity's) is one Karpenter draws afresh for every NodeClaim it
    // tries, from its domain map: try the next tied domain here.
    std::vector<std::pair<LabelKeyId, LabelValue>> ties;
    auto* outer = spread_ties_;
    spread_ties_ = &ties;
    bool ok = AddTopology(cls, v, pool.taints, claim.reqs, &wk_, &early_topo,
                          err, avoid != nullptr ? &narrowed : &v.reqs);
    Requirements more;
    for (int tries = 0; ok && tries < 64; ++tries) {
      auto emptied = std::find_if(ties.begin(), ties.end(), [&](const auto& t) {
        const Requirement* r = early_topo.Find(t.first);
        return r != nullptr && !r->complement() && r->values().empty();
      });
      if (emptied == ties.end()) break;
      absl::InlinedVector<LabelValue, 1> chosen = {emptied->second};
      if (tries == 0 && avoid != nullptr) more = *avoid;
      more.Add(Requirement::NotIn(emptied->first, chosen));
      narrowed = v.reqs;
      narrowed.Add(more);
      ties.clear();
      early_topo = Requirements();
      ok = AddTopology(cls, v, pool.taints, claim.reqs, &wk_, &early_topo, err,
                       &narrowed);
    }
    if (outer != nullptr) outer->insert(outer->end(), ties.begin(), ties.end());
    spread_ties_ = outer;
    if (!ok) {
      last_monotone_ = last_group_anti_;
      return Fail::kOther;
    }
  }
  Requirements base = claim.reqs;
  base.Add(v.reqs);
  static const std::vector<Requirements> kNone = {Requirements()};
  const std::vector<Requirements>& alts =
      cls.volume_alts.empty() ? kNone : cls.volume_alts;
  Fail last = Fail::kOther;
  for (const Requirements& alt : alts) {
    Requirements reqs = alts.size() == 1 ? std::move(base) : base;
    if (!alt.empty()) {
      if (!Compatible(reqs, alt, &wk_, in_, err)) {
        if (err)
          *err = absl::StrCat("incompatible volume requirements, ", *err);
        continue;
      }
      reqs.Add(alt);
    }
    Requirements topo;
    if (early) {
      topo = std::move(early_topo);
    } else if (!AddTopology(cls, v, pool.taints, reqs, &wk_, &topo, err)) {
      last_monotone_ = alts.size() == 1 && last_group_anti_;
      continue;
    }
    if (!Compatible(reqs, topo, &wk_, in_, err)) continue;
    reqs.Add(topo);
    Candidate cand;
    last = FilterTypes(claim, cls, &reqs, relax_min, &cand, err);
    if (last != Fail::kNone) {
      last_monotone_ = alts.size() == 1 && v.monotone_filter;
      continue;
    }
    if (Fail f = ReserveOfferings(claim, reqs, &cand, err); f != Fail::kNone)
      return f;
    cand.reqs = std::move(reqs);
    *out = std::move(cand);
    return Fail::kNone;
  }
  return last;
}

void Round::Reposition(int ci, bool is_new) {
  // Karpenter appends a new NodeClaim to newNodeClaims and leaves a NodeClaim
  // that gains a pod where it is; the next in-flight attempt re-sorts. Go's
  // sort leaves a sorted slice as it is, so only a change that breaks the
  // order (the new one has fewer pods than the last, the grown one more
  // than its right neighbour) calls for the sort.
  const size_t n = claim_order_.size();
  const uint32_t now = static_cast<uint32_t>(claims_[ci].pods.size());
  if (is_new) {
    if (n > 0 && claim_order_.back().first > now) order_dirty_ = true;
    if (order_pos_.size() < claims_.size()) order_pos_.resize(claims_.size());
    order_pos_[ci] = static_cast<int>(n);
    claim_order_.push_back({now, ci});
    return;
  }
  const size_t p = static_cast<size_t>(order_pos_[ci]);
  claim_order_[p].first = now;
  if (p + 1 < n && claim_order_[p + 1].first < now) order_dirty_ = true;
}

void Round::SortClaimOrder() {
  // Karpenter's add() re-sorts newNodeClaims in place by pod count with
  // sort.Slice before every in-flight attempt. Up to 12 NodeClaims that is
  // an insertion sort (stable); beyond, pdqsort, whose order among equal
  // counts depends on the slice's previous order and its length. GoSortSlice
  // reproduces both, so ties are tried in Karpenter's order at every size.
  // (Found by benchmarks/karpenter: cases/random-33 at up to 12 NodeClaims,
  // workload.Varied clusters beyond.) The pod counts sit beside the claim
  // ids, so the comparisons read one array.
  if (!order_dirty_) return;
  order_dirty_ = false;
  GoSortSlice(
      claim_order_,
      [](const std::pair<uint32_t, int>& a, const std::pair<uint32_t, int>& b) {
        return a.first < b.first;
      },
      [&](int i, int j) {
        order_pos_[claim_order_[i].second] = i;
        order_pos_[claim_order_[j].second] = j;
      });
}

void Round::CommitClaim(int ci, int pod, const View& v, Candidate& cand,
                        bool is_new) {
  Claim& claim = claims_[ci];
  const PodClass& cls = classes_[pending_[pod].cls].cls;
  claim.pods.push_back(pod);
  // max_alloc changes only if an option that reached a maximum is dropped
  // (options only narrow), and then only in the dimensions it held a
  // maximum in, and only if no option left reaches that value too; a new
  // NodeClaim starts without options. Dimensions every type has the same
  // value in (unused resources) keep their maximum.
  static_assert(kMaxResourceDims <= 32, "one bit per dimension");
  uint32_t affected = 0;  // dimensions whose maximum a dropped option held
  if (!is_new) {
    // The options dropped (old & ~new), word by word: no set is built per
    // pod.
    const absl::Span<const uint64_t> before = claim.options.words();
    const absl::Span<const uint64_t> after = cand.options.words();
    for (size_t w = 0; w < before.size(); ++w)
      for (uint64_t bits = before[w] & ~(w < after.size() ? after[w] : 0);
           bits != 0; bits &= bits - 1) {
        const size_t i = w * 64 + __builtin_ctzll(bits);
        for (int d : varying_dims_)
          if (c_.types[i].allocatable[d] == claim.max_alloc[d])
            affected |= uint32_t{1} << d;
      }
  }
  std::swap(claim.options, cand.options);
  std::swap(filter_remaining_, cand.options);  // FilterTypes' buffer again
  claim.requests += cls.requests;
  if (is_new || (affected != 0 && claim.options.None())) {
    const int dims = dims_.size();
    claim.max_alloc = DenseResources();
    claim.options.ForEach([&](size_t i) {
      for (int d = 0; d < dims; ++d)
        claim.max_alloc[d] =
            std::max(claim.max_alloc[d], c_.types[i].allocatable[d]);
    });
  } else if (affected != 0) {
    // One pass over the options left, ending as soon as each affected
    // dimension meets an option at its old maximum (which then stands).
    DenseResources seen;
    uint32_t open = affected;
    const absl::Span<const uint64_t> words = claim.options.words();
    for (size_t w = 0; w < words.size() && open != 0; ++w)
      for (uint64_t bits = words[w]; bits != 0 && open != 0; bits &= bits - 1) {
        const DenseResources& a =
            c_.types[w * 64 + __builtin_ctzll(bits)].allocatable;
        for (uint32_t m = open; m != 0; m &= m - 1) {
          const int d = __builtin_ctz(m);
          if (a[d] == claim.max_alloc[d]) {
            open &= ~(uint32_t{1} << d);
          } else {
            seen[d] = std::max(seen[d], a[d]);
          }
        }
      }
    for (uint32_t m = open; m != 0; m &= m - 1) {
      const int d = __builtin_ctz(m);
      claim.max_alloc[d] = seen[d];
    }
  }
  if (zone_sig_of_.size() < claims_.size())
    zone_sig_of_.resize(claims_.size(), -1);
  if (!cand.same_reqs) {
    claim.reqs = std::move(cand.reqs);
    zone_sig_of_[ci] = ZoneSig(claim.reqs);
  }
  claim.joined_view = &v;
  if (cand.min_values_relaxed) claim.min_values_relaxed = true;
  for (int gi = 0; gi < static_cast<int>(groups_.size()); ++gi)
    if (groups_[gi].key == k_.hostname) groups_[gi].Register(claim.hostname.id);
  // No undefined-well-known allowance for spread node filters: Karpenter's
  // NodeClaim.Add passes AllowUndefinedWellKnownLabels to Record, but
  // TopologyNodeFilter.Matches drops it, so a pod counts only where the
  // NodeClaim's requirements define every key of a filter term.
  Record(cls, v, c_.pools[claim.pool].taints, claim.reqs, nullptr);
  claim.ports.insert(claim.ports.end(), cls.ports.begin(), cls.ports.end());
  // Reserve the new offerings, release the ones no longer held.
  std::set<LabelValueId> keep;
  for (auto [i, j] : cand.reserve) {
    LabelValueId rid = c_.types[i].offerings[j].reservation.id;
    keep.insert(rid);
    reservations_[rid].holders.insert(claim.hostname.id);
  }
  for (auto [i, j] : claim.reserved) {
    LabelValueId rid = c_.types[i].offerings[j].reservation.id;
    if (!keep.count(rid)) reservations_[rid].holders.erase(claim.hostname.id);
  }
  claim.reserved = std::move(cand.reserve);
  placed_claim_[pod] = ci;
  Reposition(ci, is_new);
}

Fail Round::Add(int pod, int level, std::string* err) {
  const int ci = pending_[pod].cls;
  const View* v = GetView(ci, level);
  const PodClass& cls = classes_[ci].cls;
  Requirements merged;
  const bool gated = opt_.gate != nullptr && !opt_.gate->nodes.empty() &&
                     opt_.gate->pods.contains(pending_[pod].key);
  for (size_t e = 0; e < existing_.size(); ++e) {
    Existing& ex = existing_[e];
    if (gated && opt_.gate->nodes.contains(ex.node->name)) continue;
    if (!CanAddExisting(ex, cls, *v, &merged)) continue;
    // CSI volume limits: only nodes with a CSINode have any.
    const std::vector<VolumeUse>* vols = nullptr;
    if (ex.node->volumes >= 0) {
      static const std::vector<VolumeUse> kNone;
      vols = pod_volumes_.empty() ? &kNone : &pod_volumes_[pod];
      if (ExceedsVolumeLimits(e, *vols)) continue;
    }
    ex.pods.push_back(pod);
    if (vols != nullptr && !vols->empty()) {
      std::vector<VolumeUse>& used = existing_volumes_[e];
      used.insert(used.end(), vols->begin(), vols->end());
      std::sort(used.begin(), used.end());
      used.erase(std::unique(used.begin(), used.end()), used.end());
    }
    for (int d = 0; d < kMaxResourceDims; ++d)
      ex.remaining[d] = SaturatingSub(ex.remaining[d], cls.requests[d]);
    ex.ports.insert(ex.ports.end(), cls.ports.begin(), cls.ports.end());
    Record(cls, *v, ex.node->taints, merged, nullptr);
    placed_existing_[pod] = static_cast<int>(e);
    return Fail::kNone;
  }
  SortClaimOrder();
  if (v->dead.size() < claims_.size()) v->dead.resize(claims_.size(), 0);
  if (v->tolerates_pool.size() < c_.pools.size())
    v->tolerates_pool.resize(c_.pools.size(), 0);
  const std::vector<int>& slots = SharedSlots(cls, *v);
  auto shared_dead = [&](int c) {
    for (int s : slots)
      if (static_cast<size_t>(s) < shared_dead_.size() &&
          static_cast<size_t>(c) < shared_dead_[s].size() && shared_dead_[s][c])
        return true;
    return false;
  };
  // Topology verdicts of this walk, by the NodeClaim's requirements on the
  // view's topology keys. Nothing changes during one walk, so NodeClaims
  // with the same requirements there (the same zone) get the same verdict:
  // a pod spread over zones does not re-run the spread for every NodeClaim
  // of a zone it cannot use. Only failures skip; a pass goes the full way.
  // Not for hostname groups (every NodeClaim differs) or volume
  // alternatives (topology is then checked on the merged requirements).
  bool memo = cls.volume_alts.empty();
  memo_keys_.clear();
  auto memo_key = [&](int gi) {
    if (groups_[gi].key == k_.hostname) memo = false;
    memo_keys_.push_back(groups_[gi].key);
  };
  for (int gi : v->groups) memo_key(gi);
  for (int gi : inverse_groups_)
    if (groups_[gi].Selects(cls.ns_id, cls.labels)) memo_key(gi);
  if (memo_keys_.empty()) memo = false;
  memo_reqs_.clear();
  memo_ok_.clear();
  const size_t nk = memo_keys_.size();
  // The common case, a zone: each NodeClaim carries the id of its zone
  // requirement (ZoneSig), so the verdict is one array lookup.
  bool zone_only = memo;
  for (LabelKeyId k : memo_keys_)
    if (k != k_.zone) zone_only = false;
  zone_verdict_.assign(zone_sigs_.size(), 0);
  auto evaluate = [&](const Claim& claim) {
    Requirements topo;
    return AddTopology(cls, *v, c_.pools[claim.pool].taints, claim.reqs, &wk_,
                       &topo, nullptr, &v->reqs);
  };
  auto topology_fails = [&](int c) {
    const Claim& claim = claims_[c];
    if (zone_only && zone_sig_of_[c] >= 0) {
      char& verdict = zone_verdict_[zone_sig_of_[c]];
      if (verdict == 0) verdict = evaluate(claim) ? 1 : 2;
      return verdict == 2;
    }
    memo_probe_.clear();
    for (LabelKeyId k : memo_keys_) memo_probe_.push_back(claim.reqs.Find(k));
    for (size_t e = 0; e < memo_ok_.size(); ++e) {
      bool same = true;
      for (size_t j = 0; j < nk && same; ++j) {
        const Requirement* a = memo_reqs_[e * nk + j];
        const Requirement* b = memo_probe_[j];
        same = a == b || (a != nullptr && b != nullptr && *a == *b);
      }
      if (same) return !memo_ok_[e];
    }
    const bool ok = evaluate(claim);
    if (memo_ok_.size() < 16) {  // a handful of zones, not one per claim
      memo_reqs_.insert(memo_reqs_.end(), memo_probe_.begin(),
                        memo_probe_.end());
      memo_ok_.push_back(ok);
    }
    return !ok;
  };
  // Tries NodeClaim c; true when the pod was committed to it.
  auto try_claim = [&](int c) {
    if (v->dead[c]) return false;
    if (zone_only && zone_sig_of_[c] >= 0 &&
        zone_verdict_[zone_sig_of_[c]] == 2)
      return false;
    const Claim& claim = claims_[c];
    if (shared_dead(c)) {
      v->dead[c] = 1;
      return false;
    }
    char& tol = v->tolerates_pool[claim.pool];
    if (tol == 0)
      tol = Tolerates(c_.pools[claim.pool].taints, v->tols, nullptr) ? 1 : 2;
    if (tol == 2 || !Fits(claim.requests + cls.requests, claim.max_alloc)) {
      v->dead[c] = 1;
      return false;
    }
    if (memo && topology_fails(c)) return false;
    Candidate cand;
    last_monotone_ = false;
    last_shared_dead_ = -1;
    if (CanAddClaim(claims_[c], cls, *v, false, &cand, nullptr) ==
        Fail::kNone) {
      CommitClaim(c, pod, *v, cand, false);
      return true;
    }
    if (last_monotone_) v->dead[c] = 1;
    if (last_shared_dead_ >= 0) {
      if (shared_dead_.size() <= static_cast<size_t>(last_shared_dead_))
        shared_dead_.resize(last_shared_dead_ + 1);
      auto& d = shared_dead_[last_shared_dead_];
      if (d.size() < claims_.size()) d.resize(claims_.size(), 0);
      d[c] = 1;
    }
    return false;
  };
  // NodeClaims below v->scan_from are all dead ends for this view. When
  // only a few above it are left, try those in claim_order_'s order
  // (order_pos_) instead of walking every
  // NodeClaim: a pod class that can join no existing NodeClaim (hostname
  // anti-affinity) then costs O(new NodeClaims), not O(all NodeClaims).
  size_t& from = v->scan_from;
  while (from < claims_.size() && v->dead[from]) ++from;
  if ((claims_.size() - from) * 8 < claim_order_.size()) {
    gather_.clear();
    for (size_t c = from; c < claims_.size(); ++c)
      if (!v->dead[c]) gather_.push_back(static_cast<int>(c));
    std::sort(gather_.begin(), gather_.end(),
              [&](int a, int b) { return order_pos_[a] < order_pos_[b]; });
    for (int c : gather_)
      if (try_claim(c)) return Fail::kNone;
  } else {
    for (const auto& entry : claim_order_)
      if (try_claim(entry.second)) return Fail::kNone;
  }
  bool any_pool = false;
  for (const auto& ps : pools_)
    if (!ps.dropped) any_pool = true;
  if (!any_pool) {
    if (err)
      *err = c_.pools.empty() && !c_.static_pools.empty()
                 ? "no dynamic nodepools found"
                 : "nodepool requirements filtered out all available instance "
                   "types";
    return Fail::kOther;
  }
  std::vector<std::string> errs;
  for (size_t p = 0; p < c_.pools.size(); ++p) {
    PoolState& ps = pools_[p];
    if (ps.dropped) continue;
    const Pool& pool = c_.pools[p];
    // Explanations are built only when asked for (see Run).
    std::string prefix =
        err == nullptr ? std::string()
                       : absl::StrCat("incompatible with nodepool \"",
                                      pool.name, "\", daemonset overhead=",
                                      dims_.String(ps.template_overhead), ", ");
    if (pool.has_limits && nodes_dim_ >= 0 &&
        (pool.limit_mask & (1u << nodes_dim_)) &&
        ps.remaining[nodes_dim_] <= 0) {
      errs.push_back(prefix + "node limits have been exhausted for nodepool");
      continue;
    }
    TypeSet cand_types = PoolTypes(p);
    cand_types.AndWith(LimitOk(static_cast<int>(p)));
    if (cand_types.None()) {
      errs.push_back(prefix +
                     "all available instance types exceed limits for nodepool");
      continue;
    }
    Claim trial;
    trial.pool = static_cast<int>(p);
    trial.reqs = pool.reqs;
    trial.hostname = trial_host_;
    trial.reqs.Add(Requirement::In(k_.hostname, trial_host_));
    trial.options = std::move(cand_types);
    Candidate cand;
    std::string e;
    std::vector<std::pair<LabelKeyId, LabelValue>> ties;
    spread_ties_ = cls.volume_alts.empty() ? &ties : nullptr;
    Fail f = CanAddClaim(trial, cls, *v, opt_.best_effort_min_values, &cand,
                         err ? &e : nullptr);
    // A spread that chose among equally counted domains may have chosen one
    // where no type can launch. Karpenter's choice among such ties follows
    // map order, so some run of it chooses each of them: try the others, in
    // the same order, before giving up on this NodePool.
    Requirements avoid;
    for (int tries = 0; f == Fail::kOther && !ties.empty() && tries < 64;
         ++tries) {
      absl::InlinedVector<LabelValue, 1> chosen = {ties.front().second};
      avoid.Add(Requirement::NotIn(ties.front().first, chosen));
      ties.clear();
      Candidate retry;
      if (CanAddClaim(trial, cls, *v, opt_.best_effort_min_values, &retry,
                      nullptr, &avoid) == Fail::kNone) {
        cand = std::move(retry);
        f = Fail::kNone;
      }
    }
    spread_ties_ = nullptr;
    if (f != Fail::kNone) {
      if (err) errs.push_back(prefix + e);
      if (f == Fail::kReserved) {
        if (err) *err = absl::StrJoin(errs, "; ");
        return Fail::kReserved;
      }
      continue;
    }
    // Launch it: a real placeholder hostname replaces the trial one.
    const LabelValue host = in_.InternValue(
        absl::StrFormat("hostname-placeholder-%04d", ++placeholder_));
    trial.hostname = host;
    trial.options = TypeSet(n_);
    trial.reqs.Remove(k_.hostname);
    trial.reqs.Add(Requirement::In(k_.hostname, host));
    cand.reqs.Remove(k_.hostname);
    cand.reqs.Add(Requirement::In(k_.hostname, host));
    int idx = static_cast<int>(claims_.size());
    claims_.push_back(std::move(trial));
    // Pessimistic limits: the largest option's capacity.
    if (pool.has_limits) {
      DenseResources mx;
      cand.options.ForEach([&](size_t i) {
        for (int d : ps.limited)
          mx[d] = std::max(mx[d], c_.types[i].capacity[d]);
      });
      // A "nodes" limit counts the NodeClaim itself (no type has capacity
      // in that dimension).
      if (nodes_dim_ >= 0) mx[nodes_dim_] = 1;
      for (int d : ps.limited)
        ps.remaining[d] = SaturatingSub(ps.remaining[d], mx[d]);
      ps.limit_dirty = true;
    }
    CommitClaim(idx, pod, *v, cand, true);
    return Fail::kNone;
  }
  if (err) *err = absl::StrJoin(errs, "; ");
  return Fail::kOther;
}

void Round::ReleasePlacementState() {
  for (ClassState& cs : classes_)
    for (auto& v : cs.views)
      if (v) {
        v->dead = std::vector<char>();
        v->slots = std::vector<int>();
      }
  shared_dead_ = {};
  key_compat_ = {};
  offer_compat_ = {};
  zone_sig_of_ = {};
  gather_ = {};
}

void Round::Run() {
  const size_t np = pending_.size();
  errors_.assign(np, "");
  placed_claim_.assign(np, -1);
  placed_existing_.assign(np, -1);
  std::vector<int> order;
  for (size_t i = 0; i < np; ++i) {
    const PodClass& cls = classes_[pending_[i].cls].cls;
    if (!cls.invalid.empty()) {
      errors_[i] = cls.invalid;
      continue;
    }
    order.push_back(static_cast<int>(i));
  }
  // The sort reads its keys from one flat array, not through the classes.
  // Ties end at the pod's identity (PodIdentity: the uid, or namespace/name
  // for a pod without one), never at input order, so that a UID-less pod
  // sorts where Karpenter given the same identity would sort it.
  struct SortKey {
    int64_t cpu, memory;
    const std::string* created;
    absl::string_view id;
    int pod;
  };
  std::vector<SortKey> keys;
  keys.reserve(order.size());
  std::deque<std::string> made_ids;  // identities of UID-less pods
  for (int p : order) {
    const DenseResources& r = classes_[pending_[p].cls].cls.requests;
    const auto& md = pending_[p].pod->metadata();
    absl::string_view id = md.uid();
    if (id.empty()) id = made_ids.emplace_back(PodIdentity(md));
    keys.push_back(
        {r[kDimCpu], r[kDimMemory], &md.creation_timestamp(), id, p});
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const SortKey& a, const SortKey& b) {
                     if (a.cpu != b.cpu) return a.cpu > b.cpu;
                     if (a.memory != b.memory) return a.memory > b.memory;
                     if (*a.created != *b.created)
                       return *a.created < *b.created;
                     return a.id < b.id;
                   });
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].pod;
  std::deque<int> q(order.begin(), order.end());
  std::vector<size_t> last_len(np, 0);
  std::vector<int> last_level(np, 0);
  while (!q.empty()) {
    int p = q.front();
    if (last_len[p] == q.size()) break;
    q.pop_front();
    Fail f = Fail::kOther;
    int level = 0;
    for (;; ++level) {
      if (GetView(pending_[p].cls, level) == nullptr) {
        --level;
        break;
      }
      f = Add(p, level, nullptr);
      if (f != Fail::kOther) break;
    }
    if (f != Fail::kNone) {
      last_level[p] = level;
      q.push_back(p);
      last_len[p] = q.size();
    }
  }
  // The loop ends after a full cycle without progress, so the state is what
  // each remaining pod last saw: explaining now gives the same message as
  // explaining at the time, without paying for it on every retry.
  for (int p : q) {
    std::string err;
    if (Add(p, last_level[p], &err) == Fail::kNone) continue;
    errors_[p] = err.empty() ? "no placement found" : err;
  }
}

}  // namespace nodeplan::scheduling
