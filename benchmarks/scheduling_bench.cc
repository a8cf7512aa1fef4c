// Karpenter's scheduling benchmark (reference §11) on nodeplan: the diverse
// workload over fake.InstanceTypes(400) at 1..20,000 pods, and the
// preference workload (4,000 pods) with preferences respected and ignored.
// The catalog and NodePool are compiled once (Snapshot); each iteration
// schedules the pods from scratch.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>
#include <utility>

#include "google/protobuf/arena.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"
#include "scheduling/model.h"

namespace {

using nodeplan::v1::ScheduleRequest;

// Splits the generated request into the snapshot part and the cluster state
// by moving, so the benchmark holds its pods once (peak RSS is then the
// scheduler's, not three copies of the request).
void Split(ScheduleRequest full, ScheduleRequest* base,
           ScheduleRequest* state) {
  *state = std::move(full);
  base->mutable_node_pools()->Swap(state->mutable_node_pools());
  base->mutable_node_classes()->Swap(state->mutable_node_classes());
  base->mutable_node_overlays()->Swap(state->mutable_node_overlays());
  base->mutable_unavailable_offerings()->Swap(
      state->mutable_unavailable_offerings());
  if (state->has_catalog())
    base->mutable_catalog()->Swap(state->mutable_catalog());
  state->clear_catalog();
  base->set_catalog_ref(state->catalog_ref());
  state->clear_catalog_ref();
}

// kHeap: Snapshot::Schedule, the response returned by value (every string on
// the heap). kArena: Snapshot::ScheduleOnArena, the response built on a
// protobuf Arena that each iteration creates and destroys.
enum class Api { kHeap, kArena };

void Run(benchmark::State& st, ScheduleRequest full, Api api = Api::kHeap) {
  ScheduleRequest base, state;
  Split(std::move(full), &base, &state);
  auto snap = nodeplan::Snapshot::Compile(base);
  if (!snap.ok()) {
    st.SkipWithError(std::string(snap.status().message()).c_str());
    return;
  }
  int nodes = 0, unschedulable = 0;
  auto record = [&](const nodeplan::v1::ScheduleResponse& resp) {
    nodes = resp.new_node_claims_size();
    unschedulable = resp.unschedulable_size();
  };
  for (auto _ : st) {
    if (api == Api::kArena) {
      google::protobuf::Arena arena;
      auto resp = (*snap)->ScheduleOnArena(state, &arena);
      if (!resp.ok()) {
        st.SkipWithError(std::string(resp.status().message()).c_str());
        return;
      }
      record(**resp);
      benchmark::DoNotOptimize(*resp);
      continue;
    }
    auto resp = (*snap)->Schedule(state);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    record(*resp);
    benchmark::DoNotOptimize(resp);
  }
  st.counters["pods"] = state.pods_size();
  st.counters["nodes"] = nodes;
  st.counters["unschedulable"] = unschedulable;
  // Peak resident set of the whole process so far (getrusage ru_maxrss, KiB
  // on Linux): run one benchmark per process (--benchmark_filter) for a
  // figure that belongs to that benchmark alone.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  st.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  st.counters["pods/sec"] = benchmark::Counter(
      static_cast<double>(state.pods_size()) * st.iterations(),
      benchmark::Counter::kIsRate);
}

void BM_Scheduling(benchmark::State& st) {
  Run(st,
      nodeplan::workload::KarpenterBenchmark(static_cast<int>(st.range(0))));
}
BENCHMARK(BM_Scheduling)
    ->Arg(1)
    ->Arg(50)
    ->Arg(100)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

void BM_RespectPreferences(benchmark::State& st) {
  Run(st, nodeplan::workload::PreferenceBenchmark(4000, true));
}
BENCHMARK(BM_RespectPreferences)->Unit(benchmark::kMillisecond);

void BM_IgnorePreferences(benchmark::State& st) {
  Run(st, nodeplan::workload::PreferenceBenchmark(4000, false));
}
BENCHMARK(BM_IgnorePreferences)->Unit(benchmark::kMillisecond);

void BM_SchedulingArena(benchmark::State& st) {
  Run(st, nodeplan::workload::KarpenterBenchmark(static_cast<int>(st.range(0))),
      Api::kArena);
}
BENCHMARK(BM_SchedulingArena)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

// The same without the cost lower bound (options.costBound: Skip): the
// scheduler alone, comparable with figures from before the bound existed.
void BM_SchedulingArenaNoBound(benchmark::State& st) {
  nodeplan::v1::ScheduleRequest request =
      nodeplan::workload::KarpenterBenchmark(static_cast<int>(st.range(0)));
  request.mutable_options()->set_cost_bound("Skip");
  Run(st, request, Api::kArena);
}
BENCHMARK(BM_SchedulingArenaNoBound)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

void BM_RespectPreferencesArena(benchmark::State& st) {
  Run(st, nodeplan::workload::PreferenceBenchmark(4000, true), Api::kArena);
}
BENCHMARK(BM_RespectPreferencesArena)->Unit(benchmark::kMillisecond);

void BM_SeedNodePoolAws(benchmark::State& st) {
  Run(st,
      nodeplan::workload::SeedNodePoolWorkload(static_cast<int>(st.range(0))));
}
BENCHMARK(BM_SeedNodePoolAws)->Arg(3000)->Unit(benchmark::kMillisecond);

// One-shot Schedule of a small random cluster (8 pending pods at most, as
// fuzz_schedule_request seeds it) on catalogRef "aws": the snapshot is
// compiled for every call. _Uncached empties CompileSnapshot's AWS type
// cache first (the cost before it existed).
void OneShotAws(benchmark::State& st, bool cached) {
  nodeplan::workload::RandomClusterOptions options;
  options.max_pending_pods = 8;
  ScheduleRequest r = nodeplan::workload::RandomCluster(1, options);
  r.clear_catalog();
  r.set_catalog_ref("aws");
  for (auto _ : st) {
    if (!cached) nodeplan::scheduling::ClearAwsTypeCache();
    auto resp = nodeplan::Schedule(r);
    benchmark::DoNotOptimize(resp);
  }
}
void BM_OneShotAws(benchmark::State& st) { OneShotAws(st, true); }
BENCHMARK(BM_OneShotAws)->Unit(benchmark::kMillisecond);
void BM_OneShotAws_Uncached(benchmark::State& st) { OneShotAws(st, false); }
BENCHMARK(BM_OneShotAws_Uncached)->Unit(benchmark::kMillisecond);

}  // namespace
