// ComputePlanBound (optimize/plan_bound.h): what the relaxation keeps of a
// scheduling request, and why each simplification only lowers the bound.
//  * Covered pods: the pending pods the plan places. Unschedulable ones are
//    left out (fewer pods never raise a minimum).
//  * Pod classes: identical requests and identical admitted NodePools. A
//    NodePool is admitted when the pod tolerates its NoSchedule/NoExecute
//    taints (PreferNoSchedule ones can be relaxed away) and it can possibly
//    carry the pod's nodeSelector labels (PoolMayLabel). Required node
//    affinity, topology spread, pod (anti-)affinity, host ports, volumes,
//    and nodeSelector keys that are not template labels of every admitted
//    NodePool (instance-type labels) are dropped (relaxed_pods): dropping a
//    constraint only widens the feasible set.
//  * Columns: per NodePool the instance types it admits, priced at the
//    cheapest available offering it allows (a plan pays at least that),
//    allocatable less the requests of DaemonSets that certainly run there
//    (no node selector or affinity, NodePool taints tolerated). A class is
//    admitted to a column only if one of its pods fits there alone. Within
//    a NodePool a type is dropped when another one is no dearer, has at
//    least its allocatable in every requested dimension and at most its
//    capacity in every limited one: any plan using the first can use the
//    second instead at no more cost.
//  * Existing capacity: Nodes' status.allocatable less their bound pods'
//    requests, in-flight NodeClaims' status.allocatable (or, without one,
//    the largest allocatable of the catalog), summed over all of them and
//    open to every class (pooling and ignoring compatibility only widen).
//  * Limits: launched capacity per NodePool at most spec.limits (existing
//    usage not subtracted: wider again).

#include "optimize/plan_bound.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "scheduling/pods.h"

