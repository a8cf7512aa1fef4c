// CompileCatalog: v1::Catalog + overlays + unavailable offerings -> an
// immutable CompiledCatalog.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "catalog/overlay.h"
#include "nodeplan/compiled_catalog.h"

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

// Scratch buffers and constants shared by the per-type compile.
struct CompileContext {
  Interner& interner;
  LabelKeyId zone_key;
  LabelKeyId capacity_type_key;
  LabelKeyId instance_type_key;
  LabelKeyId reservation_id_key;
  LabelValue on_demand, spot, reserved;
  std::vector<absl::string_view> fresh;
  std::vector<std::pair<LabelKeyId, LabelValue>> labels;
  std::vector<LabelValue> zones, capacity_types, reservation_ids;
};

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
  return parsed;
}

// Labels as `key In [value]` (keys normalized). Strings the interner has
// not seen are interned in text order first, so ids never depend on the
// protobuf map's (randomized) iteration order.
void AddLabelRequirements(const v1::InstanceType& in, CompileContext& ctx,
                          Requirements& reqs) {
  Interner& interner = ctx.interner;
  ctx.labels.clear();
  ctx.fresh.clear();
  bool missing = false;
  for (const auto& [key, value] : in.labels()) {
    const absl::string_view normalized = labels::NormalizeLabelKey(key);
    const LabelKeyId key_id = interner.FindKey(normalized);
    std::optional<LabelValue> v = interner.FindValue(value);
    if (key_id == kNoId || !v.has_value()) {
      missing = true;
      break;
    }
    ctx.labels.emplace_back(key_id, *v);
  }
  if (missing) {
    std::vector<absl::string_view> keys, values;
    for (const auto& [key, value] : in.labels()) {
      keys.push_back(labels::NormalizeLabelKey(key));
      values.push_back(value);
    }
    InternNewKeysSorted(keys, interner);
    InternNewValuesSorted(values, interner);
    ctx.labels.clear();
    for (const auto& [key, value] : in.labels()) {
      ctx.labels.emplace_back(interner.FindKey(labels::NormalizeLabelKey(key)),
                              *interner.FindValue(value));
    }
  }
  // Added in key-id order so that Requirements::Add appends.
  std::sort(ctx.labels.begin(), ctx.labels.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, value] : ctx.labels) {
    reqs.Add(Requirement::In(key, absl::MakeConstSpan(&value, 1)));
  }
}

absl::Status CompileOfferings(const v1::InstanceType& in, int i,
                              CompileContext& ctx, CompiledInstanceType& t,
                              Requirements& reqs) {
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
    c.zone = interner.InternValue(o.zone());
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
    c.price = o.price();
    c.available = !o.has_available() || o.available();
    c.estimated_price = o.estimated_price();
    if (o.reservation_capacity() < 0) {
      return error("reservationCapacity is negative");
    }
    c.reservation_capacity = o.reservation_capacity();
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
    c.requirements.Add(
        Requirement::In(ctx.zone_key, absl::MakeConstSpan(&c.zone, 1)));
    c.requirements.Add(Requirement::In(
        ctx.capacity_type_key, absl::MakeConstSpan(&c.capacity_type, 1)));
    if (c.reservation_id.id != kNoId) {
      c.requirements.Add(Requirement::In(
          ctx.reservation_id_key, absl::MakeConstSpan(&c.reservation_id, 1)));
    }
    ctx.zones.push_back(c.zone);
    ctx.capacity_types.push_back(c.capacity_type);
  }
  // zone / capacity type (/ reservation id) requirements from the offerings
  // (Requirement::In collapses duplicates).
  reqs.Add(Requirement::In(ctx.zone_key, ctx.zones));
  reqs.Add(Requirement::In(ctx.capacity_type_key, ctx.capacity_types));
  if (!ctx.reservation_ids.empty()) {
    reqs.Add(Requirement::In(ctx.reservation_id_key, ctx.reservation_ids));
  }
  return absl::OkStatus();
}

