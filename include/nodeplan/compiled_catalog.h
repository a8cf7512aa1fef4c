#ifndef NODEPLAN_COMPILED_CATALOG_H_
#define NODEPLAN_COMPILED_CATALOG_H_

// The compile step for instance-type catalogs: a v1::Catalog plus NodeOverlays
// and unavailable offerings become an immutable CompiledCatalog of value types
// (interned requirements, resource vectors, priced offerings, a bitset index)
// that the scheduler and disruption code read without touching protobuf.
//
// Compile once, query many times: a CompiledCatalog is immutable after
// CompileCatalog returns and may be read from any number of threads. Its ids
// come from the Interner passed to CompileCatalog (the snapshot's base
// interner), which must outlive it and stay unmodified while it is read
// concurrently (see nodeplan/interner.h for per-call overlays).
//
// Semantics follow Karpenter's cloudprovider.InstanceType / Offering
// (pkg/cloudprovider/types.go) and the NodeOverlay store
// (pkg/controllers/nodeoverlay); see the comments at each declaration.

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/requirements.h"
#include "nodeplan/requirements_index.h"
#include "nodeplan/resources.h"
#include "nodeplan/v1/catalog.pb.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan {

inline constexpr double kNoPrice = std::numeric_limits<double>::infinity();

// One offering: an instance type in a zone with a capacity type.
struct CompiledOffering {
  // Values of topology.kubernetes.io/zone and karpenter.sh/capacity-type.
  LabelValue zone;
  LabelValue capacity_type;
  // Reserved offerings: the reservation id (value of the catalog's
  // reservation-id label key, CompiledCatalog::reservation_id_key()); id
  // kNoId otherwise.
  LabelValue reservation_id;
  int32_t reservation_capacity = 0;
  // USD/hour after NodeOverlays.
  double price = 0;
  // False when the catalog says so, or when the offering is listed among the
  // unavailable offerings given to CompileCatalog.
  bool available = true;
  // A NodeOverlay changed the price (Karpenter then launches with the
  // "prioritized" allocation strategies).
  bool price_overlaid = false;
  // The catalog marked the price as an estimate (embedded spot prices).
  bool estimated_price = false;
  // The offering's own label set: zone In [zone], capacity-type In [type]
  // and, for reserved offerings, reservation-id In [id]. The full label set
  // of a node launched from this offering is the instance type's
  // requirements plus these. Owned by the CompiledCatalog (valid as long as
  // it is) and shared by all its offerings with the same zone, capacity type
  // and reservation id; never null in a compiled catalog.
  const Requirements* requirements = nullptr;
};

struct CompiledInstanceType {
  std::string name;
  // Value id of `name` (node.kubernetes.io/instance-type).
  LabelValue name_value;
  // The type's labels (each `key In [value]`), its extra requirements (e.g.
  // DoesNotExist), and, derived from its offerings (available or not, as
  // the AWS provider does): topology.kubernetes.io/zone In [zones] and
  // karpenter.sh/capacity-type In [capacity types] (plus the reservation-id
  // key when it has reserved offerings). Keys are normalized. Scheduling
  // reads a request's catalog as Karpenter's generic providers do instead:
  // zones and capacity types of the available offerings only (see
  // lib/scheduling/model.h Offering::listed); for the embedded AWS catalog
  // the two agree. NodePoolQuery keeps every offering here so that a type
  // whose offerings are all unavailable is rejected as such, not for a
  // zone it seems to lack.
  Requirements requirements;
  // After capacity overlays. cpu milli, memory/ephemeral bytes, pods count,
  // extended resources in milli-units.
  ResourceVector capacity;
  // kubeReserved + systemReserved + evictionThreshold (merged per key).
  ResourceVector overhead;
  // Allocatable(capacity, overhead parts): capacity - overhead over the keys
  // of capacity, memory further reduced by hugepages-* capacity (floored at
  // 0). Other resources are not floored: a negative value makes Fits fail,
  // as in Karpenter.
  ResourceVector allocatable;
  // In catalog order.
  std::vector<CompiledOffering> offerings;
  // A NodeOverlay changed the capacity.
  bool capacity_overlaid = false;
  // Minimum price over available offerings; kNoPrice when none is available.
  double cheapest_available_price = kNoPrice;
};

