// nodeplan_schedule and the snapshot handle.

#include "nodeplan/schedule.h"

#include <memory>
#include <new>
#include <utility>

#include "google/protobuf/arena.h"
#include "nodeplan/c_api.h"
#include "nodeplan/v1/schedule.pb.h"
#include "shim.h"

// The opaque handle: a shared pointer to the immutable compiled snapshot, so
// the C handle owns one reference and nothing else.
struct nodeplan_snapshot {
  std::shared_ptr<const nodeplan::Snapshot> compiled;
};

namespace {

using nodeplan::v1::ScheduleRequest;
using nodeplan::v1::ScheduleResponse;

}  // namespace

extern "C" {

// The request is parsed on an arena of its own and the response is built on
// another (ScheduleOnArena), each freed at once (a large plan's response
// holds hundreds of thousands of strings).
int nodeplan_schedule(const void* request, size_t request_len, void** response,
                      size_t* response_len, char** error) {
  // The response's arena, grown in blocks like the request's so that a
  // large plan costs a few mallocs.
  google::protobuf::Arena arena(
      nodeplan::capi::RequestArenaOptions(request_len));
  return nodeplan::capi::Call(
      {response, response_len, error},
      [&]() -> absl::StatusOr<const ScheduleResponse*> {
        nodeplan::capi::ParsedRequest<ScheduleRequest> req(request,
                                                           request_len);
        if (!req.status().ok()) return req.status();
        return nodeplan::ScheduleOnArena(*req, &arena);
      });
}

int nodeplan_snapshot_new(const void* base, size_t base_len,
                          nodeplan_snapshot** snapshot, char** error) {
  if (snapshot != nullptr) *snapshot = nullptr;
  nodeplan::capi::Outputs out{nullptr, nullptr, error};
  nodeplan::capi::ResetOutputs(out);
  try {
    nodeplan::capi::ParsedRequest<ScheduleRequest> req(base, base_len);
    if (!req.status().ok()) return nodeplan::capi::Fail(req.status(), out);
    auto compiled = nodeplan::Snapshot::Compile(*req);
    if (!compiled.ok()) return nodeplan::capi::Fail(compiled.status(), out);
    if (*compiled == nullptr) {
      return nodeplan::capi::Fail(
          absl::InternalError("Snapshot::Compile returned no snapshot"), out);
    }
    if (snapshot != nullptr) {
      *snapshot = new nodeplan_snapshot{std::move(*compiled)};
    }
    return NODEPLAN_OK;
  } catch (...) {
    return nodeplan::capi::FailFromException(std::current_exception(), out);
  }
}

int nodeplan_snapshot_schedule(const nodeplan_snapshot* snapshot,
                               const void* state, size_t state_len,
                               void** response, size_t* response_len,
                               char** error) {
  google::protobuf::Arena arena(  // as in nodeplan_schedule
      nodeplan::capi::RequestArenaOptions(state_len));
  return nodeplan::capi::Call(
      {response, response_len, error},
      [&]() -> absl::StatusOr<const ScheduleResponse*> {
        if (snapshot == nullptr || snapshot->compiled == nullptr) {
          return absl::InvalidArgumentError("snapshot is NULL");
        }
        nodeplan::capi::ParsedRequest<ScheduleRequest> req(state, state_len);
        if (!req.status().ok()) return req.status();
        return snapshot->compiled->ScheduleOnArena(*req, &arena);
      });
}

void nodeplan_snapshot_free(nodeplan_snapshot* snapshot) { delete snapshot; }

}  // extern "C"
