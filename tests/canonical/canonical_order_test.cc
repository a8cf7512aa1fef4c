// The canonical input order (lib/canonical/canonical_order.h): the rule
// itself, that the view drops no field of any request, and that Schedule,
// Snapshot, Disrupt and ValidateCommand answer alike for any order of the
// same objects.

#include "canonical/canonical_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "nodeplan/digest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

using canonical::CanonicalRequest;

template <typename T>
void Name(T* object, const std::string& name, const std::string& ns = "") {
  object->mutable_metadata()->set_name(name);
  if (!ns.empty()) object->mutable_metadata()->set_namespace_(ns);
}

// Every field of the request set, each list holding the same objects in
// canonical order or reversed.
template <typename Request>
Request Full(bool reversed) {
  Request r;
  // Listed in canonical order; reversed() flips every list afterwards.
  for (const char* n : {"a", "b"}) Name(r.add_node_pools(), n);
  for (const char* n : {"a", "b"}) Name(r.add_node_classes(), n);
  v1::Catalog& cat = *r.mutable_catalog();
  cat.set_api_version("nodeplan.dev/v1");
  cat.set_kind("Catalog");
  cat.set_region("r");
  cat.add_well_known_labels("z");
  cat.add_well_known_labels("a");  // a set, kept as given
  cat.set_source("s");
  cat.set_reservation_id_label("l");
  for (const char* n : {"m5.large", "m5.xlarge"}) {
    v1::InstanceType& t = *cat.add_instance_types();
    t.set_name(n);
    (*t.mutable_labels())["k"] = "v";
    // Spot before on-demand, then by zone.
    for (const char* ct : {"spot", "on-demand"}) {
      for (const char* z : {"zone-1", "zone-2"}) {
        v1::Offering& o = *t.add_offerings();
        o.set_zone(z);
        o.set_capacity_type(ct);
        o.set_price(1);
      }
    }
  }
  r.set_catalog_ref("");
  for (const char* n : {"a", "b"}) Name(r.add_node_overlays(), n);
  for (const char* n : {"node-10", "node-9"}) Name(r.add_nodes(), n);
  for (const char* n : {"nc-a", "nc-b"}) Name(r.add_node_claims(), n);
  // Empty namespace reads "default"; unnamed pods tie and go by bytes.
  Name(r.add_pods(), "p", "a");
  Name(r.add_pods(), "", "");
  r.mutable_pods(1)->mutable_spec()->set_node_name("x");
  Name(r.add_pods(), "", "");
  r.mutable_pods(2)->mutable_spec()->set_node_name("y");
  Name(r.add_pods(), "p", "");
  Name(r.add_pods(), "q", "default");
  Name(r.add_pods(), "a", "kube-system");
  for (const char* n : {"a", "b"}) Name(r.add_daemon_sets(), n, "kube-system");
  for (const char* n : {"a", "b"}) Name(r.add_persistent_volume_claims(), n);
  for (const char* n : {"a", "b"}) Name(r.add_persistent_volumes(), n);
  for (const char* n : {"a", "b"}) Name(r.add_storage_classes(), n);
  for (const char* n : {"a", "b"}) Name(r.add_csi_nodes(), n);
  for (const char* z : {"zone-1", "zone-2"}) {
    v1::UnavailableOffering& u = *r.add_unavailable_offerings();
    u.set_instance_type("m5.large");
    u.set_zone(z);
    u.set_capacity_type("spot");
  }
  r.mutable_options()->set_preference_policy("Ignore");
  for (const char* n : {"a", "b"}) Name(r.add_deployments(), n, "a");
  for (const char* n : {"a", "b"}) Name(r.add_namespaces(), n);
  if constexpr (std::is_same_v<Request, v1::DisruptRequest>) {
    for (const char* n : {"a", "b"}) Name(r.add_pod_disruption_budgets(), n);
    r.set_now("2026-12-02T10:00:00Z");
    for (const char* n : {"node-1", "node-2"}) r.add_marked_for_deletion(n);
    (*r.mutable_provider_drifted())["nc-a"] = "AMIDrifted";
    (*r.mutable_provider_drifted())["nc-b"] = "AMIDrifted";
    for (const char* n : {"node-3", "node-4"}) r.add_nominated(n);
  }
  if (!reversed) return r;
  const auto* d = r.GetDescriptor();
  auto flip = [](google::protobuf::Message& m, const auto* field) {
    const auto* rf = m.GetReflection();
    const int n = rf->FieldSize(m, field);
    for (int i = 0; i < n / 2; ++i) rf->SwapElements(&m, field, i, n - 1 - i);
  };
  for (int i = 0; i < d->field_count(); ++i) {
    const auto* f = d->field(i);
    if (f->is_repeated() && !f->is_map()) flip(r, f);
  }
  for (v1::InstanceType& t : *r.mutable_catalog()->mutable_instance_types()) {
    flip(t, t.GetDescriptor()->FindFieldByName("offerings"));
  }
  // well_known_labels is a set the view keeps as given: not flipped.
  flip(*r.mutable_catalog(),
       cat.GetDescriptor()->FindFieldByName("instance_types"));
  return r;
}

// The test request leaves no field of the message unset: a field added to
// the request later fails here until canonical_order.cc carries it over.
template <typename Request>
void ExpectEveryFieldSet() {
  const Request r = Full<Request>(false);
  const auto* d = r.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const auto* f = d->field(i);
    if (f->name() == "catalog_ref") continue;  // "" with a catalog
    if (f->is_repeated()) {
      EXPECT_GE(r.GetReflection()->FieldSize(r, f), 2) << f->name();
    } else {
      EXPECT_TRUE(r.GetReflection()->HasField(r, f)) << f->name();
    }
  }
}

