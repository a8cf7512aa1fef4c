#include "catalog/overlay.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nodeplan/limits.h"

namespace nodeplan::catalog {
namespace {

// A decimal number without sign: digits with an optional fraction.
bool ParseUnsignedDecimal(absl::string_view text, double* out) {
  if (text.empty()) return false;
  bool digit = false, dot = false;
  for (char c : text) {
    if (absl::ascii_isdigit(c)) {
      digit = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digit && absl::SimpleAtod(text, out) && std::isfinite(*out);
}

struct ParsedOverlay {
  const v1::NodeOverlay* source = nullptr;
  int32_t weight = 0;
  Requirements requirements;
  std::optional<PriceChange> price;
  std::optional<ResourceVector> capacity;
};

// Validation as the CRD and RuntimeValidate would apply it; the message names
// the field.
absl::StatusOr<ParsedOverlay> ParseOverlay(const v1::NodeOverlay& overlay,
                                           Interner& interner) {
  ParsedOverlay parsed;
  parsed.source = &overlay;
  const v1::NodeOverlaySpec& spec = overlay.spec();
  parsed.weight = spec.has_weight() ? spec.weight() : 0;
  absl::StatusOr<Requirements> reqs = RequirementsFromNodeSelector(
      spec.requirements(), interner, /*use_min_values=*/false,
      "spec.requirements");
  if (!reqs.ok()) return reqs.status();
  parsed.requirements = *std::move(reqs);
  if (!spec.price().empty() && !spec.price_adjustment().empty()) {
    return absl::InvalidArgumentError(
        "spec: cannot set both 'price' and 'priceAdjustment'");
  }
  if (!spec.price().empty()) {
    absl::StatusOr<PriceChange> price = ParsePrice(spec.price());
    if (!price.ok()) return price.status();
    parsed.price = *price;
  } else if (!spec.price_adjustment().empty()) {
    absl::StatusOr<PriceChange> price =
        ParsePriceAdjustment(spec.price_adjustment());
    if (!price.ok()) return price.status();
    parsed.price = *price;
  }
  if (!spec.capacity().empty()) {
    // In name order: the error must not depend on the map's iteration.
    const std::map<std::string, std::string> sorted(spec.capacity().begin(),
                                                    spec.capacity().end());
    for (const auto& [name, value] : sorted) {
      if (name == "cpu" || name == "memory" || name == "pods" ||
          name == "ephemeral-storage") {
        return absl::InvalidArgumentError(absl::StrCat(
            "spec.capacity[", name, "]: only extended resources may be added"));
      }
    }
    absl::StatusOr<ResourceVector> capacity =
        ParseResourceList(spec.capacity(), interner, "spec.capacity");
    if (!capacity.ok()) return capacity.status();
    parsed.capacity = *std::move(capacity);
  }
  return parsed;
}

struct OfferingState {
  int32_t last_weight = 0;
  bool touched = false;    // some overlay with a price selected it
  int price_overlay = -1;  // the overlay whose price applies
};

struct CapacityState {
  int32_t last_weight = 0;
  int last_overlay = -1;  // last overlay with capacity that selected it
  // Per extended resource: the overlay whose value applies.
  std::vector<std::pair<LabelKeyId, int>> winners;
};

bool SharesResource(const ResourceVector& a, const ResourceVector& b) {
  for (const ResourceVector::Extended& e : a.extended()) {
    if (b.GetExtended(e.name).has_value()) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<PriceChange> ParsePrice(absl::string_view text) {
  PriceChange change;
  change.kind = PriceChange::Kind::kSet;
  if (!ParseUnsignedDecimal(text, &change.amount)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec.price: \"", text, "\" is not a non-negative decimal"));
  }
  if (!(change.amount <= limits::kMaxPricePerHour)) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.price: \"", text, "\" exceeds the limit of ",
                     limits::kMaxPricePerHour,
                     " per hour (nodeplan::limits::kMaxPricePerHour)"));
  }
  return change;
}

absl::StatusOr<PriceChange> ParsePriceAdjustment(absl::string_view text) {
  PriceChange change;
  absl::string_view rest = text;
  double sign = 1;
  if (absl::ConsumePrefix(&rest, "+")) {
    sign = 1;
  } else if (absl::ConsumePrefix(&rest, "-")) {
    sign = -1;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.priceAdjustment: \"", text,
                     "\" must start with + or - (e.g. +10%, -0.02)"));
  }
  change.kind = absl::ConsumeSuffix(&rest, "%") ? PriceChange::Kind::kPercent
                                                : PriceChange::Kind::kAdd;
  double amount = 0;
  if (!ParseUnsignedDecimal(rest, &amount)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec.priceAdjustment: \"", text, "\" is not a signed decimal"));
  }
  if (!(amount <= limits::kMaxPricePerHour)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec.priceAdjustment: \"", text, "\" exceeds the limit of ",
        limits::kMaxPricePerHour, " (nodeplan::limits::kMaxPricePerHour)"));
  }
  change.amount = sign * amount;
  return change;
}

double AdjustedPrice(double price, const PriceChange& change) {
  double adjusted = price;
  switch (change.kind) {
    case PriceChange::Kind::kSet:
      adjusted = change.amount;
      break;
    case PriceChange::Kind::kAdd:
      adjusted = price + change.amount;
      break;
    case PriceChange::Kind::kPercent:
      adjusted = price * (1 + change.amount / 100);
      break;
  }
  // A percentage of a price within the limit can pass it: held at the
  // limit, so that sums of prices stay finite.
  return std::clamp(adjusted, 0.0, limits::kMaxPricePerHour);
}

