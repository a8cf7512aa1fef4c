// Compiles NodePools, NodeClasses and the catalog into the immutable model.

#include <algorithm>
#include <cctype>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catalog/shared_lru.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "scheduling/model.h"
#include "validation/workload_checks.h"

namespace nodeplan::scheduling {
namespace {

Keys InternKeys(Interner& in) {
  Keys k;
  k.zone = in.InternKey(labels::kZone);
  k.region = in.InternKey(labels::kRegion);
  k.instance_type = in.InternKey(labels::kInstanceType);
  k.arch = in.InternKey(labels::kArch);
  k.os = in.InternKey(labels::kOs);
  k.capacity_type = in.InternKey(labels::kCapacityType);
  k.nodepool = in.InternKey(labels::kNodePool);
  k.hostname = in.InternKey(labels::kHostname);
  k.registered = in.InternKey(labels::kRegistered);
  k.initialized = in.InternKey(labels::kInitialized);
  k.windows_build = in.InternKey(labels::kWindowsBuild);
  k.reservation_id = in.InternKey(labels::kAwsCapacityReservationId);
  k.v_true = in.InternValue("true");
  k.v_reserved = in.InternValue("reserved");
  k.v_spot = in.InternValue("spot");
  k.v_on_demand = in.InternValue("on-demand");
  return k;
}

}  // namespace

bool OfferingCompatible(const Offering& o, const Requirements& r,
                        const Keys& k) {
  if (const Requirement* z = r.Find(k.zone); z && !z->Has(o.zone)) return false;
  if (const Requirement* c = r.Find(k.capacity_type);
      c && !c->Has(o.capacity_type))
    return false;
  if (o.reservation.id != kNoId) {
    if (const Requirement* x = r.Find(k.reservation_id);
        x && !x->Has(o.reservation))
      return false;
  }
  return true;
}

TypeSet FitIndex::Fitting(const DenseResources& need, size_t n) const {
  TypeSet out;
  FittingInto(need, n, &out);
  return out;
}

void FitIndex::FittingInto(const DenseResources& need, size_t n,
                           TypeSet* out) const {
  out->Reset(static_cast<int>(n), true);
  AndFitting(need, out);
}

void FitIndex::AndFitting(const DenseResources& need, TypeSet* inout) const {
  // A resource first seen on a pod (e.g. nvidia.com/gpu with no GPU type in
  // the catalog) has no dimension here: no instance type has any of it.
  for (size_t d = sorted.size(); d < static_cast<size_t>(kMaxResourceDims); ++d)
    if (need[d] > 0) {
      inout->Reset(inout->size(), false);
      return;
    }
  for (size_t d = 0; d < sorted.size(); ++d) {
    if (need[d] <= 0) continue;
    const auto& vals = sorted[d];
    size_t rank =
        std::lower_bound(vals.begin(), vals.end(), need[d]) - vals.begin();
    inout->AndWith(suffix[d][rank]);
  }
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

// The embedded AWS catalog's types in the scheduler's model, per process.
// Translating ~1,300 types costs ~20 ms per Snapshot in the release build
// (most of a one-shot Schedule on catalogRef "aws"); the result is a pure
// function of the NodeClass, the NodeOverlays, the unavailable offerings,
// the scheduler interner's strings and the resource dimensions at entry. An
// entry keeps, besides the types, the strings and dimensions the translation
// added, so that a hit replays them in the same order: the same ids, the
// same bytes out. Bounded, thread-safe and shared (catalog/shared_lru.h).
struct AwsTypeCacheEntry {
  // Interned by the translation.
  InternedStrings interned;
  std::vector<std::string> new_dims;  // added, in dimension order
  std::vector<InstanceType> types;
  // The index over `types`, for a snapshot whose only catalog this is.
  std::shared_ptr<const RequirementsIndex> index;
};

// Process-wide, never destroyed (no destruction-order hazard); 8 entries.
catalog::SharedLru<AwsTypeCacheEntry>& AwsTypeCache() {
  static auto* const cache = new catalog::SharedLru<AwsTypeCacheEntry>(8);
  return *cache;
}

// The bitset index over the types' requirements. It borrows from one copy
// of them kept beside it (the index's own copying constructor would copy
// them a second time), so that the copies of a Compiled can share it.
std::shared_ptr<const RequirementsIndex> TypeIndex(
    absl::Span<const InstanceType> types) {
  struct Owned {
    std::vector<Requirements> reqs;
    RequirementsIndex index;
  };
  auto owned = std::make_shared<Owned>();
  owned->reqs.reserve(types.size());
  for (const InstanceType& t : types) owned->reqs.push_back(t.reqs);
  std::vector<const Requirements*> borrowed;
  borrowed.reserve(owned->reqs.size());
  for (const Requirements& r : owned->reqs) borrowed.push_back(&r);
  owned->index = RequirementsIndex(borrowed);
  return std::shared_ptr<const RequirementsIndex>(owned, &owned->index);
}

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
  AppendInternerContents(c.in, &key);
  add("|");
  for (int d = 0; d < c.dims.size(); ++d) add(c.dims.Name(d));
  return key;
}

// Replays a cached translation onto `c`; false (nothing changed in the
// types) if the interner or the dimensions would not give the cached ids.
bool ReplayAwsTypes(const AwsTypeCacheEntry& e, Compiled& c) {
  if (!e.interned.ReplayInto(c.in)) return false;
  const int first_dim = c.dims.size();
  for (size_t i = 0; i < e.new_dims.size(); ++i)
    if (c.dims.Dim(e.new_dims[i]) != first_dim + static_cast<int>(i))
      return false;
  c.types.insert(c.types.end(), e.types.begin(), e.types.end());
  return true;
}

// Compiles g.catalog with the shared CompileCatalog (NodeOverlays,
// unavailable offerings, quantities, allocatable, requirements) into the
// scheduler's interner and appends its types to c.types as compiled. Two
// things are the scheduler's own reading: a request's catalog lists in a
// type's zone and capacity-type requirements only the offerings it marks
// available (Offering::listed; the compiled requirements list every
// offering, as the AWS provider does), and the reservation-id requirement a
// compiled type carries is left out, since reservations are matched per
// offering (OfferingCompatible) as Karpenter's scheduler does.
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
  // The embedded catalog compiles straight from its rows (CompileAwsCatalog:
  // the same result, several times faster than from the message).
  auto compiled = g.aws ? CompileAwsCatalog(g.node_class, options, in)
                        : CompileCatalog(*g.catalog, options, in);
  if (!compiled.ok()) {
    if (!g.aws) return compiled.status();
    return absl::InvalidArgumentError(absl::StrCat(
        "catalogRef \"aws\" for NodeClass \"", g.class_names.front(),
        "\": ", compiled.status().message()));
  }
  const CompiledCatalog& cat = **compiled;
  const std::string prefix = g.aws ? absl::StrCat("catalog (aws, NodeClass ",
                                                  g.class_names.front(), ").")
                                   : "catalog.";
  for (int i = 0; i < cat.size(); ++i) {
    const CompiledInstanceType& ct = cat.instance_type(i);
    auto path = [&] {
      return absl::StrCat(prefix, "instanceTypes[", i, "] (", ct.name,
                          ").capacity");
    };
    InstanceType it;
    it.name = ct.name;
    it.name_id = ct.name_value;
    auto cap = c.dims.FromVector(ct.capacity, in, path);
    if (!cap.ok()) return cap.status();
    it.capacity = *cap;
    auto allocatable = c.dims.FromVector(ct.allocatable, in, path);
    if (!allocatable.ok()) return allocatable.status();
    it.allocatable = *allocatable;
    absl::InlinedVector<LabelValue, 8> zones, cts;
    it.offerings.reserve(ct.offerings.size());
    for (const CompiledOffering& co : ct.offerings) {
      Offering off;
      off.zone = co.zone;
      off.capacity_type = co.capacity_type;
      off.price = co.price;
      off.available = co.available;
      if (co.reservation_id.id != kNoId) {
        off.reservation = co.reservation_id;
        off.reservation_capacity = co.reservation_capacity;
        if (off.reservation_capacity <= 0) off.available = false;
      }
      off.listed = g.aws || co.available;  // see Offering::listed
      if (off.listed) {
        zones.push_back(off.zone);
        cts.push_back(off.capacity_type);
      }
      it.offerings.push_back(off);
    }
    it.reqs = ct.requirements;
    if (!g.aws) {
      // The compiled requirements list every offering: intersecting keeps
      // the listed ones (and whatever the type's own requirements say).
      it.reqs.Add(Requirement::In(k.zone, zones));
      it.reqs.Add(Requirement::In(k.capacity_type, cts));
    }
    it.reqs.Remove(cat.reservation_id_key());
    c.types.push_back(std::move(it));
  }
  return absl::OkStatus();
}

