#ifndef NODEPLAN_TESTS_HARDENING_INPUTS_H_
#define NODEPLAN_TESTS_HARDENING_INPUTS_H_

// Helpers for the hostile-input tests: manifests as YAML text into a
// ScheduleRequest, and a stopwatch for "answers quickly".

#include <chrono>
#include <string>

#include "gtest/gtest.h"
#include "nodeplan/manifest.h"
#include "nodeplan/v1/disrupt.pb.h"
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

// The same cluster as a DisruptRequest (options aside: the two requests'
// options differ), so one hostile input is fed to Schedule and Disrupt.
inline v1::DisruptRequest DisruptFrom(const v1::ScheduleRequest& r) {
  v1::DisruptRequest d;
  *d.mutable_node_pools() = r.node_pools();
  *d.mutable_node_classes() = r.node_classes();
  if (r.has_catalog()) *d.mutable_catalog() = r.catalog();
  d.set_catalog_ref(r.catalog_ref());
  *d.mutable_node_overlays() = r.node_overlays();
  *d.mutable_nodes() = r.nodes();
  *d.mutable_node_claims() = r.node_claims();
  *d.mutable_pods() = r.pods();
  *d.mutable_daemon_sets() = r.daemon_sets();
  *d.mutable_persistent_volume_claims() = r.persistent_volume_claims();
  *d.mutable_persistent_volumes() = r.persistent_volumes();
  *d.mutable_storage_classes() = r.storage_classes();
  *d.mutable_csi_nodes() = r.csi_nodes();
  *d.mutable_unavailable_offerings() = r.unavailable_offerings();
  *d.mutable_deployments() = r.deployments();
  *d.mutable_namespaces() = r.namespaces();
  return d;
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
