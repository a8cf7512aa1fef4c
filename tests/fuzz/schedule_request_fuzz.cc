// Structure-aware: ScheduleRequests mutated field by field (proto_mutator.h)
// from the random clusters of workload::RandomCluster, so that the scheduler
// itself is reached, not only the decoder. Each input must schedule or be
// refused with an error, the same bytes twice (determinism) and, unless
// NODEPLAN_FUZZ_NO_VERIFY is set, obey every rule of nodeplan::Verify.
//
// Speed: a request without a catalog of its own plans on the embedded AWS
// catalog, whose ~800 types Schedule translates into the scheduler's model
// on every call (about 35 ms in the release build, ten times that under
// ASan): two such calls per input held the target to 10-30 executions per
// second. Most mutations leave the compiled half of the request (NodePools,
// NodeClasses, catalog, overlays, unavailable offerings) unchanged, so the
// target keeps the last few Snapshots per process, keyed by those fields'
// bytes: an input whose compiled half was seen before is scheduled twice
// through its cached Snapshot; a new one is scheduled once through a fresh
// Snapshot and once with Schedule, which must give the same answer.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "fuzz_util.h"
#include "nodeplan/schedule.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"
#include "proto_mutator.h"

namespace {

// One seed in four asks for the Optimized packing: its capped and merged
// plans, kept without a run-time Verify where they hold by construction
// (docs/OPTIMIZE.md), are verified here.
nodeplan::v1::ScheduleRequest Seed(unsigned seed) {
  nodeplan::workload::RandomClusterOptions options;
  options.max_pending_pods = 8;
  nodeplan::v1::ScheduleRequest r =
      nodeplan::workload::RandomCluster(seed, options);
  if (seed % 4 == 0) r.mutable_options()->set_packing("Optimized");
  return r;
}

using nodeplan::Snapshot;
using nodeplan::v1::ScheduleRequest;
using nodeplan::v1::ScheduleResponse;

// The fields Snapshot::Compile takes; the rest goes to Snapshot::Schedule.
std::pair<ScheduleRequest, ScheduleRequest> Split(const ScheduleRequest& r) {
  ScheduleRequest base, state = r;
  *base.mutable_node_pools() = r.node_pools();
  *base.mutable_node_classes() = r.node_classes();
  if (r.has_catalog()) *base.mutable_catalog() = r.catalog();
  base.set_catalog_ref(r.catalog_ref());
  *base.mutable_node_overlays() = r.node_overlays();
  *base.mutable_unavailable_offerings() = r.unavailable_offerings();
  state.clear_node_pools();
  state.clear_node_classes();
  state.clear_catalog();
  state.clear_catalog_ref();
  state.clear_node_overlays();
  state.clear_unavailable_offerings();
  return {std::move(base), std::move(state)};
}

// The last few compiled Snapshots (or compile errors), by base bytes.
class SnapshotCache {
 public:
  using Entry = absl::StatusOr<std::shared_ptr<const Snapshot>>;
  // The entry for `base`; `hit` says whether it was cached.
  Entry Get(const ScheduleRequest& base, bool* hit) {
    const std::string key = nodeplan::fuzz::Bytes(base);
    for (const auto& [k, entry] : entries_) {
      if (k == key) {
        *hit = true;
        return entry;
      }
    }
    *hit = false;
    entries_.emplace_front(key, Snapshot::Compile(base));
    if (entries_.size() > kSize) entries_.pop_back();
    return entries_.front().second;
  }

 private:
  static constexpr size_t kSize = 4;
  std::deque<std::pair<std::string, Entry>> entries_;
};

absl::StatusOr<ScheduleResponse> Through(const SnapshotCache::Entry& snapshot,
                                         const ScheduleRequest& state) {
  if (!snapshot.ok()) return snapshot.status();
  return (*snapshot)->Schedule(state);
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
  static SnapshotCache* cache = new SnapshotCache();
  const auto [base, state] = Split(request);
  bool hit = false;
  const SnapshotCache::Entry snapshot = cache->Get(base, &hit);
  absl::StatusOr<ScheduleResponse> first = Through(snapshot, state);
  absl::StatusOr<ScheduleResponse> second =
      hit ? Through(snapshot, state) : nodeplan::Schedule(request);
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
