#include "disruption/pricing.h"

#include <algorithm>

#include "nodeplan/labels.h"

namespace nodeplan::disruption {

bool Available(const CompiledOffering& o) {
  return o.available &&
         (o.reservation_id.id == kNoId || o.reservation_capacity > 0);
}

double CheapestAvailablePrice(const CompiledCatalog& catalog, int type,
                              const Requirements& reqs) {
  OfferingFilter filter(catalog, reqs);
  double best = kMaxPrice;
  for (const CompiledOffering& o : catalog.instance_type(type).offerings) {
    if (Available(o) && filter.Compatible(o) && o.price < best) best = o.price;
  }
  return best;
}

double CheapestCompatiblePrice(const CompiledCatalog& catalog, int type,
                               const Requirements& reqs) {
  OfferingFilter filter(catalog, reqs);
  double best = kMaxPrice;
  for (const CompiledOffering& o : catalog.instance_type(type).offerings) {
    if (filter.Compatible(o) && o.price < best) best = o.price;
  }
  return best;
}

double WorstLaunchPrice(const CompiledCatalog& catalog, int type,
                        const Requirements& reqs, const Interner& names) {
  OfferingFilter filter(catalog, reqs);
  static const absl::string_view kOrder[] = {labels::kCapacityTypeReserved,
                                             labels::kCapacityTypeSpot,
                                             labels::kCapacityTypeOnDemand};
  for (absl::string_view ct : kOrder) {
    double worst = -1;
    for (const CompiledOffering& o : catalog.instance_type(type).offerings) {
      if (!Available(o) || !filter.Compatible(o)) continue;
      if (names.ValueText(o.capacity_type.id) != ct) continue;
      worst = std::max(worst, o.price);
    }
    if (worst >= 0) return worst;
  }
  return kMaxPrice;
}

void OrderByPrice(const CompiledCatalog& catalog, const Requirements& reqs,
                  std::vector<int>& types) {
  std::vector<std::pair<double, int>> keyed;
  keyed.reserve(types.size());
  for (int t : types) {
    keyed.emplace_back(CheapestAvailablePrice(catalog, t, reqs), t);
  }
  std::stable_sort(
      keyed.begin(), keyed.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < keyed.size(); ++i) types[i] = keyed[i].second;
}

}  // namespace nodeplan::disruption
