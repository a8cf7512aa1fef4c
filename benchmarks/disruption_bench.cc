// The full Disrupt decision on the seed NodePool's cluster at scale
// (workload::ScaleDisruptionCluster): N m5.2xlarge nodes on the embedded AWS
// catalog, 30 pods each, about a fifth of the nodes underutilized. Each
// iteration runs the whole pass from the request: compile, conditions,
// budgets, candidates, the methods (the consolidation simulations), and the
// response.

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "nodeplan/cluster.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/workload.h"
#include "scheduling/cluster_model.h"

namespace {

double CurrentRssMb() {
  malloc_trim(0);  // what setup freed is not the request's
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * sysconf(_SC_PAGESIZE) / (1 << 20);
}

// The peak RSS since ResetPeakRss (VmHWM; Linux resets it to the current
// RSS on "5" written to clear_refs), so that setup's transient copies do not
// count as the pass's.
void ResetPeakRss() {
  if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

double PeakRssMb() {
  double kb = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
    }
    std::fclose(f);
  }
  return kb / 1024;
}

// The request as a caller usually holds it: lists in the API server's order
// (namespace, then name: what `kubectl get -o json` prints and a LIST
// returns), parsed from its bytes, so memory order follows list order.
// ScaleDisruptionCluster builds its pods in creation order ("app-9" before
// "app-10"), which the canonical order (namespace, name) visits out of
// memory order; Disrupt/N keeps that case as the worst one.
nodeplan::v1::DisruptRequest AsListed(nodeplan::v1::DisruptRequest req) {
  auto by_name = [](const auto& a, const auto& b) {
    return std::make_pair(a.metadata().namespace_(), a.metadata().name()) <
           std::make_pair(b.metadata().namespace_(), b.metadata().name());
  };
  std::sort(req.mutable_pods()->begin(), req.mutable_pods()->end(), by_name);
  std::sort(req.mutable_nodes()->begin(), req.mutable_nodes()->end(), by_name);
  std::sort(req.mutable_node_claims()->begin(),
            req.mutable_node_claims()->end(), by_name);
  nodeplan::v1::DisruptRequest parsed;
  parsed.ParseFromString(req.SerializeAsString());
  return parsed;
}

void Disrupt(benchmark::State& st, bool listed) {
  const int nodes = static_cast<int>(st.range(0));
  nodeplan::v1::DisruptRequest req =
      nodeplan::workload::ScaleDisruptionCluster(nodes, 30, 20);
  if (listed) req = AsListed(std::move(req));
  std::string method;
  int commands = 0;
  // The request alone (the caller's input), to tell it from the pass's own
  // footprint: peak_rss_mb is the process's peak while passes run,
  // pass_rss_mb that peak above the input.
  const double input = CurrentRssMb();
  st.counters["input_rss_mb"] = input;
  ResetPeakRss();
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
  st.counters["nodes"] = nodes;
  st.counters["pods"] = nodes * 30;
  st.counters["commands"] = commands;
  st.counters["peak_rss_mb"] = PeakRssMb();
  st.counters["pass_rss_mb"] = PeakRssMb() - input;
  st.SetLabel(method);
}

// The same pass with options.packing Optimized: Karpenter's pass plus
// nodeplan's optimized consolidation (disruption/optimized.h), each of its
// candidate sets a whole scheduling request with the Optimized packing.
void DisruptOptimized(benchmark::State& st) {
  const int nodes = static_cast<int>(st.range(0));
  nodeplan::v1::DisruptRequest req =
      nodeplan::workload::ScaleDisruptionCluster(nodes, 30, 20);
  req.mutable_options()->set_packing("Optimized");
  nodeplan::v1::DisruptResponse last;
  for (auto _ : st) {
    absl::StatusOr<nodeplan::v1::DisruptResponse> resp = nodeplan::Disrupt(req);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    last = *std::move(resp);
  }
  const nodeplan::v1::OptimizedConsolidation& o = last.optimized();
  st.counters["sets_tried"] = o.candidate_sets_tried();
  st.counters["karpenter_savings"] = o.karpenter_savings_per_hour();
  st.counters["optimized_savings"] = o.command().savings_per_hour();
  st.counters["candidates"] = o.command().candidates_size();
  st.counters["replacements"] = o.command().replacements_size();
  st.SetLabel(o.has_command() ? last.method() + " + optimized" : o.reason());
}

// The compiled cluster alone (scheduling/cluster_model.h) on the same
// cluster: its state as a ScheduleRequest and the snapshot of its NodePools.
struct ModelInput {
  nodeplan::v1::DisruptRequest disrupt;
  nodeplan::v1::ScheduleRequest state;
  std::shared_ptr<const nodeplan::Snapshot> snapshot;
};

ModelInput MakeModelInput(int nodes) {
  ModelInput in;
  in.disrupt = nodeplan::workload::ScaleDisruptionCluster(nodes, 30, 20);
  const auto& d = in.disrupt;
  nodeplan::v1::ScheduleRequest base;
  *base.mutable_node_pools() = d.node_pools();
  *base.mutable_node_classes() = d.node_classes();
  base.set_catalog_ref(d.catalog_ref());
  in.snapshot = *nodeplan::Snapshot::Compile(base);
  *in.state.mutable_nodes() = d.nodes();
  *in.state.mutable_node_claims() = d.node_claims();
  *in.state.mutable_pods() = d.pods();
  *in.state.mutable_daemon_sets() = d.daemon_sets();
  return in;
}

