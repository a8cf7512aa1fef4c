// CompileCatalog: v1::Catalog + overlays + unavailable offerings -> an
// immutable CompiledCatalog.

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "catalog/catalog_builder.h"
#include "catalog/overlay.h"
#include "catalog/text_cache.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/labels.h"
#include "nodeplan/limits.h"
#include "nodeplan/quantity.h"

namespace nodeplan {
namespace {

// Interns, in text order, every string of `texts` the interner does not know
// yet, so that ids never depend on protobuf map iteration order (which
// protobuf randomizes). Strings already known cost one lookup.
void InternNewKeysSorted(std::vector<absl::string_view>& texts,
                         Interner& interner) {
  std::vector<absl::string_view> fresh;
  for (absl::string_view text : texts) {
    if (interner.FindKey(text) == kNoId) fresh.push_back(text);
  }
  if (fresh.empty()) return;
  std::sort(fresh.begin(), fresh.end());
  for (absl::string_view text : fresh) interner.InternKey(text);
}

void InternNewValuesSorted(std::vector<absl::string_view>& texts,
                           Interner& interner) {
  std::vector<absl::string_view> fresh;
  for (absl::string_view text : texts) {
    if (!interner.FindValue(text).has_value()) fresh.push_back(text);
  }
  if (fresh.empty()) return;
  std::sort(fresh.begin(), fresh.end());
  for (absl::string_view text : fresh) interner.InternValue(text);
}

// Extended resource names of a quantity map, interned in text order before
// ParseResourceList interns them in map order.
void PreInternResourceNames(
    const google::protobuf::Map<std::string, std::string>& list,
    Interner& interner, std::vector<absl::string_view>& scratch) {
  if (list.size() <= 1) return;  // a single name has a single order
  scratch.clear();
  for (const auto& [name, value] : list) {
    if (name != "cpu" && name != "memory" && name != "pods" &&
        name != "ephemeral-storage") {
      scratch.push_back(name);
    }
  }
  InternNewKeysSorted(scratch, interner);
}

}  // namespace

int CompiledCatalog::Find(absl::string_view name) const {
  if (names_ == nullptr) return -1;
  std::optional<LabelValue> value = names_->FindValue(name);
  if (!value.has_value()) return -1;
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), value->id,
                             [](const std::pair<LabelValueId, int>& e,
                                LabelValueId id) { return e.first < id; });
  if (it == by_name_.end() || it->first != value->id) return -1;
  return it->second;
}

OfferingFilter::OfferingFilter(const CompiledCatalog& catalog,
                               const Requirements& reqs)
    : zone_(reqs.Find(catalog.zone_key())),
      capacity_type_(reqs.Find(catalog.capacity_type_key())),
      reservation_(catalog.reservation_id_key() == kNoId
                       ? nullptr
                       : reqs.Find(catalog.reservation_id_key())) {}

bool CompiledCatalog::OfferingCompatible(const CompiledOffering& offering,
                                         const Requirements& reqs) const {
  return OfferingFilter(*this, reqs).Compatible(offering);
}

int CompiledCatalog::CheapestCompatibleOffering(
    int type, const Requirements& reqs) const {
  return CheapestCompatibleOffering(type, OfferingFilter(*this, reqs));
}

int CompiledCatalog::CheapestCompatibleOffering(
    int type, const OfferingFilter& filter) const {
  const CompiledInstanceType& t = types_[type];
  int best = -1;
  for (int i = 0; i < static_cast<int>(t.offerings.size()); ++i) {
    const CompiledOffering& o = t.offerings[i];
    if (!o.available || !filter.Compatible(o)) continue;
    if (best < 0 || o.price < t.offerings[best].price) best = i;
  }
  return best;
}

namespace {

// Parsed `requirements` of a recent instance type, reused by the next types
// that list the same ones (the AWS catalog's DoesNotExist sets repeat).
struct ParsedExtras {
  const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>* source;
  Requirements parsed;
};

// A label whose key or value the interner did not know yet.
struct MissingLabel {
  size_t index;  // into ctx.labels
  const std::string* key;
  const std::string* value;
};

// Constants, per-compile memos and scratch buffers shared by the per-type
// compile. The memos only remember what the interner answered (ids never
// change once interned), so they change no id and no result.
struct CompileContext {
  explicit CompileContext(catalog::CompiledCatalogBuilder& b)
      : builder(b),
        interner(b.interner()),
        zone_key(b.catalog().zone_key()),
        capacity_type_key(b.catalog().capacity_type_key()),
        instance_type_key(b.catalog().instance_type_key()),
        reservation_id_key(b.catalog().reservation_id_key()),
        on_demand(b.on_demand()),
        spot(b.spot()),
        reserved(b.reserved()) {}

