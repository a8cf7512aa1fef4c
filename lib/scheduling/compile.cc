// Compiles NodePools, NodeClasses and the catalog into the immutable model.

#include <algorithm>
#include <cctype>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "scheduling/model.h"
#include "validation/workload_checks.h"

namespace nodeplan::scheduling {
namespace {

constexpr const char* kReservationIdLabel =
    "karpenter.k8s.aws/capacity-reservation-id";

Keys InternKeys(Interner& in) {
  Keys k;
  k.zone = in.Intern(labels::kZone);
  k.region = in.Intern(labels::kRegion);
  k.instance_type = in.Intern(labels::kInstanceType);
  k.arch = in.Intern(labels::kArch);
  k.os = in.Intern(labels::kOs);
  k.capacity_type = in.Intern(labels::kCapacityType);
  k.nodepool = in.Intern(labels::kNodePool);
  k.hostname = in.Intern(labels::kHostname);
  k.registered = in.Intern(labels::kRegistered);
  k.initialized = in.Intern(labels::kInitialized);
  k.windows_build = in.Intern(labels::kWindowsBuild);
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

std::vector<Id> InternAll(
    Interner& in, const google::protobuf::RepeatedPtrField<std::string>& v) {
  std::vector<Id> out;
  out.reserve(v.size());
  for (const auto& s : v) out.push_back(in.Intern(s));
  return out;
}

// Label alias normalization (Karpenter's NormalizedLabels).
std::string Normalize(const std::string& key) {
  if (key == labels::kZoneBeta) return labels::kZone;
  if (key == labels::kRegionBeta) return labels::kRegion;
  if (key == labels::kArchBeta) return labels::kArch;
  if (key == labels::kOsBeta) return labels::kOs;
  if (key == labels::kInstanceTypeBeta) return labels::kInstanceType;
  return key;
}

}  // namespace

bool OfferingCompatible(const Offering& o, const Reqs& r, const Keys& k,
                        const Interner& in) {
  if (const Req* z = r.Get(k.zone); z && !Has(*z, o.zone, in)) return false;
  if (const Req* c = r.Get(k.capacity_type); c && !Has(*c, o.capacity_type, in))
    return false;
  if (o.reservation != kNoId) {
    if (const Req* x = r.Get(k.reservation_id);
        x && !Has(*x, o.reservation, in))
      return false;
  }
  return true;
}

TypeSet FitIndex::Fitting(const ResVec& need, size_t n) const {
  // A resource first seen on a pod (e.g. nvidia.com/gpu with no GPU type in
  // the catalog) has no dimension here: no instance type has any of it.
  for (size_t d = sorted.size(); d < static_cast<size_t>(kMaxDims); ++d)
    if (need[d] > 0) return TypeSet(n, false);
  TypeSet out(n, true);
  for (size_t d = 0; d < sorted.size(); ++d) {
    if (need[d] <= 0) continue;
    const auto& vals = sorted[d];
    size_t rank =
        std::lower_bound(vals.begin(), vals.end(), need[d]) - vals.begin();
    out.AndWith(suffix[d][rank]);
  }
  return out;
}

Req NodeSelectorReq(Interner& in, const v1::NodeSelectorRequirement& r) {
  Id key = in.Intern(Normalize(r.key()));
  Req q = MakeReq(key, r.operator_(), InternAll(in, r.values()), in);
  if (r.has_min_values()) q.min_values = r.min_values();
  return q;
}

namespace {

// The instance types of one catalog: the request's explicit catalog, or the
// embedded AWS catalog built for one NodeClass. c.types[begin, end) holds
// them; the NodePools that use this catalog see only that range.
struct CatalogGroup {
  // AWS groups: the NodeClass the catalog is built for (nullptr when the
  // NodePool's NodeClass is not in the request: the provider's defaults),
  // and the NodeClass names that resolve to it.
  bool aws = false;
  const v1::NodeClass* node_class = nullptr;
  std::vector<std::string> class_names;
  std::shared_ptr<const v1::Catalog> owned;
  const v1::Catalog* catalog = nullptr;
  size_t begin = 0, end = 0;
};

const std::string& NodeClassName(const v1::NodePool& np) {
  return np.spec().template_().spec().node_class_ref().name();
}

// An explicit catalog (instanceTypes given) is used for every NodePool.
// Otherwise (catalogRef "aws" or empty) each NodeClass a NodePool references
// gets AwsCatalog(node_class) of its own, since that catalog depends on the
// NodeClass (ephemeral storage size, EKS max-pods cap, allow-list, zones);
// NodePools referencing the same NodeClass share it. Group 0 is always the
// first NodePool's, so that types exist for in-flight NodeClaims even
// without a dynamic NodePool.
absl::StatusOr<std::vector<CatalogGroup>> CatalogGroups(
    const v1::ScheduleRequest& base) {
  std::vector<CatalogGroup> groups;
  if (base.catalog().instance_types_size() > 0) {
    groups.emplace_back();
    groups.back().catalog = &base.catalog();
    return groups;
  }
  if (!base.catalog_ref().empty() && base.catalog_ref() != "aws")
    return absl::InvalidArgumentError(
        absl::StrCat("catalogRef: \"", base.catalog_ref(),
                     "\" is not a known catalog (aws)"));
  // Last NodeClass of a name wins, as before.
  absl::flat_hash_map<std::string, const v1::NodeClass*> classes;
  for (const auto& nc : base.node_classes())
    classes[nc.metadata().name()] = &nc;
  auto add = [&](const std::string& name) -> absl::Status {
    const v1::NodeClass* node_class = nullptr;
    if (auto it = classes.find(name); it != classes.end())
      node_class = it->second;
    for (CatalogGroup& g : groups) {
      if (g.node_class != node_class) continue;
      if (std::find(g.class_names.begin(), g.class_names.end(), name) ==
          g.class_names.end())
        g.class_names.push_back(name);
      return absl::OkStatus();
    }
    // Shared: the default variants are built once per process.
    auto catalog = SharedAwsCatalog(node_class);
    if (!catalog.ok()) return catalog.status();
    CatalogGroup g;
    g.aws = true;
    g.node_class = node_class;
    g.class_names.push_back(name);
    g.owned = *std::move(catalog);
    g.catalog = g.owned.get();
    groups.push_back(std::move(g));
    return absl::OkStatus();
  };
  absl::Status st =
      add(base.node_pools_size() > 0 ? NodeClassName(base.node_pools(0)) : "");
  if (!st.ok()) return st;
  for (const auto& np : base.node_pools()) {
    if (np.spec().has_replicas()) continue;
    st = add(NodeClassName(np));
    if (!st.ok()) return st;
  }
  return groups;
}

size_t GroupOf(const std::vector<CatalogGroup>& groups,
               const v1::NodePool& np) {
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i].aws) return i;
    const auto& names = groups[i].class_names;
    if (std::find(names.begin(), names.end(), NodeClassName(np)) != names.end())
      return i;
  }
  return 0;
}