namespace nodeplan::optimize {
namespace {

// Whether NodePool `pool` can possibly launch a node labelled key=value:
// not when its template labels set the key otherwise, its requirements
// exclude the value, or nothing defines the key (no template label or
// requirement, no instance type of the NodePool, not a well-known label:
// Karpenter's Compatible refuses an undefined custom key). Anything else
// (instance-type values, Gt/Lt) counts as possible.
bool PoolMayLabel(const scheduling::Compiled& c, const scheduling::Pool& pool,
                  const std::string& key, const std::string& value) {
  const auto& tmpl = pool.proto.spec().template_();
  bool defined = false;
  if (auto it = tmpl.metadata().labels().find(key);
      it != tmpl.metadata().labels().end()) {
    if (it->second != value) return false;
    defined = true;
  }
  if (!defined) {
    const LabelKeyId id = c.in.FindKey(key);
    if (id != kNoId && c.wk->Contains(id)) defined = true;
    if (id != kNoId && !defined) {
      pool.types.ForEach([&](size_t t) {
        if (c.types[t].reqs.Has(id)) defined = true;
      });
    }
  }
  for (const auto& r : tmpl.spec().requirements()) {
    if (r.key() != key) continue;
    defined = true;
    if (r.key() != key) continue;
    bool listed = std::find(r.values().begin(), r.values().end(), value) !=
                  r.values().end();
    if ((r.operator_() == "In" && !listed) ||
        (r.operator_() == "NotIn" && listed) || r.operator_() == "DoesNotExist")
      return false;
  }
  return defined;
}

// Whether the pod has constraints the program drops. A nodeSelector is kept
// when every key it names is a template label of the NodePools it admits
// (then PoolMayLabel decided exactly); otherwise it is relaxed too.
bool Relaxed(const v1::PodSpec& spec, const scheduling::Compiled& c,
             const std::vector<bool>& admitted) {
  for (const auto& [key, value] : spec.node_selector())
    for (size_t i = 0; i < c.pools.size(); ++i)
      if (admitted[i] &&
          !c.pools[i].proto.spec().template_().metadata().labels().contains(
              key))
        return true;
  if (spec.has_affinity() || spec.topology_spread_constraints_size() > 0)
    return true;
  for (const auto& v : spec.volumes())
    if (v.has_persistent_volume_claim()) return true;
  for (const auto* list : {&spec.containers(), &spec.init_containers()})
    for (const auto& c : *list)
      for (const auto& port : c.ports())
        if (port.host_port() != 0) return true;
  return false;
}

std::string PodKey(const v1::ObjectMeta& m) {
  return absl::StrCat(m.namespace_().empty() ? "default" : m.namespace_(), "/",
                      m.name());
}

}  // namespace

// The NodePool taints a pod must tolerate: PreferNoSchedule ones may be
// relaxed away (preferences), so only NoSchedule and NoExecute count.
std::vector<std::vector<v1::Taint>> HardTaints(const scheduling::Compiled& c) {
  std::vector<std::vector<v1::Taint>> out(c.pools.size());
  for (size_t i = 0; i < c.pools.size(); ++i)
    for (const auto& t : c.pools[i].taints)
      if (t.effect() == "NoSchedule" || t.effect() == "NoExecute")
        out[i].push_back(t);
  return out;
}

PlanBound ComputePlanBound(const scheduling::Compiled& c,
                           const v1::ScheduleRequest& state,
                           const v1::ScheduleResponse& response,
                           const LpSolver* solver) {
  absl::flat_hash_set<std::string> placed;
  for (const auto& nc : response.new_node_claims())
    for (const auto& p : nc.pods()) placed.insert(p);
  for (const auto& e : response.existing_nodes())
    for (const auto& p : e.pods()) placed.insert(p);
  return ComputePlanBound(c, state, placed, response.unschedulable_size(),
                          solver);
}

PlanBound ComputePlanBound(const scheduling::Compiled& c,
                           const v1::ScheduleRequest& state,
                           const absl::flat_hash_set<std::string>& placed,
                           int unschedulable, const LpSolver* solver) {
  PlanBound out;
  v1::CostBound& rep = out.report;
  rep.set_excluded_pods(unschedulable);

  ResourceDims dims = c.dims;
  Interner names(&c.in);
  const auto hard_taints = HardTaints(c);
  auto fail = [&](std::string why) {
    rep.set_available(false);
    rep.set_reason(std::move(why));
    return out;
  };

  // Covered pods: pending request pods and deployment replicas that the
  // plan places. A Deployment's replicas share their template's spec, so
  // its placed replicas are one entry with their count, not one per replica.
  struct Covered {
    DenseResources req;
    std::vector<bool> pools;  // tolerated NodePools
    bool relaxed = false;
    int64_t count = 1;  // pods described by this entry
  };
  std::vector<Covered> covered;
  auto describe = [&](const v1::PodSpec& spec,
                      const std::string& key) -> absl::StatusOr<Covered> {
    auto req = scheduling::PodRequests(spec, names, dims, "pods[" + key + "]");
    if (!req.ok()) return req.status();
    Covered cv{*req, {}, false};
    auto tols = scheduling::CompileTolerations(spec.tolerations());
    for (size_t i = 0; i < c.pools.size(); ++i) {
      bool ok = scheduling::Tolerates(hard_taints[i], tols, nullptr);
      for (const auto& [label, value] : spec.node_selector())
        ok = ok && PoolMayLabel(c, c.pools[i], label, value);
      cv.pools.push_back(ok);
    }
    cv.relaxed = Relaxed(spec, c, cv.pools);
    return cv;
  };
  absl::flat_hash_set<std::string> seen;
  for (const auto& p : state.pods()) {
    if (!p.spec().node_name().empty()) continue;
    std::string key = PodKey(p.metadata());
    if (!placed.contains(key) || !seen.insert(key).second) continue;
    auto cv = describe(p.spec(), key);
    if (!cv.ok()) return fail(std::string(cv.status().message()));
    covered.push_back(*std::move(cv));
  }
  for (const auto& d : state.deployments()) {
    // Replicas bound by their template are not pending.
    if (!d.spec().template_().spec().node_name().empty()) continue;
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    const std::string prefix = PodKey(d.metadata()) + "-";
    std::optional<Covered> replicas_placed;
    for (int i = 0; i < replicas; ++i) {
      std::string key = absl::StrCat(prefix, i);
      if (!placed.contains(key) || !seen.insert(key).second) continue;
      if (replicas_placed.has_value()) {
        ++replicas_placed->count;
        continue;
      }
      auto cv = describe(d.spec().template_().spec(), key);
      if (!cv.ok()) return fail(std::string(cv.status().message()));
      replicas_placed = *std::move(cv);
    }
    if (replicas_placed.has_value())
      covered.push_back(*std::move(replicas_placed));
  }
  int64_t covered_pods = 0, relaxed = 0;
  for (const auto& cv : covered) {
    covered_pods += cv.count;
    if (cv.relaxed) relaxed += cv.count;
  }
  rep.set_covered_pods(static_cast<int32_t>(covered_pods));
  rep.set_relaxed_pods(static_cast<int32_t>(relaxed));

  // DaemonSet overhead that certainly applies, per NodePool.
  std::vector<DenseResources> overhead(c.pools.size());
  for (const auto& ds : state.daemon_sets()) {
    const v1::PodSpec& spec = ds.spec().template_().spec();
    if (!spec.node_selector().empty() || spec.has_affinity()) continue;
    auto req = scheduling::PodRequests(
        spec, names, dims, "daemonSets[" + ds.metadata().name() + "]");
    if (!req.ok()) return fail(std::string(req.status().message()));
    auto tols = scheduling::CompileTolerations(spec.tolerations());
    for (size_t i = 0; i < c.pools.size(); ++i)
      if (scheduling::Tolerates(c.pools[i].taints, tols, nullptr))
        overhead[i] += *req;
  }

  const int nd = dims.size();
  out.problem.dims = nd;
  std::vector<bool> requested(nd, false);
  for (const auto& cv : covered)
    for (int r = 0; r < nd; ++r)
      if (cv.req[r] > 0) requested[r] = true;
  const int nodes_dim = dims.Find("nodes");

  // Columns, pruned by dominance within each NodePool.
  std::vector<std::vector<int>> pool_columns(c.pools.size());
  for (size_t pi = 0; pi < c.pools.size(); ++pi) {
    const scheduling::Pool& pool = c.pools[pi];
    std::vector<BoundColumn> cand;
    pool.types.ForEach([&](size_t t) {
      const scheduling::InstanceType& it = c.types[t];
      double price = kInf;
      for (size_t j = 0; j < it.offerings.size() && j < 64; ++j)
        if (pool.offering_mask[t] >> j & 1)
          price = std::min(price, it.offerings[j].price);
      if (price == kInf) return;
      BoundColumn col;
      col.price = price;
      col.pool = static_cast<int>(pi);
      col.name = absl::StrCat(pool.name, "/", it.name);
      for (int r = 0; r < nd; ++r) {
        int64_t a = SaturatingSub(it.allocatable[r], overhead[pi][r]);
        col.allocatable.push_back(static_cast<double>(std::max<int64_t>(a, 0)));
        col.capacity.push_back(static_cast<double>(it.capacity[r]));
      }
      cand.push_back(std::move(col));
    });
    auto dominates = [&](const BoundColumn& a, const BoundColumn& b) {
      if (a.price > b.price) return false;
      for (int r = 0; r < nd; ++r) {
        if (requested[r] && a.allocatable[r] < b.allocatable[r]) return false;
        if (pool.has_limits && (pool.limit_mask >> r & 1) &&
            a.capacity[r] > b.capacity[r])
          return false;
      }
      return true;
    };
    for (size_t i = 0; i < cand.size(); ++i) {
      bool dropped = false;
      for (size_t j = 0; j < cand.size() && !dropped; ++j) {
        if (i == j || !dominates(cand[j], cand[i])) continue;
        // Equal columns: the earlier one stays.
        dropped = !dominates(cand[i], cand[j]) || j < i;
      }
      if (dropped) continue;
      pool_columns[pi].push_back(static_cast<int>(out.problem.columns.size()));
      out.problem.columns.push_back(cand[i]);
    }
    if (pool.has_limits) {
      for (int r = 0; r < nd && r < 32; ++r) {
        if (!(pool.limit_mask >> r & 1)) continue;
        out.problem.limits.push_back({static_cast<int>(pi),
                                      r == nodes_dim ? -1 : r,
                                      static_cast<double>(pool.limits[r])});
      }
    }
  }
  rep.set_node_columns(static_cast<int32_t>(out.problem.columns.size()));

  // Existing free capacity.
  std::vector<double> free(nd, 0);
  bool any_existing = false;
  std::map<std::string, DenseResources> bound_use;
  for (const auto& p : state.pods()) {
    // As the scheduler counts them: terminal pods free their requests;
    // pods being deleted still hold theirs.
    if (p.spec().node_name().empty() || p.status().phase() == "Succeeded" ||
        p.status().phase() == "Failed")
      continue;
    auto req = scheduling::PodRequests(p.spec(), names, dims,
                                       "pods[" + PodKey(p.metadata()) + "]");
    if (req.ok()) bound_use[p.spec().node_name()] += *req;
  }
  for (const auto& n : state.nodes()) {
    auto a = dims.ParseList(n.status().allocatable(), names,
                            "nodes[" + n.metadata().name() + "]");
    if (!a.ok()) return fail(std::string(a.status().message()));
    any_existing = true;
    DenseResources use = bound_use[n.metadata().name()];
    for (int r = 0; r < nd && r < kMaxResourceDims; ++r)
      free[r] += static_cast<double>(std::max<int64_t>((*a)[r] - use[r], 0));
  }
  for (const auto& nc : state.node_claims()) {
    any_existing = true;
    if (!nc.status().allocatable().empty()) {
      auto a = dims.ParseList(nc.status().allocatable(), names,
                              "nodeClaims[" + nc.metadata().name() + "]");
      if (!a.ok()) return fail(std::string(a.status().message()));
      for (int r = 0; r < nd; ++r) free[r] += static_cast<double>((*a)[r]);
    } else {
      for (int r = 0; r < nd; ++r) {
        int64_t m = 0;
        for (const auto& it : c.types) m = std::max(m, it.allocatable[r]);
        free[r] += static_cast<double>(m);
      }
    }
  }
  if (any_existing) out.problem.existing_free = free;

  // Classes, in key order (not input order: the same pods in another order
  // give the same program, hence the same bytes).
  std::map<std::pair<std::vector<int64_t>, std::vector<bool>>, int64_t> index;
  for (const auto& cv : covered) {
    std::vector<int64_t> key(cv.req.v.begin(), cv.req.v.begin() + nd);
    index[std::make_pair(std::move(key), cv.pools)] += cv.count;
  }
  for (const auto& [key, count] : index) {
    BoundClass bc;
    for (int r = 0; r < nd; ++r)
      bc.requests.push_back(static_cast<double>(key.first[r]));
    for (size_t pi = 0; pi < c.pools.size(); ++pi) {
      if (!key.second[pi]) continue;
      for (int k : pool_columns[pi]) {
        const BoundColumn& col = out.problem.columns[k];
        bool fits = true;
        for (int r = 0; r < nd && fits; ++r)
          fits = bc.requests[r] <= col.allocatable[r];
        if (fits) bc.columns.push_back(k);
      }
    }
    bc.existing = any_existing;
    bc.count = count;
    out.problem.classes.push_back(std::move(bc));
  }
  rep.set_pod_classes(static_cast<int32_t>(out.problem.classes.size()));

  if (covered.empty()) {
    rep.set_available(true);
    rep.set_lower_bound(0);
    return out;
  }
  if (solver == nullptr)
    return fail(
        "no LP solver in this build (configure with NODEPLAN_WITH_CLP=ON and "
        "COIN-OR CLP installed)");
  auto sol = SolveBound(out.problem, *solver);
  if (!sol.ok()) return fail(std::string(sol.status().message()));
  out.solution = *std::move(sol);
  rep.set_available(true);
  rep.set_lower_bound(out.solution.lower_bound);
  return out;
}

bool NarrowingStrandsAPod(const scheduling::Compiled& c, const PlanBound& bound,
                          int pool, const TypeSet& types) {
  if (!bound.report.available()) return false;
  for (const BoundClass& bc : bound.problem.classes) {
    if (bc.count <= 0 || bc.existing || bc.columns.empty()) continue;
    bool elsewhere = false;
    for (int k : bc.columns) elsewhere |= bound.problem.columns[k].pool != pool;
    if (elsewhere) continue;
    bool fits = false;
    types.ForEach([&](int t) {
      if (fits) return;
      bool all = true;
      for (size_t r = 0; r < bc.requests.size() && all; ++r)
        all = r < static_cast<size_t>(kMaxResourceDims)
                  ? bc.requests[r] <=
                        static_cast<double>(c.types[t].allocatable[r])
                  : bc.requests[r] <= 0;
      fits = all;
    });
    if (!fits) return true;
  }
  return false;
}

}  // namespace nodeplan::optimize
