// Disruption workloads: the seed NodePool's cluster at scale (benchmarks)
// and small random clusters that mix every disruption rule (property tests).

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "nodeplan/workload.h"
#include "workload/builders.h"

namespace nodeplan::workload {
namespace {

constexpr char kNow[] = "2026-12-02T10:00:00Z";

// Hours before kNow as RFC 3339 (whole hours and minutes).
std::string Before(int minutes) {
  int total = 10 * 60 - minutes;  // kNow is 10:00 on the 2nd
  int day = 2;
  while (total < 0) {
    total += 24 * 60;
    --day;
  }
  // December 2026; negative days roll into November (30 days).
  std::string date = day >= 1
                         ? absl::StrCat("2026-12-", day < 10 ? "0" : "", day)
                         : absl::StrCat("2026-11-", 30 + day);
  return absl::StrCat(date, "T", total / 60 < 10 ? "0" : "", total / 60, ":",
                      total % 60 < 10 ? "0" : "", total % 60, ":00Z");
}

v1::Condition* AddCondition(v1::NodeClaim& nc, const std::string& type,
                            const std::string& at) {
  v1::Condition* c = nc.mutable_status()->add_conditions();
  c->set_type(type);
  c->set_status("True");
  c->set_last_transition_time(at);
  return c;
}

struct NodeSpec {
  std::string name, pool, type, zone, capacity_type;
  int cpu = 0, memory_gi = 0, pods = 0;
  std::string created;
  std::string hash;  // karpenter.sh/nodepool-hash ("" = none)
  bool initialized = true, ready = true, deleting = false;
  // Labels of the launched instance type beyond the well-known ones.
  std::vector<std::pair<std::string, std::string>> type_labels;
};

// A managed Node and its NodeClaim, paired by providerID.
void AddNode(v1::DisruptRequest& req, const NodeSpec& s) {
  v1::NodeClaim& nc = *req.add_node_claims();
  nc.set_api_version("karpenter.sh/v1");
  nc.set_kind("NodeClaim");
  nc.mutable_metadata()->set_name(s.name + "-nc");
  nc.mutable_metadata()->set_creation_timestamp(s.created);
  auto& labels = *nc.mutable_metadata()->mutable_labels();
  labels[labels::kNodePool] = s.pool;
  labels[labels::kInstanceType] = s.type;
  labels[labels::kZone] = s.zone;
  labels[labels::kCapacityType] = s.capacity_type;
  labels[labels::kArch] = "amd64";
  labels[labels::kOs] = "linux";
  for (const auto& [k, v] : s.type_labels) labels[k] = v;
  if (!s.hash.empty()) {
    (*nc.mutable_metadata()
          ->mutable_annotations())[labels::kNodePoolHashAnnotation] = s.hash;
    (*nc.mutable_metadata()
          ->mutable_annotations())[labels::kNodePoolHashVersionAnnotation] =
        kNodePoolHashVersion;
  }
  if (s.deleting) nc.mutable_metadata()->set_deletion_timestamp(Before(5));
  nc.mutable_spec()->mutable_node_class_ref()->set_name("default");
  nc.mutable_status()->set_provider_id("test://" + s.name);
  nc.mutable_status()->set_node_name(s.name);
  AddCondition(nc, "Launched", s.created);
  AddCondition(nc, "Registered", s.created);
  if (s.initialized) AddCondition(nc, "Initialized", s.created);
  v1::Node& n = *req.add_nodes();
  n.set_api_version("v1");
  n.set_kind("Node");
  n.mutable_metadata()->set_name(s.name);
  n.mutable_metadata()->set_creation_timestamp(s.created);
  *n.mutable_metadata()->mutable_labels() = labels;
  (*n.mutable_metadata()->mutable_labels())[labels::kHostname] = s.name;
  (*n.mutable_metadata()->mutable_labels())[labels::kRegistered] = "true";
  if (s.initialized) {
    (*n.mutable_metadata()->mutable_labels())[labels::kInitialized] = "true";
  }
  if (s.deleting) {
    n.mutable_metadata()->set_deletion_timestamp(Before(5));
    n.mutable_metadata()->add_finalizers(labels::kTerminationFinalizer);
  }
  n.mutable_spec()->set_provider_id("test://" + s.name);
  auto& alloc = *n.mutable_status()->mutable_allocatable();
  alloc["cpu"] = absl::StrCat(s.cpu * 1000 - 100, "m");
  alloc["memory"] = absl::StrCat(s.memory_gi * 1024 - 512, "Mi");
  alloc["pods"] = absl::StrCat(s.pods);
  *n.mutable_status()->mutable_capacity() = alloc;
  v1::NodeCondition* ready = n.mutable_status()->add_conditions();
  ready->set_type("Ready");
  ready->set_status(s.ready ? "True" : "False");
}

// A running pod bound to `node`, owned as `owner` says (ReplicaSet,
// StatefulSet, DaemonSet or none).
v1::Pod& AddPod(v1::DisruptRequest& req, const std::string& name,
                const std::string& node, const std::string& app,
                const std::string& cpu, const std::string& memory,
                const std::string& owner) {
  v1::Pod& p = *req.add_pods();
  p = MakePod(name, "default", cpu, memory);
  p.set_api_version("v1");
  p.set_kind("Pod");
  p.mutable_metadata()->set_uid("uid-" + name);
  p.mutable_metadata()->set_creation_timestamp(Before(120));
  (*p.mutable_metadata()->mutable_labels())["app"] = app;
  if (!owner.empty()) {
    v1::OwnerReference* o = p.mutable_metadata()->add_owner_references();
    o->set_api_version("apps/v1");
    o->set_kind(owner);
    o->set_name(app);
    o->set_controller(true);
  }
  p.mutable_spec()->set_node_name(node);
  p.mutable_status()->set_phase("Running");
  p.mutable_status()->set_start_time(Before(120));
  return p;
}

}  // namespace

v1::DisruptRequest ScaleDisruptionCluster(int nodes, int pods_per_node,
                                          int underutilized_percent,
                                          uint64_t seed) {
  Rng rng(seed);
  v1::DisruptRequest req;
  req.set_now(kNow);
  req.set_catalog_ref("aws");
  v1::NodePool np = WorkshopNodePool();
  v1::Disruption& d = *np.mutable_spec()->mutable_disruption();
  d.set_consolidation_policy("WhenEmptyOrUnderutilized");
  d.set_consolidate_after("30s");
  d.add_budgets()->set_nodes("10%");
  np.mutable_spec()->mutable_template_()->mutable_spec()->set_expire_after(
      "336h");
  absl::StatusOr<std::string> hash = NodePoolHash(np);
  *req.add_node_pools() = np;
  static const char* kZones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
  int pod = 0;
  for (int i = 0; i < nodes; ++i) {
    NodeSpec s;
    s.name = absl::StrCat("node-", i);
    s.pool = np.metadata().name();
    s.type = "m5.2xlarge";
    s.cpu = 8;
    s.memory_gi = 32;
    s.pods = 58;
    s.zone = kZones[i % 3];
    s.capacity_type = "on-demand";
    s.created = Before(24 * 60 + static_cast<int>(rng.Below(600)));
    s.hash = hash.ok() ? *hash : "";
    // The provider labels the seed NodePool's requirements read.
    for (const char* domain : {"eks.amazonaws.com", "karpenter.k8s.aws"}) {
      s.type_labels.emplace_back(absl::StrCat(domain, "/instance-category"),
                                 "m");
      s.type_labels.emplace_back(absl::StrCat(domain, "/instance-generation"),
                                 "5");
      s.type_labels.emplace_back(absl::StrCat(domain, "/instance-family"),
                                 "m5");
      s.type_labels.emplace_back(absl::StrCat(domain, "/instance-size"),
                                 "2xlarge");
    }
    AddNode(req, s);
    const bool underutilized =
        static_cast<int>(rng.Below(100)) < underutilized_percent;
    for (int k = 0; k < pods_per_node; ++k) {
      const std::string app = absl::StrCat("app-", rng.Below(20));
      AddPod(req, absl::StrCat(app, "-", pod++), s.name, app,
             underutilized ? "20m" : "200m", underutilized ? "64Mi" : "768Mi",
             "ReplicaSet");
    }
  }
  return req;
}

v1::DisruptRequest RandomDisruptionCluster(uint64_t seed) {
  Rng rng(seed);
  v1::DisruptRequest req;
  req.set_now(kNow);
  if (rng.Chance(1, 3))
    req.mutable_options()->set_spot_to_spot_consolidation(true);
  // The catalog: c (2 Gi/cpu) and m (4 Gi/cpu) types of 1-16 cpu, on-demand
  // in three zones, spot in two at 60% of on-demand.
  v1::Catalog& cat = *req.mutable_catalog();
  struct Type {
    std::string name;
    int cpu, memory_gi;
  };
  std::vector<Type> types;
  for (const char* family : {"c", "m"}) {
    for (int cpu : {1, 2, 4, 8, 16}) {
      const int gi = cpu * (family[0] == 'c' ? 2 : 4);
      types.push_back({absl::StrCat(family, "-", cpu), cpu, gi});
      v1::InstanceType& t = *cat.add_instance_types();
      t.set_name(types.back().name);
      (*t.mutable_labels())[labels::kArch] = "amd64";
      (*t.mutable_labels())[labels::kOs] = "linux";
      (*t.mutable_labels())["nodeplan.test/family"] = family;
      (*t.mutable_capacity())["cpu"] = absl::StrCat(cpu);
      (*t.mutable_capacity())["memory"] = absl::StrCat(gi, "Gi");
      (*t.mutable_capacity())["pods"] = absl::StrCat(10 * cpu);
      (*t.mutable_overhead()->mutable_kube_reserved())["cpu"] = "100m";
      (*t.mutable_overhead()->mutable_kube_reserved())["memory"] = "512Mi";
      const double price = 0.04 * cpu + 0.005 * gi;
      for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
        v1::Offering* o = t.add_offerings();
        o->set_zone(z);
        o->set_capacity_type("on-demand");
        o->set_price(price);
      }
      for (const char* z : {"test-zone-1", "test-zone-2"}) {
        v1::Offering* o = t.add_offerings();
        o->set_zone(z);
        o->set_capacity_type("spot");
        o->set_price(price * 0.6);
      }
    }
  }
  cat.add_well_known_labels("nodeplan.test/family");
  static const char* kPolicies[] = {"WhenEmptyOrUnderutilized", "WhenEmpty",
                                    "Balanced"};
  static const char* kAfter[] = {"0s", "30s", "10m", "Never"};
  static const char* kBudgetNodes[] = {"1", "2", "0", "50%", "10%", "100%"};
  const int pool_count = 1 + static_cast<int>(rng.Below(3));
  std::vector<std::string> hashes;
  for (int p = 0; p < pool_count; ++p) {
    v1::NodePool& np = *req.add_node_pools();
    np.set_api_version("karpenter.sh/v1");
    np.set_kind("NodePool");
    np.mutable_metadata()->set_name(absl::StrCat("pool-", p));
    v1::NodeClaimTemplateSpec& spec =
        *np.mutable_spec()->mutable_template_()->mutable_spec();
    spec.mutable_node_class_ref()->set_group("karpenter.test.sh");
    spec.mutable_node_class_ref()->set_kind("TestNodeClass");
    spec.mutable_node_class_ref()->set_name("default");
    std::vector<std::string> cts = {"on-demand", "spot"};
    if (rng.Chance(1, 3)) cts = {rng.Chance(1, 2) ? "on-demand" : "spot"};
    *spec.add_requirements() = Requirement(labels::kCapacityType, "In", cts);
    if (rng.Chance(1, 4)) {
      *spec.add_requirements() =
          Requirement(labels::kZone, "In", {"test-zone-1", "test-zone-2"});
    }
    if (rng.Chance(1, 4)) {
      *spec.add_requirements() = Requirement("nodeplan.test/family", "In",
                                             {rng.Chance(1, 2) ? "c" : "m"});
    }
    if (rng.Chance(1, 3)) {
      spec.set_expire_after(rng.Chance(1, 2) ? "24h" : "Never");
    }
    if (rng.Chance(1, 4)) spec.set_termination_grace_period("1h");
    if (rng.Chance(1, 4))
      np.mutable_spec()->set_weight(static_cast<int>(rng.Below(50)) + 1);
    v1::Disruption& d = *np.mutable_spec()->mutable_disruption();
    d.set_consolidation_policy(kPolicies[rng.Below(3)]);
    d.set_consolidate_after(kAfter[rng.Below(4)]);
    const int budgets = static_cast<int>(rng.Below(3));
    for (int b = 0; b < budgets; ++b) {
      v1::Budget& budget = *d.add_budgets();
      budget.set_nodes(kBudgetNodes[rng.Below(6)]);
      if (rng.Chance(1, 3)) {
        budget.set_schedule(rng.Chance(1, 2) ? "0 9 * * *" : "*/30 * * * *");
        budget.set_duration(rng.Chance(1, 2) ? "2h" : "10m");
      }
      if (rng.Chance(1, 3)) {
        static const char* kR[] = {"Empty", "Drifted", "Underutilized"};
        budget.add_reasons(kR[rng.Below(3)]);
      }
    }
    absl::StatusOr<std::string> hash = NodePoolHash(np);
    hashes.push_back(hash.ok() ? *hash : "");
    if (rng.Chance(2, 3)) {
      auto& a = *np.mutable_metadata()->mutable_annotations();
      a[labels::kNodePoolHashAnnotation] = hashes.back();
      a[labels::kNodePoolHashVersionAnnotation] = kNodePoolHashVersion;
    }
  }
  static const char* kApps[] = {"web", "api", "db", "cache"};
  static const char* kCpu[] = {"100m", "250m", "500m", "1", "1500m"};
  static const char* kMem[] = {"128Mi", "256Mi", "512Mi", "1Gi", "2Gi"};
  const int node_count = 1 + static_cast<int>(rng.Below(8));
  int pod = 0;
  for (int i = 0; i < node_count; ++i) {
    NodeSpec s;
    s.name = absl::StrCat("node-", i);
    const int p = static_cast<int>(rng.Below(pool_count));
    s.pool = absl::StrCat("pool-", p);
    const Type& t = types[rng.Below(types.size())];
    s.type = t.name;
    s.cpu = t.cpu;
    s.memory_gi = t.memory_gi;
    s.pods = 10 * t.cpu;
    s.zone = absl::StrCat("test-zone-", 1 + rng.Below(2));
    s.capacity_type = rng.Chance(1, 3) ? "spot" : "on-demand";
    s.created = Before(static_cast<int>(rng.Below(48 * 60)));
    s.hash = rng.Chance(9, 10) ? hashes[p] : (rng.Chance(1, 2) ? "12345" : "");
    s.initialized = rng.Chance(9, 10);
    s.ready = rng.Chance(9, 10);
    s.deleting = rng.Chance(1, 20);
    s.type_labels.emplace_back("nodeplan.test/family", t.name.substr(0, 1));
    AddNode(req, s);
    if (rng.Chance(1, 20)) req.add_marked_for_deletion(s.name);
    if (rng.Chance(1, 20)) {
      (*req.mutable_nodes(req.nodes_size() - 1)
            ->mutable_metadata()
            ->mutable_annotations())[labels::kDoNotDisrupt] = "true";
    }
    if (rng.Chance(1, 20)) {
      req.mutable_node_claims(req.node_claims_size() - 1)
          ->mutable_status()
          ->set_last_pod_event_time(Before(static_cast<int>(rng.Below(20))));
    }
    const int pods = static_cast<int>(rng.Below(6));
    for (int k = 0; k < pods; ++k) {
      static const char* kOwners[] = {"ReplicaSet",  "ReplicaSet", "ReplicaSet",
                                      "StatefulSet", "DaemonSet",  ""};
      const std::string app = kApps[rng.Below(4)];
      v1::Pod& pd =
          AddPod(req, absl::StrCat(app, "-", pod++), s.name, app,
                 kCpu[rng.Below(5)], kMem[rng.Below(5)], kOwners[rng.Below(6)]);
      if (rng.Chance(1, 15)) {
        static const char* kDnd[] = {"true", "1h", "3h", "bogus"};
        (*pd.mutable_metadata()->mutable_annotations())[labels::kDoNotDisrupt] =
            kDnd[rng.Below(4)];
      }
      if (rng.Chance(1, 10)) {
        pd.mutable_spec()->set_priority(static_cast<int32_t>(rng.Below(2000)) -
                                        1000);
      }
    }
  }
  for (const char* app : kApps) {
    if (!rng.Chance(1, 4)) continue;
    v1::PodDisruptionBudget& b = *req.add_pod_disruption_budgets();
    b.mutable_metadata()->set_name(absl::StrCat(app, "-pdb"));
    b.mutable_metadata()->set_namespace_("default");
    *b.mutable_spec()->mutable_selector() = MatchLabels({{"app", app}});
    if (rng.Chance(1, 3)) {
      b.mutable_spec()->set_min_available("100%");
    } else {
      b.mutable_spec()->set_max_unavailable("1");
    }
    b.mutable_status()->set_disruptions_allowed(
        static_cast<int32_t>(rng.Below(2)));
  }
  const int pending = static_cast<int>(rng.Below(3));
  for (int k = 0; k < pending; ++k) {
    v1::Pod& p = *req.add_pods();
    p = MakePod(absl::StrCat("pending-", k), "default", kCpu[rng.Below(5)],
                kMem[rng.Below(5)]);
    p.mutable_metadata()->set_uid(absl::StrCat("uid-pending-", k));
    p.mutable_status()->set_phase("Pending");
    v1::PodCondition* c = p.mutable_status()->add_conditions();
    c->set_type("PodScheduled");
    c->set_status("False");
    c->set_reason("Unschedulable");
  }
  return req;
}

}  // namespace nodeplan::workload
