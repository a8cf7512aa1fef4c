// CompileAwsCatalog: the embedded AWS catalog compiled straight from the
// prepared CSV rows (aws_type_table.h), producing what CompileCatalog
// produces from the v1::Catalog message AwsCatalog writes for the same rows.
//
// What makes it equal, step by step (compile.cc is the reference):
//  * Keys: every key the catalog uses is well-known (Karpenter's or the
//    catalog's 28 prefixed ones), so the builder's prologue interns them all,
//    in the same order, before any type; GPU resource names are interned
//    when the first type with them comes, as ParseResourceList does.
//  * Values, per type: the name; then the label values the interner does not
//    know yet, in text order (AddLabelRequirements' order); then, on the
//    first type, the zones in offering order.
//  * Requirements are written in key-id order directly: each label In
//    [value], DoesNotExist for the labels the row lacks and for
//    windows-build, zone In [zones], capacity-type In [on-demand spot]. The
//    proto path reaches the same set by folding per key.
//  * Quantities: the message holds integers the formulas computed ("2",
//    "7600Mi", "250m"), which parse back to exactly the integers used here.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "catalog/aws_formulas.h"
#include "catalog/aws_inputs.h"
#include "catalog/aws_type_table.h"
#include "catalog/catalog_builder.h"
#include "nodeplan/catalog.h"

namespace nodeplan {
namespace {

using catalog::AwsCatalogInputs;
using catalog::AwsTypeRow;
using catalog::AwsTypeTable;

constexpr int64_t kMi = int64_t{1} << 20;

// What a requirement of a type is made of, per key.
enum class Source : uint8_t {
  kName,          // node.kubernetes.io/instance-type In [name]
  kArch,          // kubernetes.io/arch In [arch]
  kOs,            // kubernetes.io/os In [linux]
  kRegion,        // topology.kubernetes.io/region In [region]
  kLabel,         // a prefixed label: In [value], or DoesNotExist
  kWindowsBuild,  // DoesNotExist
  kZone,          // In [the catalog's zones]
  kCapacityType,  // In [on-demand spot]
};

struct Column {
  LabelKeyId key = kNoId;
  Source source = Source::kName;
  uint8_t suffix = 0;  // kLabel: index into kAwsLabelSuffixes
};

// Per-compile state: the interned value of each distinct text of the table
// (looked up once per compile, not once per label), the columns in key-id
// order and the requirements every type shares.
class AwsCompiler {
 public:
  AwsCompiler(const AwsCatalogInputs& inputs, const AwsTypeTable& table,
              catalog::CompiledCatalogBuilder& builder)
      : inputs_(inputs),
        table_(table),
        builder_(builder),
        interner_(builder.interner()),
        // One more slot than the table has texts: the region.
        values_(table.texts.size() + 1),
        region_(catalog::AwsCatalogRegion(inputs)),
        region_slot_(static_cast<int32_t>(table.texts.size())) {
    const CompiledCatalog& c = builder.catalog();
    const auto& label_keys = catalog::AwsInstanceLabelKeys();
    // Already interned by the builder (all well-known); InternKey finds them.
    columns_.push_back({c.instance_type_key(), Source::kName});
    columns_.push_back({interner_.InternKey(labels::kArch), Source::kArch});
    columns_.push_back({interner_.InternKey(labels::kOs), Source::kOs});
    columns_.push_back({interner_.InternKey(labels::kRegion), Source::kRegion});
    columns_.push_back(
        {interner_.InternKey(labels::kWindowsBuild), Source::kWindowsBuild});
    for (size_t s = 0; s < catalog::kAwsLabelCount; ++s) {
      const auto suffix = static_cast<uint8_t>(s);
      columns_.push_back({interner_.InternKey(label_keys[s].provider),
                          Source::kLabel, suffix});
      columns_.push_back(
          {interner_.InternKey(label_keys[s].eks), Source::kLabel, suffix});
    }
    columns_.push_back({c.zone_key(), Source::kZone});
    columns_.push_back({c.capacity_type_key(), Source::kCapacityType});
    std::sort(columns_.begin(), columns_.end(),
              [](const Column& a, const Column& b) { return a.key < b.key; });
    const LabelValue types[] = {builder.on_demand(), builder.spot()};
    capacity_types_ = Requirement::In(c.capacity_type_key(), types);

    eviction_.Set(Resource::kMemory, catalog::kAwsEvictionMemoryMib * kMi);
    eviction_.Set(Resource::kEphemeralStorage,
                  catalog::AwsEvictionEphemeralBytes(inputs.ephemeral_bytes));
  }

  // Requirements per instance type: one per label key of the catalog.
  size_t columns() const { return columns_.size(); }