absl::Status CompileInstanceType(const v1::InstanceType& in, int i,
                                 CompileContext& ctx, CompiledInstanceType& t,
                                 Requirements& reqs,
                                 catalog::OverheadParts* parts) {
  Interner& interner = ctx.interner;
  if (in.name().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("catalog: instanceTypes[", i, "]: name is empty"));
  }
  t.name = in.name();
  t.name_value = interner.InternValue(t.name);

  AddLabelRequirements(in, ctx, reqs);
  // The type's own name, so requirements on node.kubernetes.io/instance-type
  // apply even if the catalog omits the label.
  reqs.Add(Requirement::In(ctx.instance_type_key,
                           absl::MakeConstSpan(&t.name_value, 1)));
  if (in.requirements_size() > 0) {
    absl::StatusOr<Requirements> extra = RequirementsFromNodeSelector(
        in.requirements(), interner, /*use_min_values=*/false, "requirements");
    if (!extra.ok()) return Prefixed(extra.status(), i, in);
    reqs.Add(*extra);
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

  if (absl::Status s = CompileOfferings(in, i, ctx, t, reqs); !s.ok()) return s;

  t.allocatable = Allocatable(t.capacity, *kube, *system, *eviction, interner);
  if (parts != nullptr) {
    *parts = catalog::OverheadParts{*std::move(kube), *std::move(system),
                                    *std::move(eviction)};
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileCatalog(
    const v1::Catalog& catalog, const CatalogCompileOptions& options,
    Interner& interner) {
  std::shared_ptr<CompiledCatalog> out(new CompiledCatalog());
  out->names_ = &interner;
  out->region_ = catalog.region();
  out->source_ = catalog.source();
  out->zone_key_ = interner.InternKey(labels::kZone);
  out->capacity_type_key_ = interner.InternKey(labels::kCapacityType);
  out->instance_type_key_ = interner.InternKey(labels::kInstanceType);
  out->reservation_id_key_ = options.reservation_id_label.empty()
                                 ? kNoId
                                 : interner.InternKey(labels::NormalizeLabelKey(
                                       options.reservation_id_label));
  std::vector<std::string> extra_well_known(catalog.well_known_labels().begin(),
                                            catalog.well_known_labels().end());
  if (!options.reservation_id_label.empty()) {
    extra_well_known.push_back(options.reservation_id_label);
  }
  out->well_known_ = std::make_unique<WellKnownLabels>(
      interner, absl::MakeConstSpan(extra_well_known));

  CompileContext ctx{interner,
                     out->zone_key_,
                     out->capacity_type_key_,
                     out->instance_type_key_,
                     out->reservation_id_key_,
                     interner.InternValue(labels::kCapacityTypeOnDemand),
                     interner.InternValue(labels::kCapacityTypeSpot),
                     interner.InternValue(labels::kCapacityTypeReserved),
                     {},
                     {},
                     {},
                     {},
                     {}};

  const int n = catalog.instance_types_size();
  out->types_.resize(n);
  out->by_name_.reserve(n);
  // Requirements are built here, indexed, then moved into the types.
  std::vector<Requirements> requirements(n);
  // Overlays recompute allocatable from the overhead parts.
  std::vector<catalog::OverheadParts> overhead_parts;
  if (!options.overlays.empty()) overhead_parts.resize(n);
  for (int i = 0; i < n; ++i) {
    absl::Status s = CompileInstanceType(
        catalog.instance_types(i), i, ctx, out->types_[i], requirements[i],
        overhead_parts.empty() ? nullptr : &overhead_parts[i]);
    if (!s.ok()) return s;
    out->by_name_.emplace_back(out->types_[i].name_value.id, i);
  }

  std::sort(out->by_name_.begin(), out->by_name_.end());
  for (size_t i = 1; i < out->by_name_.size(); ++i) {
    if (out->by_name_[i].first == out->by_name_[i - 1].first) {
      const int a =
          std::min(out->by_name_[i].second, out->by_name_[i - 1].second);
      const int b =
          std::max(out->by_name_[i].second, out->by_name_[i - 1].second);
      return absl::InvalidArgumentError(
          absl::StrCat("catalog: instanceTypes[", b, "] (", out->types_[b].name,
                       "): duplicates instanceTypes[", a, "]"));
    }
  }

  // The index copies the requirements; the types then take them over.
  out->index_ = RequirementsIndex(absl::MakeConstSpan(requirements));
  for (int i = 0; i < n; ++i) {
    out->types_[i].requirements = std::move(requirements[i]);
  }

  if (!options.overlays.empty()) {
    catalog::ApplyNodeOverlays(options.overlays, *out, out->types_,
                               overhead_parts, interner,
                               out->skipped_overlays_);
  }

  // Unavailable offerings (ICE): mark; unknown names or zones are ignored.
  for (const v1::UnavailableOffering& u : options.unavailable) {
    const int type = out->Find(u.instance_type());
    if (type < 0) continue;
    for (CompiledOffering& o : out->types_[type].offerings) {
      if (!u.zone().empty() && interner.ValueText(o.zone.id) != u.zone()) {
        continue;
      }
      if (!u.capacity_type().empty() &&
          interner.ValueText(o.capacity_type.id) != u.capacity_type()) {
        continue;
      }
      o.available = false;
    }
  }

  for (CompiledInstanceType& t : out->types_) {
    for (const CompiledOffering& o : t.offerings) {
      if (o.available && o.price < t.cheapest_available_price) {
        t.cheapest_available_price = o.price;
      }
    }
  }

  return std::shared_ptr<const CompiledCatalog>(std::move(out));
}

}  // namespace nodeplan
