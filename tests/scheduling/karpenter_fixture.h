#ifndef NODEPLAN_TESTS_SCHEDULING_KARPENTER_FIXTURE_H_
#define NODEPLAN_TESTS_SCHEDULING_KARPENTER_FIXTURE_H_

// Karpenter's scheduling test environment rebuilt for nodeplan's tests: the
// fake cloud provider's instance types (pkg/cloudprovider/fake), the suites'
// NodePool, pods and nodes, and readers of a ScheduleResponse. Shared by the
// restatements of Karpenter's provisioning and topology suites.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fixtures.h"

namespace nodeplan::testing {

inline constexpr double kGiB = 1073741824.0;

// One instance type the way the fake provider builds it: offerings spot in
// zones 1-2 and on-demand in zones 1-3 at one price (0.1 per core, 0.1 per
// 1e9 bytes, 1.0 per GPU resource); "large" (and "special: optional") when
// it has more than 4 cores and more than 8Gi.
inline v1::InstanceType KType(const std::string& name, int cpu, int mem_gib,
                              int pods, const std::string& arch = "amd64",
                              std::vector<std::string> oses = {"darwin",
                                                               "linux",
                                                               "windows"},
                              std::map<std::string, std::string> extra = {}) {
  v1::InstanceType t;
  t.set_name(name);
  auto& labels = *t.mutable_labels();
  labels["kubernetes.io/arch"] = arch;
  labels["integer"] = absl::StrCat(cpu);
  bool large = cpu > 4 && mem_gib > 8;
  labels["size"] = large ? "large" : "small";
  if (large) labels["special"] = "optional";
  auto* os = t.add_requirements();
  os->set_key("kubernetes.io/os");
  os->set_operator_("In");
  for (const auto& o : oses) os->add_values(o);
  if (!large) {
    auto* special = t.add_requirements();
    special->set_key("special");
    special->set_operator_("DoesNotExist");
  }
  (*t.mutable_capacity())["cpu"] = absl::StrCat(cpu);
  (*t.mutable_capacity())["memory"] = absl::StrCat(mem_gib, "Gi");
  (*t.mutable_capacity())["pods"] = absl::StrCat(pods);
  double price = 0.1 * cpu + 0.1 * mem_gib * kGiB / 1e9;
  for (const auto& [resource, quantity] : extra) {
    (*t.mutable_capacity())[resource] = quantity;
    price += 1.0;
  }
  (*t.mutable_overhead()->mutable_kube_reserved())["cpu"] = "100m";
  (*t.mutable_overhead()->mutable_kube_reserved())["memory"] = "10Mi";
  for (auto [ct, zone] : {std::pair<const char*, const char*>{"spot", "1"},
                          {"spot", "2"},
                          {"on-demand", "1"},
                          {"on-demand", "2"},
                          {"on-demand", "3"}}) {
    auto* o = t.add_offerings();
    o->set_zone(absl::StrCat("test-zone-", zone));
    o->set_capacity_type(ct);
    o->set_price(price);
  }
  return t;
}

inline v1::Catalog KCatalog(const std::vector<v1::InstanceType>& types) {
  v1::Catalog c;
  for (const char* key : {"size", "special", "integer"})
    c.add_well_known_labels(key);
  for (const auto& t : types) *c.add_instance_types() = t;
  return c;
}

// The fake provider's default instance types (GetInstanceTypes).
inline v1::Catalog DefaultTypes() {
  return KCatalog({
      KType("default-instance-type", 4, 4, 5),
      KType("small-instance-type", 2, 2, 5),
      KType("gpu-vendor-instance-type", 4, 4, 5, "amd64",
            {"darwin", "linux", "windows"}, {{"fake.com/vendor-a", "2"}}),
      KType("gpu-vendor-b-instance-type", 4, 4, 5, "amd64",
            {"darwin", "linux", "windows"}, {{"fake.com/vendor-b", "2"}}),
      KType("arm-instance-type", 16, 128, 5, "arm64",
            {"darwin", "ios", "linux", "windows"}),
      KType("single-pod-instance-type", 4, 4, 1),
  });
}

// fake.InstanceTypes(n): fake-it-i with i+1 cores, 2(i+1)Gi, 10(i+1) pods.
inline v1::Catalog FakeIt(int n) {
  std::vector<v1::InstanceType> types;
  for (int i = 0; i < n; ++i)
    types.push_back(
        KType(absl::StrCat("fake-it-", i), i + 1, 2 * (i + 1), 10 * (i + 1)));
  return KCatalog(types);
}

// A request on the default types with one NodePool "default" whose
// requirements are `reqs` (text-proto NodeSelectorRequirements); empty means
// capacity-type In [spot, on-demand], as in the scheduling suite.
inline v1::ScheduleRequest KRequest(const std::string& reqs = "",
                                    v1::Catalog catalog = DefaultTypes()) {
  v1::ScheduleRequest r;
  *r.mutable_catalog() = std::move(catalog);
  v1::NodePool np = NodePool("default");
  if (!reqs.empty()) {
    np.mutable_spec()
        ->mutable_template_()
        ->mutable_spec()
        ->clear_requirements();
    np.MergeFrom(Parse<v1::NodePool>(
        absl::StrCat("spec { template { spec { ", reqs, " } } }")));
  }
  *r.add_node_pools() = np;
  return r;
}

inline v1::NodePool& Pool0(v1::ScheduleRequest& r) {
  return *r.mutable_node_pools(0);
}

inline void MergePool(v1::ScheduleRequest& r, const std::string& text) {
  Pool0(r).MergeFrom(Parse<v1::NodePool>(text));
}

// A pod without resource requests (test.UnschedulablePod()).
inline v1::Pod Bare(const std::string& name, const std::string& extra = "") {
  v1::Pod p = Pod(name, "1", "1Gi", extra);
  p.mutable_spec()->mutable_containers(0)->clear_resources();
  return p;
}

inline std::string Expr(const std::string& key, const std::string& op,
                        std::vector<std::string> values = {}) {
  std::string out =
      absl::StrCat(R"pb(key: ")pb", key, R"pb(" operator: ")pb", op, "\"");
  for (const auto& v : values) absl::StrAppend(&out, " values: \"", v, "\"");
  return out;
}

