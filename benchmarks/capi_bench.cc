// The C ABI's cost on Karpenter's scheduling benchmark workload
// (workload::KarpenterBenchmark, 5,000 diverse pods over 400 fake instance
// types): the same request decided by nodeplan::Schedule directly and by a
// C++ caller's full round trip (serialize the request, nodeplan_schedule,
// parse the response). The difference is what the boundary adds.
//
// Each case runs with ScheduleOptions.instanceTypeEncoding "Names" (indexed:0,
// the default: every option name twice per NodeClaim) and "Indexed"
// (indexed:1: a name table and packed indices); the *_expand cases add the
// caller's ExpandInstanceTypes back to the Names response.
//
// The shim is linked as objects with the static core (one copy of the
// generated protos per process; see DESIGN.md), so nodeplan_schedule here is
// the same code libnodeplan.so exports, minus one PLT indirection.

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "google/protobuf/arena.h"
#include "nodeplan/c_api.h"
#include "nodeplan/cluster.h"
#include "nodeplan/schedule.h"
#include "nodeplan/v1/schedule.pb.h"
#include "nodeplan/workload.h"
#include "shim.h"

namespace {

using nodeplan::v1::ScheduleRequest;
using nodeplan::v1::ScheduleResponse;

// Karpenter's benchmark workload; max_instance_types 0 is nodeplan's default
// (600 options per NodeClaim), 60 is Karpenter's own launch truncation;
// indexed 1 asks for instanceTypeEncoding "Indexed".
const ScheduleRequest& Workload(const benchmark::State& state) {
  static auto* const cache =
      new std::map<std::tuple<int64_t, int64_t, int64_t>, ScheduleRequest>;
  const auto key =
      std::make_tuple(state.range(0), state.range(1), state.range(2));
  auto it = cache->find(key);
  if (it == cache->end()) {
    auto request = nodeplan::workload::KarpenterBenchmark(
        static_cast<int>(std::get<0>(key)));
    request.mutable_options()->set_max_instance_types(
        static_cast<int32_t>(std::get<1>(key)));
    if (std::get<2>(key) != 0)
      request.mutable_options()->set_instance_type_encoding("Indexed");
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

// Where the caller parses the response, and whether it then expands an
// Indexed response into the Names one. (A first block kept between calls,
// ArenaOptions::initial_block, measured no faster here.)
enum class Caller { kArena, kHeap, kArenaExpand, kHeapExpand };

// ExpandInstanceTypes, failing the benchmark if the response does not expand.
bool Expand(benchmark::State& state, ScheduleResponse* response) {
  if (absl::Status s = nodeplan::ExpandInstanceTypes(response); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return false;
  }
  return true;
}

// The caller's side of one answer: on failure the benchmark stops; else the
// response is parsed (and expanded) as `caller` says, then freed.
bool TakeResponse(benchmark::State& state, Caller caller, int code,
                  void* response, size_t response_len, char* error) {
  if (code != NODEPLAN_OK) {
    state.SkipWithError(error);
    nodeplan_free(error);
    return false;
  }
  const bool expand =
      caller == Caller::kArenaExpand || caller == Caller::kHeapExpand;
  if (caller == Caller::kArena || caller == Caller::kArenaExpand) {
    google::protobuf::Arena arena(ResponseArenaOptions());
    auto* plan =
        google::protobuf::Arena::CreateMessage<ScheduleResponse>(&arena);
    plan->ParseFromArray(response, static_cast<int>(response_len));
    nodeplan_free(response);
    if (expand && !Expand(state, plan)) return false;
    benchmark::DoNotOptimize(plan->cost());
  } else {
    ScheduleResponse plan;
    plan.ParseFromArray(response, static_cast<int>(response_len));
    nodeplan_free(response);
    if (expand && !Expand(state, &plan)) return false;
    benchmark::DoNotOptimize(plan.cost());
  }
  return true;
}

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
    if (!TakeResponse(state, caller, code, response, response_len, error))
      return;
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// A controller's call: the catalog and NodePool compiled once
// (Snapshot::Compile, nodeplan_snapshot_new), then only the pods and options
// sent per call, so neither the catalog's bytes nor its compile are paid.
struct SnapshotWorkload {
  ScheduleRequest base, state;
};
SnapshotWorkload SplitWorkload(const ScheduleRequest& full) {
  SnapshotWorkload w{full, {}};
  w.base.clear_pods();
  w.base.clear_options();
  *w.state.mutable_pods() = full.pods();
  *w.state.mutable_options() = full.options();
  return w;
}

void BM_SnapshotDirectArena(benchmark::State& state) {
  const SnapshotWorkload w = SplitWorkload(Workload(state));
  auto snapshot = nodeplan::Snapshot::Compile(w.base);
  if (!snapshot.ok()) {
    state.SkipWithError(std::string(snapshot.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto plan = (*snapshot)->ScheduleOnArena(w.state, &arena);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize((*plan)->cost());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_SnapshotCAbiRoundTrip(benchmark::State& state, Caller caller) {
  const SnapshotWorkload w = SplitWorkload(Workload(state));
  const std::string base = w.base.SerializeAsString();
  nodeplan_snapshot* snapshot = nullptr;
  char* error = nullptr;
  if (nodeplan_snapshot_new(base.data(), base.size(), &snapshot, &error) !=
      NODEPLAN_OK) {
    state.SkipWithError(error);
    nodeplan_free(error);
    return;
  }
  for (auto _ : state) {
    const std::string bytes = w.state.SerializeAsString();
    void* response = nullptr;
    size_t response_len = 0;
    int code = nodeplan_snapshot_schedule(snapshot, bytes.data(), bytes.size(),
                                          &response, &response_len, &error);
    if (!TakeResponse(state, caller, code, response, response_len, error))
      break;
  }
  nodeplan_snapshot_free(snapshot);
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
  kParseAndExpand,     // caller, on an arena, then ExpandInstanceTypes
  kParseAndExpandHeap,
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
      case Part::kParseAndExpand: {
        google::protobuf::Arena arena(ResponseArenaOptions());
        auto* parsed =
            google::protobuf::Arena::CreateMessage<ScheduleResponse>(&arena);
        parsed->ParseFromString(response_bytes);
        if (!Expand(state, parsed)) return;
        break;
      }
      case Part::kParseAndExpandHeap: {
        ScheduleResponse parsed;
        parsed.ParseFromString(response_bytes);
        if (!Expand(state, &parsed)) return;
        break;
      }
    }
  }
}

void Shape(benchmark::internal::Benchmark* b,
           const std::vector<int64_t>& indexed) {
  b->ArgNames({"pods", "max_instance_types", "indexed"})
      ->ArgsProduct({{5000}, {0, 60}, indexed})
      ->Unit(benchmark::kMillisecond);
}
// Names and Indexed responses.
void Args(benchmark::internal::Benchmark* b) { Shape(b, {0, 1}); }
// The request does not depend on the encoding (but for the option itself).
void RequestArgs(benchmark::internal::Benchmark* b) { Shape(b, {0}); }
// Expansion has nothing to do in a Names response.
void ExpandArgs(benchmark::internal::Benchmark* b) { Shape(b, {1}); }

BENCHMARK(BM_ScheduleDirect)->Apply(Args);
BENCHMARK(BM_ScheduleDirectArena)->Apply(Args);
BENCHMARK_CAPTURE(BM_ScheduleCAbiRoundTrip, arena, Caller::kArena)->Apply(Args);
BENCHMARK_CAPTURE(BM_ScheduleCAbiRoundTrip, heap, Caller::kHeap)->Apply(Args);
BENCHMARK_CAPTURE(BM_ScheduleCAbiRoundTrip, arena_expand, Caller::kArenaExpand)
    ->Apply(ExpandArgs);
BENCHMARK_CAPTURE(BM_ScheduleCAbiRoundTrip, heap_expand, Caller::kHeapExpand)
    ->Apply(ExpandArgs);
BENCHMARK(BM_SnapshotDirectArena)->Apply(Args);
BENCHMARK_CAPTURE(BM_SnapshotCAbiRoundTrip, arena, Caller::kArena)->Apply(Args);
BENCHMARK_CAPTURE(BM_SnapshotCAbiRoundTrip, arena_expand, Caller::kArenaExpand)
    ->Apply(ExpandArgs);
BENCHMARK_CAPTURE(BM_BoundaryPart, serialize_request, Part::kSerializeRequest)
    ->Apply(RequestArgs);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_request, Part::kParseRequest)
    ->Apply(RequestArgs);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_request_heap, Part::kParseRequestHeap)
    ->Apply(RequestArgs);
BENCHMARK_CAPTURE(BM_BoundaryPart, serialize_response, Part::kSerializeResponse)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_response, Part::kParseResponse)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_response_heap,
                  Part::kParseResponseHeap)
    ->Apply(Args);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_and_expand, Part::kParseAndExpand)
    ->Apply(ExpandArgs);