// A NodeOverlay that was not applied because it conflicts with another of
// the same weight on some instance type (Karpenter sets its
// ValidationSucceeded condition to False, reason Conflict), or whose fields
// do not parse (reason RuntimeValidation).
struct SkippedOverlay {
  std::string name;
  std::string reason;   // "Conflict" or "RuntimeValidation"
  std::string message;  // names the other overlay / the field
};

struct CatalogCompileOptions {
  // Overlays, in any order (they are ordered by weight as Karpenter does).
  absl::Span<const v1::NodeOverlay> overlays;
  // Capacity errors seen (instance type x zone x capacity type): those
  // offerings become unavailable for this compile. Entries naming unknown
  // types or zones are ignored. An empty zone or capacity type matches every
  // zone / capacity type (a whole type or capacity type marked).
  absl::Span<const v1::UnavailableOffering> unavailable;
  // Label key for reservation ids; Karpenter core's ReservationIDLabel is
  // provider-defined (karpenter.k8s.aws/capacity-reservation-id on AWS).
  std::string reservation_id_label = labels::kAwsCapacityReservationId;
};

class CompiledCatalog;
namespace catalog {
class CompiledCatalogBuilder;
}  // namespace catalog

// The requirements an offering is checked against (zone, capacity type,
// reservation id), looked up once in NodeClaim requirements so that many
// offerings can be tested without map lookups. Holds pointers into `reqs`,
// which must outlive it.
class OfferingFilter {
 public:
  OfferingFilter(const CompiledCatalog& catalog, const Requirements& reqs);
  // CompiledCatalog::OfferingCompatible(offering, reqs).
  bool Compatible(const CompiledOffering& offering) const {
    if (zone_ != nullptr && !zone_->Has(offering.zone)) return false;
    if (capacity_type_ != nullptr &&
        !capacity_type_->Has(offering.capacity_type)) {
      return false;
    }
    // An offering without a reservation id does not define the key (which
    // is well-known), so only offerings that define it are checked.
    return reservation_ == nullptr || offering.reservation_id.id == kNoId ||
           reservation_->Has(offering.reservation_id);
  }

 private:
  const Requirement* zone_ = nullptr;
  const Requirement* capacity_type_ = nullptr;
  const Requirement* reservation_ = nullptr;
};

class CompiledCatalog {
 public:
  // In catalog order.
  absl::Span<const CompiledInstanceType> instance_types() const {
    return types_;
  }
  const CompiledInstanceType& instance_type(int i) const { return types_[i]; }
  int size() const { return static_cast<int>(types_.size()); }
  // Index of the type named `name`, or -1.
  int Find(absl::string_view name) const;

  // Bitset index over instance_types()[i].requirements (same order), for
  // "which types intersect / are compatible with these requirements".
  const RequirementsIndex& index() const { return index_; }
  // Karpenter's well-known labels plus Catalog.well_known_labels (the
  // AllowUndefined set for offering and NodeClaim compatibility).
  const WellKnownLabels& well_known() const { return *well_known_; }

  const std::string& region() const { return region_; }
  const std::string& source() const { return source_; }
  // Overlays not applied, in weight order.
  const std::vector<SkippedOverlay>& skipped_overlays() const {
    return skipped_overlays_;
  }

  // Interned keys the scheduler needs.
  LabelKeyId zone_key() const { return zone_key_; }
  LabelKeyId capacity_type_key() const { return capacity_type_key_; }
  LabelKeyId instance_type_key() const { return instance_type_key_; }
  LabelKeyId reservation_id_key() const { return reservation_id_key_; }

