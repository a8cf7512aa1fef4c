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

// Request and response live on one arena, freed at once after the response
// is serialized (a large plan's response holds hundreds of thousands of
// strings).
int nodeplan_schedule(const void* request, size_t request_len, void** response,
                      size_t* response_len, char** error) {
  google::protobuf::Arena arena;
  return nodeplan::capi::Call(
      {response, response_len, error},
      [&]() -> absl::StatusOr<ScheduleResponse*> {
        auto* req =
            google::protobuf::Arena::CreateMessage<ScheduleRequest>(&arena);
        absl::Status st =
            nodeplan::capi::ParseRequest(request, request_len, *req);
        if (!st.ok()) return st;
        return nodeplan::ScheduleOnArena(*req, &arena);
      });
}

int nodeplan_snapshot_new(const void* base, size_t base_len,
                          nodeplan_snapshot** snapshot, char** error) {
  if (snapshot != nullptr) *snapshot = nullptr;
  nodeplan::capi::Outputs out{nullptr, nullptr, error};
  nodeplan::capi::ResetOutputs(out);
  try {
    ScheduleRequest req;
    absl::Status st = nodeplan::capi::ParseRequest(base, base_len, req);
    if (!st.ok()) return nodeplan::capi::Fail(st, out);
    auto compiled = nodeplan::Snapshot::Compile(req);
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
  google::protobuf::Arena arena;  // as in nodeplan_schedule
  return nodeplan::capi::Call(
      {response, response_len, error},
      [&]() -> absl::StatusOr<ScheduleResponse*> {
        if (snapshot == nullptr || snapshot->compiled == nullptr) {
          return absl::InvalidArgumentError("snapshot is NULL");
        }
        auto* req =
            google::protobuf::Arena::CreateMessage<ScheduleRequest>(&arena);
        absl::Status st = nodeplan::capi::ParseRequest(state, state_len, *req);
        if (!st.ok()) return st;
        return snapshot->compiled->ScheduleOnArena(*req, &arena);
      });
}

void nodeplan_snapshot_free(nodeplan_snapshot* snapshot) { delete snapshot; }

}  // extern "C"
