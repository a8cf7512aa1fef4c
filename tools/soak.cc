// nodeplan_soak: invariants at volume. Schedules many seeded random clusters
// (workload::RandomCluster) on several threads and checks, for each:
//   - Verify finds no violation;
//   - the same request scheduled again gives the same bytes;
//   - a second pass, seeds in reverse order on other threads, gives the same
//     bytes as the first (no state shared between calls or threads);
//   - the request with its pods, nodes, NodeClaims, DaemonSets and
//     Deployments in another order gives the same bytes (reported apart:
//     --reorder=check fails on it, --reorder=report only counts).
// Not run in CI at full size (100,000 clusters); ctest runs a small one.
//
//   nodeplan_soak [--clusters N] [--threads T] [--first-seed S]
//                 [--reorder check|report|off]

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "nodeplan/digest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace {

std::string Bytes(const google::protobuf::MessageLite& m) {
  return nodeplan::DeterministicBytes(m);
}

template <typename T>
void Shuffle(google::protobuf::RepeatedPtrField<T>* field,
             std::mt19937_64& rng) {
  for (int i = field->size() - 1; i > 0; --i) {
    field->SwapElements(i, static_cast<int>(rng() % (i + 1)));
  }
}

nodeplan::v1::ScheduleRequest Reordered(nodeplan::v1::ScheduleRequest r,
                                        uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 1);
  Shuffle(r.mutable_pods(), rng);
  Shuffle(r.mutable_nodes(), rng);
  Shuffle(r.mutable_node_claims(), rng);
  Shuffle(r.mutable_daemon_sets(), rng);
  Shuffle(r.mutable_deployments(), rng);
  return r;
}

struct Totals {
  std::atomic<int64_t> done{0}, errors{0}, violations{0}, nondeterministic{0},
      cross_thread{0}, order_dependent{0};
};

struct Config {
  uint64_t clusters = 100000;
  uint64_t first_seed = 0;
  int threads = 2;
  std::string reorder = "check";
};

std::mutex print_mu;
void Report(uint64_t seed, const std::string& what) {
  std::lock_guard<std::mutex> lock(print_mu);
  std::fprintf(stderr, "seed %llu: %s\n", static_cast<unsigned long long>(seed),
               what.c_str());
}

// Pass 1: everything but the cross-thread comparison; digests kept.
void First(const Config& cfg, uint64_t i, std::vector<std::string>& digests,
           Totals& t) {
  const uint64_t seed = cfg.first_seed + i;
  const nodeplan::v1::ScheduleRequest request =
      nodeplan::workload::RandomCluster(seed);
  absl::StatusOr<nodeplan::v1::ScheduleResponse> resp =
      nodeplan::Schedule(request);
  ++t.done;
  if (!resp.ok()) {
    ++t.errors;
    Report(seed, std::string(resp.status().message()));
    return;
  }
  digests[i] = Bytes(*resp);
  for (const nodeplan::Violation& v : nodeplan::Verify(request, *resp)) {
    ++t.violations;
    Report(seed, nodeplan::FormatViolation(v));
  }
  absl::StatusOr<nodeplan::v1::ScheduleResponse> again =
      nodeplan::Schedule(request);
  if (!again.ok() || Bytes(*again) != digests[i]) {
    ++t.nondeterministic;
    Report(seed, "the same request gave different bytes");
  }
  if (cfg.reorder != "off") {
    absl::StatusOr<nodeplan::v1::ScheduleResponse> reordered =
        nodeplan::Schedule(Reordered(request, seed));
    if (!reordered.ok() || Bytes(*reordered) != digests[i]) {
      ++t.order_dependent;
      if (cfg.reorder == "check") {
        Report(seed, "reordered input objects gave different bytes");
      }
    }
  }
}

void Second(const Config& cfg, uint64_t i,
            const std::vector<std::string>& digests, Totals& t) {
  if (digests[i].empty()) return;
  const uint64_t seed = cfg.first_seed + i;
  absl::StatusOr<nodeplan::v1::ScheduleResponse> resp =
      nodeplan::Schedule(nodeplan::workload::RandomCluster(seed));
  if (!resp.ok() || Bytes(*resp) != digests[i]) {
    ++t.cross_thread;
    Report(seed, "another thread, another order of calls: different bytes");
  }
}

template <typename Fn>
void Parallel(int threads, uint64_t n, bool reverse, Fn fn) {
  std::atomic<uint64_t> next{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w) {
    pool.emplace_back([&] {
      for (uint64_t k = next++; k < n; k = next++) fn(reverse ? n - 1 - k : k);
    });
  }
  for (std::thread& th : pool) th.join();
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--clusters") {
      cfg.clusters = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--threads") {
      cfg.threads = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--first-seed") {
      cfg.first_seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--reorder" &&
               (value == "check" || value == "report" || value == "off")) {
      cfg.reorder = value;
    } else {
      std::fprintf(stderr,
                   "usage: nodeplan_soak [--clusters N] [--threads T] "
                   "[--first-seed S] [--reorder check|report|off]\n");
      return 2;
    }
  }
  std::vector<std::string> digests(cfg.clusters);
  Totals t;
  Parallel(cfg.threads, cfg.clusters, false,
           [&](uint64_t i) { First(cfg, i, digests, t); });
  Parallel(cfg.threads, cfg.clusters, true,
           [&](uint64_t i) { Second(cfg, i, digests, t); });
  std::printf(
      "clusters %lld (seeds %llu..%llu), threads %d: scheduler errors %lld, "
      "Verify violations %lld, nondeterministic %lld, cross-thread "
      "differences %lld, order-dependent %lld%s\n",
      static_cast<long long>(t.done.load()),
      static_cast<unsigned long long>(cfg.first_seed),
      static_cast<unsigned long long>(cfg.first_seed + cfg.clusters - 1),
      cfg.threads, static_cast<long long>(t.errors.load()),
      static_cast<long long>(t.violations.load()),
      static_cast<long long>(t.nondeterministic.load()),
      static_cast<long long>(t.cross_thread.load()),
      static_cast<long long>(t.order_dependent.load()),
      cfg.reorder == "off" ? " (not checked)" : "");
  const bool failed = t.errors || t.violations || t.nondeterministic ||
                      t.cross_thread ||
                      (cfg.reorder == "check" && t.order_dependent);
  return failed ? 1 : 0;
}