  // Karpenter's Offering compatibility with NodeClaim requirements
  // (reqs.IsCompatible(offering.Requirements, AllowUndefinedWellKnownLabels)):
  // the offering's zone, capacity type and reservation id each satisfy the
  // requirement `reqs` has on that key (an undefined key allows anything).
  // Availability is not checked. Never allocates.
  bool OfferingCompatible(const CompiledOffering& offering,
                          const Requirements& reqs) const;
  // Index of the cheapest available offering of type `type` compatible with
  // `reqs` (first in catalog order on ties, as Offerings.Cheapest), or -1.
  int CheapestCompatibleOffering(int type, const Requirements& reqs) const;
  int CheapestCompatibleOffering(int type, const OfferingFilter& filter) const;

 private:
  // Every compile (CompileCatalog, CompileAwsCatalog) builds through it.
  friend class catalog::CompiledCatalogBuilder;
  CompiledCatalog() = default;

  const Interner* names_ = nullptr;
  std::vector<CompiledInstanceType> types_;
  std::vector<std::pair<LabelValueId, int>> by_name_;  // sorted by value id
  RequirementsIndex index_;
  std::unique_ptr<WellKnownLabels> well_known_;
  std::string region_;
  std::string source_;
  std::vector<SkippedOverlay> skipped_overlays_;
  // The offerings' label sets (a deque: the offerings point into it).
  std::deque<Requirements> offering_labels_;
  // When a compile keeps the types' requirement entries in one block
  // (CompileAwsCatalog), each type's requirements view their range of it.
  std::vector<Requirement> type_requirement_entries_;
  LabelKeyId zone_key_ = kNoId;
  LabelKeyId capacity_type_key_ = kNoId;
  LabelKeyId instance_type_key_ = kNoId;
  LabelKeyId reservation_id_key_ = kNoId;
};

// Compiles `catalog`: interns labels and requirements (keys normalized),
// parses capacity and overhead quantities, computes allocatable, applies
// NodeOverlays (below) and marks unavailable offerings. All or nothing: an
// error names the instance type and field, e.g.
//   catalog: instanceTypes[3] (m5.large): capacity[memory]: ...
// Errors: a malformed quantity or requirement, an unknown capacity type
// (on-demand, spot, reserved), a negative or non-finite price, a duplicate
// instance type name or a duplicate (zone, capacity type, reservation id)
// offering, a type without a name.
//
// NodeOverlays (karpenter.sh/v1alpha1), applied here once, not per pod:
//  * Ordered by weight (descending; absent = 0), then by name descending,
//    as NodeOverlayList.OrderByWeight.
//  * An overlay selects the offerings whose type's requirements are
//    compatible with spec.requirements and whose own labels (zone, capacity
//    type) are too (Karpenter's getOverlaidOfferings, NodePool-independent
//    here: an overlay requirement on karpenter.sh/nodepool or a NodePool's
//    template labels cannot be evaluated at catalog level and selects
//    nothing unless it uses NotIn/DoesNotExist).
//  * Price: spec.price replaces the price; spec.priceAdjustment "+x"/"-x"
//    adds, "+x%"/"-x%" scales by (1 + x/100); the result is floored at 0.
//    Per offering the highest-ordered overlay with a price wins.
//  * Capacity: spec.capacity sets resources (adding or replacing keys); per
//    resource the highest-ordered overlay wins; allocatable is recomputed.
//  * Conflicts: an overlay that would set the price of an offering, or a
//    capacity resource of a type, already set by an overlay of the SAME
//    weight is skipped entirely (fail open) and reported in
//    skipped_overlays().
absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileCatalog(
    const v1::Catalog& catalog, const CatalogCompileOptions& options,
    Interner& interner);

// ---- NodePool query (what `nodeplan catalog` prints) ------------------------

