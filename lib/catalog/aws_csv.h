#ifndef NODEPLAN_LIB_CATALOG_AWS_CSV_H_
#define NODEPLAN_LIB_CATALOG_AWS_CSV_H_

// Rows of data/aws-instance-types.csv (columns described in data/README.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nodeplan::catalog {

struct AwsInstanceTypeRow {
  std::string name;
  std::string category;  // empty when the name does not match the scheme
  std::string family;
  std::string generation;  // empty when the name does not match the scheme
  std::string size;
  std::string arch;  // "amd64" / "arm64"; empty for sparse rows
  std::optional<int64_t> vcpu;
  std::optional<int64_t> memory_mib;
  int64_t gpu_count = 0;
  std::string gpu_name;  // empty when the type has no GPU model
  std::string gpu_manufacturer;
  std::optional<int64_t> gpu_memory_mib;
  std::optional<int64_t> max_pods_eni;
  std::optional<int64_t> network_bandwidth_mbps;
  int64_t local_nvme_gib = 0;
  std::string hypervisor;  // "" also means bare metal
  std::optional<double> od_price_us_east_1;
};

// Parses the CSV text (header row first, columns found by name). Errors name
// the line and column.
absl::StatusOr<std::vector<AwsInstanceTypeRow>> ParseAwsInstanceTypesCsv(
    absl::string_view text);

// The CSV embedded in the library (data/aws-instance-types.csv).
absl::string_view EmbeddedAwsInstanceTypesCsv();

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_AWS_CSV_H_