BENCHMARK_CAPTURE(BM_BoundaryPart, parse_and_expand_heap,
                  Part::kParseAndExpandHeap)
    ->Apply(ExpandArgs);

// A controller on a cluster handle: 1,000 nodes with 30 bound pods each
// (workload::ScaleDisruptionCluster, seed NodePool, embedded AWS catalog);
// between two Schedule calls 1% of the pods (300) change. `bound` false:
// 300 pending pods are upserted with new requests (the compiled state is
// kept); true: 300 bound pods change their requests (it is rebuilt). The
// same calls in process (Cluster) and through the C ABI (serialize, call,
// parse, free).
enum class Churn { kPending, kBound };

struct ChurnWorkload {
  nodeplan::v1::ClusterUpdate initial;
  std::vector<nodeplan::v1::Pod> bound;  // the 300 bound pods that change
};

const ChurnWorkload& ChurnSetup() {
  static const ChurnWorkload* w = [] {
    auto* out = new ChurnWorkload();
    const auto d = nodeplan::workload::ScaleDisruptionCluster(1000, 30, 20);
    nodeplan::v1::ManifestSet& m = *out->initial.mutable_upserts();
    *m.mutable_node_pools() = d.node_pools();
    *m.mutable_node_classes() = d.node_classes();
    *m.mutable_nodes() = d.nodes();
    *m.mutable_node_claims() = d.node_claims();
    *m.mutable_pods() = d.pods();
    *m.mutable_daemon_sets() = d.daemon_sets();
    out->initial.set_catalog_ref(d.catalog_ref());
    for (const auto& p : d.pods()) {
      if (p.spec().node_name().empty() || !p.spec().containers_size()) continue;
      out->bound.push_back(p);
      if (out->bound.size() == 300) break;
    }
    return out;
  }();
  return *w;
}

