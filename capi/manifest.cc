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
  return nodeplan::capi::Call(
      {response, response_len, error}, [&]() -> absl::StatusOr<ManifestSet> {
        LoadManifestsRequest req;
        absl::Status st =
            nodeplan::capi::ParseRequest(request, request_len, req);
        if (!st.ok()) return st;
        return nodeplan::LoadManifests(req.text(), req.options());
      });
}
