// Runs Karpenter's disruption pass on the workshop's second act (its
// NodePools and NodeClass plus scale-in/cluster.yaml) with the C++ API, and
// prints the decision.
//
//   disrupt_cpp <examples/workshop directory>

#include "nodeplan/disrupt.h"

#include <cstdio>
#include <string>

#include "nodeplan/manifest.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <examples/workshop directory>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  nodeplan::v1::LoadOptions options;
  absl::StatusOr<nodeplan::v1::ManifestSet> m = nodeplan::LoadManifestFiles(
      {dir + "/nodepool-default.yaml", dir + "/nodepool-general-purpose.yaml",
       dir + "/nodeclass-default.yaml", dir + "/scale-in"},
      options);
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", std::string(m.status().message()).c_str());
    return 1;
  }
  nodeplan::v1::DisruptRequest request;
  *request.mutable_node_pools() = m->node_pools();
  *request.mutable_node_classes() = m->node_classes();
  *request.mutable_node_claims() = m->node_claims();
  *request.mutable_nodes() = m->nodes();
  *request.mutable_pods() = m->pods();
  *request.mutable_pod_disruption_budgets() = m->pod_disruption_budgets();
  request.set_catalog_ref("aws");
  request.set_now("2026-12-02T12:00:00Z");
  absl::StatusOr<nodeplan::v1::DisruptResponse> decision =
      nodeplan::Disrupt(request);
  if (!decision.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(decision.status().message()).c_str());
    return 1;
  }
  std::printf("decision by %s\n", decision->library_version().c_str());
  for (const auto& cmd : decision->commands()) {
    std::printf("command method=%s reason=%s decision=%s savings=%.4f/hour\n",
                cmd.method().c_str(), cmd.reason().c_str(),
                cmd.decision().c_str(), cmd.savings_per_hour());
    for (const auto& c : cmd.candidates()) {
      std::printf("candidate %s nodepool=%s type=%s price=%.4f pods=%d\n",
                  c.node().c_str(), c.node_pool().c_str(),
                  c.instance_type().c_str(), c.price(), c.pods_size());
    }
  }
  std::printf("total commands=%d nodes=%d\n", decision->commands_size(),
              decision->candidates_size());
  return 0;
}
