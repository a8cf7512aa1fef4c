// nodeplan_load_manifests: LoadManifestsRequest -> ManifestSet.

#include "nodeplan/manifest.h"

#include "nodeplan/c_api.h"
#include "nodeplan/v1/manifest.pb.h"
#include "shim.h"

extern "C" int nodeplan_load_manifests(const void* request, size_t request_len,
                                       void** response, size_t* response_len,
                                       char** error) {
  using nodeplan::v1::LoadManifestsRequest;
  using nodeplan::v1::ManifestSet;
  return nodeplan::capi::ParseAndCall<LoadManifestsRequest, ManifestSet>(
      request, request_len, {response, response_len, error},
      [](const LoadManifestsRequest& req) {
        return nodeplan::LoadManifests(req.text(), req.options());
      });
}