  catalog::CompiledCatalogBuilder& builder;
  Interner& interner;
  LabelKeyId zone_key;
  LabelKeyId capacity_type_key;
  LabelKeyId instance_type_key;
  LabelKeyId reservation_id_key;
  LabelValue on_demand, spot, reserved;
  // Label key as written -> normalized key id; value text -> value.
  catalog::TextCache<LabelKeyId> key_ids{10};
  catalog::TextCache<LabelValue> values{14};
  // Most recently used first.
  std::vector<ParsedExtras> extras;
  // Scratch.
  std::vector<absl::string_view> fresh;
  std::vector<std::pair<LabelKeyId, LabelValue>> labels;
  std::vector<MissingLabel> missing;
  std::vector<LabelValue> zones, capacity_types, reservation_ids;
  // A type's requirements in the order Requirements::Add would receive
  // them; per key id the first and last of them, chained through `next`;
  // the key ids present.
  std::vector<Requirement> pending;
  std::vector<int> head, tail, next;
  std::vector<uint64_t> key_bits;
};

// How many distinct `requirements` lists ParsedExtras remembers.
constexpr size_t kMaxParsedExtras = 8;

// "catalog: instanceTypes[i] (name)", built only when an error is reported.
std::string TypePath(int i, const v1::InstanceType& in) {
  return absl::StrCat("catalog: instanceTypes[", i, "] (", in.name(), ")");
}

absl::Status Prefixed(const absl::Status& status, int i,
                      const v1::InstanceType& in) {
  return absl::Status(status.code(),
                      absl::StrCat(TypePath(i, in), ": ", status.message()));
}

absl::StatusOr<ResourceVector> ParseQuantities(
    const google::protobuf::Map<std::string, std::string>& list,
    absl::string_view field, int i, const v1::InstanceType& in,
    CompileContext& ctx) {
  PreInternResourceNames(list, ctx.interner, ctx.fresh);
  absl::StatusOr<ResourceVector> parsed =
      ParseResourceList(list, ctx.interner, field);
  if (!parsed.ok()) return Prefixed(parsed.status(), i, in);
  // Only CPU is counted in thousandths: every other quantity is a whole
  // number of units (bytes, pods, devices), and rounding a fraction up
  // (Quantity.Value()) would let a type hold more than Karpenter's exact
  // comparison does ("pods: 0.5" fitted one pod; found by tests/fuzz). A
  // catalog is nodeplan's own format, so such a value is refused.
  auto fractional = [](const std::string& name, const std::string& text) {
    if (name == "cpu") return false;
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(text);
    return milli.ok() && *milli % 1000 != 0;
  };
  if (absl::c_any_of(
          list, [&](const auto& e) { return fractional(e.first, e.second); })) {
    // The first in name order, whatever the map's iteration order.
    const std::map<std::string, std::string> sorted(list.begin(), list.end());
    for (const auto& [name, text] : sorted) {
      if (!fractional(name, text)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          TypePath(i, in), ": ", field, "[", name, "]: Invalid value: \"", text,
          "\": must be a whole number of units"));
    }
  }
  return parsed;
}

