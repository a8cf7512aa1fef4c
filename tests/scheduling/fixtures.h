#ifndef NODEPLAN_TESTS_SCHEDULING_FIXTURES_H_
#define NODEPLAN_TESTS_SCHEDULING_FIXTURES_H_

// Small hand-written scheduling scenarios: a catalog shaped like Karpenter's
// fake cloud provider, and builders for NodePools and pods.

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/verify.h"

namespace nodeplan::testing {

template <typename T>
T Parse(const std::string& text) {
  T msg;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &msg))
      << text;
  return msg;
}

// Karpenter's fake PriceFromResources: 0.1/core + 0.1/GB.
inline double FakePrice(double cpu, double mem_gib) {
  return 0.1 * cpu + 0.1 * mem_gib * 1073741824.0 / 1e9;
}

// An instance type with spot in zones 1-2 and on-demand in zones 1-3.
inline v1::InstanceType FakeType(const std::string& name, int cpu, int mem_gib,
                                 int pods, const std::string& arch = "amd64") {
  v1::InstanceType t;
  t.set_name(name);
  (*t.mutable_labels())["kubernetes.io/arch"] = arch;
  (*t.mutable_labels())["kubernetes.io/os"] = "linux";
  (*t.mutable_labels())["size"] = cpu > 4 && mem_gib > 8 ? "large" : "small";
  (*t.mutable_capacity())["cpu"] = absl::StrCat(cpu);
  (*t.mutable_capacity())["memory"] = absl::StrCat(mem_gib, "Gi");
  (*t.mutable_capacity())["pods"] = absl::StrCat(pods);
  (*t.mutable_overhead()->mutable_kube_reserved())["cpu"] = "100m";
  (*t.mutable_overhead()->mutable_kube_reserved())["memory"] = "10Mi";
  double price = FakePrice(cpu, mem_gib);
  for (const char* z : {"test-zone-1", "test-zone-2"}) {
    auto* o = t.add_offerings();
    o->set_zone(z);
    o->set_capacity_type("spot");
    o->set_price(price);
  }
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    auto* o = t.add_offerings();
    o->set_zone(z);
    o->set_capacity_type("on-demand");
    o->set_price(price);
  }
  return t;
}

// fake-it-i: i+1 cpu, 2(i+1) Gi, 10(i+1) pods.
inline v1::Catalog FakeCatalog(int n = 10) {
  v1::Catalog c;
  c.add_well_known_labels("size");
  for (int i = 0; i < n; ++i)
    *c.add_instance_types() =
        FakeType(absl::StrCat("fake-it-", i), i + 1, 2 * (i + 1), 10 * (i + 1));
  return c;
}

inline v1::NodePool NodePool(const std::string& name,
                             const std::string& extra = "") {
  v1::NodePool np = Parse<v1::NodePool>(absl::StrCat(
      R"pb(api_version: "karpenter.sh/v1" kind: "NodePool" metadata { name: ")pb",
      name, R"pb(" uid: "uid-)pb", name, R"pb(" }
           spec { template { spec {
             node_class_ref { group: "eks.amazonaws.com" kind: "NodeClass" name: "default" }
             requirements { key: "karpenter.sh/capacity-type" operator: "In"
                            values: "spot" values: "on-demand" } } } })pb"));
  if (!extra.empty()) np.MergeFrom(Parse<v1::NodePool>(extra));
  return np;
}

inline v1::Pod Pod(const std::string& name, const std::string& cpu,
                   const std::string& mem, const std::string& extra = "") {
  v1::Pod p = Parse<v1::Pod>(absl::StrCat(
      R"pb(metadata { name: ")pb", name, R"pb(" namespace: "default" uid: ")pb",
      name,
      R"pb(" } spec { containers { name: "c" resources { requests { key: "cpu" value: ")pb",
      cpu, R"pb(" } requests { key: "memory" value: ")pb", mem,
      R"pb(" } } } })pb"));
  if (!extra.empty()) p.MergeFrom(Parse<v1::Pod>(extra));
  return p;
}

// `n` pods "web-<i>" (label app: web) with a DoNotSchedule zone spread
// (maxSkew 1) over themselves.
inline void AddZoneSpreadPods(v1::ScheduleRequest& r, int n,
                              const std::string& cpu, const std::string& mem) {
  for (int i = 0; i < n; ++i)
    *r.add_pods() = Pod(absl::StrCat("web-", i), cpu, mem,
                        R"pb(metadata { labels { key: "app" value: "web" } }
        spec { topology_spread_constraints { max_skew: 1
          topology_key: "topology.kubernetes.io/zone" when_unsatisfiable: "DoNotSchedule"
          label_selector { match_labels { key: "app" value: "web" } } } })pb");
}

