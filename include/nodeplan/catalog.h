#ifndef NODEPLAN_CATALOG_H_
#define NODEPLAN_CATALOG_H_

// Instance-type catalogs: the embedded AWS catalog (v1::Catalog built from
// data/aws-instance-types.csv with the AWS provider's formulas), and that
// catalog compiled directly. The compile step for any catalog (overlays,
// unavailable offerings, interned requirements, allocatable, the
// compatibility index) is declared in nodeplan/compiled_catalog.h.

#include <memory>

#include "absl/status/statusor.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/interner.h"
#include "nodeplan/v1/catalog.pb.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan {

// Spot prices in the embedded catalog are a synthetic estimate: this fraction
// of the on-demand price (the convention of Karpenter's test fixtures and
// kwok's generated types). Such offerings carry `estimated_price: true`;
// replace them with a NodeOverlay (price / priceAdjustment) or a catalog file.
inline constexpr double kAwsSpotPriceFraction = 0.7;

struct AwsCatalogStats {
  int rows = 0;                      // CSV rows read
  int skipped_without_capacity = 0;  // no vCPU / memory / arch / max pods
  int skipped_by_eks_auto_mode = 0;  // outside EKS Auto Mode's allow-list
  int without_price = 0;             // kept, with unavailable offerings
  int instance_types = 0;            // in the catalog
};

// The embedded AWS catalog for `node_class` (nullptr: the open-source AWS
// provider's defaults). Pure: no network, no clock; same input, same output.
//
// Capacity and overhead follow the Karpenter AWS provider
// (aws/karpenter-provider-aws, pkg/providers/instancetype/types.go):
//   cpu      = vCPUs; kube-reserved 6% / 1% / 0.5% / 0.25% tiers
//   memory   = MiB - 64 (arm64) - ceil(7.5%); kube-reserved 11 x pods + 255 Mi;
//              eviction threshold 100Mi
//   pods     = ENI-limited (default network card)
//   ephemeral-storage = the NodeClass spec.ephemeralStorage.size, else 80Gi
//              for an EKS NodeClass and 20Gi (AL2023 root volume) without
//              one; kube-reserved 1Gi; eviction threshold 10%
//   nvidia.com/gpu, amd.com/gpu, habana.ai/gaudi from the GPU columns.
// An EKS NodeClass (apiVersion eks.amazonaws.com/*, or no apiVersion) applies
// EKS Auto Mode's rules: max pods capped at 110 (and, assumed because AWS does
// not publish it, kube-reserved memory from that capped count, as for the
// Bottlerocket family), only allow-listed families (c m r t z x i d p g inf
// trn hpc; t2/t3/t3a/t4g) with more than one vCPU and not nano/micro/small.
//
// Labels: node.kubernetes.io/instance-type, kubernetes.io/arch,
// kubernetes.io/os (linux), topology.kubernetes.io/region, and
// instance-{category,generation,family,size,cpu,memory,hypervisor,
// capability-flex,network-bandwidth,local-nvme,gpu-name,gpu-manufacturer,
// gpu-count,gpu-memory} under both karpenter.k8s.aws/ and eks.amazonaws.com/.
// A label the data does not give for a type is a DoesNotExist requirement, as
// the provider does; node.kubernetes.io/windows-build is DoesNotExist.
// Zone and capacity type are per offering.
//
// Offerings: one on-demand and one spot offering per zone (zone-major, zones
// sorted). Zones are those of the NodeClass status.subnets, else
// us-east-1a/b/c; the region is derived from the first zone. On-demand is the
// CSV's us-east-1 list price; spot is kAwsSpotPriceFraction x on-demand,
// flagged estimated_price. A type without a list price keeps unavailable
// offerings.
//
// Errors: an unparsable or non-positive spec.ephemeralStorage.size.
absl::StatusOr<v1::Catalog> AwsCatalog(const v1::NodeClass* node_class,
                                       AwsCatalogStats* stats = nullptr);

// The same catalog as AwsCatalog(node_class), shared and immutable (safe to
// read from any number of threads). The two NodeClass-independent variants
// (EKS flavour and open-source flavour, each with the default zones
// us-east-1a/b/c and its default ephemeral storage size; e.g. no NodeClass,
// or an EKS NodeClass without subnets or ephemeralStorage) are built once
// per process on first use and then returned in O(1): they are constant data
// derived from the embedded CSV, held in function-local statics. Any other
// NodeClass gets a catalog built on a protobuf arena (about 1.3x faster to
// build and free than AwsCatalog's heap-built message), and the last 16 such
// variants are kept per process (least recently used evicted), keyed by
// exactly what the catalog depends on (flavour, zones, ephemeral storage
// size): a repeated NodeClass costs a lookup, and the bytes are those of a
// fresh build. Thread-safe.
absl::StatusOr<std::shared_ptr<const v1::Catalog>> SharedAwsCatalog(
    const v1::NodeClass* node_class, AwsCatalogStats* stats = nullptr);

// The embedded AWS catalog for `node_class`, compiled: exactly what
// CompileCatalog(*AwsCatalog(node_class), options, interner) returns (the
// same ids, interned in the same order, requirements, capacity, overhead,
// allocatable, offerings, index, overlays applied, unavailable offerings
// marked, skipped overlays, errors), built straight from the embedded CSV's
// rows (parsed and prepared once per process) without the v1::Catalog
// message and its label maps in between: several times faster than
// compiling even the shared message (benchmarks/README.md, catcompile).
// Every call compiles; nothing compiled is cached. Use it wherever the
// embedded catalog is compiled and the v1::Catalog itself is not needed.
//
// `stats`, when not null, receives AwsCatalog's counts for the same
// NodeClass. Errors: those of AwsCatalog (the NodeClass's ephemeral storage
// size), and those CompileCatalog would report on that catalog.
absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileAwsCatalog(
    const v1::NodeClass* node_class, const CatalogCompileOptions& options,
    Interner& interner, AwsCatalogStats* stats = nullptr);

// CompileAwsCatalog with the same result (the same strings interned into
// `interner`, in the same order, at the same ids; the same catalog and
// stats), from a bounded process-wide cache keyed by the NodeClass, the
// options and the strings `interner` holds on entry. The catalog may read
// names through an interner of the cache's own whose strings equal
// `interner`'s as this call leaves it, so it stays valid while `interner`
// grows. Thread-safe; cached catalogs are immutable and shared. For callers
// that compile the embedded catalog per request (the disruption view).
absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileAwsCatalogCached(
    const v1::NodeClass* node_class, const CatalogCompileOptions& options,
    Interner& interner, AwsCatalogStats* stats = nullptr);

}  // namespace nodeplan

#endif  // NODEPLAN_CATALOG_H_
