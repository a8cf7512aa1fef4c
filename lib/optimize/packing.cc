// Optimized packing: Karpenter's first-fit fills each new NodeClaim up to the
// largest instance type that still fits and then launches the cheapest type
// that holds what it packed, which can leave a large node and a small
// remainder where several medium nodes cost less. The Optimized mode reruns
// the same deterministic round with one NodePool's instance types capped at
// a node size the cost bound's linear program favours (types no larger than
// the cap in CPU and memory), so that first-fit packs nodes of that size,
// and keeps the cheapest result that places exactly the pods the Karpenter
// plan places. Every capped candidate is an ordinary Karpenter-semantics
// plan of a narrowed NodePool, so all pod constraints hold by construction;
// plans that merge a repacking round into another plan are checked by the
// independent verifier (nodeplan/verify.h) before they are kept. The
// NodeClaims keep their real NodePool's name and karpenter.sh/nodepool-hash.

#include "optimize/packing.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/quantity.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"
#include "optimize/plan_bound.h"
#include "scheduling/solver.h"

namespace nodeplan::optimize {
namespace {

constexpr int kDefaultBudget = 3;
// Caps tried on the remainder of the best plan.
constexpr int kSplitCaps = 4;
// NodeClaims idling this fraction of their CPU or more are repacked
// together (after the remainder).
constexpr double kIdleGroup = 0.10;
struct Candidate {
  int pool = -1;
  int type = -1;  // index into Compiled::types: the size cap
  double weight = 0;
};

absl::flat_hash_set<std::string> Unschedulable(const v1::ScheduleResponse& r) {
  absl::flat_hash_set<std::string> s;
  for (const auto& u : r.unschedulable()) s.insert(u.pod());
  return s;
}

// Whether `keys` (distinct) are exactly the keys of `set`.
bool SameKeys(const std::vector<std::string>& keys,
              const absl::flat_hash_set<std::string>& set) {
  if (keys.size() != set.size()) return false;
  for (const std::string& k : keys)
    if (!set.contains(k)) return false;
  return true;
}

// The candidates: per column of the bound's solution that uses nodes, the
// column's instance type as a size cap of its NodePool, heaviest (price x
// nodes) first; then the remaining columns of NodePools the plan launches
// in (`launched`: their indices, ascending), by reduced cost. Ties by
// column order (deterministic).
std::vector<Candidate> Candidates(const scheduling::Compiled& c,
                                  const PlanBound& b,
                                  const std::vector<int>& launched) {
  std::vector<std::pair<double, int>> used, rest;
  for (size_t k = 0; k < b.problem.columns.size(); ++k) {
    const BoundColumn& col = b.problem.columns[k];
    if (!std::binary_search(launched.begin(), launched.end(), col.pool))
      continue;
    double n = k < b.solution.nodes.size() ? b.solution.nodes[k] : 0;
    if (n > 1e-9)
      used.push_back({-n * col.price, static_cast<int>(k)});
    else if (k < b.solution.reduced.size())
      rest.push_back({b.solution.reduced[k], static_cast<int>(k)});
  }
  std::sort(used.begin(), used.end());
  std::sort(rest.begin(), rest.end());
  std::vector<Candidate> out;
  auto add = [&](int k, double w) {
    const BoundColumn& col = b.problem.columns[k];
    // The column's type: its name after "<pool>/".
    std::string type = col.name.substr(c.pools[col.pool].name.size() + 1);
    for (size_t t = 0; t < c.types.size(); ++t)
      if (c.types[t].name == type && c.pools[col.pool].types.Test(t)) {
        out.push_back({col.pool, static_cast<int>(t), w});
        return;
      }
  };
  for (auto [w, k] : used) add(k, w);
  for (auto [w, k] : rest) add(k, w);
  return out;
}

// NodePool `pool`'s instance types capped at type `cap`'s CPU and memory:
// the types no larger than the cap in both.
TypeSet CappedTypes(const scheduling::Compiled& c, int pool, int cap) {
  const scheduling::InstanceType& top = c.types[cap];
  TypeSet out = c.pools[pool].types;
  c.pools[pool].types.ForEach([&](int t) {
    const auto& it = c.types[t];
    if (it.allocatable[kDimCpu] > top.allocatable[kDimCpu] ||
        it.allocatable[kDimMemory] > top.allocatable[kDimMemory])
      out.Clear(t);
  });
  return out;
}

// Milli-units of `resource` in a quantity map (0 when absent or malformed).
int64_t Milli(const google::protobuf::Map<std::string, std::string>& m,
              const char* resource) {
  auto it = m.find(resource);
  if (it == m.end()) return 0;
  absl::StatusOr<int64_t> v = ParseQuantityMilli(it->second);
  return v.ok() ? *v : 0;
}

// The idle fraction of a new NodeClaim's launch type's allocatable CPU
// (0 when unknown).
double IdleCpu(const v1::NewNodeClaim& nc) {
  const int64_t alloc = Milli(nc.launch_allocatable(), "cpu");
  if (alloc <= 0) return 0;
  return 1.0 - static_cast<double>(Milli(nc.requests(), "cpu")) / alloc;
}

// The remainder of a plan: the new NodeClaim whose idle CPU costs most
// (launch price x idle fraction of its launch type's allocatable CPU);
// -1 when none idles. Ties: the earlier NodeClaim.
int Remainder(const v1::ScheduleResponse& plan) {
  int out = -1;
  double worst = 0;
  for (int k = 0; k < plan.new_node_claims_size(); ++k) {
    const v1::NewNodeClaim& nc = plan.new_node_claims(k);
    const int64_t alloc = Milli(nc.launch_allocatable(), "cpu");
    if (alloc <= 0) continue;
    const double idle =
        1.0 - static_cast<double>(Milli(nc.requests(), "cpu")) / alloc;
    if (nc.launch().price() * idle > worst + 1e-12) {
      worst = nc.launch().price() * idle;
      out = k;
    }
  }
  return out;
}

// Per pod of `state`, then per Deployment replica of `prepared` (its
// PreparePods), whether it is bound or one of the pending pods `keys`: a
// round's Options::pending_subset that repacks those pods alone (bound pods
// stay: they hold existing capacity).
std::vector<char> PodsAlone(const v1::ScheduleRequest& state,
                            const scheduling::PreparedPods& prepared,
                            const absl::flat_hash_set<std::string>& keys) {
  std::vector<char> subset;
  subset.reserve(state.pods_size() + prepared.expanded.size());
  std::string key;  // workload::PodKey, in one buffer for all the pods
  auto among = [&](const v1::Pod& p) -> char {
    if (!p.spec().node_name().empty()) return 1;  // bound: holds capacity
    key.clear();
    absl::StrAppend(&key, NamespaceOf(p.metadata()), "/", p.metadata().name());
    return keys.contains(key) ? 1 : 0;
  };
  for (const v1::Pod& p : state.pods()) subset.push_back(among(p));
  for (const v1::Pod* p : prepared.expanded) subset.push_back(among(*p));
  return subset;
}

// Whether a pod's placement depends on where other pods go (topology
// spread, pod affinity or anti-affinity): repacked alone, it would not see
// them.
bool PlacedRelativeToOthers(const v1::PodSpec& spec) {
  const v1::Affinity& a = spec.affinity();
  return spec.topology_spread_constraints_size() > 0 || a.has_pod_affinity() ||
         a.has_pod_anti_affinity();
}

// Whether a pending pod of `state` (Deployment replicas included: a
// replica's spec is its template's), among `keys` unless null, is placed
// relative to others: what PodsAlone's pods would show, without building
// them.
bool AnyPlacedRelativeToOthers(const v1::ScheduleRequest& state,
                               const absl::flat_hash_set<std::string>* keys) {
  for (const v1::Pod& p : state.pods())
    if (p.spec().node_name().empty() && PlacedRelativeToOthers(p.spec()) &&
        (keys == nullptr || keys->contains(workload::PodKey(p))))
      return true;
  for (const v1::Deployment& d : state.deployments()) {
    const v1::PodSpec& spec = d.spec().template_().spec();
    if (!spec.node_name().empty() || !PlacedRelativeToOthers(spec)) continue;
    if (keys == nullptr) return true;
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    const std::string prefix =
        absl::StrCat(NamespaceOf(d.metadata()), "/", d.metadata().name(), "-");
    for (int i = 0; i < replicas; ++i)
      if (keys->contains(absl::StrCat(prefix, i))) return true;
  }
  return false;
}

// Whether every offering of the snapshot's catalog is an ordinary one (no
// capacity reservation, whose count NodeClaims share).
bool NoReservations(const scheduling::Compiled& c) {
  for (const auto& t : c.types)
    for (const auto& o : t.offerings)
      if (o.reservation.id != kNoId) return false;
  return true;
}

// (NodePool, instance type) of each NodeClaim of a rendered plan, as
// SolvedRound::launches() answers for an unrendered one (type -1: the
// launch is not one of the NodePool's types).
std::vector<std::pair<int, int>> Launches(const scheduling::Compiled& c,
                                          const v1::ScheduleResponse& plan) {
  std::vector<std::pair<int, int>> out;
  for (const auto& nc : plan.new_node_claims()) {
    int pool = -1, type = -1;
    for (size_t p = 0; p < c.pools.size() && pool < 0; ++p)
      if (c.pools[p].name == nc.node_pool()) pool = static_cast<int>(p);
    if (pool >= 0)
      c.pools[pool].types.ForEach([&](int t) {
        if (type < 0 && c.types[t].name == nc.launch().instance_type())
          type = t;
      });
    out.emplace_back(pool, type);
  }
  return out;
}

// Whether a plan merged from `part` (a round over some pods of a plan
// alone, with NodePool `pool` capped, that placed all of them) holds
// without checking: `part` holds for its pods by the round's own checks,
// so what could break is only what the round did not see, the plan's other
// pods and NodeClaims. It cannot break when
//   * no pending pod of the request is placed relative to others (the
//     moved pods count for no other pod's spread or affinity, and have
//     none themselves);
//   * `part` places nothing on existing capacity (which the plan's other
//     pods may already fill), only on its own new NodeClaims;
//   * the NodePool has no limits (which would count both parts); and
//   * no offering is a capacity reservation (whose count both parts
//     would draw on).
// Otherwise the merged plan goes to the verifier.
bool MergeHoldsAlone(const scheduling::Compiled& c, int pool,
                     bool pending_topology, bool reservations,
                     const v1::ScheduleResponse& part) {
  return !pending_topology && !reservations &&
         part.existing_nodes_size() == 0 && !c.pools[pool].has_limits;
}

// `*plan` with its NodeClaims `ks` (ascending) replaced by `part`'s
// NodeClaims (renamed after the plan's, as a round names them) and
// placements, in place.
void ReplaceClaims(const std::vector<int>& ks, const v1::ScheduleResponse& part,
                   v1::ScheduleResponse* plan) {
  v1::ScheduleResponse& out = *plan;
  double removed = 0;
  for (auto k = ks.rbegin(); k != ks.rend(); ++k) {
    removed += out.new_node_claims(*k).launch().price();
    out.mutable_new_node_claims()->DeleteSubrange(*k, 1);
  }
  absl::flat_hash_set<std::string> names;
  absl::flat_hash_map<std::string, int> per_pool;
  for (const auto& nc : out.new_node_claims()) {
    names.insert(nc.name());
    ++per_pool[nc.node_pool()];
  }
  for (v1::NewNodeClaim nc : part.new_node_claims()) {
    const std::string pool = nc.node_pool();
    const int ordinal = per_pool[pool]++;
    std::string name;
    for (int salt = 0;; ++salt) {
      name = scheduling::NodeClaimName(pool, ordinal, salt);
      if (names.insert(name).second) break;
    }
    nc.set_name(name);
    nc.mutable_node_claim()->mutable_metadata()->set_name(name);
    *out.add_new_node_claims() = std::move(nc);
  }
  for (const auto& e : part.existing_nodes()) {
    v1::ExistingNodePlacement* into = nullptr;
    for (auto& x : *out.mutable_existing_nodes())
      if (x.name() == e.name() && x.kind() == e.kind()) into = &x;
    if (into == nullptr) {
      *out.add_existing_nodes() = e;
      continue;
    }
    for (const auto& p : e.pods()) into->add_pods(p);
  }
  out.set_cost(out.cost() - removed + part.cost());
}

// The caps tried on a remainder NodeClaim of NodePool `pool` launched as
// type `launch`: the pool's bound columns with less allocatable CPU and no
// more memory than `launch`, cheapest per allocatable CPU first (then
// larger first, then column order), at most kSplitCaps.
std::vector<int> SplitCaps(const scheduling::Compiled& c, const PlanBound& b,
                           int pool, int launch) {
  struct Cap {
    double per_cpu;
    double cpu;
    size_t column;
    int type;
  };
  std::vector<Cap> caps;
  const auto& top = c.types[launch].allocatable;
  absl::flat_hash_map<absl::string_view, int> by_name;
  c.pools[pool].types.ForEach([&](int t) { by_name[c.types[t].name] = t; });
  for (size_t k = 0; k < b.problem.columns.size(); ++k) {
    const BoundColumn& col = b.problem.columns[k];
    if (col.pool != pool) continue;
    // The column's type: its name after "<pool>/".
    auto it = by_name.find(
        absl::string_view(col.name).substr(c.pools[pool].name.size() + 1));
    if (it == by_name.end()) continue;
    const auto& a = c.types[it->second].allocatable;
    if (a[kDimCpu] <= 0 || a[kDimCpu] >= top[kDimCpu] ||
        a[kDimMemory] > top[kDimMemory])
      continue;
    caps.push_back({col.price / static_cast<double>(a[kDimCpu]),
                    static_cast<double>(a[kDimCpu]), k, it->second});
  }
  std::sort(caps.begin(), caps.end(), [](const Cap& x, const Cap& y) {
    if (x.per_cpu != y.per_cpu) return x.per_cpu < y.per_cpu;
    if (x.cpu != y.cpu) return x.cpu > y.cpu;
    return x.column < y.column;
  });
  std::vector<int> out;
  for (const Cap& cap : caps) {
    if (static_cast<int>(out.size()) == kSplitCaps) break;
    out.push_back(cap.type);
  }
  return out;
}

// The NodePools (indices, ascending) a rendered plan launches in.
std::vector<int> LaunchedPools(const scheduling::Compiled& c,
                               const v1::ScheduleResponse& plan) {
  absl::flat_hash_set<std::string> names;
  for (const auto& nc : plan.new_node_claims()) names.insert(nc.node_pool());
  std::vector<int> out;
  for (size_t p = 0; p < c.pools.size(); ++p)
    if (names.contains(c.pools[p].name)) out.push_back(static_cast<int>(p));
  return out;
}

// `karpenter`: the Karpenter round, unrendered (`out` empty; it is rendered
// into `out` only if no candidate beats it), or null when `out` holds it.
absl::Status Improve(const scheduling::Compiled& c,
                     const v1::ScheduleRequest& state,
                     const v1::ScheduleRequest& full, const PlanBound& bound,
                     int budget, const scheduling::DestinationGate* gate,
                     const scheduling::PreparedPods* given,
                     scheduling::SolvedRound* karpenter,
                     v1::ScheduleResponse* out) {
  v1::PackingReport rep;
  rep.set_mode("Optimized");
  const double karpenter_cost =
      karpenter != nullptr ? karpenter->cost() : out->cost();
  rep.set_karpenter_cost(karpenter_cost);
  const auto unsched =
      karpenter != nullptr
          ? absl::flat_hash_set<std::string>(karpenter->unschedulable().begin(),
                                             karpenter->unschedulable().end())
          : Unschedulable(*out);
  std::vector<Candidate> cands;
  if (bound.report.available())
    cands = Candidates(c, bound,
                       karpenter != nullptr ? karpenter->launched_pools()
                                            : LaunchedPools(c, *out));
  // One cap per (pool, type), in candidate order. Each candidate is a round
  // over the compiled snapshot whose NodePool admits only the capped types
  // (Options::pool_types): nothing is recompiled or copied, and the NodePool
  // keeps its name, requirements and karpenter.sh/nodepool-hash (the
  // narrowing is the plan's, not the pool's).
  absl::flat_hash_set<std::pair<int, int>> tried;
  // Candidate plans live on one arena: most are dropped, and dropping them
  // (thousands of placements at 5,000 pods) then frees nothing one by one.
  google::protobuf::Arena arena;
  // Cheaper plans found, in falling cost, with what was done and whether
  // the plan must still be verified (below).
  struct Better {
    v1::ScheduleResponse* plan;
    std::string what;
    bool verify;
  };
  std::vector<Better> better;
  double best = karpenter_cost;
  int n = 0;
  // The instance types each NodePool admits in a candidate round: the
  // snapshot's, one NodePool capped (scheduling::Options::pool_types; the
  // snapshot itself is not copied).
  std::vector<TypeSet> narrowed;
  auto narrow = [&](int pool, int cap) {
    narrowed.clear();
    for (const auto& p : c.pools) narrowed.push_back(p.types);
    narrowed[pool] = CappedTypes(c, pool, cap);
  };
  // Every candidate round is a round of `state`: its Deployment replicas
  // and pod class signatures are the same each time.
  std::optional<scheduling::PreparedPods> prepared;
  const scheduling::PreparedPods* pods =
      given != nullptr && given->request == &state ? given : nullptr;
  // The cheapest capped round so far, unrendered: only the one kept is
  // written out (into `out`, after the loop).
  std::unique_ptr<scheduling::SolvedRound> best_capped;
  std::string best_capped_what;
  // The Karpenter plan's launches (KeepsKarpenterPlan).
  const std::vector<std::pair<int, int>> karpenter_launches =
      karpenter != nullptr ? karpenter->launches() : Launches(c, *out);
  // Whether the catalog offers capacity reservations (computed when asked).
  std::optional<bool> any_reservation;
  for (const auto& cand : cands) {
    if (n >= budget) break;
    if (!tried.insert({cand.pool, cand.type}).second) continue;
    ++n;
    narrow(cand.pool, cand.type);
    // A cap that removes no type is the Karpenter round again, which is
    // deterministic: the same plan, not cheaper (the largest type of the
    // catalog, where one family's price grows with its size).
    if (narrowed[cand.pool] == c.pools[cand.pool].types) continue;
    // A cap below some pod that has nowhere else to go cannot place the
    // pods the Karpenter plan places, so its round would be rejected: it
    // counts as tried without running (plain workloads: a c6a.large cap
    // under 2-CPU pods).
    if (NarrowingStrandsAPod(c, bound, cand.pool, narrowed[cand.pool]))
      continue;
    // A cap over every NodeClaim the Karpenter plan launches there gives
    // that plan back: counted as tried without running (about one capped
    // round in three on the random clusters).
    if (!any_reservation.has_value()) any_reservation = !NoReservations(c);
    if (KeepsKarpenterPlan(c, cand.pool, narrowed[cand.pool],
                           karpenter_launches, *any_reservation))
      continue;
    if (pods == nullptr)
      pods = &prepared.emplace(scheduling::PreparePods(state));
    // The gated Solve: `state` passed validation in the Karpenter round
    // (an empty gate restricts nothing and skips that check again).
    auto r = scheduling::SolveUnrendered(
        c, state, gate != nullptr ? *gate : scheduling::NoGate(), pods,
        narrowed);
    if (!r.ok()) continue;
    if ((*r)->cost() >= best - 1e-9 ||
        !SameKeys((*r)->unschedulable(), unsched))
      continue;
    best = (*r)->cost();
    best_capped = *std::move(r);
    best_capped_what =
        absl::StrCat("NodePool ", c.pools[cand.pool].name,
                     " capped at the size of ", c.types[cand.type].name);
  }
  if (best_capped != nullptr) {
    // Written over the Karpenter plan, which is no longer an answer; the
    // fields a round renders are cleared first (Render sets the rest alike).
    out->clear_new_node_claims();
    out->clear_existing_nodes();
    out->clear_unschedulable();
    out->clear_instance_type_names();
    best_capped->Render(out);
    best_capped.reset();
    better.push_back(Better{out, std::move(best_capped_what),
                            /*verify=*/false});
  } else if (karpenter != nullptr) {
    karpenter->Render(out);
  }
  // Then the remainder of the best plan so far: its most idle NodeClaim's
  // pods alone (unless one of them is placed relative to other pods),
  // under caps of its NodePool smaller than its launch type (SplitCaps).
  // Karpenter's first-fit ends on one NodeClaim sized for what is left,
  // where two smaller ones can cost less; the merged plan is verified like
  // any other. Then, on the result, the same for all of that NodePool's
  // NodeClaims that idle kIdleGroup of their CPU or more together: first-fit
  // packs the smallest pods last, onto nodes that reach their pod limit
  // long before their CPU (110 pods of 250m on a 32-CPU node), where nodes
  // of a size their CPU fills cost less per pod.
  const bool indexed = state.options().instance_type_encoding() == "Indexed";
  // What decides whether a merged plan needs the verifier (MergeHoldsAlone).
  std::optional<bool> pending_topology;
  // `ks` (ascending) are NodeClaims of `plan` of one NodePool; `what` names
  // them in the report; `plan_unchecked`: `plan` itself still needs the
  // verifier (a merged plan: what is built on it needs it too). True when a
  // cheaper repacking was added to `better`.
  auto repack = [&](const v1::ScheduleResponse& plan, bool plan_unchecked,
                    const std::vector<int>& ks, const std::string& what) {
    int pool = -1, launch = -1;
    for (size_t p = 0; p < c.pools.size(); ++p)
      if (c.pools[p].name == plan.new_node_claims(ks[0]).node_pool())
        pool = static_cast<int>(p);
    absl::flat_hash_set<std::string> keys;
    double price = 0;
    for (int k : ks) {
      const v1::NewNodeClaim& nc = plan.new_node_claims(k);
      keys.insert(nc.pods().begin(), nc.pods().end());
      price += nc.launch().price();
      // The largest launch type among them bounds the caps.
      if (pool >= 0)
        c.pools[pool].types.ForEach([&](int t) {
          if (c.types[t].name == nc.launch().instance_type() &&
              (launch < 0 || c.types[t].allocatable[kDimCpu] >
                                 c.types[launch].allocatable[kDimCpu]))
            launch = t;
        });
    }
    // The same pods under every cap: one subset of `state`'s pods, whose
    // class signatures are `state`'s (PreparePods), not built again.
    std::vector<char> alone;
    // The cheapest split, unrendered, and what it did.
    std::unique_ptr<scheduling::SolvedRound> split;
    std::string split_what;
    const std::vector<int> caps = launch >= 0 && bound.report.available()
                                      ? SplitCaps(c, bound, pool, launch)
                                      : std::vector<int>{};
    if (!caps.empty() && !AnyPlacedRelativeToOthers(state, &keys)) {
      if (pods == nullptr)
        pods = &prepared.emplace(scheduling::PreparePods(state));
      alone = PodsAlone(state, *pods, keys);
    }
    for (int cap : caps) {
      if (alone.empty()) break;
      ++n;
      narrow(pool, cap);
      auto r = scheduling::SolveUnrendered(
          c, state, gate != nullptr ? *gate : scheduling::NoGate(), pods,
          narrowed, alone);
      if (!r.ok() || !(*r)->unschedulable().empty() ||
          (*r)->cost() >= price - 1e-9)
        continue;
      if (split != nullptr && (*r)->cost() >= split->cost() - 1e-9) continue;
      split = *std::move(r);
      split_what = absl::StrCat(
          better.empty() ? "" : absl::StrCat(better.back().what, "; then "),
          what, " repacked with ", "NodePool ", c.pools[pool].name,
          " capped at the size of ", c.types[cap].name);
    }
    if (split == nullptr) return false;
    v1::ScheduleResponse part;
    split->Render(&part);
    split.reset();
    if (!pending_topology.has_value())
      pending_topology = AnyPlacedRelativeToOthers(state, nullptr);
    if (!any_reservation.has_value()) any_reservation = !NoReservations(c);
    const bool verify =
        plan_unchecked ||
        !MergeHoldsAlone(c, pool, *pending_topology, *any_reservation, part);
    v1::ScheduleResponse* merged = out;
    if (verify || &plan != out) {
      // Kept apart (on the arena) while it may fail the verifier.
      merged =
          google::protobuf::Arena::CreateMessage<v1::ScheduleResponse>(&arena);
      merged->CopyFrom(plan);
    }
    // Else it needs no check and costs less than every plan before it, so
    // it is the answer unless a cheaper one follows (built on it): written
    // over `out` in place, the plan is not copied.
    ReplaceClaims(ks, part, merged);
    better.push_back(Better{merged, std::move(split_what), verify});
    return true;
  };
  const v1::ScheduleResponse& base_plan =
      better.empty() ? *out : *better.back().plan;
  const int k = indexed ? -1 : Remainder(base_plan);
  if (k >= 0)
    repack(base_plan, !better.empty() && better.back().verify, {k},
           absl::StrCat("NodeClaim ", base_plan.new_node_claims(k).name(),
                        "'s pods"));
  const v1::ScheduleResponse& last =
      better.empty() ? *out : *better.back().plan;
  const int worst = indexed ? -1 : Remainder(last);
  if (worst >= 0) {
    const std::string& pool = last.new_node_claims(worst).node_pool();
    std::vector<int> idle;
    for (int i = 0; i < last.new_node_claims_size(); ++i)
      if (last.new_node_claims(i).node_pool() == pool &&
          IdleCpu(last.new_node_claims(i)) >= kIdleGroup)
        idle.push_back(i);
    if (idle.size() >= 2)
      repack(last, !better.empty() && better.back().verify, idle,
             absl::StrCat("the pods of ", idle.size(), " NodeClaims idling ",
                          kIdleGroup * 100, "% of their CPU or more"));
  }
  rep.set_packings_tried(n);
  // The cheapest improvement that holds (the list is in falling cost). A
  // capped plan is one scheduling round over the request with a NodePool
  // offering fewer instance types: every constraint held in that round as
  // in the Karpenter round, whose plan is not re-verified either (the tests
  // and nodeplan_soak --packing Optimized verify both). A merged plan joins
  // two rounds that did not see each other's pods; unless MergeHoldsAlone
  // shows that nothing the repacking round missed can matter, it is checked
  // by the independent verifier (a full Verify costs about two rounds on
  // the seed workloads, hence not spent where it cannot fail).
  for (auto it = better.rbegin(); it != better.rend(); ++it) {
    if (it->verify && !Verify(full, *it->plan).empty()) continue;
    if (it->plan == out) {  // the capped plan, written there already
      rep.set_improvement(it->what);
      break;
    }
    out->clear_new_node_claims();
    out->clear_existing_nodes();
    out->clear_unschedulable();
    out->clear_instance_type_names();
    out->MergeFrom(*it->plan);
    out->set_cost(it->plan->cost());
    rep.set_improvement(it->what);
    break;
  }
  *out->mutable_packing() = rep;
  return absl::OkStatus();
}

}  // namespace

namespace {

// Finish, with the Karpenter round either rendered in `out` (`karpenter`
// null) or not yet (Optimized mode only).
absl::Status FinishRound(const scheduling::Compiled& c,
                         const v1::ScheduleRequest& state,
                         const v1::ScheduleRequest* base,
                         scheduling::SolvedRound* karpenter,
                         v1::ScheduleResponse* out,
                         const scheduling::DestinationGate* gate,
                         const scheduling::PreparedPods* prepared) {
  const auto& o = state.options();
  if (!o.packing().empty() && o.packing() != "Karpenter" &&
      o.packing() != "Optimized")
    return absl::InvalidArgumentError(
        absl::StrCat("options.packing: \"", o.packing(),
                     "\" is not one of Karpenter, Optimized"));
  if (!o.cost_bound().empty() && o.cost_bound() != "Compute" &&
      o.cost_bound() != "Skip")
    return absl::InvalidArgumentError(
        absl::StrCat("options.costBound: \"", o.cost_bound(),
                     "\" is not one of Compute, Skip"));
  if (o.packing_budget() < 0)
    return absl::InvalidArgumentError(
        "options.packingBudget: must not be negative");
  const bool optimized = o.packing() == "Optimized";
  // The bound is computed when asked for: it can double the time of a large
  // call (Karpenter's benchmark, 1,000 pods: 6.8 ms -> 33 ms).
  const bool skip = o.cost_bound() != "Compute";
  if (!optimized) out->mutable_packing()->set_mode("Karpenter");
  if (skip && !optimized) {
    out->mutable_cost_bound()->set_reason("options.costBound is not Compute");
    return absl::OkStatus();
  }
  auto solver = NewLpSolver();
  PlanBound bound =
      karpenter != nullptr
          ? ComputePlanBound(
                c, state, karpenter->PlacedPods(),
                static_cast<int>(karpenter->unschedulable().size()),
                solver.get())
          : ComputePlanBound(c, state, *out, solver.get());
  if (optimized) {
    v1::ScheduleRequest full;
    if (base != nullptr) {
      full = *base;
      full.MergeFrom(state);
    }
    int budget = o.packing_budget() > 0 ? o.packing_budget() : kDefaultBudget;
    if (auto s = Improve(c, state, base ? full : state, bound, budget, gate,
                         prepared, karpenter, out);
        !s.ok())
      return s;
  }
  if (skip) {
    out->mutable_cost_bound()->set_reason("options.costBound is not Compute");
  } else {
    *out->mutable_cost_bound() = bound.report;
  }
  return absl::OkStatus();
}

}  // namespace

bool KeepsKarpenterPlan(const scheduling::Compiled& c, int pool,
                        const TypeSet& types,
                        const std::vector<std::pair<int, int>>& launches,
                        bool reservations) {
  const scheduling::Pool& p = c.pools[pool];
  if (reservations || p.has_limits || p.reqs.HasMinValues()) return false;
  for (const auto& [lp, t] : launches)
    if (lp == pool && (t < 0 || !types.Test(t))) return false;
  return true;
}

absl::Status Finish(const scheduling::Compiled& c,
                    const v1::ScheduleRequest& state,
                    const v1::ScheduleRequest* base, v1::ScheduleResponse* out,
                    const scheduling::DestinationGate* gate,
                    const scheduling::PreparedPods* prepared) {
  return FinishRound(c, state, base, nullptr, out, gate, prepared);
}

absl::Status FinishOptimized(const scheduling::Compiled& c,
                             const v1::ScheduleRequest& state,
                             const v1::ScheduleRequest* base,
                             scheduling::SolvedRound& karpenter,
                             v1::ScheduleResponse* out,
                             const scheduling::PreparedPods* prepared) {
  if (state.options().packing() != "Optimized")
    return absl::InternalError("FinishOptimized: packing is not Optimized");
  return FinishRound(c, state, base, &karpenter, out, nullptr, prepared);
}

}  // namespace nodeplan::optimize
