#ifndef NODEPLAN_LIB_CANONICAL_CANONICAL_ORDER_H_
#define NODEPLAN_LIB_CANONICAL_CANONICAL_ORDER_H_

// The canonical input order (include/nodeplan/schedule.h, "Input order"):
// Schedule, Snapshot, Disrupt and ValidateCommand read a request's lists of
// objects in one fixed order, so that the same objects in any order give the
// same response bytes. Karpenter reads these objects from its informer
// caches and cluster state, which are maps (no order at all), so any fixed
// order is one Karpenter could have seen.
//
//   nodePools, nodeClasses, nodeOverlays, nodes, nodeClaims,
//   persistentVolumes, storageClasses, namespaces: by metadata.name;
//   pods, daemonSets, deployments, persistentVolumeClaims,
//   podDisruptionBudgets: by namespace (empty read as "default"), then name;
//   catalog.instanceTypes: by name; each type's offerings by capacityType
//   (reserved, spot, on-demand, then any other by value), then zone, then
//   reservationID;
//   unavailableOfferings: by instanceType, zone, capacityType;
//   markedForDeletion, nominated: by value;
//   objects of equal key (unnamed ones, say): by their deterministic bytes
//   (nodeplan/digest.h), so only identical objects keep their input order.
//
// Nothing is copied: a request already in that order is used as it is, and
// otherwise a view is built on an arena whose lists point at the caller's
// objects in canonical order (a catalog type whose offerings need sorting
// is the one object copied). The caller's request must outlive the view and
// stay unchanged while it is used.

#include <memory>

#include "google/protobuf/arena.h"
#include "nodeplan/v1/disrupt.pb.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::canonical {

template <typename Request>
class CanonicalRequest {
 public:
  explicit CanonicalRequest(const Request& request);
  CanonicalRequest(const CanonicalRequest&) = delete;
  CanonicalRequest& operator=(const CanonicalRequest&) = delete;

  // The request in canonical order.
  const Request& get() const { return *view_; }
  // Whether get() is a reordered view rather than the caller's request.
  bool reordered() const { return arena_ != nullptr; }

 private:
  std::unique_ptr<google::protobuf::Arena> arena_;
  const Request* view_;
};

extern template class CanonicalRequest<v1::ScheduleRequest>;
extern template class CanonicalRequest<v1::DisruptRequest>;
extern template class CanonicalRequest<v1::ValidateCommandRequest>;

// Runs `call` on the request in canonical order. An error is reported for
// the request as given (`call` run again on it), since error paths may name
// list positions (catalog: instanceTypes[3]) that the caller must find in
// their own input.
template <typename Request, typename Call>
auto InCanonicalOrder(const Request& request, Call call)
    -> decltype(call(request)) {
  CanonicalRequest<Request> canonical(request);
  auto result = call(canonical.get());
  if (!result.ok() && canonical.reordered()) return call(request);
  return result;
}

}  // namespace nodeplan::canonical

#endif  // NODEPLAN_LIB_CANONICAL_CANONICAL_ORDER_H_