  // Compiles `row` as instance type `i` of the catalog into `t`.
  absl::Status CompileType(const AwsTypeRow& row, int i,
                           CompiledInstanceType& t) {
    t.name = row.csv->name;
    t.name_value = interner_.InternValue(t.name);
    values_[row.name_text] = t.name_value;
    InternLabelValues(row);
    if (zones_.empty()) InternZones();
    WriteRequirements(row, t);
    WriteResources(row, t);
    return WriteOfferings(row, i, t);
  }

 private:
  absl::string_view Text(int32_t slot) const {
    return slot == region_slot_ ? absl::string_view(region_)
                                : absl::string_view(table_.texts[slot]);
  }

  // The label values of `row` in the interner, the ones it lacks interned in
  // text order.
  void InternLabelValues(const AwsTypeRow& row) {
    fresh_.clear();
    auto look_up = [&](int32_t slot) {
      if (values_[slot].id != kNoId) return;
      if (std::optional<LabelValue> found = interner_.FindValue(Text(slot))) {
        values_[slot] = *found;
      } else {
        fresh_.push_back(slot);
      }
    };
    look_up(row.arch_text);
    look_up(table_.linux_text);
    look_up(region_slot_);
    for (int32_t slot : row.label_text) {
      if (slot != catalog::kAbsentLabel) look_up(slot);
    }
    if (fresh_.empty()) return;
    std::sort(fresh_.begin(), fresh_.end(),
              [&](int32_t a, int32_t b) { return Text(a) < Text(b); });
    fresh_.erase(std::unique(fresh_.begin(), fresh_.end()), fresh_.end());
    for (int32_t slot : fresh_)
      values_[slot] = interner_.InternValue(Text(slot));
  }

  // The catalog's zones, interned in offering order (zone-major), and the
  // requirement and offering label sets built from them.
  void InternZones() {
    for (const std::string& zone : inputs_.zones) {
      zones_.push_back(interner_.InternValue(zone));
    }
    zone_requirement_ =
        Requirement::In(builder_.catalog().zone_key(), absl::MakeSpan(zones_));
    for (const LabelValue& zone : zones_) {
      offering_labels_.push_back(
          builder_.OfferingLabels(zone, builder_.on_demand(), LabelValue()));
      offering_labels_.push_back(
          builder_.OfferingLabels(zone, builder_.spot(), LabelValue()));
    }
  }

  // The type's requirements, appended to the catalog's block of entries
  // (reserved for every type: it never reallocates) and viewed from there.
  void WriteRequirements(const AwsTypeRow& row, CompiledInstanceType& t) {
    std::vector<Requirement>& entries = builder_.type_requirement_entries();
    const size_t first = entries.size();
    for (const Column& column : columns_) {
      switch (column.source) {
        case Source::kName:
          entries.emplace_back(column.key, values_[row.name_text]);
          break;
        case Source::kArch:
          entries.emplace_back(column.key, values_[row.arch_text]);
          break;
        case Source::kOs:
          entries.emplace_back(column.key, values_[table_.linux_text]);
          break;
        case Source::kRegion:
          entries.emplace_back(column.key, values_[region_slot_]);
          break;
        case Source::kLabel: {
          const int32_t slot = row.label_text[column.suffix];
          if (slot == catalog::kAbsentLabel) {
            entries.push_back(Requirement::DoesNotExist(column.key));
          } else {
            entries.emplace_back(column.key, values_[slot]);
          }
          break;
        }
        case Source::kWindowsBuild:
          entries.push_back(Requirement::DoesNotExist(column.key));
          break;
        case Source::kZone:
          entries.push_back(zone_requirement_);
          break;
        case Source::kCapacityType:
          entries.push_back(capacity_types_);
          break;
      }
    }
    t.requirements = Requirements::Viewing(
        absl::MakeConstSpan(entries.data() + first, columns_.size()));
  }

  void WriteResources(const AwsTypeRow& row, CompiledInstanceType& t) {
    const bool eks = inputs_.eks;
    const catalog::AwsInstanceTypeRow& csv = *row.csv;
    t.capacity.Set(Resource::kCpu, *csv.vcpu * 1000);
    t.capacity.Set(Resource::kMemory, row.memory_capacity_mib * kMi);
    t.capacity.Set(Resource::kPods, catalog::AwsMaxPods(row, eks));
    t.capacity.Set(Resource::kEphemeralStorage, inputs_.ephemeral_bytes);
    if (!row.gpu_resource.empty()) {
      t.capacity.SetExtended(GpuResourceKey(row.gpu_resource),
                             csv.gpu_count * 1000);
    }
    ResourceVector kube;
    kube.Set(Resource::kCpu, row.kube_reserved_cpu_milli);
    kube.Set(Resource::kMemory, catalog::AwsKubeReservedMemoryMib(
                                    catalog::AwsReservedMemoryPods(row, eks)) *
                                    kMi);
    kube.Set(Resource::kEphemeralStorage,
             catalog::kAwsKubeReservedEphemeralBytes);
    // kubeReserved + evictionThreshold: the catalog sets no systemReserved
    // (merging an empty vector changes nothing).
    t.overhead = Merge(kube, eviction_);
    t.allocatable = Allocatable(t.capacity, t.overhead, interner_);
  }

