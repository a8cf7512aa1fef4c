// The C ABI's cost on Karpenter's scheduling benchmark workload
// (workload::KarpenterBenchmark, 5,000 diverse pods over 400 fake instance
// types): the same request decided by nodeplan::Schedule directly and by a
// C caller's full round trip (serialize the request, nodeplan_schedule, parse
// the response). The difference is what the boundary adds.
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
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "nodeplan/c_api.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/schedule.pb.h"
#include "nodeplan/workload.h"

namespace {

// Karpenter's benchmark workload; max_instance_types 0 is nodeplan's default
// (600 options per NodeClaim), 60 is Karpenter's own launch truncation.
const nodeplan::v1::ScheduleRequest& Workload(const benchmark::State& state) {
  static auto* const cache =
      new std::map<std::pair<int64_t, int64_t>, nodeplan::v1::ScheduleRequest>;
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

// What a binding does per call: serialize, call, parse, free.
void BM_ScheduleCAbiRoundTrip(benchmark::State& state) {
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
    nodeplan::v1::ScheduleResponse plan;
    plan.ParseFromArray(response, static_cast<int>(response_len));
    nodeplan_free(response);
    benchmark::DoNotOptimize(plan.cost());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The boundary alone, with the decision left out, part by part: what the
// caller and the shim add around the same Schedule call.
enum Part {
  kSerializeRequest,
  kParseRequest,
  kSerializeResponse,
  kParseResponse
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
      case kSerializeRequest:
        benchmark::DoNotOptimize(request.SerializeAsString());
        break;
      case kParseRequest: {
        nodeplan::v1::ScheduleRequest parsed;
        benchmark::DoNotOptimize(parsed.ParseFromString(request_bytes));
        break;
      }
      case kSerializeResponse: {
        // As the shim does it: deterministic, into one buffer.
        std::string out;
        {
          google::protobuf::io::StringOutputStream stream(&out);
          google::protobuf::io::CodedOutputStream coded(&stream);
          coded.SetSerializationDeterministic(true);
          plan->SerializeToCodedStream(&coded);
        }
        benchmark::DoNotOptimize(out);
        break;
      }
      case kParseResponse: {
        nodeplan::v1::ScheduleResponse parsed;
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
BENCHMARK(BM_ScheduleCAbiRoundTrip)->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, serialize_request, kSerializeRequest)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_request, kParseRequest)->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, serialize_response, kSerializeResponse)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_response, kParseResponse)->Apply(Args);

}  // namespace
