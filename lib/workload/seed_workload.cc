// The workshop's seed NodePool on the embedded AWS catalog, with a few
// thousand mixed pending pods.

#include <string>
#include <vector>

#include "nodeplan/labels.h"
#include "nodeplan/workload.h"
#include "workload/builders.h"

namespace nodeplan::workload {
namespace {}  // namespace

v1::NodePool WorkshopNodePool() {
  v1::NodePool pool;
  pool.set_api_version("karpenter.sh/v1");
  pool.set_kind("NodePool");
  pool.mutable_metadata()->set_name("general-purpose");
  (*pool.mutable_metadata()->mutable_labels())["app.kubernetes.io/managed-by"] =
      "eks";
  v1::NodePoolSpec* spec = pool.mutable_spec();
  spec->mutable_disruption()->set_consolidation_policy(
      "WhenEmptyOrUnderutilized");
  spec->mutable_disruption()->set_consolidate_after("30s");
  spec->mutable_disruption()->add_budgets()->set_nodes("10%");
  v1::NodeClaimTemplateSpec* tmpl = spec->mutable_template_()->mutable_spec();
  tmpl->set_expire_after("336h");
  tmpl->set_termination_grace_period("24h0m0s");
  tmpl->mutable_node_class_ref()->set_group("eks.amazonaws.com");
  tmpl->mutable_node_class_ref()->set_kind("NodeClass");
  tmpl->mutable_node_class_ref()->set_name("default");
  *tmpl->add_requirements() =
      Requirement(labels::kCapacityType, "In", {"on-demand"});
  *tmpl->add_requirements() =
      Requirement("eks.amazonaws.com/instance-category", "In", {"c", "m", "r"});
  *tmpl->add_requirements() =
      Requirement("eks.amazonaws.com/instance-generation", "Gt", {"4"});
  *tmpl->add_requirements() = Requirement(labels::kArch, "In", {"amd64"});
  *tmpl->add_requirements() = Requirement(labels::kOs, "In", {"linux"});
  spec->mutable_template_()->add_present_empty_fields("metadata");
  return pool;
}

v1::ScheduleRequest SeedNodePoolWorkload(int pods, uint64_t seed) {
  Rng rng(seed);
  v1::ScheduleRequest request;
  request.set_catalog_ref("aws");
  *request.add_node_pools() = WorkshopNodePool();
  const std::vector<std::string> zones = {"us-east-1a", "us-east-1b",
                                          "us-east-1c"};
  for (int i = 0; i < pods; ++i) {
    const uint64_t kind = rng.Below(100);
    v1::Pod pod;
    if (kind < 40) {  // web: zone spread per service
      const std::string service = "web-" + std::to_string(rng.Below(8));
      pod = MakePod(service + "-" + std::to_string(i), "web",
                    rng.Pick<std::string>({"250m", "500m", "1"}),
                    rng.Pick<std::string>({"512Mi", "1Gi"}));
      (*pod.mutable_metadata()->mutable_labels())["app"] = service;
      v1::TopologySpreadConstraint* spread =
          pod.mutable_spec()->add_topology_spread_constraints();
      spread->set_max_skew(1);
      spread->set_topology_key(labels::kZone);
      spread->set_when_unsatisfiable("DoNotSchedule");
      *spread->mutable_label_selector() = MatchLabels({{"app", service}});
    } else if (kind < 70) {  // workers
      pod = MakePod("worker-" + std::to_string(i), "jobs",
                    rng.Pick<std::string>({"1", "2", "4"}),
                    rng.Pick<std::string>({"2Gi", "4Gi", "8Gi"}));
      (*pod.mutable_metadata()->mutable_labels())["app"] = "worker";
    } else if (kind < 80) {  // caches: one per node
      pod = MakePod("cache-" + std::to_string(i), "data", "2",
                    rng.Pick<std::string>({"16Gi", "32Gi"}));
      (*pod.mutable_metadata()->mutable_labels())["app"] = "cache";
      v1::PodAffinityTerm* term =
          pod.mutable_spec()
              ->mutable_affinity()
              ->mutable_pod_anti_affinity()
              ->add_required_during_scheduling_ignored_during_execution();
      *term->mutable_label_selector() = MatchLabels({{"app", "cache"}});
      term->set_topology_key(labels::kHostname);
    } else if (kind < 95) {  // batch pinned to a zone
      pod = MakePod("batch-" + std::to_string(i), "jobs",
                    rng.Pick<std::string>({"500m", "1"}),
                    rng.Pick<std::string>({"1Gi", "2Gi"}));
      (*pod.mutable_metadata()->mutable_labels())["app"] = "batch";
      (*pod.mutable_spec()->mutable_node_selector())[labels::kZone] =
          rng.Pick(zones);
    } else if (kind < 98) {  // arm64: the seed NodePool is amd64 only
      pod = MakePod("arm-" + std::to_string(i), "jobs", "500m", "1Gi");
      (*pod.mutable_spec()->mutable_node_selector())[labels::kArch] = "arm64";
    } else {  // GPU: categories c/m/r carry none
      pod = MakePod("gpu-" + std::to_string(i), "ml", "4", "16Gi");
      (*pod.mutable_spec()
            ->mutable_containers(0)
            ->mutable_resources()
            ->mutable_requests())["nvidia.com/gpu"] = "1";
    }
    *request.add_pods() = std::move(pod);
  }
  return request;
}

v1::ScheduleRequest PlainSeedWorkload(int pods) {
  v1::ScheduleRequest r;
  *r.add_node_pools() = WorkshopNodePool();
  r.add_node_classes()->mutable_metadata()->set_name("default");
  r.set_catalog_ref("aws");
  const char* shapes[][2] = {{"250m", "256Mi"}, {"1", "2Gi"}, {"2", "1Gi"}};
  for (int s = 0; s < 3; ++s) {
    v1::Deployment* d = r.add_deployments();
    d->mutable_metadata()->set_name("app-" + std::to_string(s));
    d->mutable_metadata()->set_namespace_("default");
    d->mutable_spec()->set_replicas(pods / 3);
    v1::Container* c = d->mutable_spec()
                           ->mutable_template_()
                           ->mutable_spec()
                           ->add_containers();
    c->set_name("c");
    (*c->mutable_resources()->mutable_requests())["cpu"] = shapes[s][0];
    (*c->mutable_resources()->mutable_requests())["memory"] = shapes[s][1];
  }
  return r;
}

}  // namespace nodeplan::workload
