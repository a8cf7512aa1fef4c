#ifndef NODEPLAN_TESTS_HARDENING_INPUTS_H_
#define NODEPLAN_TESTS_HARDENING_INPUTS_H_

// Helpers for the hostile-input tests: manifests as YAML text into a
// ScheduleRequest, and a stopwatch for "answers quickly".

#include <chrono>
#include <string>

#include "gtest/gtest.h"
#include "nodeplan/manifest.h"
#include "nodeplan/v1/schedule.pb.h"

namespace nodeplan::hardening {

inline v1::ManifestSet MustLoad(const std::string& yaml) {
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(yaml, v1::LoadOptions());
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? *set : v1::ManifestSet();
}

// The objects a ScheduleRequest takes, as the CLI copies them; the first
// Catalog document (if any) is the request's catalog.
inline v1::ScheduleRequest RequestFrom(const v1::ManifestSet& set) {
  v1::ScheduleRequest r;
  *r.mutable_node_pools() = set.node_pools();
  *r.mutable_node_classes() = set.node_classes();
  *r.mutable_node_overlays() = set.node_overlays();
  *r.mutable_nodes() = set.nodes();
  *r.mutable_node_claims() = set.node_claims();
  *r.mutable_pods() = set.pods();
  *r.mutable_deployments() = set.deployments();
  if (set.catalogs_size() > 0) *r.mutable_catalog() = set.catalogs(0);
  return r;
}

inline v1::ScheduleRequest RequestFromYaml(const std::string& yaml) {
  return RequestFrom(MustLoad(yaml));
}

class Stopwatch {
 public:
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
};

// A NodePool and a two-CPU catalog: the rest of a request around the input
// under test.
inline constexpr char kPoolYaml[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
)";

inline constexpr char kCatalogYaml[] = R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.1}
)";

}  // namespace nodeplan::hardening

#endif  // NODEPLAN_TESTS_HARDENING_INPUTS_H_