// Whole units of an extended resource held in milli-units, rounded away
// from zero as Quantity.Value() rounds the text.
int64_t WholeUnits(int64_t milli) {
  if (milli >= 0) return milli / 1000 + (milli % 1000 != 0 ? 1 : 0);
  return -WholeUnits(-milli);
}

// The shared resource vector in the scheduler's fixed-width form (CPU in
// millicores, everything else in whole units), extended resources getting
// dimensions in name order.
absl::StatusOr<ResVec> ToResVec(const ResourceVector& r,
                                const nodeplan::Interner& names,
                                ResourceDims& dims, const std::string& path) {
  ResVec out;
  out[kCpu] = r.cpu_milli();
  out[kMemory] = r.memory();
  out[kPods] = r.pods();
  out[kEphemeral] = r.ephemeral_storage();
  std::vector<std::pair<std::string, int64_t>> ext;
  for (const auto& e : r.extended())
    ext.emplace_back(std::string(names.KeyText(e.name)), e.milli);
  std::sort(ext.begin(), ext.end());
  for (const auto& [name, milli] : ext) {
    int d = dims.Dim(name);
    if (d < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(path, "[", name, "]: more than ", kMaxDims,
                       " distinct resource names are not supported"));
    out[d] += WholeUnits(milli);
  }
  return out;
}

// The embedded AWS catalog's types in the scheduler's model, per process.
// Translating ~1,300 types costs ~20 ms per Snapshot in the release build
// (most of a one-shot Schedule on catalogRef "aws"); the result is a pure
// function of the NodeClass, the NodeOverlays, the unavailable offerings,
// the scheduler interner's strings and the resource dimensions at entry. An
// entry keeps, besides the types, the strings and dimensions the translation
// added, so that a hit replays them in the same order: the same ids, the
// same bytes out. Bounded (kSize entries, least recently used evicted),
// thread-safe (one mutex around the list; entries are immutable and shared).
class AwsTypeCache {
 public:
  struct Entry {
    std::vector<std::string> new_strings;  // interned, in id order
    std::vector<std::string> new_dims;     // added, in dimension order
    std::vector<InstanceType> types;
  };
  static constexpr size_t kSize = 8;

