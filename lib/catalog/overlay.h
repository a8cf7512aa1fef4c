#ifndef NODEPLAN_LIB_CATALOG_OVERLAY_H_
#define NODEPLAN_LIB_CATALOG_OVERLAY_H_

// NodeOverlay (karpenter.sh/v1alpha1) application at catalog compile time.
// Semantics are documented at CompileCatalog (nodeplan/compiled_catalog.h).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan::catalog {

// A validated price change: an absolute price, or a signed adjustment,
// absolute or in percent.
struct PriceChange {
  enum class Kind { kSet, kAdd, kPercent } kind = Kind::kSet;
  double amount = 0;
};

// Parses spec.price (a plain non-negative decimal: kSet) or
// spec.priceAdjustment ("+0.5", "-0.02": kAdd; "+10%", "-5%": kPercent).
absl::StatusOr<PriceChange> ParsePrice(absl::string_view text);
absl::StatusOr<PriceChange> ParsePriceAdjustment(absl::string_view text);
// Karpenter's AdjustedPrice: the new price, floored at 0.
double AdjustedPrice(double price, const PriceChange& change);

// Applies `overlays` to `types` (the catalog's own vector, still being
// built), recomputing allocatable from each type's overhead where capacity
// changes. Overlays that fail validation or conflict are appended to
// `skipped`, in weight order.
void ApplyNodeOverlays(absl::Span<const v1::NodeOverlay> overlays,
                       const CompiledCatalog& catalog,
                       std::vector<CompiledInstanceType>& types,
                       Interner& interner,
                       std::vector<SkippedOverlay>& skipped);

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_OVERLAY_H_
