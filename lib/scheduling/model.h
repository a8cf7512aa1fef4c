#ifndef NODEPLAN_LIB_SCHEDULING_MODEL_H_
#define NODEPLAN_LIB_SCHEDULING_MODEL_H_

// The compiled, immutable part of a scheduling problem: interned labels, the
// instance types with their offerings, the NodePools as NodeClaim templates,
// and an index that answers "which instance types fit these requests" with a
// handful of bitset ANDs.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "nodeplan/dense_resources.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/requirements.h"
#include "nodeplan/requirements_index.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::scheduling {

// Label keys and values the scheduler reads by id, interned first.
struct Keys {
  LabelKeyId zone, region, instance_type, arch, os, capacity_type, nodepool,
      hostname, registered, initialized, windows_build, reservation_id;
  LabelValue v_true, v_reserved, v_spot, v_on_demand;
};

struct Offering {
  LabelValue zone;
  LabelValue capacity_type;
  LabelValue reservation;  // id kNoId: not a reservation
  double price = 0;
  // Can launch: marked available in the catalog, not in the request's
  // unavailable offerings, and a reservation with capacity left.
  bool available = true;
  // Counts in the type's zone and capacity-type requirements (and so in the
  // topology domain universe): for the embedded AWS catalog every offering
  // (the AWS provider derives them from where the type is offered), for a
  // request's catalog the offerings the catalog marks available (Karpenter's
  // Offerings.Available(), which an exhausted reservation does not leave).
  bool listed = true;
  int32_t reservation_capacity = 0;
};

struct InstanceType {
  std::string name;
  LabelValue name_id;
  Requirements reqs;
  DenseResources capacity;
  DenseResources allocatable;
  std::vector<Offering> offerings;
};

struct Pool {
  std::string name;
  v1::NodePool proto;
  int32_t weight = 0;
  Requirements reqs;  // template requirements incl. labels (with minValues)
  // The template's own requirements and labels only (no nodepool, NodeClass,
  // registered or initialized keys): what Karpenter's buildDomainGroups reads.
  Requirements template_reqs;
  std::vector<v1::Taint> taints;
  // Instance types this NodePool can launch (requirements intersect, an
  // available compatible offering exists), and per type a mask of the
  // offerings available to it (NodeClass zones, unavailable offerings).
  TypeSet types;
  std::vector<uint64_t> offering_mask;
  // Every instance type of the NodePool's catalog, compatible or not (what
  // the cloud provider returns for it), and per type its listed offerings
  // in the NodeClass zones: the topology domain universe is built from these.
  TypeSet catalog;
  std::vector<uint64_t> catalog_offering_mask;
  bool has_limits = false;
  DenseResources limits;
  uint32_t limit_mask = 0;
  std::string hash;  // karpenter.sh/nodepool-hash
  std::string nodeclass_label_key, nodeclass_name;
};

// For each resource dimension, types sorted by allocatable and the suffix
// bitsets of that order: the types with allocatable >= x are one suffix.
struct FitIndex {
  std::vector<std::vector<int64_t>> sorted;  // [dim] ascending values
  std::vector<std::vector<TypeSet>> suffix;  // [dim][rank]
  TypeSet Fitting(const DenseResources& need, size_t n) const;
  // The same into *out, reusing its buffer.
  void FittingInto(const DenseResources& need, size_t n, TypeSet* out) const;
  // *inout &= Fitting(need): the same set, narrowed in place without building
  // the fitting types apart.
  void AndFitting(const DenseResources& need, TypeSet* inout) const;
};

struct Compiled;

// The topology domain universe, Karpenter's buildDomainGroups: label key ->
// (domain -> indices of the pools producing it), in discovery order. A
// function of the compiled NodePools' catalogs (every type, compatible or
// not), template requirements and listed offerings, not of their admitted
// types, so one universe serves every round on a snapshot and on its
// copies with narrowed types.
using DomainUniverse =
    absl::flat_hash_map<LabelKeyId,
                        std::vector<std::pair<LabelValueId, std::vector<int>>>>;
DomainUniverse BuildDomainUniverse(const Compiled& c);

struct Compiled {
  Interner in;
  // Karpenter's well-known labels plus the catalogs' (and the reservation-id
  // key): what a NodePool may leave undefined. Set by CompileSnapshot.
  std::optional<WellKnownLabels> wk;
  ResourceDims dims;
  Keys keys;
  std::vector<InstanceType> types;
  // Bitset index over types[i].reqs (same order), shared by the copies of
  // a snapshot (immutable; it owns copies of the requirements).
  std::shared_ptr<const RequirementsIndex> type_index;
  std::vector<Pool> pools;  // weight descending, then name descending
  // Pools present in the request but not schedulable (static), by name.
  std::vector<std::string> static_pools;
  // Pools dropped because no instance type survived their requirements.
  std::vector<std::string> empty_pools;
  FitIndex fit;
  // BuildDomainUniverse(*this), set by CompileSnapshot once the pools are
  // in their final order (null: each round builds its own); shared by
  // copies.
  std::shared_ptr<const DomainUniverse> universe;
};

// Builds the compiled snapshot from nodePools, nodeClasses, catalog /
// catalogRef, nodeOverlays and unavailableOfferings of `base`. Instance types
// come from the shared CompileCatalog (nodeplan/compiled_catalog.h: overlays,
// unavailable offerings, quantities, allocatable, requirements), compiled
// into `in` and taken as compiled (see Offering::listed for the one reading
// of their own). An explicit catalog serves every NodePool; otherwise
// (catalogRef "aws" or empty) each referenced NodeClass gets
// AwsCatalog(node_class) of its own, shared by the NodePools that reference it,
// and `types` holds one entry per (catalog, instance type): a name can appear
// once per catalog.
absl::StatusOr<Compiled> CompileSnapshot(const v1::ScheduleRequest& base);

// CompileSnapshot keeps the embedded AWS catalog's translated instance types
// of the last 8 distinct inputs per process (the
// NodeClass, NodeOverlays and unavailable offerings, byte for byte), and
// replays them on a hit: the same Compiled, ids and bytes out as without the
// cache. Thread-safe. These two are for tests and benchmarks.
struct AwsTypeCacheStats {
  int64_t hits = 0, misses = 0, entries = 0;
};
AwsTypeCacheStats GetAwsTypeCacheStats();
void ClearAwsTypeCache();

// Offering `o` compatible with requirements `r` (zone, capacity type and
// reservation id; Karpenter's IsCompatible with the well-known allowance).
bool OfferingCompatible(const Offering& o, const Requirements& r,
                        const Keys& k);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_MODEL_H_
