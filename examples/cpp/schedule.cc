// Plans the seed workshop (its NodePool and NodeClass) plus a three-replica
// Deployment with the C++ API, and prints the plan.
//
//   schedule_cpp <examples/workshop directory>
//
// C++ programs link the library (nodeplan_core) and call nodeplan::Schedule
// directly; the C ABI is for other languages.

#include "nodeplan/schedule.h"

#include <cstdio>
#include <string>

#include "nodeplan/manifest.h"
#include "nodeplan/v1/schedule.pb.h"

namespace {

constexpr char kDeployment[] = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        resources: {requests: {cpu: '1', memory: 1Gi}}
)";

void PrintPlan(const nodeplan::v1::ScheduleResponse& plan) {
  std::printf("plan by %s\n", plan.library_version().c_str());
  int placed = 0;
  for (const auto& claim : plan.new_node_claims()) {
    std::printf(
        "nodeclaim %s nodepool=%s type=%s zone=%s capacity=%s price=%.4f "
        "pods=%d\n",
        claim.name().c_str(), claim.node_pool().c_str(),
        claim.launch().instance_type().c_str(), claim.launch().zone().c_str(),
        claim.launch().capacity_type().c_str(), claim.launch().price(),
        claim.pods_size());
    placed += claim.pods_size();
  }
  for (const auto& pod : plan.unschedulable()) {
    std::printf("unschedulable %s: %s\n", pod.pod().c_str(),
                pod.reason().c_str());
  }
  std::printf("total nodeclaims=%d pods=%d unschedulable=%d cost=%.4f/hour\n",
              plan.new_node_claims_size(), placed, plan.unschedulable_size(),
              plan.cost());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <examples/workshop directory>\n", argv[0]);
    return 2;
  }
  nodeplan::v1::LoadOptions options;
  auto seed = nodeplan::LoadManifestFiles({argv[1]}, options);
  if (!seed.ok()) {
    std::fprintf(stderr, "%s\n", seed.status().ToString().c_str());
    return 1;
  }
  options.set_source_name("deployment");
  auto workload = nodeplan::LoadManifests(kDeployment, options);
  if (!workload.ok()) {
    std::fprintf(stderr, "%s\n", workload.status().ToString().c_str());
    return 1;
  }

  nodeplan::v1::ScheduleRequest request;
  *request.mutable_node_pools() = seed->node_pools();
  *request.mutable_node_classes() = seed->node_classes();
  *request.mutable_deployments() = workload->deployments();
  request.set_catalog_ref("aws");

  auto plan = nodeplan::Schedule(request);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", plan.status().ToString().c_str());
    return 1;
  }
  PrintPlan(*plan);
  return 0;
}
