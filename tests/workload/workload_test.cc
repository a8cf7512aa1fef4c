#include "nodeplan/workload.h"

#include <map>
#include <set>
#include <string>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"

namespace nodeplan::workload {
namespace {

std::string Bytes(const google::protobuf::Message& message) {
  return DeterministicBytes(message);
}

std::string GroupOf(const std::string& name) {
  return name.substr(0, name.rfind('-'));
}

TEST(RngTest, SplitMix64KnownValues) {
  // First outputs of SplitMix64 seeded with 0 (published reference values).
  Rng rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ULL);
}

TEST(RngTest, BelowStaysInRangeAndCoversIt) {
  Rng rng(1);
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = rng.Below(7);
    ASSERT_LT(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(FakeInstanceTypesTest, MatchesKarpenterFakeProvider) {
  const v1::Catalog catalog = FakeInstanceTypes(400);
  ASSERT_EQ(catalog.instance_types_size(), 400);
  struct Case {
    int index;
    const char* cpu;
    const char* memory;
    const char* pods;
    const char* size;
    double price;
  };
  const Case cases[] = {
      {0, "1", "2Gi", "10", "small", 0.1 + 0.1 * 2147483648.0 / 1e9},
      {3, "4", "8Gi", "40", "small", 0.4 + 0.1 * 8589934592.0 / 1e9},
      {4, "5", "10Gi", "50", "large", 0.5 + 0.1 * 10737418240.0 / 1e9},
      {399, "400", "800Gi", "4000", "large", 40.0 + 0.1 * 858993459200.0 / 1e9},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.index);
    const v1::InstanceType& it = catalog.instance_types(c.index);
    EXPECT_EQ(it.name(), "fake-it-" + std::to_string(c.index));
    EXPECT_EQ(it.capacity().at("cpu"), c.cpu);
    EXPECT_EQ(it.capacity().at("memory"), c.memory);
    EXPECT_EQ(it.capacity().at("pods"), c.pods);
    EXPECT_EQ(it.labels().at("size"), c.size);
    EXPECT_EQ(it.labels().at("integer"), c.cpu);
    EXPECT_EQ(it.labels().at("kubernetes.io/arch"), "amd64");
    EXPECT_EQ(it.overhead().kube_reserved().at("cpu"), "100m");
    EXPECT_EQ(it.overhead().kube_reserved().at("memory"), "10Mi");
    ASSERT_EQ(it.offerings_size(), 5);
    std::set<std::pair<std::string, std::string>> offerings;
    for (const auto& o : it.offerings()) {
      EXPECT_DOUBLE_EQ(o.price(), c.price);
      EXPECT_FALSE(o.has_available());
      offerings.insert({o.capacity_type(), o.zone()});
    }
    const std::set<std::pair<std::string, std::string>> want = {
        {"spot", "test-zone-1"},
        {"spot", "test-zone-2"},
        {"on-demand", "test-zone-1"},
        {"on-demand", "test-zone-2"},
        {"on-demand", "test-zone-3"}};
    EXPECT_EQ(offerings, want);
    // special In [optional] for large types, DoesNotExist otherwise.
    bool found_special = false;
    for (const auto& r : it.requirements()) {
      if (r.key() != "special") continue;
      found_special = true;
      EXPECT_EQ(r.operator_(),
                std::string(c.size) == "large" ? "In" : "DoesNotExist");
    }
    EXPECT_TRUE(found_special);
  }
}

TEST(KarpenterBenchmarkTest, FiveEqualGroupsRemainderGeneric) {
  for (int pods : {1, 7, 100, 1000, 5003}) {
    SCOPED_TRACE(pods);
    const v1::ScheduleRequest request = KarpenterBenchmark(pods);
    ASSERT_EQ(request.pods_size(), pods);
    ASSERT_EQ(request.node_pools_size(), 1);
    EXPECT_EQ(request.catalog().instance_types_size(), 400);
    std::map<std::string, int> groups;
    std::set<std::string> names;
    for (const auto& pod : request.pods()) {
      ++groups[GroupOf(pod.metadata().name())];
      names.insert(pod.metadata().name());
      EXPECT_TRUE(pod.spec().node_name().empty());
    }
    EXPECT_EQ(names.size(), static_cast<size_t>(pods));
    const int group = pods / 5;
    for (const char* g :
         {"zone-spread", "host-spread", "zone-affinity", "host-anti"}) {
      EXPECT_EQ(groups[g], group) << g;
    }
    EXPECT_EQ(groups["generic"], pods - 4 * group);
  }
}

TEST(KarpenterBenchmarkTest, GroupShapes) {
  const v1::ScheduleRequest request = KarpenterBenchmark(500);
  const std::set<std::string> cpus = {"100m", "250m", "500m", "1", "1500m"};
  const std::set<std::string> mems = {"100Mi", "256Mi", "512Mi",
                                      "1Gi",   "2Gi",   "4Gi"};
  std::set<std::string> seen_cpu, seen_mem;
  for (const auto& pod : request.pods()) {
    const auto& requests = pod.spec().containers(0).resources().requests();
    EXPECT_TRUE(cpus.count(requests.at("cpu")));
    EXPECT_TRUE(mems.count(requests.at("memory")));
    seen_cpu.insert(requests.at("cpu"));
    seen_mem.insert(requests.at("memory"));
    const std::string group = GroupOf(pod.metadata().name());
    const auto& spec = pod.spec();
    if (group == "zone-spread" || group == "host-spread") {
      ASSERT_EQ(spec.topology_spread_constraints_size(), 1);
      const auto& tsc = spec.topology_spread_constraints(0);
      EXPECT_EQ(tsc.max_skew(), 1);
      EXPECT_EQ(tsc.when_unsatisfiable(), "DoNotSchedule");
      EXPECT_EQ(tsc.topology_key(), group == "zone-spread"
                                        ? "topology.kubernetes.io/zone"
                                        : "kubernetes.io/hostname");
      EXPECT_TRUE(tsc.label_selector().match_labels().count("my-label"));
    } else if (group == "zone-affinity") {
      const auto& term =
          spec.affinity()
              .pod_affinity()
              .required_during_scheduling_ignored_during_execution(0);
      EXPECT_EQ(term.topology_key(), "topology.kubernetes.io/zone");
      EXPECT_EQ(term.label_selector().match_labels().at("my-affininity"),
                pod.metadata().labels().at("my-affininity"));
    } else if (group == "host-anti") {
      const auto& term =
          spec.affinity()
              .pod_anti_affinity()
              .required_during_scheduling_ignored_during_execution(0);
      EXPECT_EQ(term.topology_key(), "kubernetes.io/hostname");
      EXPECT_EQ(term.label_selector().match_labels().at("app"), "nginx");
      EXPECT_EQ(pod.metadata().labels().at("app"), "nginx");
    } else {
      EXPECT_EQ(group, "generic");
      EXPECT_FALSE(spec.has_affinity());
      EXPECT_EQ(spec.topology_spread_constraints_size(), 0);
    }
  }
  EXPECT_EQ(seen_cpu, cpus);
  EXPECT_EQ(seen_mem, mems);
  const v1::NodePool& pool = request.node_pools(0);
  EXPECT_EQ(pool.spec().limits().at("cpu"), "10000000");
  EXPECT_EQ(pool.spec().limits().at("memory"), "10000000Gi");
  EXPECT_EQ(pool.spec().template_().spec().requirements_size(), 0);
}

TEST(KarpenterBenchmarkTest, Deterministic) {
  EXPECT_EQ(Bytes(KarpenterBenchmark(2000)), Bytes(KarpenterBenchmark(2000)));
  EXPECT_NE(Bytes(KarpenterBenchmark(2000, 1)),
            Bytes(KarpenterBenchmark(2000, 2)));
}

TEST(PreferenceBenchmarkTest, Shape) {
  const v1::ScheduleRequest respect = PreferenceBenchmark(4000, true);
  const v1::ScheduleRequest ignore = PreferenceBenchmark(4000, false);
  EXPECT_EQ(respect.options().preference_policy(), "Respect");
  EXPECT_EQ(ignore.options().preference_policy(), "Ignore");
  ASSERT_EQ(respect.pods_size(), 4000);
  const auto& first = respect.pods(0);
  for (const auto& pod : respect.pods()) {
    EXPECT_EQ(pod.metadata().labels().at("app"), "nginx");
    EXPECT_EQ(Bytes(pod.spec()), Bytes(first.spec()));
  }
  const auto& anti = first.spec().affinity().pod_anti_affinity();
  ASSERT_EQ(anti.preferred_during_scheduling_ignored_during_execution_size(),
            2);
  EXPECT_EQ(
      anti.preferred_during_scheduling_ignored_during_execution(0).weight(),
      10);
  EXPECT_EQ(
      anti.preferred_during_scheduling_ignored_during_execution(1).weight(), 1);
  const auto& node_pref =
      first.spec()
          .affinity()
          .node_affinity()
          .preferred_during_scheduling_ignored_during_execution(0);
  EXPECT_EQ(node_pref.preference().match_expressions(0).values(0),
            "test-zone-1");
  EXPECT_EQ(Bytes(respect), Bytes(PreferenceBenchmark(4000, true)));
}

TEST(RandomClusterTest, DeterministicAndVaried) {
  std::set<std::string> operators;
  int with_nodes = 0, with_daemons = 0, with_deployments = 0, with_taints = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    const v1::ScheduleRequest a = RandomCluster(seed);
    ASSERT_EQ(Bytes(a), Bytes(RandomCluster(seed))) << seed;
    ASSERT_GE(a.node_pools_size(), 1);
    ASSERT_GE(a.pods_size(), 1);
    with_nodes += a.nodes_size() > 0;
    with_daemons += a.daemon_sets_size() > 0;
    with_deployments += a.deployments_size() > 0;
    for (const auto& pool : a.node_pools()) {
      with_taints += pool.spec().template_().spec().taints_size() > 0;
      for (const auto& r : pool.spec().template_().spec().requirements()) {
        operators.insert(r.operator_());
      }
    }
    for (const auto& pod : a.pods()) {
      for (const auto& term :
           pod.spec()
               .affinity()
               .node_affinity()
               .required_during_scheduling_ignored_during_execution()
               .node_selector_terms()) {
        for (const auto& r : term.match_expressions()) {
          operators.insert(r.operator_());
        }
      }
    }
  }
  for (const char* op :
       {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}) {
    EXPECT_TRUE(operators.count(op)) << op;
  }
  EXPECT_GT(with_nodes, 100);
  EXPECT_GT(with_daemons, 100);
  EXPECT_GT(with_deployments, 50);
  EXPECT_GT(with_taints, 50);
}

TEST(SeedNodePoolWorkloadTest, Shape) {
  const v1::ScheduleRequest request = SeedNodePoolWorkload(3000);
  EXPECT_EQ(request.catalog_ref(), "aws");
  EXPECT_EQ(request.catalog().instance_types_size(), 0);
  ASSERT_EQ(request.node_pools_size(), 1);
  EXPECT_EQ(request.node_pools(0).metadata().name(), "general-purpose");
  EXPECT_EQ(request.node_pools(0).spec().template_().spec().requirements_size(),
            5);
  EXPECT_EQ(request.pods_size(), 3000);
  EXPECT_EQ(Bytes(request), Bytes(SeedNodePoolWorkload(3000)));
}

TEST(DeploymentReplicaTest, NamingContract) {
  v1::Deployment d;
  d.mutable_metadata()->set_name("web");
  (*d.mutable_spec()
        ->mutable_template_()
        ->mutable_metadata()
        ->mutable_labels())["app"] = "web";
  const v1::Pod pod = DeploymentReplica(d, 2);
  EXPECT_EQ(PodKey(pod), "default/web-2");
  EXPECT_EQ(pod.metadata().labels().at("app"), "web");
}

}  // namespace
}  // namespace nodeplan::workload
