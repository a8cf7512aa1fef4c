#ifndef NODEPLAN_LIB_CATALOG_AWS_TYPE_TABLE_H_
#define NODEPLAN_LIB_CATALOG_AWS_TYPE_TABLE_H_

// The embedded CSV's rows prepared once per process for the AWS catalog:
// each row's label values as text (in one table of distinct texts, so that
// a compile can look each distinct text up once) and the provider's
// formulas that do not depend on the NodeClass. Both the v1::Catalog writer
// (aws_catalog.cc) and the direct compile (aws_compile.cc) read the catalog's
// labels and capacity from here, so they cannot disagree on them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "catalog/aws_csv.h"

namespace nodeplan::catalog {

inline constexpr absl::string_view kAwsProviderPrefix = "karpenter.k8s.aws/";
inline constexpr absl::string_view kAwsEksPrefix = "eks.amazonaws.com/";

// Per-instance label suffixes defined under both prefixes, in the order the
// catalog writes them.
inline constexpr std::array<absl::string_view, 14> kAwsLabelSuffixes = {
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
inline constexpr size_t kAwsLabelCount = kAwsLabelSuffixes.size();

// The keys of kAwsLabelSuffixes[i] under both prefixes.
struct AwsLabelKeys {
  std::string provider;
  std::string eks;
};
// Built once per process; indexed like kAwsLabelSuffixes.
const std::array<AwsLabelKeys, kAwsLabelCount>& AwsInstanceLabelKeys();

// Catalog.well_known_labels: every provider-prefixed key, then every
// EKS-prefixed one, in suffix order.
const std::vector<std::string>& AwsWellKnownLabelKeys();

// Marks a label the data does not give for a type (the catalog then has a
// DoesNotExist requirement on both of its keys).
inline constexpr int32_t kAbsentLabel = -1;

struct AwsTypeRow {
  const AwsInstanceTypeRow* csv = nullptr;
  // vCPU, memory, arch and max pods are known; otherwise the row is skipped
  // and nothing below is meaningful.
  bool has_capacity = false;
  // Inside EKS Auto Mode's allow-list.
  bool eks_allowed = false;
  bool arm64 = false;
  // Indexes into AwsTypeTable::texts: the type's name and arch, and per
  // label suffix the value, or kAbsentLabel.
  int32_t name_text = 0;
  int32_t arch_text = 0;
  std::array<int32_t, kAwsLabelCount> label_text{};
  // The provider's formulas over the row alone.
  int64_t memory_capacity_mib = 0;
  int64_t kube_reserved_cpu_milli = 0;
  // The GPU device-plugin resource (nvidia.com/gpu, amd.com/gpu,
  // habana.ai/gaudi) when the type has GPUs of a known manufacturer; "".
  absl::string_view gpu_resource;
};

struct AwsTypeTable {
  std::vector<AwsTypeRow> rows;  // in CSV order
  // Distinct texts: names, label values and "linux".
  std::vector<std::string> texts;
  int32_t linux_text = 0;
};

// Built from EmbeddedAwsInstanceTypeRows() on first use (a function-local
// static: immutable data derived from bytes compiled into the library).
const absl::StatusOr<AwsTypeTable>& EmbeddedAwsTypeTable();

// Pods: the ENI-limited count, capped for EKS Auto Mode.
int64_t AwsMaxPods(const AwsTypeRow& row, bool eks);
// The pod count kube-reserved memory is sized from. AL2023 (the provider's
// default family) uses the ENI-limited count whatever maxPods says. EKS Auto
// Mode runs a Bottlerocket-based AMI, whose family uses the resolved
// (capped) count; AWS does not publish Auto Mode's figures, so this is an
// assumption.
int64_t AwsReservedMemoryPods(const AwsTypeRow& row, bool eks);

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_AWS_TYPE_TABLE_H_
