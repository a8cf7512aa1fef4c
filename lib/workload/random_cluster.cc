// Random small clusters that mix every constraint nodeplan supports, for
// property tests (scheduler output must pass the verifier) and fuzzing.

#include <string>
#include <vector>

#include "nodeplan/labels.h"
#include "nodeplan/workload.h"
#include "workload/builders.h"

namespace nodeplan::workload {
namespace {

constexpr char kCategoryKey[] = "nodeplan.test/category";
constexpr char kGenerationKey[] = "nodeplan.test/generation";
constexpr char kTeamKey[] = "nodeplan.test/team";
constexpr char kTierKey[] = "tier";
constexpr char kGpuKey[] = "nodeplan.test/gpu";

const std::vector<std::string> kZones = {"test-zone-1", "test-zone-2",
                                         "test-zone-3"};
const std::vector<std::string> kApps = {"web", "api", "db"};
const std::vector<std::string> kTeams = {"alpha", "beta"};
const std::vector<std::string> kTiers = {"frontend", "backend"};

struct TypeShape {
  std::string name;
  std::string category;
  int generation;
  int cpu;
  int memory_gi;
  std::string arch;
};

std::vector<TypeShape> Shapes() {
  std::vector<TypeShape> shapes;
  for (const char* category : {"c", "m", "r"}) {
    const int gi_per_cpu = category[0] == 'c' ? 2 : category[0] == 'm' ? 4 : 8;
    for (int generation : {5, 6}) {
      for (int cpu : {2, 4}) {
        TypeShape shape;
        shape.category = category;
        shape.generation = generation;
        shape.cpu = cpu;
        shape.memory_gi = cpu * gi_per_cpu;
        shape.arch =
            (generation == 6 && shape.category != "c") ? "arm64" : "amd64";
        shape.name = shape.category + std::to_string(generation) +
                     (shape.arch == "arm64" ? "g" : "") +
                     (cpu == 2 ? ".large" : ".xlarge");
        shapes.push_back(shape);
      }
    }
  }
  return shapes;
}

std::vector<std::string> Subset(Rng& rng, const std::vector<std::string>& all) {
  std::vector<std::string> out;
  for (const auto& v : all) {
    if (rng.Chance(1, 2)) out.push_back(v);
  }
  if (out.empty()) out.push_back(rng.Pick(all));
  return out;
}

v1::Catalog RandomCatalog(Rng& rng) {
  v1::Catalog catalog;
  catalog.set_kind("Catalog");
  catalog.set_source("nodeplan random cluster generator");
  catalog.add_well_known_labels(kCategoryKey);
  catalog.add_well_known_labels(kGenerationKey);
  for (const TypeShape& shape : Shapes()) {
    v1::InstanceType* it = catalog.add_instance_types();
    it->set_name(shape.name);
    auto& labels = *it->mutable_labels();
    labels[labels::kInstanceType] = shape.name;
    labels[labels::kArch] = shape.arch;
    labels[labels::kOs] = "linux";
    labels[kCategoryKey] = shape.category;
    labels[kGenerationKey] = std::to_string(shape.generation);
    auto& capacity = *it->mutable_capacity();
    capacity["cpu"] = std::to_string(shape.cpu);
    capacity["memory"] = std::to_string(shape.memory_gi) + "Gi";
    capacity["pods"] = std::to_string(shape.cpu * 8);
    (*it->mutable_overhead()->mutable_kube_reserved())["cpu"] = "80m";
    (*it->mutable_overhead()->mutable_kube_reserved())["memory"] = "256Mi";
    const double base = 0.02 * shape.cpu + 0.004 * shape.memory_gi +
                        (shape.arch == "arm64" ? -0.005 : 0.0) +
                        0.001 * shape.generation;
    for (const std::string& zone : kZones) {
      v1::Offering* od = it->add_offerings();
      od->set_zone(zone);
      od->set_capacity_type("on-demand");
      od->set_price(base);
      if (rng.Chance(1, 12)) od->set_available(false);
      if (zone != "test-zone-3") {
        v1::Offering* spot = it->add_offerings();
        spot->set_zone(zone);
        spot->set_capacity_type("spot");
        spot->set_price(base * (0.3 + 0.1 * static_cast<double>(rng.Below(4))));
        if (rng.Chance(1, 6)) spot->set_available(false);
      }
    }
  }
  return catalog;
}

struct PoolFacts {
  std::string name;
  std::string team;  // empty when the pool does not label a team
  std::string tier;
  bool dedicated = false;
};

v1::NodePool RandomNodePool(Rng& rng, int index, PoolFacts& facts) {
  v1::NodePool pool;
  pool.set_api_version("karpenter.sh/v1");
  pool.set_kind("NodePool");
  facts.name = "pool-" + std::to_string(index);
  pool.mutable_metadata()->set_name(facts.name);
  v1::NodeClaimTemplate* tmpl = pool.mutable_spec()->mutable_template_();
  v1::NodeClassReference* ref = tmpl->mutable_spec()->mutable_node_class_ref();
  ref->set_group("eks.amazonaws.com");
  ref->set_kind("NodeClass");
  ref->set_name("default");
  auto add = [&](v1::NodeSelectorRequirement req) {
    *tmpl->mutable_spec()->add_requirements() = std::move(req);
  };
  if (rng.Chance(2, 3)) {
    add(Requirement(kCategoryKey, "In", Subset(rng, {"c", "m", "r"})));
  }
  switch (rng.Below(5)) {
    case 0:
      add(Requirement(kGenerationKey, "Gt", {"4"}));
      break;
    case 1:
      add(Requirement(kGenerationKey, "Gte", {"6"}));
      break;
    case 2:
      add(Requirement(kGenerationKey, "Lt", {"6"}));
      break;
    case 3:
      add(Requirement(kGenerationKey, "Lte", {"6"}));
      break;
    default:
      break;
  }
  if (rng.Chance(1, 2)) {
    add(Requirement(labels::kCapacityType, "In",
                    Subset(rng, {"spot", "on-demand"})));
  }
  if (rng.Chance(1, 4))
    add(Requirement(labels::kZone, "NotIn", {rng.Pick(kZones)}));
  if (rng.Chance(1, 3)) {
    add(rng.Chance(1, 2) ? Requirement(labels::kArch, "In", {"amd64"})
                         : Requirement(labels::kArch, "Exists"));
  }
  if (rng.Chance(1, 3)) {
    facts.team = rng.Pick(kTeams);
    add(Requirement(kTeamKey, "In", {facts.team}));
  }
  if (rng.Chance(1, 4)) add(Requirement(kGpuKey, "DoesNotExist"));
  facts.tier = rng.Pick(kTiers);
  (*tmpl->mutable_metadata()->mutable_labels())[kTierKey] = facts.tier;
  if (rng.Chance(1, 3)) {
    facts.dedicated = true;
    *tmpl->mutable_spec()->add_taints() =
        MakeTaint("dedicated", facts.name, "NoSchedule");
  }
  if (rng.Chance(1, 6)) {
    *tmpl->mutable_spec()->add_taints() =
        MakeTaint("soft", "true", "PreferNoSchedule");
  }
  if (rng.Chance(1, 5)) {
    *tmpl->mutable_spec()->add_startup_taints() =
        MakeTaint("startup", "true", "NoSchedule");
  }
  if (rng.Chance(1, 2)) pool.mutable_spec()->set_weight(rng.Below(4) * 10);
  if (rng.Chance(1, 3)) {
    (*pool.mutable_spec()->mutable_limits())["cpu"] =
        std::to_string(4 * (1 + rng.Below(4)));
  }
  return pool;
}

const std::vector<std::string> kCpu = {"100m", "250m", "500m", "1", "1500m"};
const std::vector<std::string> kMemory = {"128Mi", "512Mi", "1Gi", "2Gi",
                                          "6Gi"};

v1::NodeSelectorRequirement RandomNodeRequirement(Rng& rng) {
  switch (rng.Below(7)) {
    case 0:
      return Requirement(labels::kZone, "In", Subset(rng, kZones));
    case 1:
      return Requirement(labels::kZone, "NotIn", {rng.Pick(kZones)});
    case 2:
      return Requirement(kCategoryKey, "In", Subset(rng, {"c", "m", "r"}));
    case 3:
      return Requirement(kGenerationKey, "Gt", {"5"});
    case 4:
      return Requirement(kGenerationKey, "Lt", {"6"});
    case 5:
      return Requirement(labels::kArch, "In",
                         {rng.Pick<std::string>({"amd64", "arm64"})});
    default:
      return rng.Chance(1, 2) ? Requirement(kTeamKey, "Exists")
                              : Requirement(kGpuKey, "DoesNotExist");
  }
}

v1::PodAffinityTerm AffinityTerm(const std::string& app, const char* key) {
  v1::PodAffinityTerm term;
  *term.mutable_label_selector() = MatchLabels({{"app", app}});
  term.set_topology_key(key);
  return term;
}

void Decorate(Rng& rng, const std::vector<PoolFacts>& pools, v1::Pod& pod) {
  const std::string app = rng.Pick(kApps);
  (*pod.mutable_metadata()->mutable_labels())["app"] = app;
  v1::PodSpec* spec = pod.mutable_spec();
  if (rng.Chance(1, 5)) {
    const PoolFacts& pool = pools[rng.Below(pools.size())];
    if (!pool.team.empty() && rng.Chance(1, 2)) {
      (*spec->mutable_node_selector())[kTeamKey] = pool.team;
    } else {
      (*spec->mutable_node_selector())[kTierKey] = pool.tier;
    }
  }
  if (rng.Chance(1, 6))
    (*spec->mutable_node_selector())[labels::kZone] = rng.Pick(kZones);
  v1::Affinity* affinity = spec->mutable_affinity();
  if (rng.Chance(1, 4)) {
    auto* required =
        affinity->mutable_node_affinity()
            ->mutable_required_during_scheduling_ignored_during_execution();
    const int terms = 1 + static_cast<int>(rng.Below(2));
    for (int t = 0; t < terms; ++t) {
      v1::NodeSelectorTerm* term = required->add_node_selector_terms();
      const int exprs = 1 + static_cast<int>(rng.Below(2));
      for (int e = 0; e < exprs; ++e) {
        *term->add_match_expressions() = RandomNodeRequirement(rng);
      }
    }
  }
  if (rng.Chance(1, 4)) {
    auto* preferred =
        affinity->mutable_node_affinity()
            ->add_preferred_during_scheduling_ignored_during_execution();
    preferred->set_weight(1 + static_cast<int>(rng.Below(50)));
    *preferred->mutable_preference()->add_match_expressions() =
        RandomNodeRequirement(rng);
  }
  if (rng.Chance(1, 3)) {
    const PoolFacts& pool = pools[rng.Below(pools.size())];
    v1::Toleration* toleration = spec->add_tolerations();
    if (rng.Chance(1, 5)) {
      toleration->set_operator_("Exists");
    } else {
      toleration->set_key("dedicated");
      toleration->set_operator_("Equal");
      toleration->set_value(pool.name);
      toleration->set_effect("NoSchedule");
    }
  }
  if (rng.Chance(1, 4)) {
    v1::TopologySpreadConstraint* spread =
        spec->add_topology_spread_constraints();
    spread->set_max_skew(1 + static_cast<int>(rng.Below(2)));
    spread->set_topology_key(rng.Chance(1, 2) ? labels::kZone
                                              : labels::kHostname);
    spread->set_when_unsatisfiable(rng.Chance(2, 3) ? "DoNotSchedule"
                                                    : "ScheduleAnyway");
    *spread->mutable_label_selector() = MatchLabels({{"app", app}});
  }
  if (rng.Chance(1, 8)) {
    *affinity->mutable_pod_affinity()
         ->add_required_during_scheduling_ignored_during_execution() =
        AffinityTerm(rng.Pick(kApps),
                     rng.Chance(1, 2) ? labels::kZone : labels::kHostname);
  }
  if (rng.Chance(1, 6)) {
    *affinity->mutable_pod_anti_affinity()
         ->add_required_during_scheduling_ignored_during_execution() =
        AffinityTerm(rng.Chance(2, 3) ? app : rng.Pick(kApps),
                     rng.Chance(3, 4) ? labels::kHostname : labels::kZone);
  }
  if (rng.Chance(1, 8)) {
    auto* term =
        affinity->mutable_pod_affinity()
            ->add_preferred_during_scheduling_ignored_during_execution();
    term->set_weight(1 + static_cast<int>(rng.Below(100)));
    *term->mutable_pod_affinity_term() =
        AffinityTerm(rng.Pick(kApps), labels::kZone);
  }
  if (rng.Chance(1, 8)) {
    auto* term =
        affinity->mutable_pod_anti_affinity()
            ->add_preferred_during_scheduling_ignored_during_execution();
    term->set_weight(1 + static_cast<int>(rng.Below(100)));
    *term->mutable_pod_affinity_term() = AffinityTerm(app, labels::kHostname);
  }
  if (affinity->ByteSizeLong() == 0) spec->clear_affinity();
  if (rng.Chance(1, 10)) {
    v1::ContainerPort* port = spec->mutable_containers(0)->add_ports();
    port->set_container_port(8080);
    port->set_host_port(rng.Chance(1, 2) ? 8080 : 9090);
    port->set_protocol("TCP");
  }
}

v1::DaemonSet RandomDaemonSet(Rng& rng, int index) {
  v1::DaemonSet ds;
  ds.set_api_version("apps/v1");
  ds.set_kind("DaemonSet");
  ds.mutable_metadata()->set_name("agent-" + std::to_string(index));
  ds.mutable_metadata()->set_namespace_("kube-system");
  *ds.mutable_spec()->mutable_selector() =
      MatchLabels({{"daemon", ds.metadata().name()}});
  v1::PodTemplateSpec* tmpl = ds.mutable_spec()->mutable_template_();
  (*tmpl->mutable_metadata()->mutable_labels())["daemon"] =
      ds.metadata().name();
  v1::Container* container = tmpl->mutable_spec()->add_containers();
  container->set_name("agent");
  auto& requests = *container->mutable_resources()->mutable_requests();
  requests["cpu"] = rng.Pick<std::string>({"50m", "100m", "200m"});
  requests["memory"] = rng.Pick<std::string>({"64Mi", "128Mi", "256Mi"});
  if (rng.Chance(1, 2)) {
    tmpl->mutable_spec()->add_tolerations()->set_operator_("Exists");
  }
  if (rng.Chance(1, 3)) {
    (*tmpl->mutable_spec()->mutable_node_selector())[labels::kArch] = "amd64";
  }
  if (rng.Chance(1, 4)) {
    v1::ContainerPort* port = container->add_ports();
    port->set_container_port(9100);
    port->set_host_port(9100);
    port->set_protocol("TCP");
  }
  return ds;
}

}  // namespace

v1::ScheduleRequest RandomCluster(uint64_t seed,
                                  const RandomClusterOptions& options) {
  Rng rng(seed);
  v1::ScheduleRequest request;
  *request.mutable_catalog() = RandomCatalog(rng);
  const int pool_count =
      1 + static_cast<int>(rng.Below(std::max(1, options.max_node_pools)));
  std::vector<PoolFacts> pools(pool_count);
  for (int i = 0; i < pool_count; ++i) {
    *request.add_node_pools() = RandomNodePool(rng, i, pools[i]);
  }
  if (rng.Chance(1, 4))
    request.mutable_options()->set_preference_policy("Ignore");

  // Existing nodes, each from a pool, with a few bound pods.
  const std::vector<TypeShape> shapes = Shapes();
  const int node_count =
      static_cast<int>(rng.Below(options.max_existing_nodes + 1));
  for (int n = 0; n < node_count; ++n) {
    const PoolFacts& pool = pools[rng.Below(pools.size())];
    const TypeShape& shape = shapes[rng.Below(shapes.size())];
    v1::Node* node = request.add_nodes();
    node->set_api_version("v1");
    node->set_kind("Node");
    const std::string name = "node-" + std::to_string(n);
    node->mutable_metadata()->set_name(name);
    auto& labels = *node->mutable_metadata()->mutable_labels();
    labels[labels::kHostname] = name;
    labels[labels::kZone] = rng.Pick(kZones);
    labels[labels::kInstanceType] = shape.name;
    labels[labels::kArch] = shape.arch;
    labels[labels::kOs] = "linux";
    labels[labels::kCapacityType] = rng.Chance(1, 2) ? "spot" : "on-demand";
    labels[kCategoryKey] = shape.category;
    labels[kGenerationKey] = std::to_string(shape.generation);
    labels[labels::kNodePool] = pool.name;
    labels[labels::kInitialized] = "true";
    labels[labels::kRegistered] = "true";
    labels[kTierKey] = pool.tier;
    if (!pool.team.empty()) labels[kTeamKey] = pool.team;
    if (pool.dedicated) {
      *node->mutable_spec()->add_taints() =
          MakeTaint("dedicated", pool.name, "NoSchedule");
    }
    auto& capacity = *node->mutable_status()->mutable_capacity();
    capacity["cpu"] = std::to_string(shape.cpu);
    capacity["memory"] = std::to_string(shape.memory_gi) + "Gi";
    capacity["pods"] = std::to_string(shape.cpu * 8);
    auto& allocatable = *node->mutable_status()->mutable_allocatable();
    allocatable["cpu"] = std::to_string(shape.cpu * 1000 - 80) + "m";
    allocatable["memory"] = std::to_string(shape.memory_gi * 1024 - 256) + "Mi";
    allocatable["pods"] = std::to_string(shape.cpu * 8);
    const int bound = static_cast<int>(rng.Below(4));
    for (int b = 0; b < bound; ++b) {
      v1::Pod pod = MakePod(name + "-bound-" + std::to_string(b), "default",
                            rng.Pick<std::string>({"100m", "250m", "500m"}),
                            rng.Pick<std::string>({"128Mi", "512Mi"}));
      const std::string app = rng.Pick(kApps);
      (*pod.mutable_metadata()->mutable_labels())["app"] = app;
      if (rng.Chance(1, 4)) {
        *pod.mutable_spec()
             ->mutable_affinity()
             ->mutable_pod_anti_affinity()
             ->add_required_during_scheduling_ignored_during_execution() =
            AffinityTerm(app,
                         rng.Chance(1, 2) ? labels::kHostname : labels::kZone);
      }
      pod.mutable_spec()->set_node_name(name);
      pod.mutable_status()->clear_conditions();
      pod.mutable_status()->set_phase("Running");
      *request.add_pods() = std::move(pod);
    }
  }

  const int ds_count = static_cast<int>(rng.Below(options.max_daemon_sets + 1));
  for (int d = 0; d < ds_count; ++d) {
    *request.add_daemon_sets() = RandomDaemonSet(rng, d);
  }

  const int pod_count =
      1 + static_cast<int>(rng.Below(std::max(1, options.max_pending_pods)));
  for (int p = 0; p < pod_count; ++p) {
    v1::Pod pod = MakePod("pod-" + std::to_string(p),
                          rng.Chance(1, 5) ? "team-b" : "default",
                          rng.Pick(kCpu), rng.Pick(kMemory));
    Decorate(rng, pools, pod);
    *request.add_pods() = std::move(pod);
  }

  if (rng.Chance(1, 3)) {
    v1::Deployment* deployment = request.add_deployments();
    deployment->set_api_version("apps/v1");
    deployment->set_kind("Deployment");
    deployment->mutable_metadata()->set_name("deploy");
    deployment->mutable_metadata()->set_namespace_("default");
    deployment->mutable_spec()->set_replicas(1 +
                                             static_cast<int>(rng.Below(3)));
    *deployment->mutable_spec()->mutable_selector() =
        MatchLabels({{"app", "deploy"}});
    v1::PodTemplateSpec* tmpl = deployment->mutable_spec()->mutable_template_();
    v1::Pod prototype =
        MakePod("", "default", rng.Pick(kCpu), rng.Pick(kMemory));
    Decorate(rng, pools, prototype);
    (*prototype.mutable_metadata()->mutable_labels())["app"] = "deploy";
    *tmpl->mutable_metadata()->mutable_labels() = prototype.metadata().labels();
    *tmpl->mutable_spec() = prototype.spec();
  }
  return request;
}

}  // namespace nodeplan::workload