// Labels as `key In [value]` (keys normalized), appended to ctx.pending.
// Each label is looked up through the memos, then the interner; strings the
// interner has not seen are interned in text order first (keys, then
// values), so ids never depend on the protobuf map's (randomized) iteration
// order.
void AddLabelRequirements(const v1::InstanceType& in, CompileContext& ctx) {
  Interner& interner = ctx.interner;
  ctx.labels.clear();
  std::vector<MissingLabel>& missing = ctx.missing;
  missing.clear();
  for (const auto& [key, value] : in.labels()) {
    LabelKeyId key_id = kNoId;
    if (const LabelKeyId* known = ctx.key_ids.Find(key)) {
      key_id = *known;
    } else if ((key_id = interner.FindKey(labels::NormalizeLabelKey(key))) !=
               kNoId) {
      ctx.key_ids.Put(key, key_id);
    }
    LabelValue v;
    if (const LabelValue* known = ctx.values.Find(value)) {
      v = *known;
    } else if (std::optional<LabelValue> found = interner.FindValue(value)) {
      v = *found;
      ctx.values.Put(value, v);
    }
    if (key_id == kNoId || v.id == kNoId) {
      missing.push_back({ctx.labels.size(), &key, &value});
    }
    ctx.labels.emplace_back(key_id, v);
  }
  if (!missing.empty()) {
    ctx.fresh.clear();
    for (const MissingLabel& m : missing) {
      if (ctx.labels[m.index].first == kNoId) {
        ctx.fresh.push_back(labels::NormalizeLabelKey(*m.key));
      }
    }
    InternNewKeysSorted(ctx.fresh, interner);
    ctx.fresh.clear();
    for (const MissingLabel& m : missing) {
      if (ctx.labels[m.index].second.id == kNoId) ctx.fresh.push_back(*m.value);
    }
    InternNewValuesSorted(ctx.fresh, interner);
    for (const MissingLabel& m : missing) {
      auto& [key_id, v] = ctx.labels[m.index];
      if (key_id == kNoId) {
        key_id = interner.FindKey(labels::NormalizeLabelKey(*m.key));
        ctx.key_ids.Put(*m.key, key_id);
      }
      if (v.id == kNoId) {
        v = *interner.FindValue(*m.value);
        ctx.values.Put(*m.value, v);
      }
    }
  }
  for (const auto& [key, value] : ctx.labels) {
    ctx.pending.push_back(Requirement::In(key, absl::MakeConstSpan(&value, 1)));
  }
}

bool SameRequirements(
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>& a,
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i) {
    const v1::NodeSelectorRequirement& x = a.Get(i);
    const v1::NodeSelectorRequirement& y = b.Get(i);
    if (x.key() != y.key() || x.operator_() != y.operator_() ||
        x.values_size() != y.values_size() ||
        x.has_min_values() != y.has_min_values() ||
        x.min_values() != y.min_values()) {
      return false;
    }
    for (int v = 0; v < x.values_size(); ++v) {
      if (x.values(v) != y.values(v)) return false;
    }
  }
  return true;
}

// The type's `requirements` parsed (RequirementsFromNodeSelector), reused
// from a recent type that listed the same ones: everything they intern is
// interned already then, so ids are as if parsed again.
absl::StatusOr<const Requirements*> ExtraRequirements(
    const v1::InstanceType& in, int i, CompileContext& ctx) {
  for (size_t k = 0; k < ctx.extras.size(); ++k) {
    if (SameRequirements(*ctx.extras[k].source, in.requirements())) {
      std::rotate(ctx.extras.begin(), ctx.extras.begin() + k,
                  ctx.extras.begin() + k + 1);
      return &ctx.extras.front().parsed;
    }
  }
  absl::StatusOr<Requirements> parsed =
      RequirementsFromNodeSelector(in.requirements(), ctx.interner,
                                   /*use_min_values=*/false, "requirements");
  if (!parsed.ok()) return Prefixed(parsed.status(), i, in);
  if (ctx.extras.size() == kMaxParsedExtras) ctx.extras.pop_back();
  ctx.extras.insert(ctx.extras.begin(),
                    ParsedExtras{&in.requirements(), *std::move(parsed)});
  return &ctx.extras.front().parsed;
}

// ctx.pending as Requirements: the same as Add-ing each in order (entries of
// one key fold as later.Intersection(earlier), as Add does), built in one
// pass: pending entries are chained per key id in insertion order, then the
// keys are visited in id order through a bitmap (no sort).
Requirements TakePendingRequirements(CompileContext& ctx) {
  std::vector<Requirement>& pending = ctx.pending;
  const int n = static_cast<int>(pending.size());
  ctx.next.assign(n, -1);
  for (int j = 0; j < n; ++j) {
    const auto key = static_cast<size_t>(pending[j].key());
    if (key >= ctx.head.size()) {
      ctx.head.resize(key + 1, -1);
      ctx.tail.resize(key + 1, -1);
      ctx.key_bits.resize(key / 64 + 1, 0);
    }
    if (ctx.head[key] < 0) {
      ctx.head[key] = j;
      ctx.key_bits[key / 64] |= uint64_t{1} << (key % 64);
    } else {
      ctx.next[ctx.tail[key]] = j;
    }
    ctx.tail[key] = j;
  }
  // Into the catalog's block of entries, viewed from there; a type that
  // would not fit the block's reserved room (never, given the bound
  // CompileCatalog reserves) gets storage of its own instead, since the
  // block must not reallocate under the views.
  std::vector<Requirement>& block = ctx.builder.type_requirement_entries();
  Requirements::Storage own;
  const bool in_block = block.size() + n <= block.capacity();
  const size_t first = block.size();
  auto append = [&](Requirement r) {
    if (in_block) {
      block.push_back(std::move(r));
    } else {
      own.push_back(std::move(r));
    }
  };
  auto last = [&]() -> Requirement& {
    return in_block ? block.back() : own.back();
  };
  for (size_t w = 0; w < ctx.key_bits.size(); ++w) {
    for (uint64_t bits = ctx.key_bits[w]; bits != 0; bits &= bits - 1) {
      const size_t key = w * 64 + __builtin_ctzll(bits);
      int j = ctx.head[key];
      append(std::move(pending[j]));
      for (j = ctx.next[j]; j >= 0; j = ctx.next[j]) {
        last() = pending[j].Intersection(last());
      }
      ctx.head[key] = -1;
    }
    ctx.key_bits[w] = 0;
  }
  pending.clear();
  if (!in_block) return Requirements::FromSorted(std::move(own));
  return Requirements::Viewing(
      absl::MakeConstSpan(block.data() + first, block.size() - first));
}

