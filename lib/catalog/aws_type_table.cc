#include "catalog/aws_type_table.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catalog/aws_formulas.h"

namespace nodeplan::catalog {
namespace {

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

// Device-plugin resource names per GPU manufacturer (computeCapacity).
absl::string_view GpuResource(const AwsInstanceTypeRow& row) {
  if (row.gpu_count <= 0) return "";
  if (row.gpu_manufacturer == "nvidia") return "nvidia.com/gpu";
  if (row.gpu_manufacturer == "amd") return "amd.com/gpu";
  if (row.gpu_manufacturer == "habana") return "habana.ai/gaudi";
  return "";
}

// The label values of a row with capacity, by suffix (kAwsLabelSuffixes
// order); nullopt where the data gives none.
std::array<std::optional<std::string>, kAwsLabelCount> LabelValues(
    const AwsInstanceTypeRow& row) {
  auto when = [](bool present, std::string value) {
    return present ? std::optional<std::string>(std::move(value))
                   : std::nullopt;
  };
  const bool gpu = !row.gpu_name.empty();
  return {
      when(!row.category.empty(), row.category),
      when(!row.generation.empty(), row.generation),
      row.family,
      row.size,
      absl::StrCat(*row.vcpu),
      absl::StrCat(*row.memory_mib),
      row.hypervisor,
      absl::StrContains(row.family, "-flex") ? "true" : "false",
      when(row.network_bandwidth_mbps.has_value(),
           absl::StrCat(row.network_bandwidth_mbps.value_or(0))),
      when(row.local_nvme_gib > 0, absl::StrCat(row.local_nvme_gib)),
      when(gpu, row.gpu_name),
      when(gpu, row.gpu_manufacturer),
      when(gpu, absl::StrCat(row.gpu_count)),
      when(gpu && row.gpu_memory_mib.has_value(),
           absl::StrCat(row.gpu_memory_mib.value_or(0))),
  };
}

AwsTypeTable BuildTable(const std::vector<AwsInstanceTypeRow>& csv) {
  AwsTypeTable table;
  absl::flat_hash_map<std::string, int32_t> text_index;
  auto text = [&](const std::string& value) {
    auto [it, inserted] =
        text_index.try_emplace(value, static_cast<int32_t>(table.texts.size()));
    if (inserted) table.texts.push_back(value);
    return it->second;
  };
  table.linux_text = text("linux");
  table.rows.reserve(csv.size());
  for (const AwsInstanceTypeRow& row : csv) {
    AwsTypeRow& out = table.rows.emplace_back();
    out.csv = &row;
    out.has_capacity = row.vcpu.has_value() && row.memory_mib.has_value() &&
                       !row.arch.empty() && row.max_pods_eni.has_value();
    if (!out.has_capacity) continue;
    out.eks_allowed = EksAutoModeAllows(row);
    out.arm64 = row.arch == "arm64";
    out.name_text = text(row.name);
    out.arch_text = text(row.arch);
    const auto values = LabelValues(row);
    for (size_t s = 0; s < kAwsLabelCount; ++s) {
      out.label_text[s] =
          values[s].has_value() ? text(*values[s]) : kAbsentLabel;
    }
    out.memory_capacity_mib = AwsMemoryCapacityMib(*row.memory_mib, out.arm64);
    out.kube_reserved_cpu_milli = AwsKubeReservedCpuMilli(*row.vcpu);
    out.gpu_resource = GpuResource(row);
  }
  return table;
}

}  // namespace

const std::array<AwsLabelKeys, kAwsLabelCount>& AwsInstanceLabelKeys() {
  static const auto* const keys = [] {
    auto* out = new std::array<AwsLabelKeys, kAwsLabelCount>();
    for (size_t i = 0; i < kAwsLabelCount; ++i) {
      (*out)[i].provider =
          absl::StrCat(kAwsProviderPrefix, kAwsLabelSuffixes[i]);
      (*out)[i].eks = absl::StrCat(kAwsEksPrefix, kAwsLabelSuffixes[i]);
    }
    return out;
  }();
  return *keys;
}

const std::vector<std::string>& AwsWellKnownLabelKeys() {
  static const auto* const keys = [] {
    auto* out = new std::vector<std::string>();
    for (const AwsLabelKeys& k : AwsInstanceLabelKeys()) {
      out->push_back(k.provider);
    }
    for (const AwsLabelKeys& k : AwsInstanceLabelKeys()) out->push_back(k.eks);
    return out;
  }();
  return *keys;
}

const absl::StatusOr<AwsTypeTable>& EmbeddedAwsTypeTable() {
  // Never destroyed, so it stays valid during static destruction too.
  static const auto* const table = [] {
    const absl::StatusOr<std::vector<AwsInstanceTypeRow>>& csv =
        EmbeddedAwsInstanceTypeRows();
    if (!csv.ok()) return new absl::StatusOr<AwsTypeTable>(csv.status());
    return new absl::StatusOr<AwsTypeTable>(BuildTable(*csv));
  }();
  return *table;
}

int64_t AwsMaxPods(const AwsTypeRow& row, bool eks) {
  const int64_t eni_pods = *row.csv->max_pods_eni;
  return eks ? std::min(eni_pods, kEksAutoModeMaxPods) : eni_pods;
}

int64_t AwsReservedMemoryPods(const AwsTypeRow& row, bool eks) {
  return eks ? AwsMaxPods(row, eks) : *row.csv->max_pods_eni;
}

}  // namespace nodeplan::catalog
