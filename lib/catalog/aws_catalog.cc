// The embedded AWS catalog: data/aws-instance-types.csv turned into a
// v1::Catalog with the AWS provider's capacity, overhead and labels.

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "catalog/aws_csv.h"
#include "catalog/aws_formulas.h"
#include "google/protobuf/arena.h"
#include "nodeplan/catalog.h"
#include "nodeplan/quantity.h"

namespace nodeplan {
namespace {

using catalog::AwsInstanceTypeRow;

constexpr absl::string_view kDefaultRegion = "us-east-1";
constexpr absl::string_view kDefaultZones[] = {"us-east-1a", "us-east-1b",
                                               "us-east-1c"};
// The open-source provider's default root volume (AL2023, no
// blockDeviceMappings) and EKS Auto Mode's NodeClass ephemeralStorage.size
// default.
constexpr absl::string_view kAl2023EphemeralStorage = "20Gi";
constexpr absl::string_view kEksEphemeralStorage = "80Gi";

constexpr absl::string_view kProviderPrefix = "karpenter.k8s.aws/";
constexpr absl::string_view kEksPrefix = "eks.amazonaws.com/";

// Per-instance label suffixes defined under both prefixes.
constexpr absl::string_view kInstanceLabelSuffixes[] = {
    "instance-category",
    "instance-generation",
    "instance-family",
    "instance-size",
    "instance-cpu",
    "instance-memory",
    "instance-hypervisor",
    "instance-capability-flex",
    "instance-network-bandwidth",
    "instance-local-nvme",
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
};

bool IsEksNodeClass(const v1::NodeClass* node_class) {
  if (node_class == nullptr) return false;
  const std::string& api_version = node_class->api_version();
  return api_version.empty() ||
         absl::StartsWith(api_version, "eks.amazonaws.com/");
}

// EKS Auto Mode only launches an allow-list of families, with more than one
// vCPU and not the nano/micro/small sizes (automode-learn-instances).
bool EksAutoModeAllows(const AwsInstanceTypeRow& row) {
  static const absl::flat_hash_set<absl::string_view> kCategories = {
      "c", "m", "r", "t", "z", "x", "i", "d", "p", "g", "inf", "trn", "hpc"};
  static const absl::flat_hash_set<absl::string_view> kBurstableFamilies = {
      "t2", "t3", "t3a", "t4g"};
  if (!kCategories.contains(row.category)) return false;
  if (row.category == "t" && !kBurstableFamilies.contains(row.family)) {
    return false;
  }
  if (row.size == "nano" || row.size == "micro" || row.size == "small") {
    return false;
  }
  return row.vcpu.value_or(0) > 1;
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

double RoundToMicroDollars(double price) {
  return std::round(price * 1e6) / 1e6;
}

// The label keys of kInstanceLabelSuffixes under both prefixes, built once
// (immutable constants) instead of concatenated for every type.
struct PrefixedKey {
  std::string provider;
  std::string eks;
};
// nullptr for a suffix outside kInstanceLabelSuffixes.
const PrefixedKey* FindKeys(absl::string_view suffix) {
  constexpr size_t kCount = std::size(kInstanceLabelSuffixes);
  static const std::array<PrefixedKey, kCount>* const keys = [] {
    auto* out = new std::array<PrefixedKey, kCount>();
    for (size_t i = 0; i < kCount; ++i) {
      (*out)[i].provider =
          absl::StrCat(kProviderPrefix, kInstanceLabelSuffixes[i]);
      (*out)[i].eks = absl::StrCat(kEksPrefix, kInstanceLabelSuffixes[i]);
    }
    return out;
  }();
  for (size_t i = 0; i < kCount; ++i) {
    if (kInstanceLabelSuffixes[i] == suffix) return &(*keys)[i];
  }
  return nullptr;
}

// The keys of `suffix`: the shared constants, else built into `storage`.
const PrefixedKey& KeysOf(absl::string_view suffix, PrefixedKey& storage) {
  if (const PrefixedKey* known = FindKeys(suffix)) return *known;
  storage = {absl::StrCat(kProviderPrefix, suffix),
             absl::StrCat(kEksPrefix, suffix)};
  return storage;
}

void AddLabel(v1::InstanceType& type, absl::string_view suffix,
              absl::string_view value) {
  PrefixedKey storage;
  const PrefixedKey& keys = KeysOf(suffix, storage);
  auto& labels = *type.mutable_labels();
  labels[keys.provider].assign(value.data(), value.size());
  labels[keys.eks].assign(value.data(), value.size());
}

void AddDoesNotExist(v1::InstanceType& type, absl::string_view suffix) {
  PrefixedKey storage;
  const PrefixedKey& keys = KeysOf(suffix, storage);
  for (const std::string* key : {&keys.provider, &keys.eks}) {
    v1::NodeSelectorRequirement* requirement = type.add_requirements();
    requirement->set_key(*key);
    requirement->set_operator_("DoesNotExist");
  }
}

void AddOptionalLabel(v1::InstanceType& type, absl::string_view suffix,
                      bool present, absl::string_view value) {
  if (present) {
    AddLabel(type, suffix, value);
  } else {
    AddDoesNotExist(type, suffix);
  }
}

// What the catalog depends on: the NodeClass flavour, its zones and its
// ephemeral storage size (names appear only in error messages).
struct AwsCatalogInputs {
  bool eks = false;
  std::string ephemeral_text;
  int64_t ephemeral_bytes = 0;
  std::vector<std::string> zones;
};

absl::StatusOr<AwsCatalogInputs> ResolveInputs(
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

// The NodeClass-independent variants: no zones of its own, the flavour's
// default ephemeral storage size.
bool IsDefaultVariant(const AwsCatalogInputs& in) {
  return in.ephemeral_text ==
             (in.eks ? kEksEphemeralStorage : kAl2023EphemeralStorage) &&
         in.zones.size() == std::size(kDefaultZones) &&
         std::equal(in.zones.begin(), in.zones.end(),
                    std::begin(kDefaultZones));
}

// Writes the catalog for `inputs` into `out` (empty; possibly on an arena).
absl::Status BuildAwsCatalog(const AwsCatalogInputs& inputs, v1::Catalog& out,
                             AwsCatalogStats& counts) {
  const bool eks = inputs.eks;
  const std::string& ephemeral_text = inputs.ephemeral_text;
  const std::string eviction_ephemeral =
      absl::StrCat(catalog::AwsEvictionEphemeralBytes(inputs.ephemeral_bytes));

  // Parsed once per process; the rows are immutable.
  const absl::StatusOr<std::vector<AwsInstanceTypeRow>>& rows =
      catalog::EmbeddedAwsInstanceTypeRows();
  if (!rows.ok()) return rows.status();

  const std::vector<std::string>& zones = inputs.zones;
  const std::string region = RegionOfZone(zones.front());

  counts = AwsCatalogStats();
  counts.rows = static_cast<int>(rows->size());
  out.set_api_version("nodeplan.dev/v1");
  out.set_kind("Catalog");
  out.set_region(region);
  out.set_source(absl::StrCat(
      "Embedded AWS catalog: data/aws-instance-types.csv (Karpenter AWS "
      "provider data at 1d927085, 2026-08-21). On-demand prices are us-east-1 "
      "Linux list prices. Spot prices are a SYNTHETIC ESTIMATE of ",
      kAwsSpotPriceFraction,
      " x on-demand (the convention of Karpenter's test fixtures), not market "
      "prices: replace them with a NodeOverlay or your own catalog. ",
      eks ? "EKS Auto Mode rules (eks.amazonaws.com NodeClass): max pods "
            "capped at 110, allow-listed families only. "
          : "Open-source provider defaults (AL2023). ",
      "Ephemeral storage ", ephemeral_text, "."));
  for (absl::string_view prefix : {kProviderPrefix, kEksPrefix}) {
    for (absl::string_view suffix : kInstanceLabelSuffixes) {
      out.add_well_known_labels(absl::StrCat(prefix, suffix));
    }
  }

  for (const AwsInstanceTypeRow& row : *rows) {
    if (!row.vcpu || !row.memory_mib || row.arch.empty() || !row.max_pods_eni) {
      ++counts.skipped_without_capacity;
      continue;
    }
    if (eks && !EksAutoModeAllows(row)) {
      ++counts.skipped_by_eks_auto_mode;
      continue;
    }
    const bool arm64 = row.arch == "arm64";
    const int64_t eni_pods = *row.max_pods_eni;
    const int64_t pods =
        eks ? std::min(eni_pods, catalog::kEksAutoModeMaxPods) : eni_pods;
    // AL2023 (the provider's default family) sizes kube-reserved memory from
    // the ENI-limited pod count whatever maxPods says. EKS Auto Mode runs a
    // Bottlerocket-based AMI, whose family uses the resolved (capped) count;
    // AWS does not publish Auto Mode's figures, so this is an assumption.
    const int64_t reserved_memory_pods = eks ? pods : eni_pods;

    v1::InstanceType& type = *out.add_instance_types();
    type.set_name(row.name);
    auto& labels = *type.mutable_labels();
    labels["node.kubernetes.io/instance-type"] = row.name;
    labels["kubernetes.io/arch"] = row.arch;
    labels["kubernetes.io/os"] = "linux";
    labels["topology.kubernetes.io/region"] = region;
    v1::NodeSelectorRequirement* windows_build = type.add_requirements();
    windows_build->set_key("node.kubernetes.io/windows-build");
    windows_build->set_operator_("DoesNotExist");

    AddOptionalLabel(type, "instance-category", !row.category.empty(),
                     row.category);
    AddOptionalLabel(type, "instance-generation", !row.generation.empty(),
                     row.generation);
    AddLabel(type, "instance-family", row.family);
    AddLabel(type, "instance-size", row.size);
    AddLabel(type, "instance-cpu", absl::StrCat(*row.vcpu));
    AddLabel(type, "instance-memory", absl::StrCat(*row.memory_mib));
    AddLabel(type, "instance-hypervisor", row.hypervisor);
    AddLabel(type, "instance-capability-flex",
             absl::StrContains(row.family, "-flex") ? "true" : "false");
    AddOptionalLabel(type, "instance-network-bandwidth",
                     row.network_bandwidth_mbps.has_value(),
                     absl::StrCat(row.network_bandwidth_mbps.value_or(0)));
    AddOptionalLabel(type, "instance-local-nvme", row.local_nvme_gib > 0,
                     absl::StrCat(row.local_nvme_gib));
    const bool gpu = !row.gpu_name.empty();
    AddOptionalLabel(type, "instance-gpu-name", gpu, row.gpu_name);
    AddOptionalLabel(type, "instance-gpu-manufacturer", gpu,
                     row.gpu_manufacturer);
    AddOptionalLabel(type, "instance-gpu-count", gpu,
                     absl::StrCat(row.gpu_count));
    AddOptionalLabel(type, "instance-gpu-memory",
                     gpu && row.gpu_memory_mib.has_value(),
                     absl::StrCat(row.gpu_memory_mib.value_or(0)));

    auto& capacity = *type.mutable_capacity();
    capacity["cpu"] = absl::StrCat(*row.vcpu);
    capacity["memory"] = absl::StrCat(
        catalog::AwsMemoryCapacityMib(*row.memory_mib, arm64), "Mi");
    capacity["pods"] = absl::StrCat(pods);
    capacity["ephemeral-storage"] = ephemeral_text;
    if (row.gpu_count > 0) {
      // Device-plugin resource names per GPU manufacturer (computeCapacity).
      if (row.gpu_manufacturer == "nvidia") {
        capacity["nvidia.com/gpu"] = absl::StrCat(row.gpu_count);
      } else if (row.gpu_manufacturer == "amd") {
        capacity["amd.com/gpu"] = absl::StrCat(row.gpu_count);
      } else if (row.gpu_manufacturer == "habana") {
        capacity["habana.ai/gaudi"] = absl::StrCat(row.gpu_count);
      }
    }

    v1::Overhead& overhead = *type.mutable_overhead();
    auto& kube_reserved = *overhead.mutable_kube_reserved();
    kube_reserved["cpu"] =
        absl::StrCat(catalog::AwsKubeReservedCpuMilli(*row.vcpu), "m");
    kube_reserved["memory"] = absl::StrCat(
        catalog::AwsKubeReservedMemoryMib(reserved_memory_pods), "Mi");
    kube_reserved["ephemeral-storage"] = "1Gi";
    auto& eviction = *overhead.mutable_eviction_threshold();
    eviction["memory"] = absl::StrCat(catalog::kAwsEvictionMemoryMib, "Mi");
    eviction["ephemeral-storage"] = eviction_ephemeral;

    // Zone-major: each zone's on-demand offering, then its spot offering. A
    // type without a list price gets unavailable offerings, as the provider
    // marks offerings without a price.
    const bool priced = row.od_price_us_east_1.has_value();
    const double od_price = row.od_price_us_east_1.value_or(0);
    for (const std::string& zone : zones) {
      v1::Offering* on_demand = type.add_offerings();
      on_demand->set_zone(zone);
      on_demand->set_capacity_type("on-demand");
      on_demand->set_price(od_price);
      if (!priced) on_demand->set_available(false);
      v1::Offering* spot = type.add_offerings();
      spot->set_zone(zone);
      spot->set_capacity_type("spot");
      spot->set_price(RoundToMicroDollars(od_price * kAwsSpotPriceFraction));
      spot->set_estimated_price(true);
      if (!priced) spot->set_available(false);
    }
    if (!priced) ++counts.without_price;
  }
  counts.instance_types = out.instance_types_size();
  return absl::OkStatus();
}

// A catalog built on its own arena (map nodes, messages and short strings
// laid out together: built, read and freed several times faster than on the
// heap), owned through the shared_ptr's control block.
struct ArenaCatalog {
  explicit ArenaCatalog(const google::protobuf::ArenaOptions& options)
      : arena(options),
        catalog(google::protobuf::Arena::CreateMessage<v1::Catalog>(&arena)) {}
  google::protobuf::Arena arena;
  v1::Catalog* catalog;
  AwsCatalogStats stats;
};

absl::StatusOr<std::shared_ptr<const ArenaCatalog>> BuildOnArena(
    const AwsCatalogInputs& inputs) {
  google::protobuf::ArenaOptions options;
  options.start_block_size = size_t{1} << 16;
  options.max_block_size = size_t{1} << 22;
  auto built = std::make_shared<ArenaCatalog>(options);
  absl::Status status = BuildAwsCatalog(inputs, *built->catalog, built->stats);
  if (!status.ok()) return status;
  return std::shared_ptr<const ArenaCatalog>(std::move(built));
}

// The default variant of one flavour, built on first use.
const absl::StatusOr<std::shared_ptr<const ArenaCatalog>>& DefaultVariant(
    const AwsCatalogInputs& inputs) {
  // Function-local statics: built once per process on first use
  // (thread-safe initialization), immutable afterwards. They hold constant
  // data derived from bytes compiled into the library, not mutable state.
  if (inputs.eks) {
    static const auto* const eks =
        new absl::StatusOr<std::shared_ptr<const ArenaCatalog>>(
            BuildOnArena(inputs));
    return *eks;
  }
  static const auto* const open_source =
      new absl::StatusOr<std::shared_ptr<const ArenaCatalog>>(
          BuildOnArena(inputs));
  return *open_source;
}

}  // namespace

absl::StatusOr<v1::Catalog> AwsCatalog(const v1::NodeClass* node_class,
                                       AwsCatalogStats* stats) {
  absl::StatusOr<AwsCatalogInputs> inputs = ResolveInputs(node_class);
  if (!inputs.ok()) return inputs.status();
  v1::Catalog out;
  AwsCatalogStats counts;
  absl::Status status = BuildAwsCatalog(*inputs, out, counts);
  if (!status.ok()) return status;
  if (stats != nullptr) *stats = counts;
  return out;
}

absl::StatusOr<std::shared_ptr<const v1::Catalog>> SharedAwsCatalog(
    const v1::NodeClass* node_class, AwsCatalogStats* stats) {
  absl::StatusOr<AwsCatalogInputs> inputs = ResolveInputs(node_class);
  if (!inputs.ok()) return inputs.status();
  absl::StatusOr<std::shared_ptr<const ArenaCatalog>> fresh;
  const absl::StatusOr<std::shared_ptr<const ArenaCatalog>>* built = &fresh;
  if (IsDefaultVariant(*inputs)) {
    built = &DefaultVariant(*inputs);
  } else {
    fresh = BuildOnArena(*inputs);
  }
  if (!built->ok()) return built->status();
  const std::shared_ptr<const ArenaCatalog>& holder = **built;
  if (stats != nullptr) *stats = holder->stats;
  return std::shared_ptr<const v1::Catalog>(holder, holder->catalog);
}

}  // namespace nodeplan