absl::Status CompileOfferings(const v1::InstanceType& in, int i,
                              CompileContext& ctx, CompiledInstanceType& t) {
  Interner& interner = ctx.interner;
  t.offerings.resize(in.offerings_size());
  ctx.zones.clear();
  ctx.capacity_types.clear();
  ctx.reservation_ids.clear();
  for (int j = 0; j < in.offerings_size(); ++j) {
    const v1::Offering& o = in.offerings(j);
    CompiledOffering& c = t.offerings[j];
    auto error = [&](absl::string_view message) {
      return absl::InvalidArgumentError(
          absl::StrCat(TypePath(i, in), ": offerings[", j, "]: ", message));
    };
    if (o.zone().empty()) return error("zone is empty");
    if (const LabelValue* known = ctx.values.Find(o.zone())) {
      c.zone = *known;
    } else {
      c.zone = interner.InternValue(o.zone());
      ctx.values.Put(o.zone(), c.zone);
    }
    if (o.capacity_type() == labels::kCapacityTypeOnDemand) {
      c.capacity_type = ctx.on_demand;
    } else if (o.capacity_type() == labels::kCapacityTypeSpot) {
      c.capacity_type = ctx.spot;
    } else if (o.capacity_type() == labels::kCapacityTypeReserved) {
      c.capacity_type = ctx.reserved;
    } else {
      return error(absl::StrCat("capacityType: \"", o.capacity_type(),
                                "\" is not on-demand, spot or reserved"));
    }
    if (!std::isfinite(o.price()) || o.price() < 0) {
      return error(
          absl::StrCat("price: ", o.price(), " is not a non-negative number"));
    }
    if (o.price() > limits::kMaxPricePerHour) {
      return error(
          absl::StrCat("price: ", o.price(), " exceeds the limit of ",
                       limits::kMaxPricePerHour,
                       " per hour (nodeplan::limits::kMaxPricePerHour)"));
    }
    c.price = o.price();
    c.available = !o.has_available() || o.available();
    c.estimated_price = o.estimated_price();
    if (o.reservation_capacity() < 0) {
      return error("reservationCapacity is negative");
    }
    c.reservation_capacity = o.reservation_capacity();
    // Karpenter's reserved offerings always name their reservation: the
    // NodeClaim's reservation-id requirement is built from it.
    if (o.capacity_type() == labels::kCapacityTypeReserved &&
        o.reservation_id().empty()) {
      return error(
          "reservationID: Required value: a reserved offering names its "
          "capacity reservation");
    }
    if (!o.reservation_id().empty()) {
      if (ctx.reservation_id_key == kNoId) {
        return error("reservationID needs a reservation-id label key");
      }
      c.reservation_id = interner.InternValue(o.reservation_id());
      ctx.reservation_ids.push_back(c.reservation_id);
    }
    for (int k = 0; k < j; ++k) {
      const CompiledOffering& prev = t.offerings[k];
      if (prev.zone == c.zone && prev.capacity_type == c.capacity_type &&
          prev.reservation_id.id == c.reservation_id.id) {
        return error(absl::StrCat("duplicates offerings[", k, "] (", o.zone(),
                                  ", ", o.capacity_type(), ")"));
      }
    }
    c.requirements =
        ctx.builder.OfferingLabels(c.zone, c.capacity_type, c.reservation_id);
    ctx.zones.push_back(c.zone);
    ctx.capacity_types.push_back(c.capacity_type);
  }
  // zone / capacity type (/ reservation id) requirements from the offerings
  // (Requirement::In collapses duplicates).
  ctx.pending.push_back(Requirement::In(ctx.zone_key, ctx.zones));
  ctx.pending.push_back(
      Requirement::In(ctx.capacity_type_key, ctx.capacity_types));
  if (!ctx.reservation_ids.empty()) {
    ctx.pending.push_back(
        Requirement::In(ctx.reservation_id_key, ctx.reservation_ids));
  }
  return absl::OkStatus();
}