  static AwsTypeCache& Get() {
    // Process-wide, never destroyed (no destruction-order hazard).
    static AwsTypeCache* const cache = new AwsTypeCache();
    return *cache;
  }

  std::shared_ptr<const Entry> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != key) continue;
      entries_.splice(entries_.begin(), entries_, it);
      ++stats_.hits;
      return entries_.front().second;
    }
    ++stats_.misses;
    return nullptr;
  }

  void Put(std::string key, std::shared_ptr<const Entry> entry) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& e : entries_)
      if (e.first == key) return;  // another caller filled it meanwhile
    entries_.emplace_front(std::move(key), std::move(entry));
    if (entries_.size() > kSize) entries_.pop_back();
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    stats_ = {};
  }

  AwsTypeCacheStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    AwsTypeCacheStats s = stats_;
    s.entries = static_cast<int64_t>(entries_.size());
    return s;
  }

 private:
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const Entry>>> entries_;
  AwsTypeCacheStats stats_;
};

// Everything the translation of an AWS group reads, as bytes (length-
// prefixed, so that no two inputs share a key).
std::string AwsTypeCacheKey(const v1::ScheduleRequest& base,
                            const CatalogGroup& g, const Compiled& c) {
  std::string key;
  auto add = [&key](absl::string_view part) {
    absl::StrAppend(&key, part.size(), ":", part, ";");
  };
  add(g.node_class == nullptr ? "-" : DeterministicBytes(*g.node_class));
  for (const auto& o : base.node_overlays()) add(DeterministicBytes(o));
  add("|");
  for (const auto& u : base.unavailable_offerings()) add(DeterministicBytes(u));
  add("|");
  for (size_t id = 0; id < c.in.size(); ++id)
    add(c.in.Str(static_cast<Id>(id)));
  add("|");
  for (int d = 0; d < c.dims.size(); ++d) add(c.dims.Name(d));
  return key;
}

// Replays a cached translation onto `c`; false (nothing changed in the
// types) if the interner or the dimensions would not give the cached ids.
bool ReplayAwsTypes(const AwsTypeCache::Entry& e, Compiled& c) {
  const size_t first_id = c.in.size();
  for (size_t i = 0; i < e.new_strings.size(); ++i)
    if (c.in.Intern(e.new_strings[i]) != static_cast<Id>(first_id + i))
      return false;
  const int first_dim = c.dims.size();
  for (size_t i = 0; i < e.new_dims.size(); ++i)
    if (c.dims.Dim(e.new_dims[i]) != first_dim + static_cast<int>(i))
      return false;
  c.types.insert(c.types.end(), e.types.begin(), e.types.end());
  return true;
}

