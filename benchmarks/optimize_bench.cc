// The cost bound and the Optimized packing over the generated workloads:
// Karpenter's diverse benchmark, random clusters and the seed NodePool on
// the embedded AWS catalog. Per workload and mode the time of one Schedule
// call; counters: karpenter_cost, optimized_cost, lower_bound (USD/hour),
// gap_pct (Karpenter cost over the bound, %), opt_gap_pct (Optimized over
// the bound), packings_tried, and plan_digest (the low 32 bits of
// FNV-1a of the last response's DeterministicBytes: equal digests between two
// builds mean byte-identical plans). Figures in benchmarks/README.md.

#include <benchmark/benchmark.h>

#include <string>

#include "nodeplan/digest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"

namespace {

using nodeplan::v1::ScheduleRequest;

enum Mode { kKarpenterNoBound, kKarpenter, kOptimized };

void Run(benchmark::State& st, const ScheduleRequest& base, Mode mode) {
  ScheduleRequest r = base;
  r.mutable_options()->set_cost_bound(mode == kKarpenterNoBound ? "Skip"
                                                                : "Compute");
  if (mode == kOptimized) r.mutable_options()->set_packing("Optimized");
  nodeplan::v1::ScheduleResponse last;
  for (auto _ : st) {
    auto resp = nodeplan::Schedule(r);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    last = *std::move(resp);
  }
  const double cost = last.cost(), lb = last.cost_bound().lower_bound();
  const double karpenter =
      mode == kOptimized ? last.packing().karpenter_cost() : cost;
  st.counters["karpenter_cost"] = karpenter;
  st.counters["plan_digest"] = static_cast<double>(
      nodeplan::Fnv1a64(nodeplan::DeterministicBytes(last)) & 0xffffffffu);
  if (mode == kOptimized)
    st.counters["packings_tried"] = last.packing().packings_tried();
  if (mode == kOptimized) st.counters["optimized_cost"] = cost;
  if (last.cost_bound().available()) {
    st.counters["lower_bound"] = lb;
    if (lb > 0) {
      st.counters["gap_pct"] = (karpenter / lb - 1) * 100;
      if (mode == kOptimized)
        st.counters["opt_gap_pct"] = (cost / lb - 1) * 100;
    }
    st.counters["relaxed_pods"] = last.cost_bound().relaxed_pods();
    st.counters["covered_pods"] = last.cost_bound().covered_pods();
    st.counters["node_columns"] = last.cost_bound().node_columns();
    st.counters["pod_classes"] = last.cost_bound().pod_classes();
  }
}

void Register(const std::string& name, ScheduleRequest (*make)()) {
  static const char* kModes[] = {"KarpenterNoBound", "Karpenter", "Optimized"};
  for (int m = 0; m < 3; ++m) {
    benchmark::RegisterBenchmark(
        (name + "/" + kModes[m]).c_str(),
        [make, m](benchmark::State& st) { Run(st, make(), Mode(m)); })
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime()
        ->UseRealTime();
  }
}

template <int N>
ScheduleRequest Bench() {
  return nodeplan::workload::KarpenterBenchmark(N);
}
template <int N>
ScheduleRequest Seed() {
  return nodeplan::workload::SeedNodePoolWorkload(N);
}
template <int S>
ScheduleRequest Random() {
  return nodeplan::workload::RandomCluster(S);
}
// The seed NodePool without topology constraints (the goal's "no topology"
// workloads): workload::PlainSeedWorkload.
template <int N>
ScheduleRequest Plain() {
  return nodeplan::workload::PlainSeedWorkload(N);
}

const bool kRegistered = [] {
  Register("benchmark-100", Bench<100>);
  Register("benchmark-1000", Bench<1000>);
  Register("seed-100", Seed<100>);
  Register("seed-1000", Seed<1000>);
  Register("seed-5000", Seed<5000>);
  Register("plain-100", Plain<100>);
  Register("plain-1000", Plain<1000>);
  Register("plain-5000", Plain<5000>);
  Register("random-1", Random<1>);
  Register("random-2", Random<2>);
  Register("random-3", Random<3>);
  Register("random-4", Random<4>);
  Register("random-5", Random<5>);
  Register("random-6", Random<6>);
  Register("random-7", Random<7>);
  Register("random-8", Random<8>);
  return true;
}();

}  // namespace
