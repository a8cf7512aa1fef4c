// nodeplan_validate: ValidateRequest -> ValidateResponse.

#include "nodeplan/validate.h"

#include "nodeplan/c_api.h"
#include "nodeplan/v1/manifest.pb.h"
#include "shim.h"

extern "C" int nodeplan_validate(const void* request, size_t request_len,
                                 void** response, size_t* response_len,
                                 char** error) {
  using nodeplan::v1::ValidateRequest;
  using nodeplan::v1::ValidateResponse;
  return nodeplan::capi::ParseAndCall<ValidateRequest, ValidateResponse>(
      request, request_len, {response, response_len, error},
      [](const ValidateRequest& req) {
        return nodeplan::Validate(req.manifests());
      });
}
