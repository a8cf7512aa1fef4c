#ifndef NODEPLAN_LIB_CATALOG_AWS_INPUTS_H_
#define NODEPLAN_LIB_CATALOG_AWS_INPUTS_H_

// What the embedded AWS catalog depends on, resolved from a NodeClass: its
// flavour (EKS Auto Mode or the open-source provider), its zones and its
// ephemeral storage size. Shared by the two ways the catalog is produced
// (the v1::Catalog message, aws_catalog.cc, and the direct compile,
// aws_compile.cc), so that both read the NodeClass the same way.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan::catalog {

struct AwsCatalogInputs {
  bool eks = false;
  // spec.ephemeralStorage.size as written, else the flavour's default, and
  // its value in bytes.
  std::string ephemeral_text;
  int64_t ephemeral_bytes = 0;
  // Sorted, unique: the NodeClass status.subnets zones, else the defaults.
  std::vector<std::string> zones;
};

// Errors: an unparsable or non-positive spec.ephemeralStorage.size.
absl::StatusOr<AwsCatalogInputs> ResolveAwsCatalogInputs(
    const v1::NodeClass* node_class);

// The NodeClass-independent variants: the default zones and the flavour's
// default ephemeral storage size.
bool IsDefaultAwsVariant(const AwsCatalogInputs& inputs);

// The region, derived from the first zone (computed when a catalog is built,
// not for every SharedAwsCatalog lookup).
std::string AwsCatalogRegion(const AwsCatalogInputs& inputs);

// Catalog.source: where the data comes from and which rules applied.
std::string AwsCatalogSource(const AwsCatalogInputs& inputs);

// The spot price of the embedded catalog for an on-demand price (the
// synthetic estimate, rounded to micro-dollars).
double AwsSpotPrice(double on_demand_price);

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_AWS_INPUTS_H_
