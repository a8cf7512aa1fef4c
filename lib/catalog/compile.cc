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

bool CompiledCatalog::OfferingCompatible(const CompiledOffering& offering,
                                         const Requirements& reqs) const {
  if (const Requirement* zone = reqs.Find(zone_key_);
      zone != nullptr && !zone->Has(offering.zone)) {
    return false;
  }
  if (const Requirement* ct = reqs.Find(capacity_type_key_);
      ct != nullptr && !ct->Has(offering.capacity_type)) {
    return false;
  }
  if (const Requirement* reservation = reqs.Find(reservation_id_key_);
      reservation != nullptr) {
    // An offering without a reservation id does not define the key; it is
    // well-known, so only an offering that defines it is checked.
    if (offering.reservation_id.id != kNoId &&
        !reservation->Has(offering.reservation_id)) {
      return false;
    }
  }
  return true;
}

int CompiledCatalog::CheapestCompatibleOffering(
    int type, const Requirements& reqs) const {
  const CompiledInstanceType& t = types_[type];
  int best = -1;
  for (int i = 0; i < static_cast<int>(t.offerings.size()); ++i) {
    const CompiledOffering& o = t.offerings[i];
    if (!o.available || !OfferingCompatible(o, reqs)) continue;
    if (best < 0 || o.price < t.offerings[best].price) best = i;
  }
  return best;
}

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

  const LabelValue on_demand =
      interner.InternValue(labels::kCapacityTypeOnDemand);
  const LabelValue spot = interner.InternValue(labels::kCapacityTypeSpot);
  const LabelValue reserved =
      interner.InternValue(labels::kCapacityTypeReserved);

  const int n = catalog.instance_types_size();
  out->types_.resize(n);
  out->by_name_.reserve(n);
  std::vector<absl::string_view> key_scratch, value_scratch, name_scratch;
  std::vector<Requirement> label_reqs;
  std::vector<LabelValue> zones, capacity_types, reservation_ids;
  // Overlays recompute allocatable from the overhead parts.
  std::vector<catalog::OverheadParts> overhead_parts;
  if (!options.overlays.empty()) overhead_parts.resize(n);

  for (int i = 0; i < n; ++i) {
    const v1::InstanceType& in = catalog.instance_types(i);
    CompiledInstanceType& t = out->types_[i];
    const std::string path =
        absl::StrCat("catalog: instanceTypes[", i, "] (", in.name(), ")");
    if (in.name().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("catalog: instanceTypes[", i, "]: name is empty"));
    }
    t.name = in.name();
    t.name_value = interner.InternValue(t.name);
    out->by_name_.emplace_back(t.name_value.id, i);

    // Labels: intern what is new in text order, then `key In [value]` each,
    // added in key-id order so Requirements::Add appends.
    key_scratch.clear();
    value_scratch.clear();
    for (const auto& [key, value] : in.labels()) {
      key_scratch.push_back(labels::NormalizeLabelKey(key));
      value_scratch.push_back(value);
    }
    InternNewKeysSorted(key_scratch, interner);
    InternNewValuesSorted(value_scratch, interner);
    label_reqs.clear();
    for (const auto& [key, value] : in.labels()) {
      const LabelKeyId key_id =
          interner.FindKey(labels::NormalizeLabelKey(key));
      const LabelValue v = *interner.FindValue(value);
      label_reqs.push_back(Requirement::In(key_id, absl::MakeConstSpan(&v, 1)));
    }
    std::sort(label_reqs.begin(), label_reqs.end(),
              [](const Requirement& a, const Requirement& b) {
                return a.key() < b.key();
              });
    for (const Requirement& r : label_reqs) t.requirements.Add(r);
    // The label for the type's own name, so NodePool / pod requirements on
    // node.kubernetes.io/instance-type apply even if the catalog omits it.
    t.requirements.Add(Requirement::In(out->instance_type_key_,
                                       absl::MakeConstSpan(&t.name_value, 1)));
    if (in.requirements_size() > 0) {
      absl::StatusOr<Requirements> extra = RequirementsFromNodeSelector(
          in.requirements(), interner, /*use_min_values=*/false,
          absl::StrCat(path, ": requirements"));
      if (!extra.ok()) return extra.status();
      t.requirements.Add(*extra);
    }

    // Resources.
    PreInternResourceNames(in.capacity(), interner, name_scratch);
    absl::StatusOr<ResourceVector> capacity = ParseResourceList(
        in.capacity(), interner, absl::StrCat(path, ": capacity"));
    if (!capacity.ok()) return capacity.status();
    t.capacity = *std::move(capacity);
    const v1::Overhead& overhead = in.overhead();
    PreInternResourceNames(overhead.kube_reserved(), interner, name_scratch);
    PreInternResourceNames(overhead.system_reserved(), interner, name_scratch);
    PreInternResourceNames(overhead.eviction_threshold(), interner,
                           name_scratch);
    absl::StatusOr<ResourceVector> kube =
        ParseResourceList(overhead.kube_reserved(), interner,
                          absl::StrCat(path, ": overhead.kubeReserved"));
    if (!kube.ok()) return kube.status();
    absl::StatusOr<ResourceVector> system =
        ParseResourceList(overhead.system_reserved(), interner,
                          absl::StrCat(path, ": overhead.systemReserved"));
    if (!system.ok()) return system.status();
    absl::StatusOr<ResourceVector> eviction =
        ParseResourceList(overhead.eviction_threshold(), interner,
                          absl::StrCat(path, ": overhead.evictionThreshold"));
    if (!eviction.ok()) return eviction.status();
    t.overhead = Merge(Merge(*kube, *system), *eviction);

    // Offerings.
    t.offerings.resize(in.offerings_size());
    zones.clear();
    capacity_types.clear();
    reservation_ids.clear();
    for (int j = 0; j < in.offerings_size(); ++j) {
      const v1::Offering& o = in.offerings(j);
      CompiledOffering& c = t.offerings[j];
      const std::string opath = absl::StrCat(path, ": offerings[", j, "]");
      if (o.zone().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(opath, ": zone is empty"));
      }
      c.zone = interner.InternValue(o.zone());
      if (o.capacity_type() == labels::kCapacityTypeOnDemand) {
        c.capacity_type = on_demand;
      } else if (o.capacity_type() == labels::kCapacityTypeSpot) {
        c.capacity_type = spot;
      } else if (o.capacity_type() == labels::kCapacityTypeReserved) {
        c.capacity_type = reserved;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(opath, ": capacityType: \"", o.capacity_type(),
                         "\" is not on-demand, spot or reserved"));
      }
      if (!std::isfinite(o.price()) || o.price() < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            opath, ": price: ", o.price(), " is not a non-negative number"));
      }
      c.price = o.price();
      c.available = !o.has_available() || o.available();
      c.estimated_price = o.estimated_price();
      if (o.reservation_capacity() < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(opath, ": reservationCapacity is negative"));
      }
      c.reservation_capacity = o.reservation_capacity();
      if (!o.reservation_id().empty()) {
        if (out->reservation_id_key_ == kNoId) {
          return absl::InvalidArgumentError(absl::StrCat(
              opath, ": reservationID needs a reservation-id label key"));
        }
        c.reservation_id = interner.InternValue(o.reservation_id());
        reservation_ids.push_back(c.reservation_id);
      }
      for (int k = 0; k < j; ++k) {
        const CompiledOffering& prev = t.offerings[k];
        if (prev.zone == c.zone && prev.capacity_type == c.capacity_type &&
            prev.reservation_id.id == c.reservation_id.id) {
          return absl::InvalidArgumentError(
              absl::StrCat(opath, ": duplicates offerings[", k, "] (", o.zone(),
                           ", ", o.capacity_type(), ")"));
        }
      }
      c.requirements.Add(
          Requirement::In(out->zone_key_, absl::MakeConstSpan(&c.zone, 1)));
      c.requirements.Add(Requirement::In(
          out->capacity_type_key_, absl::MakeConstSpan(&c.capacity_type, 1)));
      if (c.reservation_id.id != kNoId) {
        c.requirements.Add(
            Requirement::In(out->reservation_id_key_,
                            absl::MakeConstSpan(&c.reservation_id, 1)));
      }
      zones.push_back(c.zone);
      capacity_types.push_back(c.capacity_type);
    }
    // zone / capacity type (/ reservation id) requirements from the
    // offerings (Requirement::In collapses duplicates).
    t.requirements.Add(Requirement::In(out->zone_key_, zones));
    t.requirements.Add(
        Requirement::In(out->capacity_type_key_, capacity_types));
    if (!reservation_ids.empty()) {
      t.requirements.Add(
          Requirement::In(out->reservation_id_key_, reservation_ids));
    }
    t.allocatable =
        Allocatable(t.capacity, *kube, *system, *eviction, interner);
    if (!overhead_parts.empty()) {
      overhead_parts[i] = catalog::OverheadParts{
          *std::move(kube), *std::move(system), *std::move(eviction)};
    }
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

  std::vector<Requirements> index_input;
  index_input.reserve(n);
  for (const CompiledInstanceType& t : out->types_) {
    index_input.push_back(t.requirements);
  }
  out->index_ = RequirementsIndex(absl::MakeConstSpan(index_input));
  return std::shared_ptr<const CompiledCatalog>(std::move(out));
}

}  // namespace nodeplan