// Compiles g.catalog with the shared CompileCatalog (NodeOverlays, unavailable
// offerings, quantities, allocatable) and appends its types to c.types in
// the scheduler's model. Requirements come from the catalog's labels and
// requirements (overlays do not change them); zone and capacity-type
// requirements are those of the available offerings.
absl::Status TranslateInstanceTypes(const v1::ScheduleRequest& base,
                                    const CatalogGroup& g, Compiled& c) {
  Interner& in = c.in;
  const Keys& k = c.keys;
  std::vector<v1::NodeOverlay> overlays(base.node_overlays().begin(),
                                        base.node_overlays().end());
  std::vector<v1::UnavailableOffering> unavailable(
      base.unavailable_offerings().begin(), base.unavailable_offerings().end());
  CatalogCompileOptions options;
  options.overlays = overlays;
  options.unavailable = unavailable;
  nodeplan::Interner names;
  // The embedded catalog compiles straight from its rows (CompileAwsCatalog:
  // the same result, several times faster than from the message).
  auto compiled = g.aws ? CompileAwsCatalog(g.node_class, options, names)
                        : CompileCatalog(*g.catalog, options, names);
  if (!compiled.ok()) {
    if (!g.aws) return compiled.status();
    return absl::InvalidArgumentError(absl::StrCat(
        "catalogRef \"aws\" for NodeClass \"", g.class_names.front(),
        "\": ", compiled.status().message()));
  }
  const v1::Catalog& cat = *g.catalog;
  std::string prefix = g.aws ? absl::StrCat("catalog (aws, NodeClass ",
                                            g.class_names.front(), ").")
                             : "catalog.";
  for (int i = 0; i < cat.instance_types_size(); ++i) {
    const v1::InstanceType& t = cat.instance_types(i);
    const CompiledInstanceType& ct = (*compiled)->instance_type(i);
    std::string path =
        absl::StrCat(prefix, "instanceTypes[", i, "] (", t.name(), ")");
    InstanceType it;
    it.name = t.name();
    it.name_id = in.Intern(t.name());
    auto cap = ToResVec(ct.capacity, names, c.dims, path + ".capacity");
    if (!cap.ok()) return cap.status();
    it.capacity = *cap;
    auto overhead = ToResVec(ct.overhead, names, c.dims, path + ".overhead");
    if (!overhead.ok()) return overhead.status();
    // Allocatable: capacity minus overhead on capacity's keys, then hugepages
    // taken out of memory (floored at zero).
    for (int d = 0; d < kMaxDims; ++d)
      it.allocatable[d] =
          it.capacity[d] - (it.capacity[d] ? (*overhead)[d] : 0);
    for (int d = 0; d < c.dims.size(); ++d)
      if (absl::StartsWith(c.dims.Name(d), "hugepages-"))
        it.allocatable[kMemory] =
            std::max<int64_t>(0, it.allocatable[kMemory] - it.capacity[d]);
    std::vector<Id> zones, cts;
    for (int j = 0; j < t.offerings_size(); ++j) {
      const v1::Offering& o = t.offerings(j);
      const CompiledOffering& co = ct.offerings[j];
      Offering off;
      off.zone = in.Intern(o.zone());
      off.capacity_type = in.Intern(o.capacity_type());
      off.price = co.price;
      off.available = co.available;
      if (!o.reservation_id().empty()) {
        off.reservation = in.Intern(o.reservation_id());
        off.reservation_capacity = o.reservation_capacity();
        if (off.reservation_capacity <= 0) off.available = false;
      }
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
    for (const auto& r : t.requirements())
      it.reqs.Add(NodeSelectorReq(in, r), in);
    it.reqs.Add(InReq(k.instance_type, it.name_id), in);
    it.reqs.Add(MakeReq(k.zone, "In", zones, in), in);
    it.reqs.Add(MakeReq(k.capacity_type, "In", cts, in), in);
    c.types.push_back(std::move(it));
  }
  return absl::OkStatus();
}

// TranslateInstanceTypes, through AwsTypeCache for the embedded catalog.
absl::Status AppendInstanceTypes(const v1::ScheduleRequest& base,
                                 const CatalogGroup& g, Compiled& c) {
  if (!g.aws) return TranslateInstanceTypes(base, g, c);
  AwsTypeCache& cache = AwsTypeCache::Get();
  std::string key = AwsTypeCacheKey(base, g, c);
  if (std::shared_ptr<const AwsTypeCache::Entry> hit = cache.Find(key))
    if (ReplayAwsTypes(*hit, c)) return absl::OkStatus();
  // A failed replay interned only strings the translation interns too, in
  // the same order (a prefix of them), so translating afterwards gives the
  // uncached result.
  const size_t first_id = c.in.size();
  const int first_dim = c.dims.size();
  const size_t first_type = c.types.size();
  absl::Status st = TranslateInstanceTypes(base, g, c);
  if (!st.ok()) return st;
  auto entry = std::make_shared<AwsTypeCache::Entry>();
  for (size_t id = first_id; id < c.in.size(); ++id)
    entry->new_strings.push_back(c.in.Str(static_cast<Id>(id)));
  for (int d = first_dim; d < c.dims.size(); ++d)
    entry->new_dims.push_back(c.dims.Name(d));
  entry->types.assign(c.types.begin() + first_type, c.types.end());
  cache.Put(std::move(key), std::move(entry));
  return absl::OkStatus();
}

}  // namespace

AwsTypeCacheStats GetAwsTypeCacheStats() { return AwsTypeCache::Get().Stats(); }

void ClearAwsTypeCache() { AwsTypeCache::Get().Clear(); }

