#include "canonical/canonical_order.h"

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"
#include "nodeplan/digest.h"

namespace nodeplan::canonical {
namespace {

using google::protobuf::Arena;
using google::protobuf::RepeatedPtrField;

// Up to four strings compared in order; unused ones are empty.
using Key = std::array<absl::string_view, 4>;

Key ClusterScoped(const v1::ObjectMeta& m) { return {m.name(), {}, {}}; }
Key Namespaced(const v1::ObjectMeta& m) {
  return {m.namespace_().empty() ? absl::string_view("default")
                                 : absl::string_view(m.namespace_()),
          m.name(),
          {}};
}

// Offerings: reserved, spot, on-demand (the order in which Karpenter's AWS
// provider picks a capacity type the NodeClaim allows), others after them.
absl::string_view CapacityTypeRank(absl::string_view capacity_type) {
  if (capacity_type == "reserved") return "0";
  if (capacity_type == "spot") return "1";
  if (capacity_type == "on-demand") return "2";
  return "3";
}

template <typename T>
Key KeyOf(const T& object) {
  if constexpr (std::is_same_v<T, v1::InstanceType>) {
    return {object.name(), {}, {}};
  } else if constexpr (std::is_same_v<T, v1::Offering>) {
    return {CapacityTypeRank(object.capacity_type()), object.capacity_type(),
            object.zone(), object.reservation_id()};
  } else if constexpr (std::is_same_v<T, v1::UnavailableOffering>) {
    return {object.instance_type(), object.zone(), object.capacity_type()};
  } else if constexpr (std::is_same_v<T, v1::Pod> ||
                       std::is_same_v<T, v1::DaemonSet> ||
                       std::is_same_v<T, v1::Deployment> ||
                       std::is_same_v<T, v1::PersistentVolumeClaim> ||
                       std::is_same_v<T, v1::PodDisruptionBudget>) {
    return Namespaced(object.metadata());
  } else {
    return ClusterScoped(object.metadata());
  }
}

template <typename T>
std::string Bytes(const T& object) {
  if constexpr (std::is_same_v<T, std::string>) {
    return object;
  } else {
    return DeterministicBytes(object);
  }
}

// <0, 0 or >0 as a sorts before, with or after b.
int Compare(const Key& a, const Key& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (int c = a[i].compare(b[i]); c != 0) return c;
  }
  return 0;
}

// Strict weak order of the canonical rule, bytes only between equal keys.
template <typename T>
bool Before(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::string>) {
    return a < b;
  } else {
    if (int c = Compare(KeyOf(a), KeyOf(b)); c != 0) return c < 0;
    return Bytes(a) < Bytes(b);
  }
}

template <typename T>
bool InOrder(const RepeatedPtrField<T>& field) {
  for (int i = 1; i < field.size(); ++i) {
    if constexpr (std::is_same_v<T, v1::Pod>) {
      // The first touch of each pod of a request (tens of thousands):
      // fetch the next ones' messages ahead, then their metadata.
      constexpr int kAhead = 4;
      if (i + 2 * kAhead < field.size()) {
        __builtin_prefetch(&field.Get(i + 2 * kAhead));
      }
      if (i + kAhead < field.size()) {
        __builtin_prefetch(&field.Get(i + kAhead).metadata());
      }
    }
    if (Before(field.Get(i), field.Get(i - 1))) return false;
  }
  return true;
}