TEST(CanonicalOrder, TestRequestsSetEveryField) {
  ExpectEveryFieldSet<v1::ScheduleRequest>();
  ExpectEveryFieldSet<v1::DisruptRequest>();
}

template <typename Request>
void ExpectCanonical() {
  const Request in_order = Full<Request>(false);
  const Request reversed = Full<Request>(true);
  ASSERT_NE(DeterministicBytes(in_order), DeterministicBytes(reversed));
  CanonicalRequest<Request> same(in_order);
  EXPECT_FALSE(same.reordered());
  EXPECT_EQ(&same.get(), &in_order);
  CanonicalRequest<Request> view(reversed);
  EXPECT_TRUE(view.reordered());
  EXPECT_EQ(DeterministicBytes(view.get()), DeterministicBytes(in_order));
}

TEST(CanonicalOrder, ReversedListsComeBackInCanonicalOrder) {
  ExpectCanonical<v1::ScheduleRequest>();
  ExpectCanonical<v1::DisruptRequest>();
}

TEST(CanonicalOrder, ValidateCommandRequestOrdersItsRequest) {
  v1::ValidateCommandRequest in_order, reversed;
  *in_order.mutable_request() = Full<v1::DisruptRequest>(false);
  *reversed.mutable_request() = Full<v1::DisruptRequest>(true);
  in_order.mutable_command()->set_method("emptiness");
  reversed.mutable_command()->set_method("emptiness");
  CanonicalRequest<v1::ValidateCommandRequest> view(reversed);
  EXPECT_TRUE(view.reordered());
  EXPECT_EQ(DeterministicBytes(view.get()), DeterministicBytes(in_order));
}

TEST(CanonicalOrder, PodsByNamespaceThenName) {
  const v1::ScheduleRequest r = Full<v1::ScheduleRequest>(true);
  CanonicalRequest<v1::ScheduleRequest> view(r);
  std::vector<std::string> got;
  for (const v1::Pod& p : view.get().pods()) {
    got.push_back(p.metadata().namespace_() + "/" + p.metadata().name() +
                  (p.spec().node_name().empty() ? "" : "@") +
                  p.spec().node_name());
  }
  // "" is read as "default": /p sorts with default/q; the unnamed pods
  // (equal keys) by their bytes.
  EXPECT_EQ(got, (std::vector<std::string>{"a/p", "/@x", "/@y", "/p",
                                           "default/q", "kube-system/a"}));
}

template <typename T>
void Shuffle(google::protobuf::RepeatedPtrField<T>* field, std::mt19937_64& g) {
  for (int i = field->size() - 1; i > 0; --i) {
    field->SwapElements(i, static_cast<int>(g() % (i + 1)));
  }
}

template <typename Request>
Request Shuffled(Request r, uint64_t seed) {
  std::mt19937_64 g(seed);
  Shuffle(r.mutable_pods(), g);
  Shuffle(r.mutable_nodes(), g);
  Shuffle(r.mutable_node_claims(), g);
  Shuffle(r.mutable_node_pools(), g);
  Shuffle(r.mutable_daemon_sets(), g);
  if (r.has_catalog()) {
    Shuffle(r.mutable_catalog()->mutable_instance_types(), g);
    for (auto& t : *r.mutable_catalog()->mutable_instance_types()) {
      Shuffle(t.mutable_offerings(), g);
    }
  }
  return r;
}

TEST(CanonicalOrder, ScheduleAndSnapshotIgnoreInputOrder) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const v1::ScheduleRequest r = workload::RandomCluster(seed);
    const v1::ScheduleRequest s = Shuffled(r, seed);
    auto a = Schedule(r);
    auto b = Schedule(s);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*b)) << seed;

    v1::ScheduleRequest base, state = s;
    *base.mutable_node_pools() = s.node_pools();
    *base.mutable_catalog() = s.catalog();
    state.clear_node_pools();
    state.clear_catalog();
    auto snapshot = Snapshot::Compile(base);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    auto c = (*snapshot)->Schedule(state);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*c)) << seed;
  }
}

TEST(CanonicalOrder, DisruptIgnoresInputOrder) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const v1::DisruptRequest r = workload::RandomDisruptionCluster(seed);
    v1::DisruptRequest s = Shuffled(r, seed);
    std::mt19937_64 g(seed);
    Shuffle(s.mutable_pod_disruption_budgets(), g);
    auto a = Disrupt(r);
    auto b = Disrupt(s);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*b)) << seed;
  }
}

// An error names positions in the request as given, not in the view.
TEST(CanonicalOrder, ErrorsNameTheCallersPositions) {
  v1::ScheduleRequest r = workload::RandomCluster(1);
  ASSERT_GE(r.catalog().instance_types_size(), 3);
  auto& types = *r.mutable_catalog()->mutable_instance_types();
  types.SwapElements(0, types.size() - 1);  // out of canonical order
  v1::InstanceType& bad = *types.Mutable(types.size() - 1);
  bad.mutable_offerings(0)->set_price(-1);
  auto resp = Schedule(r);
  ASSERT_FALSE(resp.ok());
  EXPECT_NE(resp.status().message().find("instanceTypes[" +
                                         std::to_string(types.size() - 1) +
                                         "] (" + bad.name() + ")"),
            std::string::npos)
      << resp.status();
}

}  // namespace
}  // namespace nodeplan