// TranslateInstanceTypes, through AwsTypeCache for the embedded catalog.
// With `index`, the cached entry's index over exactly the types appended
// (when the group is the embedded catalog).
absl::Status AppendInstanceTypes(
    const v1::ScheduleRequest& base, const CatalogGroup& g, Compiled& c,
    std::shared_ptr<const RequirementsIndex>* index) {
  if (!g.aws) return TranslateInstanceTypes(base, g, c);
  catalog::SharedLru<AwsTypeCacheEntry>& cache = AwsTypeCache();
  std::string key = AwsTypeCacheKey(base, g, c);
  if (std::shared_ptr<const AwsTypeCacheEntry> hit = cache.Find(key)) {
    if (ReplayAwsTypes(*hit, c)) {
      if (index != nullptr) *index = hit->index;
      return absl::OkStatus();
    }
  }
  // A failed replay interned only strings the translation interns too, in
  // the same order (a prefix of them), so translating afterwards gives the
  // uncached result.
  const LabelKeyId first_key = c.in.key_count();
  const LabelValueId first_value = c.in.value_count();
  const int first_dim = c.dims.size();
  const size_t first_type = c.types.size();
  absl::Status st = TranslateInstanceTypes(base, g, c);
  if (!st.ok()) return st;
  auto entry = std::make_shared<AwsTypeCacheEntry>();
  entry->interned = InternedStrings::Since(c.in, first_key, first_value);
  for (int d = first_dim; d < c.dims.size(); ++d)
    entry->new_dims.push_back(c.dims.Name(d));
  entry->types.assign(c.types.begin() + first_type, c.types.end());
  entry->index = TypeIndex(entry->types);
  if (index != nullptr) *index = entry->index;
  cache.Put(std::move(key), std::move(entry));
  return absl::OkStatus();
}

}  // namespace

