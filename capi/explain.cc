// nodeplan_explain: ExplainRequest -> ExplainResponse.

#include "nodeplan/explain.h"

#include "nodeplan/c_api.h"
#include "nodeplan/v1/explain.pb.h"
#include "shim.h"

extern "C" int nodeplan_explain(const void* request, size_t request_len,
                                void** response, size_t* response_len,
                                char** error) {
  using nodeplan::v1::ExplainRequest;
  using nodeplan::v1::ExplainResponse;
  return nodeplan::capi::ParseAndCall<ExplainRequest, ExplainResponse>(
      request, request_len, {response, response_len, error},
      [](const ExplainRequest& req) { return nodeplan::Explain(req); });
}
