// nodeplan_disrupt: DisruptRequest -> DisruptResponse, and
// nodeplan_validate_command: ValidateCommandRequest -> ValidateCommandResponse.

#include "nodeplan/disrupt.h"

#include "nodeplan/c_api.h"
#include "nodeplan/v1/disrupt.pb.h"
#include "shim.h"

extern "C" {

int nodeplan_disrupt(const void* request, size_t request_len, void** response,
                     size_t* response_len, char** error) {
  using nodeplan::v1::DisruptRequest;
  using nodeplan::v1::DisruptResponse;
  return nodeplan::capi::ParseAndCall<DisruptRequest, DisruptResponse>(
      request, request_len, {response, response_len, error},
      [](const DisruptRequest& req) { return nodeplan::Disrupt(req); });
}

int nodeplan_validate_command(const void* request, size_t request_len,
                              void** response, size_t* response_len,
                              char** error) {
  using nodeplan::v1::ValidateCommandRequest;
  using nodeplan::v1::ValidateCommandResponse;
  return nodeplan::capi::ParseAndCall<ValidateCommandRequest,
                                      ValidateCommandResponse>(
      request, request_len, {response, response_len, error},
      [](const ValidateCommandRequest& req) {
        return nodeplan::ValidateCommand(req);
      });
}

}  // extern "C"
