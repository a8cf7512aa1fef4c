#ifndef NODEPLAN_LIB_CATALOG_AWS_FORMULAS_H_
#define NODEPLAN_LIB_CATALOG_AWS_FORMULAS_H_

// The Karpenter AWS provider's capacity and overhead formulas
// (aws/karpenter-provider-aws, pkg/providers/instancetype/types.go; the
// formulas are listed in include/nodeplan/catalog.h), as pure integer
// functions.

#include <cstdint>

namespace nodeplan::catalog {

// The provider's default --vm-memory-overhead-percent.
inline constexpr double kAwsVmMemoryOverheadPercent = 0.075;
// Graviton (arm64) types lose 64 MiB to the CMA reservation.
inline constexpr int64_t kAwsArm64CmaReservationMib = 64;
// kubelet's default hard eviction threshold for memory.available.
inline constexpr int64_t kAwsEvictionMemoryMib = 100;
// nodefs.available default: 10% of ephemeral-storage capacity.
inline constexpr int64_t kAwsEvictionEphemeralPercent = 10;
// kube-reserved ephemeral-storage.
inline constexpr int64_t kAwsKubeReservedEphemeralBytes = int64_t{1} << 30;
// EKS Auto Mode applies this cap after the ENI-limited calculation.
inline constexpr int64_t kEksAutoModeMaxPods = 110;

// Memory capacity in MiB: the EC2 figure, minus 64 MiB on arm64, minus
// ceil(VM overhead percent) computed in float64 over bytes, exactly as the
// provider does (so rounding matches its published allocatable figures).
int64_t AwsMemoryCapacityMib(
    int64_t memory_mib, bool arm64,
    double vm_overhead_percent = kAwsVmMemoryOverheadPercent);

// kube-reserved CPU in millicores for `vcpus`: 6% of the first core, 1% of
// the second, 0.5% of cores 3-4 and 0.25% of the rest, each band truncated
// to whole millicores before the bands are added.
int64_t AwsKubeReservedCpuMilli(int64_t vcpus);

// kube-reserved memory in MiB: 11 MiB per pod + 255 MiB.
int64_t AwsKubeReservedMemoryMib(int64_t pods);

// Eviction threshold for ephemeral storage: ceil(10% of capacity) bytes.
int64_t AwsEvictionEphemeralBytes(int64_t ephemeral_capacity_bytes);

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_AWS_FORMULAS_H_