// The elements of `field` in canonical order (keys built once; bytes only
// for runs of equal keys).
template <typename T>
std::vector<const T*> Sorted(const RepeatedPtrField<T>& field) {
  std::vector<const T*> out(field.pointer_begin(), field.pointer_end());
  if constexpr (std::is_same_v<T, std::string>) {
    std::sort(out.begin(), out.end(),
              [](const T* a, const T* b) { return *a < *b; });
  } else {
    // Input position last: equal keys stay in input order until their
    // bytes are compared below.
    struct Keyed {
      Key key;
      size_t position;
      const T* object;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
      keyed.push_back({KeyOf(*out[i]), i, out[i]});
    }
    // The keys' characters copied into one buffer, so that the sort's
    // comparisons read contiguous memory instead of chasing each object's
    // strings across the heap (tens of thousands of pods: a profile put
    // most of the view's cost in those cache misses).
    size_t chars = 0;
    for (const Keyed& k : keyed) {
      for (absl::string_view part : k.key) chars += part.size();
    }
    std::string buffer;
    buffer.reserve(chars);
    for (Keyed& k : keyed) {
      for (absl::string_view& part : k.key) {
        const size_t at = buffer.size();
        buffer.append(part.data(), part.size());
        part = absl::string_view(buffer.data() + at, part.size());
      }
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
      const int c = Compare(a.key, b.key);
      return c != 0 ? c < 0 : a.position < b.position;
    });
    for (size_t i = 0; i < keyed.size();) {
      size_t j = i + 1;
      while (j < keyed.size() && Compare(keyed[j].key, keyed[i].key) == 0) ++j;
      if (j - i > 1) {
        std::vector<std::pair<std::string, const T*>> tied;
        for (size_t k = i; k < j; ++k) {
          tied.emplace_back(Bytes(*keyed[k].object), keyed[k].object);
        }
        std::stable_sort(
            tied.begin(), tied.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t k = i; k < j; ++k) keyed[k].object = tied[k - i].second;
      }
      i = j;
    }
    for (size_t i = 0; i < keyed.size(); ++i) out[i] = keyed[i].object;
  }
  return out;
}

// `to` (a message on an arena, which never deletes what its lists point at)
// gets `from`'s elements in canonical order, without copies.
template <typename T>
void Point(const RepeatedPtrField<T>& from, RepeatedPtrField<T>* to) {
  if constexpr (std::is_same_v<T, std::string>) {
    // Strings are not messages: copied (these lists are node names).
    for (const std::string* s : Sorted(from)) to->Add()->assign(*s);
  } else {
    to->Reserve(from.size());
    const bool sorted = InOrder(from);
    if (sorted) {
      for (const T& x : from) to->UnsafeArenaAddAllocated(const_cast<T*>(&x));
    } else {
      for (const T* x : Sorted(from))
        to->UnsafeArenaAddAllocated(const_cast<T*>(x));
    }
  }
}

bool CatalogInOrder(const v1::Catalog& c) {
  if (!InOrder(c.instance_types())) return false;
  for (const v1::InstanceType& t : c.instance_types()) {
    if (!InOrder(t.offerings())) return false;
  }
  return true;
}

// The catalog in canonical order on `arena`: its types pointed at, except a
// type whose offerings need sorting, which is copied.
v1::Catalog* CanonicalCatalog(const v1::Catalog& from, Arena* arena) {
  auto* to = Arena::CreateMessage<v1::Catalog>(arena);
  to->set_api_version(from.api_version());
  to->set_kind(from.kind());
  to->set_region(from.region());
  *to->mutable_well_known_labels() = from.well_known_labels();
  to->set_source(from.source());
  to->set_reservation_id_label(from.reservation_id_label());
  for (const v1::InstanceType* t : Sorted(from.instance_types())) {
    if (InOrder(t->offerings())) {
      to->mutable_instance_types()->UnsafeArenaAddAllocated(
          const_cast<v1::InstanceType*>(t));
      continue;
    }
    v1::InstanceType* copy = to->add_instance_types();
    copy->CopyFrom(*t);
    copy->clear_offerings();
    for (const v1::Offering* o : Sorted(t->offerings())) {
      *copy->add_offerings() = *o;
    }
  }
  return to;
}