  LabelKeyId GpuResourceKey(absl::string_view name) {
    for (const auto& [known, id] : gpu_keys_) {
      if (known == name) return id;
    }
    const LabelKeyId id = interner_.InternKey(name);
    gpu_keys_.emplace_back(name, id);
    return id;
  }

  absl::Status WriteOfferings(const AwsTypeRow& row, int i,
                              CompiledInstanceType& t) {
    const std::optional<double>& list_price = row.csv->od_price_us_east_1;
    const double on_demand_price = list_price.value_or(0);
    const double spot_price = catalog::AwsSpotPrice(on_demand_price);
    // CompileCatalog's price check, on the first zone's offerings (every
    // zone has the same prices).
    const double prices[] = {on_demand_price, spot_price};
    for (int j = 0; j < 2; ++j) {
      if (!std::isfinite(prices[j]) || prices[j] < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "catalog: instanceTypes[", i, "] (", t.name, "): offerings[", j,
            "]: price: ", prices[j], " is not a non-negative number"));
      }
    }
    t.offerings.resize(2 * zones_.size());
    for (size_t z = 0; z < zones_.size(); ++z) {
      for (int spot = 0; spot < 2; ++spot) {
        CompiledOffering& o = t.offerings[2 * z + spot];
        o.zone = zones_[z];
        o.capacity_type = spot ? builder_.spot() : builder_.on_demand();
        o.price = spot ? spot_price : on_demand_price;
        o.available = list_price.has_value();
        o.estimated_price = spot != 0;
        o.requirements = offering_labels_[2 * z + spot];
      }
    }
    return absl::OkStatus();
  }

  const AwsCatalogInputs& inputs_;
  const AwsTypeTable& table_;
  catalog::CompiledCatalogBuilder& builder_;
  Interner& interner_;
  // Per text slot; id kNoId until looked up.
  std::vector<LabelValue> values_;
  const std::string region_;
  const int32_t region_slot_;
  std::vector<Column> columns_;
  std::vector<LabelValue> zones_;
  Requirement zone_requirement_;
  Requirement capacity_types_;
  // Per offering position (zone-major, on-demand then spot).
  std::vector<const Requirements*> offering_labels_;
  ResourceVector eviction_;
  std::vector<std::pair<absl::string_view, LabelKeyId>> gpu_keys_;
  std::vector<int32_t> fresh_;  // scratch
};

}  // namespace

absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileAwsCatalog(
    const v1::NodeClass* node_class, const CatalogCompileOptions& options,
    Interner& interner, AwsCatalogStats* stats) {
  absl::StatusOr<AwsCatalogInputs> inputs =
      catalog::ResolveAwsCatalogInputs(node_class);
  if (!inputs.ok()) return inputs.status();
  const absl::StatusOr<AwsTypeTable>& table = catalog::EmbeddedAwsTypeTable();
  if (!table.ok()) return table.status();

  catalog::CompiledCatalogBuilder builder(
      catalog::AwsCatalogRegion(*inputs), catalog::AwsCatalogSource(*inputs),
      catalog::AwsWellKnownLabelKeys(), options, interner);
  AwsCompiler compiler(*inputs, *table, builder);
  AwsCatalogStats counts;
  counts.rows = static_cast<int>(table->rows.size());
  std::vector<const AwsTypeRow*> kept;
  kept.reserve(table->rows.size());
  for (const AwsTypeRow& row : table->rows) {
    if (!row.has_capacity) {
      ++counts.skipped_without_capacity;
    } else if (inputs->eks && !row.eks_allowed) {
      ++counts.skipped_by_eks_auto_mode;
    } else {
      if (!row.csv->od_price_us_east_1.has_value()) ++counts.without_price;
      kept.push_back(&row);
    }
  }
  const int n = static_cast<int>(kept.size());
  counts.instance_types = n;
  std::vector<CompiledInstanceType>& types = builder.StartTypes(n);
  builder.type_requirement_entries().reserve(n * compiler.columns());
  for (int i = 0; i < n; ++i) {
    absl::Status s = compiler.CompileType(*kept[i], i, types[i]);
    if (!s.ok()) return s;
    builder.TypeCompiled(i);
  }
  absl::StatusOr<std::shared_ptr<const CompiledCatalog>> compiled =
      builder.Finish();
  if (compiled.ok() && stats != nullptr) *stats = counts;
  return compiled;
}

}  // namespace nodeplan
