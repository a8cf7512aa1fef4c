#include "catalog/catalog_builder.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeplan::catalog {

CompiledCatalogBuilder::CompiledCatalogBuilder(
    std::string region, std::string source,
    absl::Span<const std::string> well_known_labels,
    const CatalogCompileOptions& options, Interner& interner)
    : options_(options), interner_(interner), out_(new CompiledCatalog()) {
  CompiledCatalog& out = *out_;
  out.names_ = &interner;
  out.region_ = std::move(region);
  out.source_ = std::move(source);
  out.zone_key_ = interner.InternKey(labels::kZone);
  out.capacity_type_key_ = interner.InternKey(labels::kCapacityType);
  out.instance_type_key_ = interner.InternKey(labels::kInstanceType);
  out.reservation_id_key_ = options.reservation_id_label.empty()
                                ? kNoId
                                : interner.InternKey(labels::NormalizeLabelKey(
                                      options.reservation_id_label));
  std::vector<std::string> extra_well_known(well_known_labels.begin(),
                                            well_known_labels.end());
  if (!options.reservation_id_label.empty()) {
    extra_well_known.push_back(options.reservation_id_label);
  }
  out.well_known_ = std::make_unique<WellKnownLabels>(
      interner, absl::MakeConstSpan(extra_well_known));
  on_demand_ = interner.InternValue(labels::kCapacityTypeOnDemand);
  spot_ = interner.InternValue(labels::kCapacityTypeSpot);
  reserved_ = interner.InternValue(labels::kCapacityTypeReserved);
}

const Requirements* CompiledCatalogBuilder::OfferingLabels(
    const LabelValue& zone, const LabelValue& capacity_type,
    const LabelValue& reservation) {
  const bool reserved = reservation.id != kNoId;
  if (!reserved) {
    for (size_t i = 0; i < pair_labels_.size(); ++i) {
      const PairLabels& known = pair_labels_[i];
      if (known.zone == zone.id && known.capacity_type == capacity_type.id) {
        const Requirements* labels = known.labels;
        std::rotate(pair_labels_.begin(), pair_labels_.begin() + i,
                    pair_labels_.begin() + i + 1);
        return labels;
      }
    }
  } else if (auto it = reserved_labels_.find(
                 {zone.id, capacity_type.id, reservation.id});
             it != reserved_labels_.end()) {
    return it->second;
  }
  CompiledCatalog& out = *out_;
  Requirements& labels = out.offering_labels_.emplace_back();
  labels.Add(Requirement::In(out.zone_key_, absl::MakeConstSpan(&zone, 1)));
  labels.Add(Requirement::In(out.capacity_type_key_,
                             absl::MakeConstSpan(&capacity_type, 1)));
  if (reserved) {
    labels.Add(Requirement::In(out.reservation_id_key_,
                               absl::MakeConstSpan(&reservation, 1)));
    reserved_labels_.emplace(
        std::make_tuple(zone.id, capacity_type.id, reservation.id), &labels);
  } else {
    pair_labels_.insert(pair_labels_.begin(),
                        {zone.id, capacity_type.id, &labels});
  }
  return &labels;
}

std::vector<CompiledInstanceType>& CompiledCatalogBuilder::StartTypes(int n) {
  out_->types_.resize(n);
  // The index borrows the types' requirements: types_ is never resized
  // again and requirements are not modified once compiled (overlays only
  // read them), and both live as long as the CompiledCatalog.
  index_.emplace(n);
  return out_->types_;
}

void CompiledCatalogBuilder::TypeCompiled(int i) {
  index_->Add(&out_->types_[i].requirements);
}

absl::StatusOr<std::shared_ptr<const CompiledCatalog>>
CompiledCatalogBuilder::Finish() {
  CompiledCatalog& out = *out_;
  const int n = static_cast<int>(out.types_.size());
  out.by_name_.reserve(n);
  for (int i = 0; i < n; ++i) {
    out.by_name_.emplace_back(out.types_[i].name_value.id, i);
  }
  std::sort(out.by_name_.begin(), out.by_name_.end());
  for (size_t i = 1; i < out.by_name_.size(); ++i) {
    if (out.by_name_[i].first == out.by_name_[i - 1].first) {
      const int a =
          std::min(out.by_name_[i].second, out.by_name_[i - 1].second);
      const int b =
          std::max(out.by_name_[i].second, out.by_name_[i - 1].second);
      return absl::InvalidArgumentError(
          absl::StrCat("catalog: instanceTypes[", b, "] (", out.types_[b].name,
                       "): duplicates instanceTypes[", a, "]"));
    }
  }

  out.index_ = index_.has_value() ? std::move(*index_).Finish()
                                  : RequirementsIndexBuilder(0).Finish();

  if (!options_.overlays.empty()) {
    ApplyNodeOverlays(options_.overlays, out, out.types_, interner_,
                      out.skipped_overlays_);
  }

  // Unavailable offerings (ICE): mark; unknown names or zones are ignored.
  for (const v1::UnavailableOffering& u : options_.unavailable) {
    const int type = out.Find(u.instance_type());
    if (type < 0) continue;
    for (CompiledOffering& o : out.types_[type].offerings) {
      if (!u.zone().empty() && interner_.ValueText(o.zone.id) != u.zone()) {
        continue;
      }
      if (!u.capacity_type().empty() &&
          interner_.ValueText(o.capacity_type.id) != u.capacity_type()) {
        continue;
      }
      o.available = false;
    }
  }

  for (CompiledInstanceType& t : out.types_) {
    for (const CompiledOffering& o : t.offerings) {
      if (o.available && o.price < t.cheapest_available_price) {
        t.cheapest_available_price = o.price;
      }
    }
  }
  return std::shared_ptr<const CompiledCatalog>(std::move(out_));
}

}  // namespace nodeplan::catalog