// The update of iteration `i`: the churned pods with a request that
// alternates between two values, so every update changes them.
nodeplan::v1::ClusterUpdate ChurnUpdate(Churn churn, int64_t i) {
  nodeplan::v1::ClusterUpdate u;
  const char* cpu = i % 2 == 0 ? "100m" : "150m";
  if (churn == Churn::kBound) {
    for (nodeplan::v1::Pod p : ChurnSetup().bound) {
      (*p.mutable_spec()
            ->mutable_containers(0)
            ->mutable_resources()
            ->mutable_requests())["cpu"] = cpu;
      *u.mutable_upserts()->add_pods() = std::move(p);
    }
    return u;
  }
  for (int k = 0; k < 300; ++k) {
    nodeplan::v1::Pod* p = u.mutable_upserts()->add_pods();
    p->mutable_metadata()->set_name("churn-" + std::to_string(k));
    p->mutable_metadata()->set_namespace_("default");
    p->mutable_metadata()->set_uid("churn-uid-" + std::to_string(k));
    auto* c = p->mutable_spec()->add_containers();
    c->set_name("app");
    (*c->mutable_resources()->mutable_requests())["cpu"] = cpu;
    (*c->mutable_resources()->mutable_requests())["memory"] = "256Mi";
  }
  return u;
}

void BM_ClusterChurnInProcess(benchmark::State& state, Churn churn) {
  auto cluster = nodeplan::Cluster::Create(ChurnSetup().initial);
  if (!cluster.ok()) {
    state.SkipWithError(std::string(cluster.status().message()).c_str());
    return;
  }
  // Updates are built outside the timed region (a controller has them from
  // its informers).
  const nodeplan::v1::ClusterUpdate updates[2] = {ChurnUpdate(churn, 0),
                                                  ChurnUpdate(churn, 1)};
  const ScheduleRequest what_if;
  int64_t i = 0;
  for (auto _ : state) {
    if (!(*cluster)->Update(updates[i++ % 2]).ok()) {
      state.SkipWithError("update failed");
      return;
    }
    auto resp = (*cluster)->Schedule(what_if);
    if (!resp.ok()) {
      state.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(resp->cost());
  }
}

void BM_ClusterChurnCAbi(benchmark::State& state, Churn churn) {
  const std::string initial = ChurnSetup().initial.SerializeAsString();
  nodeplan_cluster* cluster = nullptr;
  char* error = nullptr;
  if (nodeplan_cluster_new(initial.data(), initial.size(), &cluster, &error) !=
      0) {
    state.SkipWithError(error);
    nodeplan_free(error);
    return;
  }
  const std::string updates[2] = {ChurnUpdate(churn, 0).SerializeAsString(),
                                  ChurnUpdate(churn, 1).SerializeAsString()};
  const std::string what_if = ScheduleRequest().SerializeAsString();
  int64_t i = 0;
  for (auto _ : state) {
    const std::string& u = updates[i++ % 2];
    void* out = nullptr;
    size_t out_len = 0;
    if (nodeplan_cluster_update(cluster, u.data(), u.size(), &out, &out_len,
                                &error) != 0) {
      state.SkipWithError(error);
      nodeplan_free(error);
      break;
    }
    nodeplan_free(out);
    if (nodeplan_cluster_schedule(cluster, what_if.data(), what_if.size(), &out,
                                  &out_len, &error) != 0) {
      state.SkipWithError(error);
      nodeplan_free(error);
      break;
    }
    ScheduleResponse plan;
    plan.ParseFromArray(out, static_cast<int>(out_len));
    nodeplan_free(out);
    benchmark::DoNotOptimize(plan.cost());
  }
  nodeplan_cluster_free(cluster);
}

BENCHMARK_CAPTURE(BM_ClusterChurnInProcess, pending, Churn::kPending)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ClusterChurnCAbi, pending, Churn::kPending)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ClusterChurnInProcess, bound, Churn::kBound)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ClusterChurnCAbi, bound, Churn::kBound)
    ->Unit(benchmark::kMillisecond);

}  // namespace
