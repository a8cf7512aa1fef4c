// The verifier's view of instance types: the catalog a NodePool launches
// from, usable offerings, allocatable, and the labels an option launches with.

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/labels.h"
#include "verify/verifier.h"

namespace nodeplan::verify_internal {

void Verifier::IndexCatalog() {
  for (const auto& nc : request_.node_classes()) {
    node_classes_.emplace(nc.metadata().name(), &nc);
  }
  for (const auto& u : request_.unavailable_offerings()) {
    unavailable_.insert({u.instance_type(), u.zone(), u.capacity_type()});
  }
  for (const auto& pool : request_.node_pools()) {
    pools_.emplace(pool.metadata().name(), &pool);
  }
}

const v1::Catalog* Verifier::PoolCatalog(const v1::NodePool& pool) {
  if (request_.catalog().instance_types_size() > 0) return &request_.catalog();
  if (!request_.catalog_ref().empty() && request_.catalog_ref() != "aws") {
    Add("input", "nodepool " + pool.metadata().name(),
        "unknown catalog_ref \"" + request_.catalog_ref() + "\"");
    return nullptr;
  }
  const std::string& class_name =
      pool.spec().template_().spec().node_class_ref().name();
  auto cached = aws_by_class_.find(class_name);
  if (cached != aws_by_class_.end()) return cached->second;
  auto nc = node_classes_.find(class_name);
  absl::StatusOr<std::shared_ptr<const v1::Catalog>> catalog =
      SharedAwsCatalog(nc == node_classes_.end() ? nullptr : nc->second);
  const v1::Catalog* result = nullptr;
  if (!catalog.ok()) {
    Add("input", "nodepool " + pool.metadata().name(),
        "embedded AWS catalog: " + std::string(catalog.status().message()));
  } else {
    aws_catalogs_.push_back(*std::move(catalog));
    result = aws_catalogs_.back().get();
  }
  aws_by_class_.emplace(class_name, result);
  return result;
}

const v1::InstanceType* Verifier::FindType(const v1::NodePool& pool,
                                           const std::string& name) {
  const v1::Catalog* catalog = PoolCatalog(pool);
  if (catalog == nullptr) return nullptr;
  auto& index = types_[catalog];
  if (index.empty()) {
    for (const auto& it : catalog->instance_types())
      index.emplace(it.name(), &it);
  }
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

bool OfferingAvailable(const v1::Offering& o) {
  if (o.has_available() && !o.available()) return false;
  return o.reservation_id().empty() || o.reservation_capacity() > 0;
}

bool Verifier::OfferingUsable(const v1::InstanceType& type,
                              const v1::Offering& o) {
  if (!OfferingAvailable(o)) return false;
  return unavailable_.count({type.name(), o.zone(), o.capacity_type()}) == 0;
}

const std::optional<Resources>& Verifier::Allocatable(
    const v1::InstanceType& type, const std::string& subject) {
  auto cached = allocatable_cache_.find(&type);
  if (cached != allocatable_cache_.end()) return cached->second;
  std::optional<Resources> computed = ComputeAllocatable(type, subject);
  return allocatable_cache_.emplace(&type, std::move(computed)).first->second;
}

std::optional<Resources> Verifier::ComputeAllocatable(
    const v1::InstanceType& type, const std::string& subject) {
  Resources capacity, sum;
  std::string error;
  const v1::Overhead& overhead = type.overhead();
  for (const auto* part :
       {&overhead.kube_reserved(), &overhead.system_reserved(),
        &overhead.eviction_threshold()}) {
    Resources r;
    if (!verify_internal::ParseResources(*part, r, &error)) {
      Add("input", subject,
          absl::StrCat("instance type ", type.name(), ": malformed ", error));
      return std::nullopt;
    }
    verify_internal::AddInto(sum, r);
  }
  if (!verify_internal::ParseResources(type.capacity(), capacity, &error)) {
    Add("input", subject,
        absl::StrCat("instance type ", type.name(), ": malformed ", error));
    return std::nullopt;
  }
  Resources allocatable;
  Amount hugepages = 0;
  for (const auto& [name, v] : capacity) {
    auto it = sum.find(name);
    allocatable[name] = v - (it == sum.end() ? 0 : it->second);
    if (name.rfind("hugepages-", 0) == 0) hugepages += v;
  }
  if (hugepages > 0 && allocatable.count("memory")) {
    allocatable["memory"] =
        std::max<Amount>(0, allocatable["memory"] - hugepages);
  }
  return allocatable;
}

OptionLabelSet Verifier::OptionLabels(
    const v1::NodePool& pool, const v1::InstanceType& type,
    const std::vector<Expr>& claim_requirements, std::string* why) {
  ClaimRequirements split = SplitRequirements(claim_requirements);
  return OptionLabels(pool, type, split, why);
}

Verifier::ClaimRequirements Verifier::SplitRequirements(
    const std::vector<Expr>& reqs, bool index_values) {
  ClaimRequirements out;
  for (const Expr& e : reqs) {
    if (e.key == labels::kHostname) continue;
    (e.key == labels::kInstanceType ? out.instance_type : out.other)
        .push_back(e);
  }
  for (const Expr& e : out.instance_type) {
    if (!index_values || (e.op != "In" && e.op != "NotIn")) {
      out.instance_type_values.push_back(nullptr);
      continue;
    }
    out.instance_type_values.push_back(
        std::make_shared<const absl::flat_hash_set<std::string>>(
            e.values.begin(), e.values.end()));
  }
  out.signature = signatures_
                      .emplace(verify_internal::ExprsToString(out.other),
                               static_cast<int>(signatures_.size()))
                      .first->second;
  return out;
}

OptionLabelSet Verifier::OptionLabels(const v1::NodePool& pool,
                                      const v1::InstanceType& type,
                                      const ClaimRequirements& reqs,
                                      std::string* why) {
  // A fixed name passes In exactly when listed and NotIn when not
  // (Domain::Narrow); other operators go through the domain.
  std::optional<Domain> name;
  for (size_t i = 0; i < reqs.instance_type.size(); ++i) {
    const Expr& e = reqs.instance_type[i];
    bool possible;
    if (i < reqs.instance_type_values.size() &&
        reqs.instance_type_values[i] != nullptr) {
      possible =
          reqs.instance_type_values[i]->contains(type.name()) == (e.op == "In");
    } else {
      if (!name) name = Domain::Fixed(type.name());
      possible = name->Possibly(e);
    }
    if (!possible) {
      *why = absl::StrCat("the NodeClaim's ", labels::kInstanceType,
                          " requirement excludes it");
      return {};
    }
  }
  const BaseLabels& base = PoolTypeLabels(pool, type);
  if (base.space == nullptr) {
    *why = base.why;
    return {};
  }
  auto [it, inserted] =
      option_cache_.try_emplace(std::make_tuple(&pool, &type, reqs.signature));
  if (inserted) {
    std::optional<LabelSpace> overlay =
        ComputeOverlay(type, *base.space, reqs.other, &it->second.second);
    if (overlay) {
      it->second.first = std::make_shared<LabelSpace>(std::move(*overlay));
    }
  }
  if (!it->second.first) {
    *why = it->second.second;
    return {};
  }
  return {base.space, it->second.first, base.undefined_well_known};
}

// A NodePool's base spaces on an embedded AWS catalog are the same for
// every request whose NodePool has the same name, template labels and
// requirements (all PoolTypeLabels reads of it), and the catalog is shared
// by the process (SharedAwsCatalog): building them is most of a verifier
// run on the seed workloads (one std::map per instance type, ~800 types,
// for the spread checks' catalog domains). The last few such NodePools
// keep theirs; the spaces are immutable once built.
struct Verifier::SharedBases {
  std::shared_ptr<const v1::Catalog> catalog;  // keeps the types alive
  std::string pool_key;
  std::mutex mu;
  absl::flat_hash_map<const v1::InstanceType*, BaseLabels> spaces;
};

namespace {

constexpr size_t kSharedBasesKept = 4;

std::mutex& SharedBasesMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

// Most recently used last.
std::vector<std::shared_ptr<Verifier::SharedBases>>& SharedBasesList() {
  static auto* list = new std::vector<std::shared_ptr<Verifier::SharedBases>>();
  return *list;
}

}  // namespace

std::shared_ptr<Verifier::SharedBases> Verifier::SharedBasesFor(
    const v1::NodePool& pool) {
  auto [cached, inserted] = shared_bases_.try_emplace(&pool);
  if (!inserted) return cached->second;
  const v1::Catalog* catalog = PoolCatalog(pool);
  std::shared_ptr<const v1::Catalog> owner;
  for (const auto& c : aws_catalogs_)
    if (c.get() == catalog) owner = c;
  if (owner == nullptr) return nullptr;  // the request's own catalog
  // Length-prefixed: the name, the template's metadata, each requirement.
  std::string key;
  auto add = [&key](const std::string& part) {
    absl::StrAppend(&key, part.size(), ":", part);
  };
  add(pool.metadata().name());
  add(DeterministicBytes(pool.spec().template_().metadata()));
  for (const auto& r : pool.spec().template_().spec().requirements())
    add(DeterministicBytes(r));
  std::lock_guard<std::mutex> lock(SharedBasesMutex());
  auto& list = SharedBasesList();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if ((*it)->catalog != owner || (*it)->pool_key != key) continue;
    std::shared_ptr<SharedBases> found = *it;
    list.erase(it);
    list.push_back(found);
    cached->second = found;
    return found;
  }
  auto made = std::make_shared<SharedBases>();
  made->catalog = std::move(owner);
  made->pool_key = std::move(key);
  if (list.size() >= kSharedBasesKept) list.erase(list.begin());
  list.push_back(made);
  cached->second = made;
  return made;
}

const Verifier::BaseLabels& Verifier::PoolTypeLabels(
    const v1::NodePool& pool, const v1::InstanceType& type) {
  auto [it, inserted] = base_labels_.try_emplace({&pool, &type});
  if (!inserted) return it->second;
  std::shared_ptr<SharedBases> shared = SharedBasesFor(pool);
  if (shared == nullptr) {
    it->second = ComputePoolTypeLabels(pool, type);
    return it->second;
  }
  {
    std::lock_guard<std::mutex> lock(shared->mu);
    auto found = shared->spaces.find(&type);
    if (found != shared->spaces.end()) {
      it->second = found->second;
      return it->second;
    }
  }
  // Computed outside the lock; a concurrent verifier may compute the same
  // (equal) space, and the first one stored is kept.
  BaseLabels computed = ComputePoolTypeLabels(pool, type);
  std::lock_guard<std::mutex> lock(shared->mu);
  it->second =
      shared->spaces.try_emplace(&type, std::move(computed)).first->second;
  return it->second;
}

Verifier::BaseLabels Verifier::ComputePoolTypeLabels(
    const v1::NodePool& pool, const v1::InstanceType& type) {
  BaseLabels out;
  LabelSpace space;
  for (const auto& [k, v] : pool.spec().template_().metadata().labels()) {
    space[verify_internal::NormalizeKey(k)] = Domain::Fixed(v);
  }
  space[labels::kNodePool] = Domain::Fixed(pool.metadata().name());
  space[labels::kRegistered] = Domain::Fixed("true");
  space[labels::kInitialized] = Domain::Fixed("true");
  for (const auto& [k, v] : type.labels()) {
    space[verify_internal::NormalizeKey(k)] = Domain::Fixed(v);
  }
  space[labels::kInstanceType] = Domain::Fixed(type.name());
  std::vector<Expr> narrowing;
  for (const auto& r : type.requirements()) narrowing.push_back(ToExpr(r));
  for (const auto& r : pool.spec().template_().spec().requirements()) {
    narrowing.push_back(ToExpr(r));
  }
  for (const Expr& e : narrowing) {
    verify_internal::NarrowSpace(space, e);
    if (space[e.key].Empty()) {
      out.why = absl::StrCat(
          "requirement ", verify_internal::ExprsToString({e}), " excludes it");
      return out;
    }
  }
  // Karpenter checks a pod against a NodeClaim with
  // AllowUndefinedWellKnownLabels: a well-known key the template and the
  // instance type leave undefined does not rule the pod out, whatever it
  // asks of that key (zone and capacity type are always defined, by the
  // offerings).
  std::vector<std::string> undefined;
  auto consider = [&](absl::string_view key) {
    const std::string k(key);
    if (k == labels::kZone || k == labels::kCapacityType) return;
    if (space.count(k) != 0) return;
    if (std::find(undefined.begin(), undefined.end(), k) == undefined.end())
      undefined.push_back(k);
  };
  for (absl::string_view k : labels::KarpenterWellKnownLabels()) consider(k);
  if (const v1::Catalog* catalog = PoolCatalog(pool)) {
    for (const std::string& k : catalog->well_known_labels()) consider(k);
    if (!catalog->reservation_id_label().empty())
      consider(catalog->reservation_id_label());
  }
  if (!undefined.empty()) {
    out.undefined_well_known =
        std::make_shared<const std::vector<std::string>>(std::move(undefined));
  }
  out.space = std::make_shared<LabelSpace>(std::move(space));
  return out;
}

std::optional<LabelSpace> Verifier::ComputeOverlay(
    const v1::InstanceType& type, const LabelSpace& base,
    const std::vector<Expr>& claim_requirements, std::string* why) {
  // The keys the NodeClaim narrows start from the base's domain (Unknown
  // when the base has none), as if the space were narrowed in place.
  LabelSpace overlay;
  for (const Expr& e : claim_requirements) {
    if (e.key == labels::kHostname) continue;
    auto it = overlay.find(e.key);
    if (it == overlay.end()) {
      auto b = base.find(e.key);
      it = overlay
               .emplace(e.key, b == base.end() ? Domain::Unknown() : b->second)
               .first;
    }
    it->second.Narrow(e);
    if (it->second.Empty()) {
      *why = absl::StrCat("requirement ", verify_internal::ExprsToString({e}),
                          " excludes it");
      return std::nullopt;
    }
  }
  auto domain_or_unknown = [&](const char* key) {
    auto over = overlay.find(key);
    if (over != overlay.end()) return over->second;
    auto it = base.find(key);
    return it == base.end() ? Domain::Unknown() : it->second;
  };
  const Domain zone = domain_or_unknown(labels::kZone);
  const Domain capacity_type = domain_or_unknown(labels::kCapacityType);
  Domain zones, capacity_types;
  zones.values.clear();
  capacity_types.values.clear();
  for (const auto& o : type.offerings()) {
    if (!OfferingUsable(type, o)) continue;
    if (!zone.PossiblyIn(o.zone())) continue;
    if (!capacity_type.PossiblyIn(o.capacity_type())) continue;
    zones.values.insert(o.zone());
    capacity_types.values.insert(o.capacity_type());
  }
  if (zones.values.empty()) {
    *why = absl::StrCat("no available offering in zones ", zone.ToString(),
                        " with capacity types ", capacity_type.ToString());
    return std::nullopt;
  }
  overlay[labels::kZone] = zones;
  overlay[labels::kCapacityType] = capacity_types;
  return overlay;
}

}  // namespace nodeplan::verify_internal