AwsTypeCacheStats GetAwsTypeCacheStats() {
  const auto s = AwsTypeCache().GetStats();
  return {s.hits, s.misses, s.entries};
}

void ClearAwsTypeCache() { AwsTypeCache().Clear(); }

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
        in.InternKey((*groups)[0].catalog->reservation_id_label());
  const Keys& k = c.keys;
  // Karpenter's well-known keys, the reservation-id key and every catalog's
  // own (a provider registers its labels as well known).
  std::vector<std::string> well_known = {
      std::string(in.KeyText(k.reservation_id))};
  for (const CatalogGroup& g : *groups)
    for (const auto& l : g.catalog->well_known_labels())
      well_known.push_back(l);
  c.wk.emplace(in, well_known);

  // One catalog: its cached index (if any) covers exactly c.types.
  std::shared_ptr<const RequirementsIndex> cached_index;
  for (CatalogGroup& g : *groups) {
    g.begin = c.types.size();
    absl::Status st = AppendInstanceTypes(
        base, g, c, groups->size() == 1 ? &cached_index : nullptr);
    if (!st.ok()) return st;
    g.end = c.types.size();
  }
  const size_t n = c.types.size();
  c.type_index = cached_index != nullptr ? cached_index : TypeIndex(c.types);

  // Fit index.
  c.fit.sorted.resize(kMaxResourceDims);
  c.fit.suffix.resize(kMaxResourceDims);
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
    absl::StatusOr<Requirements> reqs = RequirementsFromNodeSelector(
        tmpl.spec().requirements(), in, /*use_min_values=*/true,
        absl::StrCat("nodePools[", pool.name,
                     "].spec.template.spec.requirements"));
    if (!reqs.ok()) return reqs.status();
    pool.reqs = *std::move(reqs);
    std::vector<std::pair<std::string, std::string>> labels(
        tmpl.metadata().labels().begin(), tmpl.metadata().labels().end());
    std::sort(labels.begin(), labels.end());
    for (const auto& [key, value] : labels)
      pool.reqs.Add(Requirement::In(
          in.InternKey(labels::NormalizeLabelKey(key)), in.InternValue(value)));
    pool.template_reqs = pool.reqs;
    pool.reqs.Add(Requirement::In(k.nodepool, in.InternValue(pool.name)));
    const auto& ref = tmpl.spec().node_class_ref();
    if (!ref.kind().empty()) {
      pool.nodeclass_label_key =
          absl::StrCat(ref.group(), "/", absl::AsciiStrToLower(ref.kind()));
      pool.nodeclass_name = ref.name();
      pool.reqs.Add(Requirement::In(in.InternKey(pool.nodeclass_label_key),
                                    in.InternValue(ref.name())));
    }
    pool.reqs.Add(Requirement::In(k.registered, k.v_true));
    pool.reqs.Add(Requirement::In(k.initialized, k.v_true));
    if (!np.spec().limits().empty()) {
      pool.has_limits = true;
      // "nodes" is a limit dimension of its own.
      auto l = c.dims.ParseList(np.spec().limits(), c.in, path + ".spec.limits",
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
    absl::flat_hash_map<LabelValueId, bool> class_zones;
    if (auto it = classes.find(ref.name()); it != classes.end()) {
      for (const auto& s : it->second->status().subnets())
        if (!s.zone().empty()) class_zones[in.InternValue(s.zone()).id] = true;
    }
    pool.types = TypeSet(n);
    pool.offering_mask.assign(n, 0);
    pool.catalog = TypeSet(n);
    pool.catalog_offering_mask.assign(n, 0);
    const CatalogGroup& group = (*groups)[GroupOf(*groups, np)];
    for (size_t i = group.begin; i < group.end; ++i) {
      const InstanceType& it = c.types[i];
      pool.catalog.Set(i);
      uint64_t in_class_zones = 0;
      for (size_t j = 0; j < it.offerings.size() && j < 64; ++j) {
        const Offering& o = it.offerings[j];
        if (!class_zones.empty() && !class_zones.contains(o.zone.id)) continue;
        in_class_zones |= uint64_t{1} << j;
        if (o.listed) pool.catalog_offering_mask[i] |= uint64_t{1} << j;
      }
      if (!it.reqs.Intersects(pool.reqs)) continue;
      uint64_t mask = 0;
      for (size_t j = 0; j < it.offerings.size() && j < 64; ++j) {
        const Offering& o = it.offerings[j];
        if (!(in_class_zones >> j & 1) || !o.available) continue;
        if (!OfferingCompatible(o, pool.reqs, k)) continue;
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
  c.universe = std::make_shared<const DomainUniverse>(BuildDomainUniverse(c));
  return c;
}

}  // namespace nodeplan::scheduling
