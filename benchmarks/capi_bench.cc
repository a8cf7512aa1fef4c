// The C ABI's cost on Karpenter's scheduling benchmark workload
// (workload::KarpenterBenchmark, 5,000 diverse pods over 400 fake instance
// types): the same request decided by nodeplan::Schedule directly and by a
// C caller's full round trip (serialize the request, nodeplan_schedule, parse
// the response). The difference is what the boundary adds.
//
// The shim is linked as objects with the static core (one copy of the
// generated protos per process; see DESIGN.md), so nodeplan_schedule here is
// the same code libnodeplan.so exports, minus one PLT indirection.

#include <cstdlib>
#include <map>
#include <string>

#include "benchmark/benchmark.h"
#include "nodeplan/c_api.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/schedule.pb.h"
#include "nodeplan/workload.h"

namespace {

const nodeplan::v1::ScheduleRequest& Workload(int pods) {
  static auto* const cache = new std::map<int, nodeplan::v1::ScheduleRequest>;
  auto it = cache->find(pods);
  if (it == cache->end()) {
    it = cache->emplace(pods, nodeplan::workload::KarpenterBenchmark(pods))
             .first;
  }
  return it->second;
}

void BM_ScheduleDirect(benchmark::State& state) {
  const auto& request = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto plan = nodeplan::Schedule(request);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(plan->cost());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// What a binding does per call: serialize, call, parse, free.
void BM_ScheduleCAbiRoundTrip(benchmark::State& state) {
  const auto& request = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const std::string bytes = request.SerializeAsString();
    void* response = nullptr;
    size_t response_len = 0;
    char* error = nullptr;
    int code = nodeplan_schedule(bytes.data(), bytes.size(), &response,
                                 &response_len, &error);
    if (code != NODEPLAN_OK) {
      state.SkipWithError(error);
      nodeplan_free(error);
      return;
    }
    nodeplan::v1::ScheduleResponse plan;
    plan.ParseFromArray(response, static_cast<int>(response_len));
    nodeplan_free(response);
    benchmark::DoNotOptimize(plan.cost());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The boundary alone, with the decision left out: serialize and parse the
// request, serialize and parse the response of the same workload.
void BM_BoundaryOnly(benchmark::State& state) {
  const auto& request = Workload(static_cast<int>(state.range(0)));
  auto plan = nodeplan::Schedule(request);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  state.counters["request_bytes"] = static_cast<double>(request.ByteSizeLong());
  state.counters["response_bytes"] = static_cast<double>(plan->ByteSizeLong());
  for (auto _ : state) {
    const std::string in = request.SerializeAsString();
    nodeplan::v1::ScheduleRequest parsed;
    parsed.ParseFromString(in);
    const std::string out = plan->SerializeAsString();
    nodeplan::v1::ScheduleResponse back;
    back.ParseFromString(out);
    benchmark::DoNotOptimize(back.cost());
  }
}

BENCHMARK(BM_ScheduleDirect)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScheduleCAbiRoundTrip)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BoundaryOnly)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace
