#ifndef NODEPLAN_LIB_CATALOG_CATALOG_BUILDER_H_
#define NODEPLAN_LIB_CATALOG_CATALOG_BUILDER_H_

// What every catalog compile shares, whatever it reads instance types from
// (a v1::Catalog in compile.cc, the embedded AWS rows in aws_compile.cc): the
// prologue that interns the catalog's keys and capacity types in a fixed
// order, the offering label sets shared per (zone, capacity type,
// reservation id), and the finish (name lookup, duplicate names, the
// compatibility index, NodeOverlays, unavailable offerings, cheapest
// prices). Interning order is part of the compile's contract (ids are
// compared across compiles), so it lives in one place.

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "catalog/overlay.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan::catalog {

class CompiledCatalogBuilder {
 public:
  // Interns, in this order: the zone, capacity-type and instance-type keys,
  // the reservation-id key of `options`, the well-known keys (Karpenter's,
  // then `well_known_labels`, then the reservation-id label), then the
  // capacity-type values on-demand, spot and reserved. `options` and
  // `interner` must outlive the builder.
  CompiledCatalogBuilder(std::string region, std::string source,
                         absl::Span<const std::string> well_known_labels,
                         const CatalogCompileOptions& options,
                         Interner& interner);

  const CompiledCatalog& catalog() const { return *out_; }
  Interner& interner() { return interner_; }
  LabelValue on_demand() const { return on_demand_; }
  LabelValue spot() const { return spot_; }
  LabelValue reserved() const { return reserved_; }

  // `n` default instance types, in catalog order: fill each, and call
  // TypeCompiled(i) when type i is done (in order), then Finish.
  std::vector<CompiledInstanceType>& StartTypes(int n);
  // Indexes type i's requirements while they are still in cache; they must
  // not change afterwards.
  void TypeCompiled(int i);
  // One block for all the types' requirement entries, owned by the catalog,
  // that the types view (Requirements::Viewing): one allocation instead of
  // one per type. Reserve it once, before the first type, and never let it
  // reallocate.
  std::vector<Requirement>& type_requirement_entries() {
    return out_->type_requirement_entries_;
  }

  // The label set of an offering with these values (zone In [zone],
  // capacity-type In [type], reservation-id In [id] when reservation.id is
  // not kNoId), owned by the catalog and shared by every offering with the
  // same three values.
  const Requirements* OfferingLabels(const LabelValue& zone,
                                     const LabelValue& capacity_type,
                                     const LabelValue& reservation);

  // Completes the catalog: name lookup (an error for a duplicate name), the
  // index over the types' requirements, NodeOverlays, unavailable offerings
  // and cheapest available prices.
  absl::StatusOr<std::shared_ptr<const CompiledCatalog>> Finish();

 private:
  const CatalogCompileOptions& options_;
  Interner& interner_;
  std::shared_ptr<CompiledCatalog> out_;
  LabelValue on_demand_, spot_, reserved_;
  std::optional<RequirementsIndexBuilder> index_;
  // Offering label sets without a reservation id, most recent first (a
  // catalog has a few zone x capacity type pairs), and those with one.
  struct PairLabels {
    LabelValueId zone;
    LabelValueId capacity_type;
    const Requirements* labels;
  };
  std::vector<PairLabels> pair_labels_;
  absl::flat_hash_map<std::tuple<LabelValueId, LabelValueId, LabelValueId>,
                      const Requirements*>
      reserved_labels_;
};

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_CATALOG_BUILDER_H_