void ApplyNodeOverlays(absl::Span<const v1::NodeOverlay> overlays,
                       const CompiledCatalog& catalog,
                       std::vector<CompiledInstanceType>& types,
                       Interner& interner,
                       std::vector<SkippedOverlay>& skipped) {
  // NodeOverlayList.OrderByWeight: weight descending, then name descending.
  std::vector<const v1::NodeOverlay*> ordered;
  for (const v1::NodeOverlay& o : overlays) ordered.push_back(&o);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const v1::NodeOverlay* a, const v1::NodeOverlay* b) {
        const int32_t wa = a->spec().has_weight() ? a->spec().weight() : 0;
        const int32_t wb = b->spec().has_weight() ? b->spec().weight() : 0;
        if (wa != wb) return wa > wb;
        return a->metadata().name() > b->metadata().name();
      });

  std::vector<ParsedOverlay> parsed;
  for (const v1::NodeOverlay* o : ordered) {
    absl::StatusOr<ParsedOverlay> p = ParseOverlay(*o, interner);
    if (!p.ok()) {
      skipped.push_back({o->metadata().name(), "RuntimeValidation",
                         std::string(p.status().message())});
      continue;
    }
    parsed.push_back(*std::move(p));
  }

  std::vector<std::vector<OfferingState>> offering_state(types.size());
  std::vector<CapacityState> capacity_state(types.size());
  for (size_t t = 0; t < types.size(); ++t) {
    offering_state[t].resize(types[t].offerings.size());
  }

  // Selected offerings of one overlay: (type, offering) pairs.
  std::vector<std::pair<int, int>> selected;
  std::vector<int> selected_types;
  for (int p = 0; p < static_cast<int>(parsed.size()); ++p) {
    const ParsedOverlay& overlay = parsed[p];
    if (!overlay.price && !overlay.capacity) continue;
    selected.clear();
    selected_types.clear();
    for (int t = 0; t < static_cast<int>(types.size()); ++t) {
      // getOverlaidOfferings: the type's requirements must be compatible
      // with the overlay's (no undefined keys allowed), then the offerings
      // whose labels are compatible with it.
      if (!types[t].requirements.IsCompatible(overlay.requirements)) continue;
      const size_t before = selected.size();
      for (int j = 0; j < static_cast<int>(types[t].offerings.size()); ++j) {
        if (catalog.OfferingCompatible(types[t].offerings[j],
                                       overlay.requirements)) {
          selected.emplace_back(t, j);
        }
      }
      if (selected.size() > before) selected_types.push_back(t);
    }

    // Conflicts with an overlay of the same weight (all or nothing).
    std::string conflict;
    if (overlay.price) {
      for (const auto& [t, j] : selected) {
        const OfferingState& s = offering_state[t][j];
        if (s.touched && s.last_weight == overlay.weight) {
          conflict = absl::StrCat(
              "conflict with another overlay of weight ", overlay.weight,
              " on the price of ", types[t].name, " (",
              interner.ValueText(types[t].offerings[j].zone.id), ", ",
              interner.ValueText(types[t].offerings[j].capacity_type.id), ")");
          break;
        }
      }
    }
    if (conflict.empty() && overlay.capacity) {
      for (int t : selected_types) {
        const CapacityState& s = capacity_state[t];
        if (s.last_overlay >= 0 && s.last_weight == overlay.weight &&
            SharesResource(*overlay.capacity,
                           *parsed[s.last_overlay].capacity)) {
          conflict = absl::StrCat(
              "conflict with overlay ",
              parsed[s.last_overlay].source->metadata().name(),
              " of the same weight on the capacity of ", types[t].name);
          break;
        }
      }
    }
    if (!conflict.empty()) {
      skipped.push_back(
          {overlay.source->metadata().name(), "Conflict", conflict});
      continue;
    }

    if (overlay.price) {
      for (const auto& [t, j] : selected) {
        OfferingState& s = offering_state[t][j];
        if (s.price_overlay < 0) s.price_overlay = p;
        s.touched = true;
        s.last_weight = overlay.weight;
      }
    }
    if (overlay.capacity) {
      for (int t : selected_types) {
        CapacityState& s = capacity_state[t];
        for (const ResourceVector::Extended& e : overlay.capacity->extended()) {
          const bool taken =
              std::any_of(s.winners.begin(), s.winners.end(),
                          [&](const auto& w) { return w.first == e.name; });
          if (!taken) s.winners.emplace_back(e.name, p);
        }
        s.last_overlay = p;
        s.last_weight = overlay.weight;
      }
    }
  }

  for (size_t t = 0; t < types.size(); ++t) {
    CompiledInstanceType& type = types[t];
    for (size_t j = 0; j < type.offerings.size(); ++j) {
      const OfferingState& s = offering_state[t][j];
      if (s.price_overlay < 0) continue;
      CompiledOffering& o = type.offerings[j];
      o.price = AdjustedPrice(o.price, *parsed[s.price_overlay].price);
      o.price_overlaid = true;
    }
    const CapacityState& c = capacity_state[t];
    if (c.winners.empty()) continue;
    for (const auto& [name, p] : c.winners) {
      type.capacity.SetExtended(name, *parsed[p].capacity->GetExtended(name));
    }
    type.capacity_overlaid = true;
    type.allocatable = Allocatable(type.capacity, type.overhead, interner);
  }
}

}  // namespace nodeplan::catalog