absl::Status CompileInstanceType(const v1::InstanceType& in, int i,
                                 CompileContext& ctx, CompiledInstanceType& t) {
  Interner& interner = ctx.interner;
  if (in.name().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("catalog: instanceTypes[", i, "]: name is empty"));
  }
  // Zones and capacity types come from the offerings (a Karpenter cloud
  // provider derives those requirements from them); a label naming one too
  // would contradict them, and the scheduler and the verifier read such a
  // type differently (found by tests/fuzz).
  for (const char* key : {labels::kZone, labels::kCapacityType}) {
    if (in.labels().contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          TypePath(i, in), ": labels[", key,
          "]: set by the offerings (zone and capacityType); a label may not "
          "name it"));
    }
  }
  t.name = in.name();
  t.name_value = interner.InternValue(t.name);
  ctx.values.Put(in.name(), t.name_value);

  ctx.pending.clear();
  AddLabelRequirements(in, ctx);
  // The type's own name, so requirements on node.kubernetes.io/instance-type
  // apply even if the catalog omits the label.
  ctx.pending.push_back(Requirement::In(ctx.instance_type_key,
                                        absl::MakeConstSpan(&t.name_value, 1)));
  if (in.requirements_size() > 0) {
    absl::StatusOr<const Requirements*> extra = ExtraRequirements(in, i, ctx);
    if (!extra.ok()) return extra.status();
    for (const Requirement& r : **extra) ctx.pending.push_back(r);
  }

  absl::StatusOr<ResourceVector> capacity =
      ParseQuantities(in.capacity(), "capacity", i, in, ctx);
  if (!capacity.ok()) return capacity.status();
  t.capacity = *std::move(capacity);
  const v1::Overhead& overhead = in.overhead();
  absl::StatusOr<ResourceVector> kube = ParseQuantities(
      overhead.kube_reserved(), "overhead.kubeReserved", i, in, ctx);
  if (!kube.ok()) return kube.status();
  absl::StatusOr<ResourceVector> system = ParseQuantities(
      overhead.system_reserved(), "overhead.systemReserved", i, in, ctx);
  if (!system.ok()) return system.status();
  absl::StatusOr<ResourceVector> eviction = ParseQuantities(
      overhead.eviction_threshold(), "overhead.evictionThreshold", i, in, ctx);
  if (!eviction.ok()) return eviction.status();
  t.overhead = Merge(Merge(*kube, *system), *eviction);

  if (absl::Status s = CompileOfferings(in, i, ctx, t); !s.ok()) return s;
  t.requirements = TakePendingRequirements(ctx);

  t.allocatable = Allocatable(t.capacity, t.overhead, interner);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileCatalog(
    const v1::Catalog& catalog, const CatalogCompileOptions& options,
    Interner& interner) {
  const std::vector<std::string> well_known(catalog.well_known_labels().begin(),
                                            catalog.well_known_labels().end());
  // The catalog may name its provider's reservation-id label.
  CatalogCompileOptions own;
  const CatalogCompileOptions* effective = &options;
  if (!catalog.reservation_id_label().empty()) {
    own.overlays = options.overlays;
    own.unavailable = options.unavailable;
    own.reservation_id_label = catalog.reservation_id_label();
    effective = &own;
  }
  catalog::CompiledCatalogBuilder builder(catalog.region(), catalog.source(),
                                          well_known, *effective, interner);
  CompileContext ctx(builder);
  const int n = catalog.instance_types_size();
  std::vector<CompiledInstanceType>& types = builder.StartTypes(n);
  // Room for every type's requirement entries in one block: at most one per
  // label and per extra requirement, plus the name, zone, capacity type and
  // reservation id.
  size_t bound = 0;
  for (const v1::InstanceType& t : catalog.instance_types()) {
    bound += t.labels_size() + t.requirements_size() + 4;
  }
  builder.type_requirement_entries().reserve(bound);
  for (int i = 0; i < n; ++i) {
    absl::Status s =
        CompileInstanceType(catalog.instance_types(i), i, ctx, types[i]);
    if (!s.ok()) return s;
    builder.TypeCompiled(i);
  }
  return builder.Finish();
}

}  // namespace nodeplan
