// Catalog benchmarks: building the embedded AWS catalog, compiling it, and
// answering the seed NodePool's instance-type query.

#include <memory>

#include "benchmark/benchmark.h"
#include "google/protobuf/util/json_util.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan {
namespace {

// examples/workshop/nodepool-general-purpose.yaml (the requirements).
constexpr char kSeedNodePool[] = R"json({
  "metadata": {"name": "general-purpose"},
  "spec": {"template": {"spec": {"requirements": [
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c", "m", "r"]},
    {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["4"]},
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}}}})json";

v1::NodeClass SeedNodeClass() {
  v1::NodeClass node_class;
  node_class.set_api_version("eks.amazonaws.com/v1");
  node_class.mutable_metadata()->set_name("default");
  return node_class;
}

// A NodeClass with zones of its own: its catalog is not one of the two
// cached default variants, so SharedAwsCatalog builds it for every call.
v1::NodeClass ZonedNodeClass() {
  v1::NodeClass node_class = SeedNodeClass();
  node_class.mutable_metadata()->set_name("zoned");
  for (const char* zone : {"us-west-2a", "us-west-2b", "us-west-2c"}) {
    node_class.mutable_status()->add_subnets()->set_zone(zone);
  }
  return node_class;
}

// The embedded catalogs as the library shares them (built once, on an arena).
std::shared_ptr<const v1::Catalog> SharedEksCatalog() {
  v1::NodeClass node_class = SeedNodeClass();
  return *SharedAwsCatalog(&node_class);
}
std::shared_ptr<const v1::Catalog> SharedOpenSourceCatalog() {
  return *SharedAwsCatalog(nullptr);
}

// AwsCatalog: a heap-built v1::Catalog by value, built from the parsed CSV
// on every call (the CSV itself is parsed once per process).
void BM_AwsCatalog(benchmark::State& state) {
  v1::NodeClass node_class = SeedNodeClass();
  for (auto _ : state) {
    auto catalog = AwsCatalog(&node_class);
    benchmark::DoNotOptimize(catalog);
  }
}
BENCHMARK(BM_AwsCatalog)->Unit(benchmark::kMillisecond);

// SharedAwsCatalog for a NodeClass with its own zones: a cold build on an
// arena on the first call, then (since branch fuzzspeed) a hit in the
// per-process cache of the last 16 variants: a lookup per call.
void BM_SharedAwsCatalog_Build(benchmark::State& state) {
  v1::NodeClass node_class = ZonedNodeClass();
  for (auto _ : state) {
    auto catalog = SharedAwsCatalog(&node_class);
    benchmark::DoNotOptimize(catalog);
  }
}
BENCHMARK(BM_SharedAwsCatalog_Build)->Unit(benchmark::kMillisecond);

// SharedAwsCatalog for the seed NodeClass: the cached default variant.
void BM_SharedAwsCatalog_Cached(benchmark::State& state) {
  v1::NodeClass node_class = SeedNodeClass();
  (void)SharedAwsCatalog(&node_class);  // the first use builds it
  for (auto _ : state) {
    auto catalog = SharedAwsCatalog(&node_class);
    benchmark::DoNotOptimize(catalog);
  }
}
BENCHMARK(BM_SharedAwsCatalog_Cached)->Unit(benchmark::kMicrosecond);

// A full CompileCatalog (no cache involved) into a fresh Interner,
// destruction of the result included.
void CompileBenchmark(benchmark::State& state, const v1::Catalog& catalog) {
  for (auto _ : state) {
    Interner interner;
    auto compiled = CompileCatalog(catalog, {}, interner);
    benchmark::DoNotOptimize(compiled);
  }
  int offerings = 0;
  for (const v1::InstanceType& t : catalog.instance_types()) {
    offerings += t.offerings_size();
  }
  state.counters["types"] = catalog.instance_types_size();
  state.counters["offerings"] = offerings;
}

// The EKS Auto Mode catalog (1,290 types) the seed NodeClass gets.
void BM_CompileCatalog_Eks(benchmark::State& state) {
  CompileBenchmark(state, *SharedEksCatalog());
}
BENCHMARK(BM_CompileCatalog_Eks)->Unit(benchmark::kMillisecond);

