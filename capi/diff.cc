// nodeplan_diff: DiffRequest -> DiffResponse.

#include "nodeplan/diff.h"

#include "nodeplan/c_api.h"
#include "nodeplan/v1/diff.pb.h"
#include "shim.h"

extern "C" int nodeplan_diff(const void* request, size_t request_len,
                             void** response, size_t* response_len,
                             char** error) {
  using nodeplan::v1::DiffRequest;
  using nodeplan::v1::DiffResponse;
  return nodeplan::capi::ParseAndCall<DiffRequest, DiffResponse>(
      request, request_len, {response, response_len, error},
      [](const DiffRequest& req) { return nodeplan::Diff(req); });
}
