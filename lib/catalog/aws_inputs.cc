#include "catalog/aws_inputs.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nodeplan/catalog.h"
#include "nodeplan/quantity.h"

namespace nodeplan::catalog {
namespace {

constexpr absl::string_view kDefaultRegion = "us-east-1";
constexpr absl::string_view kDefaultZones[] = {"us-east-1a", "us-east-1b",
                                               "us-east-1c"};
// The open-source provider's default root volume (AL2023, no
// blockDeviceMappings) and EKS Auto Mode's NodeClass ephemeralStorage.size
// default.
constexpr absl::string_view kAl2023EphemeralStorage = "20Gi";
constexpr absl::string_view kEksEphemeralStorage = "80Gi";

bool IsEksNodeClass(const v1::NodeClass* node_class) {
  if (node_class == nullptr) return false;
  const std::string& api_version = node_class->api_version();
  return api_version.empty() ||
         absl::StartsWith(api_version, "eks.amazonaws.com/");
}

// "us-west-2b" -> "us-west-2"; anything else keeps the default region.
std::string RegionOfZone(absl::string_view zone) {
  std::vector<absl::string_view> parts = absl::StrSplit(zone, '-');
  if (parts.size() < 3) return std::string(kDefaultRegion);
  absl::string_view last = parts[2];
  size_t digits = 0;
  while (digits < last.size() && absl::ascii_isdigit(last[digits])) ++digits;
  if (digits == 0) return std::string(kDefaultRegion);
  return absl::StrCat(parts[0], "-", parts[1], "-", last.substr(0, digits));
}

std::vector<std::string> ZonesOf(const v1::NodeClass* node_class) {
  std::vector<std::string> zones;
  if (node_class != nullptr) {
    for (const v1::NodeClassSubnet& subnet : node_class->status().subnets()) {
      if (!subnet.zone().empty()) zones.push_back(subnet.zone());
    }
  }
  if (zones.empty()) {
    for (absl::string_view zone : kDefaultZones) zones.emplace_back(zone);
  }
  std::sort(zones.begin(), zones.end());
  zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  return zones;
}

}  // namespace

absl::StatusOr<AwsCatalogInputs> ResolveAwsCatalogInputs(
    const v1::NodeClass* node_class) {
  AwsCatalogInputs in;
  in.eks = IsEksNodeClass(node_class);
  in.ephemeral_text =
      std::string(in.eks ? kEksEphemeralStorage : kAl2023EphemeralStorage);
  if (node_class != nullptr &&
      !node_class->spec().ephemeral_storage().size().empty()) {
    in.ephemeral_text = node_class->spec().ephemeral_storage().size();
  }
  absl::StatusOr<int64_t> ephemeral_bytes =
      ParseQuantityValue(in.ephemeral_text);
  if (!ephemeral_bytes.ok() || *ephemeral_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NodeClass ",
        node_class == nullptr ? "" : node_class->metadata().name(),
        ": spec.ephemeralStorage.size: \"", in.ephemeral_text,
        "\" is not a positive quantity",
        ephemeral_bytes.ok()
            ? ""
            : absl::StrCat(" (", ephemeral_bytes.status().message(), ")")));
  }
  in.ephemeral_bytes = *ephemeral_bytes;
  in.zones = ZonesOf(node_class);
  return in;
}

bool IsDefaultAwsVariant(const AwsCatalogInputs& in) {
  return in.ephemeral_text ==
             (in.eks ? kEksEphemeralStorage : kAl2023EphemeralStorage) &&
         in.zones.size() == std::size(kDefaultZones) &&
         std::equal(in.zones.begin(), in.zones.end(),
                    std::begin(kDefaultZones));
}

std::string AwsCatalogRegion(const AwsCatalogInputs& inputs) {
  return RegionOfZone(inputs.zones.front());
}

std::string AwsCatalogSource(const AwsCatalogInputs& inputs) {
  return absl::StrCat(
      "Embedded AWS catalog: data/aws-instance-types.csv (Karpenter AWS "
      "provider data at 1d927085, 2026-08-21). On-demand prices are us-east-1 "
      "Linux list prices. Spot prices are a SYNTHETIC ESTIMATE of ",
      kAwsSpotPriceFraction,
      " x on-demand (the convention of Karpenter's test fixtures), not market "
      "prices: replace them with a NodeOverlay or your own catalog. ",
      inputs.eks ? "EKS Auto Mode rules (eks.amazonaws.com NodeClass): max "
                   "pods capped at 110, allow-listed families only. "
                 : "Open-source provider defaults (AL2023). ",
      "Ephemeral storage ", inputs.ephemeral_text, ".");
}

double AwsSpotPrice(double on_demand_price) {
  return std::round(on_demand_price * kAwsSpotPriceFraction * 1e6) / 1e6;
}

}  // namespace nodeplan::catalog
