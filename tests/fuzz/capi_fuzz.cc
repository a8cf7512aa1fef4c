// Raw bytes into every C ABI entry point: the first byte picks the entry,
// the rest is the request. Whatever the bytes, a call returns a status
// (never crashes, throws or aborts), sets its outputs consistently, and a
// response or error it returns can be freed.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "nodeplan/c_api.h"

namespace {

// A call's outputs: exactly one of response and error on return.
void Check(int code, void* response, size_t response_len, char* error) {
  if (code == NODEPLAN_OK) {
    if (error != nullptr) std::abort();
  } else if (response != nullptr || response_len != 0 || error == nullptr) {
    std::abort();
  }
  nodeplan_free(response);
  nodeplan_free(error);
}

using Entry = int (*)(const void*, size_t, void**, size_t*, char**);
constexpr Entry kEntries[] = {nodeplan_schedule, nodeplan_load_manifests,
                              nodeplan_validate, nodeplan_disrupt,
                              nodeplan_validate_command};
constexpr size_t kPlain = sizeof(kEntries) / sizeof(kEntries[0]);

// Splits the request at its middle: the first half builds the handle, the
// second is the call on it.
void Snapshot(const uint8_t* data, size_t size) {
  nodeplan_snapshot* snapshot = nullptr;
  char* error = nullptr;
  const size_t half = size / 2;
  int code = nodeplan_snapshot_new(data, half, &snapshot, &error);
  if (code != NODEPLAN_OK) {
    if (snapshot != nullptr || error == nullptr) std::abort();
    nodeplan_free(error);
    return;
  }
  void* response = nullptr;
  size_t len = 0;
  code = nodeplan_snapshot_schedule(snapshot, data + half, size - half,
                                    &response, &len, &error);
  Check(code, response, len, error);
  nodeplan_snapshot_free(snapshot);
}

void Cluster(const uint8_t* data, size_t size) {
  nodeplan_cluster* cluster = nullptr;
  char* error = nullptr;
  const size_t third = size / 3;
  int code = nodeplan_cluster_new(data, third, &cluster, &error);
  if (code != NODEPLAN_OK) {
    if (cluster != nullptr || error == nullptr) std::abort();
    nodeplan_free(error);
    return;
  }
  void* response = nullptr;
  size_t len = 0;
  code = nodeplan_cluster_update(cluster, data + third, third, &response, &len,
                                 &error);
  Check(code, response, len, error);
  response = nullptr;
  error = nullptr;
  code = nodeplan_cluster_schedule(cluster, data + 2 * third, size - 2 * third,
                                   &response, &len, &error);
  Check(code, response, len, error);
  response = nullptr;
  error = nullptr;
  code = nodeplan_cluster_disrupt(cluster, data + 2 * third, size - 2 * third,
                                  &response, &len, &error);
  Check(code, response, len, error);
  nodeplan_cluster_free(cluster);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t which = data[0] % (kPlain + 2);
  ++data;
  --size;
  if (which < kPlain) {
    void* response = nullptr;
    size_t len = 0;
    char* error = nullptr;
    // The call first: its outputs are read after it returns.
    const int code = kEntries[which](data, size, &response, &len, &error);
    Check(code, response, len, error);
  } else if (which == kPlain) {
    Snapshot(data, size);
  } else {
    Cluster(data, size);
  }
  return 0;
}
