// The embedded AWS catalog: data/aws-instance-types.csv turned into a
// v1::Catalog with the AWS provider's capacity, overhead and labels.

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "catalog/aws_formulas.h"
#include "catalog/aws_inputs.h"
#include "catalog/aws_type_table.h"
#include "google/protobuf/arena.h"
#include "nodeplan/catalog.h"
#include "nodeplan/labels.h"

namespace nodeplan {
namespace {

using catalog::AwsCatalogInputs;
using catalog::AwsTypeRow;
using catalog::AwsTypeTable;

void AddLabel(v1::InstanceType& type, const catalog::AwsLabelKeys& keys,
              const std::string& value) {
  auto& labels = *type.mutable_labels();
  labels[keys.provider] = value;
  labels[keys.eks] = value;
}

void AddDoesNotExist(v1::InstanceType& type, const std::string& key) {
  v1::NodeSelectorRequirement* requirement = type.add_requirements();
  requirement->set_key(key);
  requirement->set_operator_("DoesNotExist");
}

// Writes the catalog for `inputs` into `out` (empty; possibly on an arena).
absl::Status BuildAwsCatalog(const AwsCatalogInputs& inputs, v1::Catalog& out,
                             AwsCatalogStats& counts) {
  const bool eks = inputs.eks;
  const std::string& ephemeral_text = inputs.ephemeral_text;
  const std::string eviction_ephemeral =
      absl::StrCat(catalog::AwsEvictionEphemeralBytes(inputs.ephemeral_bytes));

  // Prepared once per process; immutable.
  const absl::StatusOr<AwsTypeTable>& table = catalog::EmbeddedAwsTypeTable();
  if (!table.ok()) return table.status();
  const std::vector<std::string>& texts = table->texts;
  const auto& label_keys = catalog::AwsInstanceLabelKeys();

  const std::vector<std::string>& zones = inputs.zones;
  const std::string region = catalog::AwsCatalogRegion(inputs);

  counts = AwsCatalogStats();
  counts.rows = static_cast<int>(table->rows.size());
  out.set_api_version("nodeplan.dev/v1");
  out.set_kind("Catalog");
  out.set_region(region);
  out.set_source(catalog::AwsCatalogSource(inputs));
  for (const std::string& key : catalog::AwsWellKnownLabelKeys()) {
    out.add_well_known_labels(key);
  }

  for (const AwsTypeRow& prepared : table->rows) {
    if (!prepared.has_capacity) {
      ++counts.skipped_without_capacity;
      continue;
    }
    if (eks && !prepared.eks_allowed) {
      ++counts.skipped_by_eks_auto_mode;
      continue;
    }
    const catalog::AwsInstanceTypeRow& row = *prepared.csv;
    const int64_t pods = catalog::AwsMaxPods(prepared, eks);

    v1::InstanceType& type = *out.add_instance_types();
    type.set_name(row.name);
    auto& labels = *type.mutable_labels();
    labels[labels::kInstanceType] = row.name;
    labels[labels::kArch] = row.arch;
    labels[labels::kOs] = "linux";
    labels[labels::kRegion] = region;
    AddDoesNotExist(type, labels::kWindowsBuild);
    for (size_t s = 0; s < catalog::kAwsLabelCount; ++s) {
      const int32_t text = prepared.label_text[s];
      if (text != catalog::kAbsentLabel) {
        AddLabel(type, label_keys[s], texts[text]);
      } else {
        AddDoesNotExist(type, label_keys[s].provider);
        AddDoesNotExist(type, label_keys[s].eks);
      }
    }

    auto& capacity = *type.mutable_capacity();
    capacity["cpu"] = absl::StrCat(*row.vcpu);
    capacity["memory"] = absl::StrCat(prepared.memory_capacity_mib, "Mi");
    capacity["pods"] = absl::StrCat(pods);
    capacity["ephemeral-storage"] = ephemeral_text;
    if (!prepared.gpu_resource.empty()) {
      capacity[std::string(prepared.gpu_resource)] =
          absl::StrCat(row.gpu_count);
    }

    v1::Overhead& overhead = *type.mutable_overhead();
    auto& kube_reserved = *overhead.mutable_kube_reserved();
    kube_reserved["cpu"] = absl::StrCat(prepared.kube_reserved_cpu_milli, "m");
    kube_reserved["memory"] =
        absl::StrCat(catalog::AwsKubeReservedMemoryMib(
                         catalog::AwsReservedMemoryPods(prepared, eks)),
                     "Mi");
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
      spot->set_price(catalog::AwsSpotPrice(od_price));
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

// The other variants: the last kSize built, per process, keyed by exactly
// what BuildAwsCatalog reads (AwsCatalogInputs). Built catalogs are
// immutable and shared; one mutex guards the list (a build runs outside it,
// so two callers may both build the same variant: the same bytes).
class VariantCache {
 public:
  static constexpr size_t kSize = 16;

  static VariantCache& Get() {
    static VariantCache* const cache = new VariantCache();  // never destroyed
    return *cache;
  }

  absl::StatusOr<std::shared_ptr<const ArenaCatalog>> Find(
      const AwsCatalogInputs& inputs) {
    const std::string key = Key(inputs);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first != key) continue;
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second;
      }
    }
    absl::StatusOr<std::shared_ptr<const ArenaCatalog>> built =
        BuildOnArena(inputs);
    if (!built.ok()) return built;
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace_front(key, *built);
    if (entries_.size() > kSize) entries_.pop_back();
    return built;
  }

 private:
  static std::string Key(const AwsCatalogInputs& in) {
    std::string key =
        absl::StrCat(in.eks ? "eks" : "oss", ";", in.ephemeral_bytes, ";",
                     in.ephemeral_text.size(), ":", in.ephemeral_text, ";");
    for (const std::string& z : in.zones)
      absl::StrAppend(&key, z.size(), ":", z, ";");
    return key;
  }

  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const ArenaCatalog>>>
      entries_;
};

}  // namespace

absl::StatusOr<v1::Catalog> AwsCatalog(const v1::NodeClass* node_class,
                                       AwsCatalogStats* stats) {
  absl::StatusOr<AwsCatalogInputs> inputs =
      catalog::ResolveAwsCatalogInputs(node_class);
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
  absl::StatusOr<AwsCatalogInputs> inputs =
      catalog::ResolveAwsCatalogInputs(node_class);
  if (!inputs.ok()) return inputs.status();
  absl::StatusOr<std::shared_ptr<const ArenaCatalog>> fresh;
  const absl::StatusOr<std::shared_ptr<const ArenaCatalog>>* built = &fresh;
  if (catalog::IsDefaultAwsVariant(*inputs)) {
    built = &DefaultVariant(*inputs);
  } else {
    fresh = VariantCache::Get().Find(*inputs);
  }
  if (!built->ok()) return built->status();
  const std::shared_ptr<const ArenaCatalog>& holder = **built;
  if (stats != nullptr) *stats = holder->stats;
  return std::shared_ptr<const v1::Catalog>(holder, holder->catalog);
}

}  // namespace nodeplan