// A NodePool requirement.
inline std::string Req(const std::string& key, const std::string& op,
                       std::vector<std::string> values = {}) {
  return absl::StrCat("requirements { ", Expr(key, op, std::move(values)),
                      " }");
}

// Required node affinity of one term with the given expressions
// (text-proto "key: ... operator: ... values: ..." bodies).
inline std::string Required(std::vector<std::string> exprs) {
  std::string term;
  for (const auto& e : exprs)
    absl::StrAppend(&term, "match_expressions { ", e, " } ");
  return absl::StrCat(
      "spec { affinity { node_affinity { "
      "required_during_scheduling_ignored_during_execution { "
      "node_selector_terms { ",
      term, "} } } } }");
}

// Preferred node affinity: one term per (weight, expressions).
inline std::string Preferred(
    std::vector<std::pair<int, std::vector<std::string>>> terms) {
  std::string out;
  for (const auto& [weight, exprs] : terms) {
    absl::StrAppend(&out,
                    "preferred_during_scheduling_ignored_during_execution { "
                    "weight: ",
                    weight, " preference { ");
    for (const auto& e : exprs)
      absl::StrAppend(&out, "match_expressions { ", e, " } ");
    absl::StrAppend(&out, "} } ");
  }
  return absl::StrCat("spec { affinity { node_affinity { ", out, "} } }");
}

inline std::string Selector(const std::string& key, const std::string& value) {
  return absl::StrCat(R"pb(spec { node_selector { key: ")pb", key,
                      R"pb(" value: ")pb", value, R"pb(" } })pb");
}

inline std::string LaunchedType(const v1::ScheduleResponse& r, int i = 0) {
  if (i >= r.new_node_claims_size()) return "";
  return r.new_node_claims(i).launch().instance_type();
}

inline std::string ClaimLabel(const v1::ScheduleResponse& r,
                              const std::string& key, int i = 0) {
  if (i >= r.new_node_claims_size()) return "";
  const auto& labels = r.new_node_claims(i).node_claim().metadata().labels();
  auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}

// A node Karpenter launched earlier: managed by NodePool "default".
inline v1::Node KNode(const std::string& name, const std::string& type,
                      const std::string& zone, const std::string& cpu,
                      const std::string& mem, const std::string& pods,
                      bool initialized) {
  v1::Node n = Parse<v1::Node>(absl::StrCat(
      R"pb(metadata { name: ")pb", name,
      R"pb(" labels { key: "kubernetes.io/hostname" value: ")pb", name,
      R"pb(" } labels { key: "topology.kubernetes.io/zone" value: ")pb", zone,
      R"pb(" } labels { key: "node.kubernetes.io/instance-type" value: ")pb",
      type, R"pb(" } labels { key: "karpenter.sh/nodepool" value: "default" }
           labels { key: "kubernetes.io/arch" value: "amd64" } }
      status { allocatable { key: "cpu" value: ")pb",
      cpu, R"pb(" } allocatable { key: "memory" value: ")pb", mem,
      R"pb(" } allocatable { key: "pods" value: ")pb", pods, R"pb(" } })pb"));
  if (initialized)
    (*n.mutable_metadata()->mutable_labels())["karpenter.sh/initialized"] =
        "true";
  return n;
}

