// The C ABI's cost on Karpenter's scheduling benchmark workload
// (workload::KarpenterBenchmark, 5,000 diverse pods over 400 fake instance
// types): the same request decided by nodeplan::Schedule directly and by a
// C++ caller's full round trip (serialize the request, nodeplan_schedule,
// parse the response). The difference is what the boundary adds.
//
// The shim is linked as objects with the static core (one copy of the
// generated protos per process; see DESIGN.md), so nodeplan_schedule here is
// the same code libnodeplan.so exports, minus one PLT indirection.

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "benchmark/benchmark.h"
#include "google/protobuf/arena.h"
#include "nodeplan/c_api.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/schedule.pb.h"
#include "nodeplan/workload.h"
#include "shim.h"

namespace {

using nodeplan::v1::ScheduleRequest;
using nodeplan::v1::ScheduleResponse;

// Karpenter's benchmark workload; max_instance_types 0 is nodeplan's default
// (600 options per NodeClaim), 60 is Karpenter's own launch truncation.
const ScheduleRequest& Workload(const benchmark::State& state) {
  static auto* const cache =
      new std::map<std::pair<int64_t, int64_t>, ScheduleRequest>;
  const auto key = std::make_pair(state.range(0), state.range(1));
  auto it = cache->find(key);
  if (it == cache->end()) {
    auto request =
        nodeplan::workload::KarpenterBenchmark(static_cast<int>(key.first));
    request.mutable_options()->set_max_instance_types(
        static_cast<int32_t>(key.second));
    it = cache->emplace(key, std::move(request)).first;
  }
  return it->second;
}

// How c_api.h recommends a C++ caller parse a large response: on an arena
// with big blocks, so that neither parsing nor releasing it costs a malloc
// or free per string.
google::protobuf::ArenaOptions ResponseArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = size_t{64} << 10;
  options.max_block_size = size_t{1} << 20;
  return options;
}

void BM_ScheduleDirect(benchmark::State& state) {
  const auto& request = Workload(state);
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

// The same decisions with the response built on an arena, as the C ABI's
// nodeplan_schedule builds it: the baseline the boundary adds to.
void BM_ScheduleDirectArena(benchmark::State& state) {
  const auto& request = Workload(state);
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto plan = nodeplan::ScheduleOnArena(request, &arena);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize((*plan)->cost());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Where the caller parses the response. (A first block kept between calls,
// ArenaOptions::initial_block, measured no faster here.)
enum class Caller { kArena, kHeap };

// What a C++ binding does per call: serialize, call, parse, free.
void BM_ScheduleCAbiRoundTrip(benchmark::State& state, Caller caller) {
  const auto& request = Workload(state);
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
    if (caller == Caller::kArena) {
      google::protobuf::Arena arena(ResponseArenaOptions());
      auto* plan =
          google::protobuf::Arena::CreateMessage<ScheduleResponse>(&arena);
      plan->ParseFromArray(response, static_cast<int>(response_len));
      nodeplan_free(response);
      benchmark::DoNotOptimize(plan->cost());
    } else {
      ScheduleResponse plan;
      plan.ParseFromArray(response, static_cast<int>(response_len));
      nodeplan_free(response);
      benchmark::DoNotOptimize(plan.cost());
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The boundary alone, with the decision left out, part by part: what the
// caller and the shim add around the same Schedule call.
enum class Part {
  kSerializeRequest,   // caller
  kParseRequest,       // shim: on an arena sized to the request
  kParseRequestHeap,   // (what the shim did before: for comparison)
  kSerializeResponse,  // shim: deterministic, into the malloc'd output
  kParseResponse,      // caller, on an arena (recommended)
  kParseResponseHeap,  // caller, plain message
};

void BM_BoundaryPart(benchmark::State& state, Part part) {
  const auto& request = Workload(state);
  auto plan = nodeplan::Schedule(request);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  const std::string request_bytes = request.SerializeAsString();
  const std::string response_bytes = plan->SerializeAsString();
  state.counters["request_bytes"] = static_cast<double>(request_bytes.size());
  state.counters["response_bytes"] = static_cast<double>(response_bytes.size());
  for (auto _ : state) {
    switch (part) {
      case Part::kSerializeRequest:
        benchmark::DoNotOptimize(request.SerializeAsString());
        break;
      case Part::kParseRequest: {
        nodeplan::capi::ParsedRequest<ScheduleRequest> parsed(
            request_bytes.data(), request_bytes.size());
        benchmark::DoNotOptimize(parsed.status().ok());
        break;
      }
      case Part::kParseRequestHeap: {
        ScheduleRequest parsed;
        benchmark::DoNotOptimize(parsed.ParseFromString(request_bytes));
        break;
      }
      case Part::kSerializeResponse: {
        void* out = nullptr;
        size_t out_len = 0;
        benchmark::DoNotOptimize(
            nodeplan::capi::Respond(*plan, {&out, &out_len, nullptr}));
        nodeplan_free(out);
        break;
      }
      case Part::kParseResponse: {
        google::protobuf::Arena arena(ResponseArenaOptions());
        auto* parsed =
            google::protobuf::Arena::CreateMessage<ScheduleResponse>(&arena);
        benchmark::DoNotOptimize(parsed->ParseFromString(response_bytes));
        break;
      }
      case Part::kParseResponseHeap: {
        ScheduleResponse parsed;
        benchmark::DoNotOptimize(parsed.ParseFromString(response_bytes));
        break;
      }
    }
  }
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"pods", "max_instance_types"})
      ->Args({5000, 0})
      ->Args({5000, 60})
      ->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_ScheduleDirect)->Apply(Args);
BENCHMARK(BM_ScheduleDirectArena)->Apply(Args);
BENCHMARK_CAPTURE(BM_ScheduleCAbiRoundTrip, arena, Caller::kArena)->Apply(Args);
BENCHMARK_CAPTURE(BM_ScheduleCAbiRoundTrip, heap, Caller::kHeap)->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, serialize_request, Part::kSerializeRequest)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_request, Part::kParseRequest)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_request_heap, Part::kParseRequestHeap)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, serialize_response, Part::kSerializeResponse)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_response, Part::kParseResponse)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_response_heap,
                  Part::kParseResponseHeap)
    ->Apply(Args);

}  // namespace