// Whether every list of the request is in canonical order. ScheduleRequest
// and DisruptRequest name their shared fields alike; DisruptRequest adds
// PDBs and node-name lists.
template <typename Request>
bool RequestInOrder(const Request& r) {
  bool ok = InOrder(r.node_pools()) && InOrder(r.node_classes()) &&
            InOrder(r.node_overlays()) && InOrder(r.nodes()) &&
            InOrder(r.node_claims()) && InOrder(r.pods()) &&
            InOrder(r.daemon_sets()) && InOrder(r.persistent_volume_claims()) &&
            InOrder(r.persistent_volumes()) && InOrder(r.storage_classes()) &&
            InOrder(r.unavailable_offerings()) && InOrder(r.deployments()) &&
            InOrder(r.namespaces()) && InOrder(r.csi_nodes()) &&
            (!r.has_catalog() || CatalogInOrder(r.catalog()));
  if constexpr (std::is_same_v<Request, v1::DisruptRequest>) {
    ok = ok && InOrder(r.pod_disruption_budgets()) &&
         InOrder(r.marked_for_deletion()) && InOrder(r.nominated());
  }
  return ok;
}

template <typename Request>
Request* View(const Request& r, Arena* arena) {
  auto* v = Arena::CreateMessage<Request>(arena);
  Point(r.node_pools(), v->mutable_node_pools());
  Point(r.node_classes(), v->mutable_node_classes());
  if (r.has_catalog()) {
    v->unsafe_arena_set_allocated_catalog(
        CatalogInOrder(r.catalog()) ? const_cast<v1::Catalog*>(&r.catalog())
                                    : CanonicalCatalog(r.catalog(), arena));
  }
  v->set_catalog_ref(r.catalog_ref());
  Point(r.node_overlays(), v->mutable_node_overlays());
  Point(r.nodes(), v->mutable_nodes());
  Point(r.node_claims(), v->mutable_node_claims());
  Point(r.pods(), v->mutable_pods());
  Point(r.daemon_sets(), v->mutable_daemon_sets());
  Point(r.persistent_volume_claims(), v->mutable_persistent_volume_claims());
  Point(r.persistent_volumes(), v->mutable_persistent_volumes());
  Point(r.storage_classes(), v->mutable_storage_classes());
  Point(r.csi_nodes(), v->mutable_csi_nodes());
  Point(r.unavailable_offerings(), v->mutable_unavailable_offerings());
  if (r.has_options()) {
    v->unsafe_arena_set_allocated_options(
        const_cast<std::remove_cvref_t<decltype(r.options())>*>(&r.options()));
  }
  Point(r.deployments(), v->mutable_deployments());
  Point(r.namespaces(), v->mutable_namespaces());
  if constexpr (std::is_same_v<Request, v1::DisruptRequest>) {
    Point(r.pod_disruption_budgets(), v->mutable_pod_disruption_budgets());
    v->set_now(r.now());
    Point(r.marked_for_deletion(), v->mutable_marked_for_deletion());
    *v->mutable_provider_drifted() = r.provider_drifted();
    Point(r.nominated(), v->mutable_nominated());
  }
  return v;
}

}  // namespace

template <typename Request>
CanonicalRequest<Request>::CanonicalRequest(const Request& request)
    : view_(&request) {
  if constexpr (std::is_same_v<Request, v1::ValidateCommandRequest>) {
    if (!request.has_request() || RequestInOrder(request.request())) return;
    arena_ = std::make_unique<Arena>();
    auto* v = Arena::CreateMessage<v1::ValidateCommandRequest>(arena_.get());
    v->unsafe_arena_set_allocated_request(
        View(request.request(), arena_.get()));
    if (request.has_command()) {
      v->unsafe_arena_set_allocated_command(
          const_cast<v1::DisruptionCommand*>(&request.command()));
    }
    view_ = v;
  } else {
    if (RequestInOrder(request)) return;
    arena_ = std::make_unique<Arena>();
    view_ = View(request, arena_.get());
  }
}

template class CanonicalRequest<v1::ScheduleRequest>;
template class CanonicalRequest<v1::DisruptRequest>;
template class CanonicalRequest<v1::ValidateCommandRequest>;

}  // namespace nodeplan::canonical