void ClusterModelBuild(benchmark::State& st) {
  ModelInput in = MakeModelInput(static_cast<int>(st.range(0)));
  for (auto _ : st) {
    auto model =
        nodeplan::scheduling::ClusterModel::Build(in.snapshot, in.state);
    if (!model.ok()) {
      st.SkipWithError(std::string(model.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(model);
  }
  st.counters["pods"] = in.state.pods_size();
}

// A simulation: with `remove`, the first node taken away and its pods
// placed again (their class signatures kept, as the disruption simulator
// keeps them); without, no pods at all (the fixed cost of a call).
void Simulation(benchmark::State& st, bool remove) {
  ModelInput in = MakeModelInput(static_cast<int>(st.range(0)));
  auto model = nodeplan::scheduling::ClusterModel::Build(in.snapshot, in.state);
  if (!model.ok()) {
    st.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  nodeplan::scheduling::Simulation sim;
  std::vector<std::string> sigs;
  sigs.reserve(in.state.pods_size());
  if (remove) {
    const std::string& node = in.state.nodes(0).metadata().name();
    sim.removed_nodes.push_back(0);
    for (int i = 0; i < in.state.node_claims_size(); ++i)
      if (in.state.node_claims(i).status().node_name() == node)
        sim.removed_claims.push_back(i);
    for (const auto& p : in.state.pods()) {
      if (p.spec().node_name() != node) continue;
      sigs.push_back(nodeplan::scheduling::ClassSignature(
          p, p.metadata().namespace_(), true));
      sim.pods.push_back({&p, true, &sigs.back()});
    }
  }
  int new_claims = 0;
  for (auto _ : st) {
    nodeplan::v1::ScheduleResponse resp;
    if (auto s = (*model)->Simulate(sim, nullptr, &resp); !s.ok()) {
      st.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    new_claims = resp.new_node_claims_size();
    benchmark::DoNotOptimize(resp);
  }
  st.counters["pods_placed"] = static_cast<double>(sim.pods.size());
  st.counters["new_claims"] = new_claims;
}

void ClusterModelEmptySimulation(benchmark::State& st) {
  Simulation(st, false);
}
void ClusterModelOneNodeRemoved(benchmark::State& st) { Simulation(st, true); }

// The cluster handle holding the scale cluster of `nodes` nodes.
absl::StatusOr<std::unique_ptr<nodeplan::Cluster>> ScaleClusterHandle(
    int nodes, nodeplan::v1::DisruptRequest* request = nullptr) {
  const auto d = nodeplan::workload::ScaleDisruptionCluster(nodes, 30, 20);
  if (request != nullptr) *request = d;
  nodeplan::v1::ClusterUpdate u;
  *u.mutable_upserts()->mutable_node_pools() = d.node_pools();
  *u.mutable_upserts()->mutable_node_classes() = d.node_classes();
  *u.mutable_upserts()->mutable_nodes() = d.nodes();
  *u.mutable_upserts()->mutable_node_claims() = d.node_claims();
  *u.mutable_upserts()->mutable_pods() = d.pods();
  *u.mutable_upserts()->mutable_daemon_sets() = d.daemon_sets();
  *u.mutable_upserts()->mutable_pod_disruption_budgets() =
      d.pod_disruption_budgets();
  u.set_catalog_ref(d.catalog_ref());
  return nodeplan::Cluster::Create(u);
}

// Cluster::Schedule on the cluster handle holding the same cluster (no
// what-if pods): after the first call, the compiled state is reused until
// an update.
void ClusterHandleSchedule(benchmark::State& st) {
  auto cluster = ScaleClusterHandle(static_cast<int>(st.range(0)));
  if (!cluster.ok()) {
    st.SkipWithError(std::string(cluster.status().message()).c_str());
    return;
  }
  nodeplan::v1::ScheduleRequest what_if;
  for (auto _ : st) {
    auto resp = (*cluster)->Schedule(what_if);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(resp);
  }
}

// Cluster::Disrupt on the handle, pass after pass at the same `now` over an
// unchanged cluster (a controller's disruption loop between informer
// events): the compiled state (catalog, nodes, bound pods, the domain
// universe) is kept from the first pass; the view, conditions, candidates,
// simulations and response are computed per pass. The same decision as
// Disrupt/N on the same cluster.
void ClusterHandleDisrupt(benchmark::State& st) {
  nodeplan::v1::DisruptRequest d;
  auto cluster = ScaleClusterHandle(static_cast<int>(st.range(0)), &d);
  if (!cluster.ok()) {
    st.SkipWithError(std::string(cluster.status().message()).c_str());
    return;
  }
  nodeplan::v1::DisruptRequest pass;
  pass.set_now(d.now());
  *pass.mutable_options() = d.options();
  *pass.mutable_marked_for_deletion() = d.marked_for_deletion();
  // The first pass compiles the state; the loop measures the passes after
  // it.
  if (auto first = (*cluster)->Disrupt(pass); !first.ok()) {
    st.SkipWithError(std::string(first.status().message()).c_str());
    return;
  }
  std::string method;
  for (auto _ : st) {
    auto resp = (*cluster)->Disrupt(pass);
    if (!resp.ok()) {
      st.SkipWithError(std::string(resp.status().message()).c_str());
      return;
    }
    method = resp->method();
    benchmark::DoNotOptimize(resp);
  }
  st.SetLabel(method);
}

BENCHMARK(ClusterHandleSchedule)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(ClusterHandleDisrupt)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(ClusterModelBuild)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(ClusterModelEmptySimulation)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(ClusterModelOneNodeRemoved)->Arg(1000)->Unit(benchmark::kMicrosecond);

BENCHMARK_CAPTURE(Disrupt, generated_order, false)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(DisruptOptimized)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Disrupt, listed_order, true)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
