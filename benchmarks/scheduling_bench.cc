// Karpenter's scheduling benchmark (reference §11) on nodeplan: the diverse
// workload over fake.InstanceTypes(400) at 1..20,000 pods, and the
// preference workload (4,000 pods) with preferences respected and ignored.
// The catalog and NodePool are compiled once (Snapshot); each iteration
// schedules the pods from scratch.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"

namespace {

using nodeplan::v1::ScheduleRequest;

void Split(const ScheduleRequest& full, ScheduleRequest* base,
           ScheduleRequest* state) {
  *base = full;
  base->clear_pods();
  base->clear_nodes();
  base->clear_node_claims();
  base->clear_daemon_sets();
  base->clear_deployments();
  base->clear_persistent_volume_claims();
  base->clear_persistent_volumes();
  base->clear_storage_classes();
  base->clear_options();
  *state = full;
  state->clear_node_pools();
  state->clear_node_classes();
  state->clear_catalog();
  state->clear_catalog_ref();
  state->clear_node_overlays();
  state->clear_unavailable_offerings();
}

void Run(benchmark::State& st, const ScheduleRequest& full) {
  ScheduleRequest base, state;
  Split(full, &base, &state);
  auto snap = nodeplan::Snapshot::Compile(base);
  if (!snap.ok()) {
    st.SkipWithError(std::string(snap.status().message()).c_str());
    return;
  }
  int nodes = 0, unschedulable = 0;
  for (auto _ : st) {
    auto resp = (*snap)->Schedule(state);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    nodes = resp->new_node_claims_size();
    unschedulable = resp->unschedulable_size();
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

void BM_SeedNodePoolAws(benchmark::State& st) {
  Run(st,
      nodeplan::workload::SeedNodePoolWorkload(static_cast<int>(st.range(0))));
}
BENCHMARK(BM_SeedNodePoolAws)->Arg(3000)->Unit(benchmark::kMillisecond);

}  // namespace