inline v1::ScheduleRequest Request(int types = 10) {
  v1::ScheduleRequest r;
  *r.mutable_catalog() = FakeCatalog(types);
  *r.add_node_pools() = NodePool("default");
  return r;
}

inline v1::ScheduleResponse MustSchedule(const v1::ScheduleRequest& r) {
  auto resp = Schedule(r);
  EXPECT_TRUE(resp.ok()) << resp.status();
  if (!resp.ok()) return {};
  // Every pending pod appears exactly once across the three lists.
  std::multiset<std::string> seen;
  for (const auto& c : resp->new_node_claims())
    for (const auto& p : c.pods()) seen.insert(p);
  for (const auto& e : resp->existing_nodes())
    for (const auto& p : e.pods()) seen.insert(p);
  for (const auto& u : resp->unschedulable()) seen.insert(u.pod());
  for (const auto& p : seen) EXPECT_EQ(seen.count(p), 1u) << p;
  return *resp;
}

// Each violation the independent verifier finds in `resp` as a failure
// naming `what` (a case of a table).
inline void ExpectVerified(const v1::ScheduleRequest& r,
                           const v1::ScheduleResponse& resp,
                           const std::string& what) {
  for (const auto& v : Verify(r, resp))
    ADD_FAILURE() << what << ": " << FormatViolation(v);
}

// Deterministic bytes (map entries sorted), as callers must serialize.
inline std::string Bytes(const google::protobuf::Message& m) {
  return DeterministicBytes(m);
}

// Splits a one-call request into Snapshot::Compile's base and
// Snapshot::Schedule's state.
inline void SplitForSnapshot(const v1::ScheduleRequest& full,
                             v1::ScheduleRequest* base,
                             v1::ScheduleRequest* state) {
  *base = full;
  *state = full;
  for (auto clear : {&v1::ScheduleRequest::clear_nodes,
                     &v1::ScheduleRequest::clear_node_claims,
                     &v1::ScheduleRequest::clear_pods,
                     &v1::ScheduleRequest::clear_daemon_sets,
                     &v1::ScheduleRequest::clear_persistent_volume_claims,
                     &v1::ScheduleRequest::clear_persistent_volumes,
                     &v1::ScheduleRequest::clear_storage_classes,
                     &v1::ScheduleRequest::clear_csi_nodes,
                     &v1::ScheduleRequest::clear_deployments,
                     &v1::ScheduleRequest::clear_namespaces,
                     &v1::ScheduleRequest::clear_options})
    (base->*clear)();
  for (auto clear : {&v1::ScheduleRequest::clear_node_pools,
                     &v1::ScheduleRequest::clear_node_classes,
                     &v1::ScheduleRequest::clear_catalog,
                     &v1::ScheduleRequest::clear_catalog_ref,
                     &v1::ScheduleRequest::clear_node_overlays,
                     &v1::ScheduleRequest::clear_unavailable_offerings})
    (state->*clear)();
}

// `request` with options.instanceTypeEncoding set to `encoding`.
inline v1::ScheduleRequest WithEncoding(v1::ScheduleRequest request,
                                        const std::string& encoding) {
  request.mutable_options()->set_instance_type_encoding(encoding);
  return request;
}

// A serialized instanceTypeEncoding "Indexed" response expanded as a C ABI
// caller does it: parsed on an arena, ExpandInstanceTypes there (names
// shared with the table); its deterministic bytes, or why it failed.
inline std::string ExpandedOnArena(const std::string& serialized) {
  google::protobuf::Arena arena;
  auto* parsed =
      google::protobuf::Arena::CreateMessage<v1::ScheduleResponse>(&arena);
  if (!parsed->ParseFromString(serialized)) return "unparsable";
  if (absl::Status s = ExpandInstanceTypes(parsed); !s.ok())
    return std::string(s.message());
  return Bytes(*parsed);
}

inline std::string ReasonFor(const v1::ScheduleResponse& r,
                             const std::string& pod) {
  for (const auto& u : r.unschedulable())
    if (u.pod() == pod) return u.reason();
  return "";
}

inline const v1::NodeSelectorRequirement* FindReq(const v1::NodeClaim& nc,
                                                  const std::string& key) {
  for (const auto& r : nc.spec().requirements())
    if (r.key() == key) return &r;
  return nullptr;
}

}  // namespace nodeplan::testing

#endif  // NODEPLAN_TESTS_SCHEDULING_FIXTURES_H_
