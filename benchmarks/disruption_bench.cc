// The full Disrupt decision on the seed NodePool's cluster at scale
// (workload::ScaleDisruptionCluster): N m5.2xlarge nodes on the embedded AWS
// catalog, 30 pods each, about a fifth of the nodes underutilized. Each
// iteration runs the whole pass from the request: compile, conditions,
// budgets, candidates, the methods (the consolidation simulations), and the
// response.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <string>

#include "nodeplan/disrupt.h"
#include "nodeplan/workload.h"

namespace {

void Disrupt(benchmark::State& st) {
  const int nodes = static_cast<int>(st.range(0));
  nodeplan::v1::DisruptRequest req =
      nodeplan::workload::ScaleDisruptionCluster(nodes, 30, 20);
  std::string method;
  int commands = 0;
  for (auto _ : st) {
    absl::StatusOr<nodeplan::v1::DisruptResponse> resp = nodeplan::Disrupt(req);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    method = resp->method();
    commands = resp->commands_size();
    benchmark::DoNotOptimize(resp);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  st.counters["nodes"] = nodes;
  st.counters["pods"] = nodes * 30;
  st.counters["commands"] = commands;
  st.counters["peak_rss_mb"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
  st.SetLabel(method);
}

BENCHMARK(Disrupt)->Arg(100)->Arg(1000)->Arg(5000)->Unit(
    benchmark::kMillisecond);

}  // namespace