// The full open-source-provider catalog (1,396 types).
void BM_CompileCatalog_Full(benchmark::State& state) {
  CompileBenchmark(state, *SharedOpenSourceCatalog());
}
BENCHMARK(BM_CompileCatalog_Full)->Unit(benchmark::kMillisecond);

// The same 1,396 types as a heap-built message (AwsCatalog): the input's
// memory layout is part of the cost.
void BM_CompileCatalog_FullHeap(benchmark::State& state) {
  CompileBenchmark(state, *AwsCatalog(nullptr));
}
BENCHMARK(BM_CompileCatalog_FullHeap)->Unit(benchmark::kMillisecond);

// A NodeClass-specific catalog (its own zones) as SharedAwsCatalog builds it.
void BM_CompileCatalog_Zoned(benchmark::State& state) {
  v1::NodeClass node_class = ZonedNodeClass();
  CompileBenchmark(state, **SharedAwsCatalog(&node_class));
}
BENCHMARK(BM_CompileCatalog_Zoned)->Unit(benchmark::kMillisecond);

// CompileAwsCatalog: the embedded catalog compiled straight from the
// prepared CSV rows (no v1::Catalog in between), into a fresh Interner,
// destruction of the result included. Every call compiles; what it shares
// across calls is the parsed CSV and its per-row label texts, prepared once
// per process.
void CompileAwsBenchmark(benchmark::State& state,
                         const v1::NodeClass* node_class) {
  size_t types = 0, offerings = 0;
  {
    // The first call prepares the CSV rows (once per process).
    Interner interner;
    const std::shared_ptr<const CompiledCatalog> compiled =
        *CompileAwsCatalog(node_class, {}, interner);
    types = compiled->size();
    for (const CompiledInstanceType& t : compiled->instance_types()) {
      offerings += t.offerings.size();
    }
  }
  for (auto _ : state) {
    Interner interner;
    auto compiled = CompileAwsCatalog(node_class, {}, interner);
    benchmark::DoNotOptimize(compiled);
  }
  state.counters["types"] = types;
  state.counters["offerings"] = offerings;
}

// The seed NodeClass's EKS Auto Mode catalog (1,290 types).
void BM_CompileAwsCatalog_Eks(benchmark::State& state) {
  const v1::NodeClass node_class = SeedNodeClass();
  CompileAwsBenchmark(state, &node_class);
}
BENCHMARK(BM_CompileAwsCatalog_Eks)->Unit(benchmark::kMillisecond);

// The open-source provider's catalog (no NodeClass: 1,396 types).
void BM_CompileAwsCatalog_Full(benchmark::State& state) {
  CompileAwsBenchmark(state, nullptr);
}
BENCHMARK(BM_CompileAwsCatalog_Full)->Unit(benchmark::kMillisecond);

// A NodeClass with zones of its own (nothing about it is cached).
void BM_CompileAwsCatalog_Zoned(benchmark::State& state) {
  const v1::NodeClass node_class = ZonedNodeClass();
  CompileAwsBenchmark(state, &node_class);
}
BENCHMARK(BM_CompileAwsCatalog_Zoned)->Unit(benchmark::kMillisecond);

void BM_SeedNodePoolQuery(benchmark::State& state) {
  const std::shared_ptr<const v1::Catalog> catalog = SharedEksCatalog();
  Interner interner;
  std::shared_ptr<const CompiledCatalog> compiled =
      *CompileCatalog(*catalog, {}, interner);
  v1::NodePool pool;
  (void)google::protobuf::util::JsonStringToMessage(kSeedNodePool, &pool);
  size_t admitted = 0;
  for (auto _ : state) {
    Interner call(&interner);  // per-call overlay, as a decision would use
    auto result = InstanceTypesForNodePool(*compiled, pool, call);
    admitted = result->admitted.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["admitted"] = admitted;
}
BENCHMARK(BM_SeedNodePoolQuery)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nodeplan
