#ifndef NODEPLAN_LIB_DISRUPTION_PRICING_H_
#define NODEPLAN_LIB_DISRUPTION_PRICING_H_

// Offering prices as consolidation compares them (cloudprovider.Offerings:
// Available, Compatible, Cheapest, WorstLaunchPrice; InstanceTypes
// .OrderByPrice), over a compiled catalog.

#include <limits>
#include <vector>

#include "nodeplan/compiled_catalog.h"
#include "nodeplan/requirements.h"

namespace nodeplan::disruption {

inline constexpr double kMaxPrice = std::numeric_limits<double>::max();

// Available as the scheduler counts it: not unavailable, and a reserved
// offering with reservation capacity left.
bool Available(const CompiledOffering& o);

// The cheapest available offering of `type` compatible with `reqs`
// (OrderByPrice's key); kMaxPrice when none.
double CheapestAvailablePrice(const CompiledCatalog& catalog, int type,
                              const Requirements& reqs);
// Offerings.Compatible(reqs).Cheapest().Price over every offering
// (availability ignored); kMaxPrice when none.
double CheapestCompatiblePrice(const CompiledCatalog& catalog, int type,
                               const Requirements& reqs);
// Available().WorstLaunchPrice(reqs): among available offerings compatible
// with `reqs`, the first non-empty group in the order reserved, spot,
// on-demand, and the highest price in it; kMaxPrice when none.
double WorstLaunchPrice(const CompiledCatalog& catalog, int type,
                        const Requirements& reqs, const Interner& names);

// `types` sorted by CheapestAvailablePrice (stable: ties keep their order;
// Karpenter's sort is not stable).
void OrderByPrice(const CompiledCatalog& catalog, const Requirements& reqs,
                  std::vector<int>& types);

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_PRICING_H_
