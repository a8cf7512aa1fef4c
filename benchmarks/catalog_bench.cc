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

v1::Catalog FullCatalog() {
  v1::NodeClass node_class = SeedNodeClass();
  return *AwsCatalog(&node_class);
}

v1::Catalog OpenSourceCatalog() { return *AwsCatalog(nullptr); }

void BM_AwsCatalog(benchmark::State& state) {
  v1::NodeClass node_class = SeedNodeClass();
  for (auto _ : state) {
    auto catalog = AwsCatalog(&node_class);
    benchmark::DoNotOptimize(catalog);
  }
}
BENCHMARK(BM_AwsCatalog)->Unit(benchmark::kMillisecond);

void CompileBenchmark(benchmark::State& state, const v1::Catalog& catalog) {
  for (auto _ : state) {
    Interner interner;
    auto compiled = CompileCatalog(catalog, {}, interner);
    benchmark::DoNotOptimize(compiled);
  }
  state.counters["types"] = catalog.instance_types_size();
}

// The EKS Auto Mode catalog (1,290 types) the seed NodeClass gets.
void BM_CompileCatalog_Eks(benchmark::State& state) {
  CompileBenchmark(state, FullCatalog());
}
BENCHMARK(BM_CompileCatalog_Eks)->Unit(benchmark::kMillisecond);

// The full open-source-provider catalog (1,396 types).
void BM_CompileCatalog_Full(benchmark::State& state) {
  CompileBenchmark(state, OpenSourceCatalog());
}
BENCHMARK(BM_CompileCatalog_Full)->Unit(benchmark::kMillisecond);

void BM_SeedNodePoolQuery(benchmark::State& state) {
  const v1::Catalog catalog = FullCatalog();
  Interner interner;
  std::shared_ptr<const CompiledCatalog> compiled =
      *CompileCatalog(catalog, {}, interner);
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
