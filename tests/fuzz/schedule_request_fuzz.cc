// Structure-aware: ScheduleRequests mutated field by field (proto_mutator.h)
// from the random clusters of workload::RandomCluster, so that the scheduler
// itself is reached, not only the decoder. Each input must schedule or be
// refused with an error, the same bytes twice (determinism) and, unless
// NODEPLAN_FUZZ_NO_VERIFY is set, obey every rule of nodeplan::Verify.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "nodeplan/schedule.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"
#include "proto_mutator.h"

namespace {

nodeplan::v1::ScheduleRequest Seed(unsigned seed) {
  nodeplan::workload::RandomClusterOptions options;
  options.max_pending_pods = 8;
  return nodeplan::workload::RandomCluster(seed, options);
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                          size_t max_size, unsigned seed) {
  nodeplan::v1::ScheduleRequest request;
  if (size == 0 || !request.ParseFromArray(data, static_cast<int>(size))) {
    request = Seed(seed);
  }
  nodeplan::fuzz::ProtoMutator(seed).Mutate(&request);
  const std::string out = nodeplan::fuzz::Bytes(request);
  if (out.size() > max_size) return size;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nodeplan::v1::ScheduleRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<nodeplan::v1::ScheduleResponse> first =
      nodeplan::Schedule(request);
  absl::StatusOr<nodeplan::v1::ScheduleResponse> second =
      nodeplan::Schedule(request);
  if (first.ok() != second.ok()) std::abort();
  if (!first.ok()) {
    if (first.status().message() != second.status().message()) std::abort();
    return 0;
  }
  if (nodeplan::fuzz::Bytes(*first) != nodeplan::fuzz::Bytes(*second)) {
    std::abort();
  }
  if (std::getenv("NODEPLAN_FUZZ_NO_VERIFY") == nullptr) {
    const std::vector<nodeplan::Violation> found =
        nodeplan::Verify(request, *first);
    if (!found.empty()) {
      for (const nodeplan::Violation& v : found) {
        std::fprintf(stderr, "%s\n", nodeplan::FormatViolation(v).c_str());
      }
      std::abort();
    }
  }
  return 0;
}
