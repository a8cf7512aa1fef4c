// Compiles NodePools, NodeClasses and the catalog into the immutable model.

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/hash.h"
#include "scheduling/model.h"

namespace nodeplan::scheduling {
namespace {

constexpr const char* kReservationIdLabel =
    "karpenter.k8s.aws/capacity-reservation-id";

Keys InternKeys(Interner& in) {
  Keys k;
  k.zone = in.Intern("topology.kubernetes.io/zone");
  k.region = in.Intern("topology.kubernetes.io/region");
  k.instance_type = in.Intern("node.kubernetes.io/instance-type");
  k.arch = in.Intern("kubernetes.io/arch");
  k.os = in.Intern("kubernetes.io/os");
  k.capacity_type = in.Intern("karpenter.sh/capacity-type");
  k.nodepool = in.Intern("karpenter.sh/nodepool");
  k.hostname = in.Intern("kubernetes.io/hostname");
  k.registered = in.Intern("karpenter.sh/registered");
  k.initialized = in.Intern("karpenter.sh/initialized");
  k.windows_build = in.Intern("node.kubernetes.io/windows-build");
  k.reservation_id = in.Intern(kReservationIdLabel);
  k.nodeclass = kNoId;
  k.v_true = in.Intern("true");
  k.v_reserved = in.Intern("reserved");
  k.v_spot = in.Intern("spot");
  k.v_on_demand = in.Intern("on-demand");
  return k;
}

void MarkWellKnown(WellKnown& wk, Id id) {
  if (wk.is_well_known.size() <= id) wk.is_well_known.resize(id + 1, false);
  wk.is_well_known[id] = true;
}

std::vector<Id> InternAll(Interner& in,
                          const google::protobuf::RepeatedPtrField<std::string>& v) {
  std::vector<Id> out;
  out.reserve(v.size());
  for (const auto& s : v) out.push_back(in.Intern(s));
  return out;
}

// Label alias normalization (Karpenter's NormalizedLabels).
std::string Normalize(const std::string& key) {
  if (key == "failure-domain.beta.kubernetes.io/zone")
    return "topology.kubernetes.io/zone";
  if (key == "failure-domain.beta.kubernetes.io/region")
    return "topology.kubernetes.io/region";
  if (key == "beta.kubernetes.io/arch") return "kubernetes.io/arch";
  if (key == "beta.kubernetes.io/os") return "kubernetes.io/os";
  if (key == "beta.kubernetes.io/instance-type")
    return "node.kubernetes.io/instance-type";
  return key;
}

}  // namespace

bool OfferingCompatible(const Offering& o, const Reqs& r, const Keys& k,
                        const Interner& in) {
  if (const Req* z = r.Get(k.zone); z && !Has(*z, o.zone, in)) return false;
  if (const Req* c = r.Get(k.capacity_type); c && !Has(*c, o.capacity_type, in))
    return false;
  if (o.reservation != kNoId) {
    if (const Req* x = r.Get(k.reservation_id); x && !Has(*x, o.reservation, in))
      return false;
  }
  return true;
}

Bits FitIndex::Fitting(const ResVec& need, size_t n) const {
  Bits out(n, true);
  for (size_t d = 0; d < sorted.size(); ++d) {
    if (need[d] <= 0) continue;
    const auto& vals = sorted[d];
    size_t rank =
        std::lower_bound(vals.begin(), vals.end(), need[d]) - vals.begin();
    out &= suffix[d][rank];
  }
  return out;
}

Req NodeSelectorReq(Interner& in, const v1::NodeSelectorRequirement& r) {
  Id key = in.Intern(Normalize(r.key()));
  Req q = MakeReq(key, r.operator_(), InternAll(in, r.values()), in);
  if (r.has_min_values()) q.min_values = r.min_values();
  return q;
}

absl::StatusOr<Compiled> CompileSnapshot(const v1::ScheduleRequest& base) {
  Compiled c;
  Interner& in = c.in;
  c.keys = InternKeys(in);
  const Keys& k = c.keys;
  for (Id id : {k.nodepool, k.zone, k.region, k.instance_type, k.arch, k.os,
                k.capacity_type, k.windows_build, k.reservation_id})
    MarkWellKnown(c.wk, id);
  const v1::Catalog& cat = base.catalog();
  for (const auto& l : cat.well_known_labels()) MarkWellKnown(c.wk, in.Intern(l));

  // Unavailable offerings, as "type/zone/capacity-type".
  absl::flat_hash_map<std::string, bool> unavailable;
  for (const auto& u : base.unavailable_offerings())
    unavailable[absl::StrCat(u.instance_type(), "/", u.zone(), "/",
                             u.capacity_type())] = true;

  // Instance types.
  c.types.reserve(cat.instance_types_size());
  for (int i = 0; i < cat.instance_types_size(); ++i) {
    const v1::InstanceType& t = cat.instance_types(i);
    std::string path = absl::StrCat("catalog.instanceTypes[", i, "] (", t.name(), ")");
    InstanceType it;
    it.name = t.name();
    it.name_id = in.Intern(t.name());
    auto cap = c.dims.ParseList(t.capacity(), path + ".capacity");
    if (!cap.ok()) return cap.status();
    it.capacity = *cap;
    ResVec overhead;
    for (const auto* list : {&t.overhead().kube_reserved(),
                             &t.overhead().system_reserved(),
                             &t.overhead().eviction_threshold()}) {
      auto o = c.dims.ParseList(*list, path + ".overhead");
      if (!o.ok()) return o.status();
      overhead += *o;
    }
    // Allocatable: capacity minus overhead on capacity's keys, then hugepages
    // taken out of memory (floored at zero).
    for (int d = 0; d < kMaxDims; ++d)
      it.allocatable[d] = it.capacity[d] - (it.capacity[d] ? overhead[d] : 0);
    for (int d = 0; d < c.dims.size(); ++d)
      if (absl::StartsWith(c.dims.Name(d), "hugepages-"))
        it.allocatable[kMemory] =
            std::max<int64_t>(0, it.allocatable[kMemory] - it.capacity[d]);
    std::vector<Id> zones, cts;
    for (int j = 0; j < t.offerings_size(); ++j) {
      const v1::Offering& o = t.offerings(j);
      Offering off;
      off.zone = in.Intern(o.zone());
      off.capacity_type = in.Intern(o.capacity_type());
      off.price = o.price();
      off.available = !o.has_available() || o.available();
      if (!o.reservation_id().empty()) {
        off.reservation = in.Intern(o.reservation_id());
        off.reservation_capacity = o.reservation_capacity();
        if (off.reservation_capacity <= 0) off.available = false;
      }
      if (unavailable.contains(
              absl::StrCat(t.name(), "/", o.zone(), "/", o.capacity_type())))
        off.available = false;
      if (off.available) {
        zones.push_back(off.zone);
        cts.push_back(off.capacity_type);
      }
      it.offerings.push_back(off);
    }
    // Requirements: labels, extra requirements, then the ones every type
    // defines (name, zones and capacity types of available offerings).
    std::vector<std::pair<std::string, std::string>> labels(t.labels().begin(),
                                                            t.labels().end());
    std::sort(labels.begin(), labels.end());
    for (const auto& [key, value] : labels)
      it.reqs.Add(InReq(in.Intern(Normalize(key)), in.Intern(value)), in);
    for (const auto& r : t.requirements()) it.reqs.Add(NodeSelectorReq(in, r), in);
    it.reqs.Add(InReq(k.instance_type, it.name_id), in);
    Req zr = MakeReq(k.zone, "In", zones, in);
    it.reqs.Add(zr, in);
    it.reqs.Add(MakeReq(k.capacity_type, "In", cts, in), in);
    c.types.push_back(std::move(it));
  }
  const size_t n = c.types.size();

  // Fit index.
  c.fit.sorted.resize(kMaxDims);
  c.fit.suffix.resize(kMaxDims);
  for (int d = 0; d < c.dims.size(); ++d) {
    std::vector<std::pair<int64_t, size_t>> order;
    order.reserve(n);
    for (size_t i = 0; i < n; ++i) order.emplace_back(c.types[i].allocatable[d], i);
    std::sort(order.begin(), order.end());
    auto& vals = c.fit.sorted[d];
    auto& suf = c.fit.suffix[d];
    vals.reserve(n);
    for (auto& [v, i] : order) vals.push_back(v);
    suf.assign(n + 1, Bits(n));
    for (size_t r = n; r-- > 0;) {
      suf[r] = suf[r + 1];
      suf[r].Set(order[r].second);
    }
  }
  c.fit.sorted.resize(c.dims.size());
  c.fit.suffix.resize(c.dims.size());

  // NodeClasses by name: the zones of their subnets restrict offerings.
  absl::flat_hash_map<std::string, const v1::NodeClass*> classes;
  for (const auto& nc : base.node_classes()) classes[nc.metadata().name()] = &nc;

  for (int p = 0; p < base.node_pools_size(); ++p) {
    const v1::NodePool& np = base.node_pools(p);
    std::string path = absl::StrCat("nodePools[", p, "] (", np.metadata().name(), ")");
    if (np.spec().has_replicas()) {
      c.static_pools.push_back(np.metadata().name());
      continue;
    }
    Pool pool;
    pool.name = np.metadata().name();
    pool.proto = np;
    pool.weight = np.spec().has_weight() ? np.spec().weight() : 0;
    const auto& tmpl = np.spec().template_();
    for (const auto& t : tmpl.spec().taints()) pool.taints.push_back(t);
    for (int r = 0; r < tmpl.spec().requirements_size(); ++r)
      pool.reqs.Add(NodeSelectorReq(in, tmpl.spec().requirements(r)), in);
    std::vector<std::pair<std::string, std::string>> labels(
        tmpl.metadata().labels().begin(), tmpl.metadata().labels().end());
    std::sort(labels.begin(), labels.end());
    for (const auto& [key, value] : labels)
      pool.reqs.Add(InReq(in.Intern(Normalize(key)), in.Intern(value)), in);
    pool.reqs.Add(InReq(k.nodepool, in.Intern(pool.name)), in);
    const auto& ref = tmpl.spec().node_class_ref();
    if (!ref.kind().empty()) {
      pool.nodeclass_label_key =
          absl::StrCat(ref.group(), "/", absl::AsciiStrToLower(ref.kind()));
      pool.nodeclass_name = ref.name();
      pool.reqs.Add(InReq(in.Intern(pool.nodeclass_label_key),
                          in.Intern(ref.name())),
                    in);
    }
    pool.reqs.Add(InReq(k.registered, k.v_true), in);
    pool.reqs.Add(InReq(k.initialized, k.v_true), in);
    if (!np.spec().limits().empty()) {
      pool.has_limits = true;
      // "nodes" is a limit dimension of its own.
      auto l = c.dims.ParseList(np.spec().limits(), path + ".spec.limits",
                                &pool.limit_mask);
      if (!l.ok()) return l.status();
      pool.limits = *l;
    }
    auto hash = NodePoolHash(np);
    if (!hash.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", hash.status().message()));
    pool.hash = *hash;

    // Zones the NodeClass has subnets in (none listed: no restriction).
    absl::flat_hash_map<Id, bool> class_zones;
    if (auto it = classes.find(ref.name()); it != classes.end()) {
      for (const auto& s : it->second->status().subnets())
        if (!s.zone().empty()) class_zones[in.Intern(s.zone())] = true;
    }
    pool.types = Bits(n);
    pool.offering_mask.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const InstanceType& it = c.types[i];
      if (!Intersects(it.reqs, pool.reqs, in, nullptr)) continue;
      uint64_t mask = 0;
      for (size_t j = 0; j < it.offerings.size() && j < 64; ++j) {
        const Offering& o = it.offerings[j];
        if (!o.available) continue;
        if (!class_zones.empty() && !class_zones.contains(o.zone)) continue;
        if (!OfferingCompatible(o, pool.reqs, k, in)) continue;
        mask |= uint64_t{1} << j;
      }
      if (mask == 0) continue;
      pool.offering_mask[i] = mask;
      pool.types.Set(i);
    }
    c.pools.push_back(std::move(pool));
  }
  // Weight descending, ties by name descending (Karpenter's OrderByWeight).
  std::stable_sort(c.pools.begin(), c.pools.end(),
                   [](const Pool& a, const Pool& b) {
                     if (a.weight != b.weight) return a.weight > b.weight;
                     return a.name > b.name;
                   });
  return c;
}

}  // namespace nodeplan::scheduling