// Why a NodePool does not admit an instance type.
enum class RejectionKind : uint8_t {
  // The type's requirements do not intersect a NodePool requirement
  // (requirement_index says which).
  kRequirement,
  // Every offering compatible with the NodePool is unavailable, or none is
  // compatible (e.g. capacity-type spot only but the type offers on-demand
  // in other zones).
  kNoAvailableOffering,
};

struct AdmittedInstanceType {
  int type = -1;      // index into CompiledCatalog::instance_types()
  int offering = -1;  // cheapest available compatible offering
  double price = 0;   // its price
};

struct RejectedInstanceType {
  int type = -1;
  RejectionKind kind = RejectionKind::kRequirement;
  // kRequirement: index into NodePoolInstanceTypes::requirements of the
  // first NodePool requirement (in the order written) the type fails.
  int requirement_index = -1;
};

// A NodePool requirement key whose minValues the admitted types do not
// satisfy: fewer distinct values of the key among them than the floor.
struct UnmetMinValues {
  LabelKeyId key = kNoId;
  // Index into NodePoolInstanceTypes::requirements of the first written
  // requirement on the key that sets minValues.
  int requirement_index = -1;
  // The floor (the largest minValues of the key's requirements, as
  // Requirements::Add keeps it) and the distinct values found.
  int min_values = 0;
  int found = 0;
};

struct NodePoolInstanceTypes {
  // The NodePool's effective template requirements as written, in order:
  // spec.template.spec.requirements, then one `key In [value]` per template
  // label (sorted by key), then karpenter.sh/nodepool In [name].
  std::vector<v1::NodeSelectorRequirement> requirements;
  // All of them combined (keys normalized, same keys intersected).
  Requirements combined;
  // Admitted types in price order (cheapest available compatible offering;
  // ties keep catalog order — Karpenter's sort is not stable).
  std::vector<AdmittedInstanceType> admitted;
  // Rejected types in catalog order.
  std::vector<RejectedInstanceType> rejected;
  // minValues (Karpenter's InstanceTypes.SatisfiesMinValues over the
  // admitted types in price order): how many of the cheapest admitted types
  // are needed to meet every minValues (0 when no requirement sets it or
  // when it is not met), and the keys not met, sorted by key id. With
  // Karpenter's default Strict policy a NodePool with unmet minValues
  // launches nothing (BestEffort lowers each floor to the count found).
  // Unlike SatisfiesMinValues, an empty admitted list does not count as
  // meeting minValues: every key is reported with 0 found.
  int min_values_types_needed = 0;
  std::vector<UnmetMinValues> unmet_min_values;
};

// The instance types `node_pool` admits: a type is admitted when its
// requirements intersect the NodePool's template requirements
// (Requirements::Intersects: keys defined on both sides) and it has an
// available offering compatible with them — the filter Karpenter's scheduler
// applies to a NodeClaim template. `interner` may be an overlay over the
// catalog's interner (NodePool values it has not seen are interned there).
// Errors: a malformed NodePool requirement (names the field path).
absl::StatusOr<NodePoolInstanceTypes> InstanceTypesForNodePool(
    const CompiledCatalog& catalog, const v1::NodePool& node_pool,
    Interner& interner);

// A person-readable reason, e.g.
//   "eks.amazonaws.com/instance-category In [c m r] (type has a)"
//   "no available offering compatible with karpenter.sh/capacity-type In
//   [spot]"
std::string RejectionText(const CompiledCatalog& catalog,
                          const NodePoolInstanceTypes& result,
                          const RejectedInstanceType& rejected,
                          const Interner& names);

// A person-readable line for an unmet minValues, e.g.
//   "eks.amazonaws.com/instance-family In [c5 m5] minValues 3: the admitted
//   instance types offer 2 values (c5 m5)"
// (the values found in Go string order, more than 5 shortened as
// Requirement::String does).
std::string MinValuesText(const CompiledCatalog& catalog,
                          const NodePoolInstanceTypes& result,
                          const UnmetMinValues& unmet, const Interner& names);

}  // namespace nodeplan

#endif  // NODEPLAN_COMPILED_CATALOG_H_
