#include "catalog/aws_formulas.h"

#include <algorithm>
#include <cmath>

namespace nodeplan::catalog {

int64_t AwsMemoryCapacityMib(int64_t memory_mib, bool arm64,
                             double vm_overhead_percent) {
  int64_t mib = memory_mib - (arm64 ? kAwsArm64CmaReservationMib : 0);
  // The provider multiplies the byte count in float64 and divides back to
  // MiB before taking the ceiling; doing the same keeps its rounding.
  const double bytes = static_cast<double>(mib) * 1024.0 * 1024.0;
  const auto overhead_mib = static_cast<int64_t>(
      std::ceil(bytes * vm_overhead_percent / 1024.0 / 1024.0));
  return mib - overhead_mib;
}

int64_t AwsKubeReservedCpuMilli(int64_t vcpus) {
  struct Band {
    int64_t start_milli;
    int64_t end_milli;  // exclusive; INT64_MAX for the open band
    int64_t rate_per_10000;
  };
  static constexpr Band kBands[] = {
      {0, 1000, 600},         // 6%
      {1000, 2000, 100},      // 1%
      {2000, 4000, 50},       // 0.5%
      {4000, INT64_MAX, 25},  // 0.25%
  };
  const int64_t milli = vcpus * 1000;
  int64_t reserved = 0;
  for (const Band& band : kBands) {
    if (milli <= band.start_milli) break;
    const int64_t width = std::min(milli, band.end_milli) - band.start_milli;
    reserved += width * band.rate_per_10000 / 10000;
  }
  return reserved;
}

int64_t AwsKubeReservedMemoryMib(int64_t pods) { return 11 * pods + 255; }

int64_t AwsEvictionEphemeralBytes(int64_t ephemeral_capacity_bytes) {
  // ceil(x * 10 / 100) without overflowing for large volumes.
  const int64_t q = ephemeral_capacity_bytes / 100;
  const int64_t r = ephemeral_capacity_bytes % 100;
  return q * kAwsEvictionEphemeralPercent +
         (r * kAwsEvictionEphemeralPercent + 99) / 100;
}

}  // namespace nodeplan::catalog
