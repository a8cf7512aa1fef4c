// The cluster handle: nodeplan_cluster_new, _update, _schedule, _disrupt,
// _free over nodeplan::Cluster (include/nodeplan/cluster.h).

#include "nodeplan/cluster.h"

#include <memory>
#include <utility>

#include "nodeplan/c_api.h"
#include "shim.h"

struct nodeplan_cluster {
  std::unique_ptr<nodeplan::Cluster> cluster;
};

namespace {

using nodeplan::v1::ClusterUpdate;
using nodeplan::v1::ClusterUpdateResponse;
using nodeplan::v1::DisruptRequest;
using nodeplan::v1::DisruptResponse;
using nodeplan::v1::ScheduleRequest;
using nodeplan::v1::ScheduleResponse;

absl::Status NullCluster() {
  return absl::InvalidArgumentError("cluster is NULL");
}

}  // namespace

extern "C" {

int nodeplan_cluster_new(const void* update, size_t update_len,
                         nodeplan_cluster** cluster, char** error) {
  if (cluster != nullptr) *cluster = nullptr;
  nodeplan::capi::Outputs out{nullptr, nullptr, error};
  nodeplan::capi::ResetOutputs(out);
  try {
    if (cluster == nullptr) {
      return nodeplan::capi::Fail(
          absl::InvalidArgumentError("cluster (the out-parameter) is NULL"),
          out);
    }
    nodeplan::capi::ParsedRequest<ClusterUpdate> req(update, update_len);
    if (!req.status().ok()) return nodeplan::capi::Fail(req.status(), out);
    absl::StatusOr<std::unique_ptr<nodeplan::Cluster>> created =
        nodeplan::Cluster::Create(*req);
    if (!created.ok()) return nodeplan::capi::Fail(created.status(), out);
    *cluster = new nodeplan_cluster{*std::move(created)};
    return NODEPLAN_OK;
  } catch (...) {
    return nodeplan::capi::FailFromException(std::current_exception(), out);
  }
}

int nodeplan_cluster_update(nodeplan_cluster* cluster, const void* update,
                            size_t update_len, void** response,
                            size_t* response_len, char** error) {
  return nodeplan::capi::ParseOwnedAndCall<ClusterUpdate,
                                           ClusterUpdateResponse>(
      update, update_len, {response, response_len, error},
      [&](ClusterUpdate&& req) -> absl::StatusOr<ClusterUpdateResponse> {
        if (cluster == nullptr || cluster->cluster == nullptr) {
          return NullCluster();
        }
        return cluster->cluster->Update(std::move(req));
      });
}

int nodeplan_cluster_schedule(const nodeplan_cluster* cluster,
                              const void* request, size_t request_len,
                              void** response, size_t* response_len,
                              char** error) {
  return nodeplan::capi::ParseAndCall<ScheduleRequest, ScheduleResponse>(
      request, request_len, {response, response_len, error},
      [&](const ScheduleRequest& req) -> absl::StatusOr<ScheduleResponse> {
        if (cluster == nullptr || cluster->cluster == nullptr) {
          return NullCluster();
        }
        return cluster->cluster->Schedule(req);
      });
}

int nodeplan_cluster_disrupt(const nodeplan_cluster* cluster,
                             const void* request, size_t request_len,
                             void** response, size_t* response_len,
                             char** error) {
  return nodeplan::capi::ParseAndCall<DisruptRequest, DisruptResponse>(
      request, request_len, {response, response_len, error},
      [&](const DisruptRequest& req) -> absl::StatusOr<DisruptResponse> {
        if (cluster == nullptr || cluster->cluster == nullptr) {
          return NullCluster();
        }
        return cluster->cluster->Disrupt(req);
      });
}

void nodeplan_cluster_free(nodeplan_cluster* cluster) { delete cluster; }

}  // extern "C"