// The NodeClaim Karpenter's test environment creates beside a node it
// launched (ExpectNodeClaimDeployed): linked by status.nodeName, so the node
// is managed, and the node carries karpenter.sh/registered=true.
inline v1::NodeClaim LinkedClaim(v1::Node& node) {
  (*node.mutable_metadata()->mutable_labels())["karpenter.sh/registered"] =
      "true";
  v1::NodeClaim c;
  c.mutable_metadata()->set_name(node.metadata().name() + "-claim");
  (*c.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
      "default";
  c.mutable_status()->set_node_name(node.metadata().name());
  *c.mutable_status()->mutable_capacity() = node.status().allocatable();
  *c.mutable_status()->mutable_allocatable() = node.status().allocatable();
  return c;
}

// A node outside Karpenter with `labels` (text-proto labels entries).
inline v1::Node PlainNode(const std::string& name, const std::string& labels,
                          const std::string& cpu) {
  return Parse<v1::Node>(absl::StrCat(
      R"pb(metadata { name: ")pb", name,
      R"pb(" labels { key: "kubernetes.io/hostname" value: ")pb", name,
      R"pb(" } )pb", labels,
      R"pb( } status { allocatable { key: "cpu" value: ")pb", cpu,
      R"pb(" } allocatable { key: "memory" value: "4Gi" } allocatable { key: "pods" value: "10" } })pb"));
}

inline v1::Pod BoundTo(v1::Pod p, const std::string& node) {
  p.mutable_spec()->set_node_name(node);
  p.mutable_status()->set_phase("Running");
  return p;
}

inline std::map<std::string, int> PodsByZone(const v1::ScheduleResponse& r) {
  std::map<std::string, int> out;
  for (const auto& c : r.new_node_claims()) {
    const auto* z = FindReq(c.node_claim(), "topology.kubernetes.io/zone");
    std::string zone = z != nullptr && z->values_size() == 1
                           ? z->values(0)
                           : c.launch().zone();
    out[zone] += c.pods_size();
  }
  return out;
}

inline std::vector<int> PodsPerClaim(const v1::ScheduleResponse& r) {
  std::vector<int> out;
  for (const auto& c : r.new_node_claims()) out.push_back(c.pods_size());
  std::sort(out.begin(), out.end());
  return out;
}

inline constexpr const char* kCapacityTypeExists =
    R"pb(requirements { key: "karpenter.sh/capacity-type" operator: "Exists" })pb";

inline std::string Tsc(const std::string& key, int skew,
                       const std::string& more = "",
                       const std::string& when = "DoNotSchedule") {
  return absl::StrCat(
      R"pb(metadata { labels { key: "test" value: "test" } }
      spec { topology_spread_constraints { max_skew: )pb",
      skew, R"pb( topology_key: ")pb", key, R"pb(" when_unsatisfiable: ")pb",
      when,
      R"pb(" label_selector { match_labels { key: "test" value: "test" } } )pb",
      more, " } }");
}

// A full node in `zone` holding one pod that matches the spread selector.
inline void AddZoneWithOnePod(v1::ScheduleRequest& r, const std::string& name,
                              const std::string& zone) {
  *r.add_nodes() = PlainNode(
      name,
      absl::StrCat(
          R"pb(labels { key: "topology.kubernetes.io/zone" value: ")pb", zone,
          R"pb(" })pb"),
      "1100m");
  *r.add_pods() =
      BoundTo(Pod(absl::StrCat(name, "-pod"), "1100m", "0",
                  R"pb(metadata { labels { key: "test" value: "test" } })pb"),
              name);
}

inline std::string SelfAffinity(const std::string& key) {
  return absl::StrCat(
      R"pb(metadata { labels { key: "security" value: "s2" } }
      spec { affinity { pod_affinity { required_during_scheduling_ignored_during_execution {
        topology_key: ")pb",
      key,
      R"pb(" label_selector { match_labels { key: "security" value: "s2" } } } } } })pb");
}

// fake.InstanceTypesAssorted(): one offering per type, every combination of
// cores, memory, zone, capacity type, OS and architecture.
inline v1::Catalog Assorted() {
  std::vector<v1::InstanceType> types;
  for (int cpu : {1, 2, 4, 8, 16, 32, 64})
    for (int mem : {1, 2, 4, 8, 16, 32, 64, 128})
      for (const char* zone : {"test-zone-1", "test-zone-2", "test-zone-3"})
        for (const char* ct : {"spot", "on-demand"})
          for (const char* os : {"linux", "windows"})
            for (const char* arch : {"amd64", "arm64"}) {
              v1::InstanceType t =
                  KType(absl::StrCat(cpu, "-cpu-", mem, "-mem-", arch, "-", os,
                                     "-", zone, "-", ct),
                        cpu, mem, 5, arch, {os});
              double price = t.offerings(0).price();
              t.clear_offerings();
              auto* o = t.add_offerings();
              o->set_zone(zone);
              o->set_capacity_type(ct);
              o->set_price(price);
              types.push_back(t);
            }
  return KCatalog(types);
}

}  // namespace nodeplan::testing

#endif  // NODEPLAN_TESTS_SCHEDULING_KARPENTER_FIXTURE_H_
