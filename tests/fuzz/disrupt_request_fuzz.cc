// Structure-aware: DisruptRequests mutated field by field (proto_mutator.h)
// from workload::RandomDisruptionCluster. Each input must decide or be
// refused with an error, the same bytes twice, and, unless
// NODEPLAN_FUZZ_NO_VERIFY is set, obey nodeplan::VerifyDisruption.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"
#include "proto_mutator.h"

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                          size_t max_size, unsigned seed) {
  nodeplan::v1::DisruptRequest request;
  if (size == 0 || !request.ParseFromArray(data, static_cast<int>(size))) {
    request = nodeplan::workload::RandomDisruptionCluster(seed);
    // One seed in four asks for the optimized consolidation too.
    if (seed % 4 == 0) request.mutable_options()->set_packing("Optimized");
  }
  nodeplan::fuzz::ProtoMutator(seed).Mutate(&request);
  const std::string out = nodeplan::fuzz::Bytes(request);
  if (out.size() > max_size) return size;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nodeplan::v1::DisruptRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<nodeplan::v1::DisruptResponse> first =
      nodeplan::Disrupt(request);
  absl::StatusOr<nodeplan::v1::DisruptResponse> second =
      nodeplan::Disrupt(request);
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
        nodeplan::VerifyDisruption(request, *first);
    if (!found.empty()) {
      for (const nodeplan::Violation& v : found) {
        std::fprintf(stderr, "%s\n", nodeplan::FormatViolation(v).c_str());
      }
      std::abort();
    }
  }
  return 0;
}