absl::StatusOr<Compiled> CompileSnapshot(const v1::ScheduleRequest& base) {
  validation::Workload workload;
  workload.node_pools = &base.node_pools();
  workload.node_classes = &base.node_classes();
  workload.node_overlays = &base.node_overlays();
  if (auto s = validation::CheckWorkload(workload); !s.ok()) return s;
  // One compiled catalog per distinct source (see CatalogGroups), its types
  // appended to c.types in group order.
  auto groups = CatalogGroups(base);
  if (!groups.ok()) return groups.status();
  Compiled c;
  Interner& in = c.in;
  c.keys = InternKeys(in);
  // An explicit catalog may name its provider's reservation-id label.
  if (!groups->empty() && !(*groups)[0].aws &&
      !(*groups)[0].catalog->reservation_id_label().empty())
    c.keys.reservation_id =
        in.Intern((*groups)[0].catalog->reservation_id_label());
  const Keys& k = c.keys;
  for (Id id : {k.nodepool, k.zone, k.region, k.instance_type, k.arch, k.os,
                k.capacity_type, k.windows_build, k.reservation_id})
    MarkWellKnown(c.wk, id);

  for (CatalogGroup& g : *groups) {
    for (const auto& l : g.catalog->well_known_labels())
      MarkWellKnown(c.wk, in.Intern(l));
    g.begin = c.types.size();
    absl::Status st = AppendInstanceTypes(base, g, c);
    if (!st.ok()) return st;
    g.end = c.types.size();
  }
  const size_t n = c.types.size();

  // Fit index.
  c.fit.sorted.resize(kMaxDims);
  c.fit.suffix.resize(kMaxDims);
  for (int d = 0; d < c.dims.size(); ++d) {
    std::vector<std::pair<int64_t, size_t>> order;
    order.reserve(n);
    for (size_t i = 0; i < n; ++i)
      order.emplace_back(c.types[i].allocatable[d], i);
    std::sort(order.begin(), order.end());
    auto& vals = c.fit.sorted[d];
    auto& suf = c.fit.suffix[d];
    vals.reserve(n);
    for (auto& [v, i] : order) vals.push_back(v);
    suf.assign(n + 1, TypeSet(n));
    for (size_t r = n; r-- > 0;) {
      suf[r] = suf[r + 1];
      suf[r].Set(order[r].second);
    }
  }
  c.fit.sorted.resize(c.dims.size());
  c.fit.suffix.resize(c.dims.size());

  // NodeClasses by name: the zones of their subnets restrict offerings.
  absl::flat_hash_map<std::string, const v1::NodeClass*> classes;
  for (const auto& nc : base.node_classes())
    classes[nc.metadata().name()] = &nc;

  for (int p = 0; p < base.node_pools_size(); ++p) {
    const v1::NodePool& np = base.node_pools(p);
    std::string path =
        absl::StrCat("nodePools[", p, "] (", np.metadata().name(), ")");
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
    pool.template_reqs = pool.reqs;
    pool.reqs.Add(InReq(k.nodepool, in.Intern(pool.name)), in);
    const auto& ref = tmpl.spec().node_class_ref();
    if (!ref.kind().empty()) {
      pool.nodeclass_label_key =
          absl::StrCat(ref.group(), "/", absl::AsciiStrToLower(ref.kind()));
      pool.nodeclass_name = ref.name();
      pool.reqs.Add(
          InReq(in.Intern(pool.nodeclass_label_key), in.Intern(ref.name())),
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
    pool.types = TypeSet(n);
    pool.offering_mask.assign(n, 0);
    pool.catalog = TypeSet(n);
    pool.catalog_offering_mask.assign(n, 0);
    const CatalogGroup& group = (*groups)[GroupOf(*groups, np)];
    for (size_t i = group.begin; i < group.end; ++i) {
      const InstanceType& it = c.types[i];
      pool.catalog.Set(i);
      for (size_t j = 0; j < it.offerings.size() && j < 64; ++j) {
        const Offering& o = it.offerings[j];
        if (o.available &&
            (class_zones.empty() || class_zones.contains(o.zone)))
          pool.catalog_offering_mask[i] |= uint64_t{1} << j;
      }
      if (!Intersects(it.reqs, pool.reqs, in, nullptr)) continue;
      uint64_t mask = 0;
      for (size_t j = 0; j < it.offerings.size() && j < 64; ++j) {
        const Offering& o = it.offerings[j];
        if (!(pool.catalog_offering_mask[i] >> j & 1)) continue;
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
