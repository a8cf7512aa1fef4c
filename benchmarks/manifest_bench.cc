// LoadManifests on a generated 5,000-pod cluster dump, YAML and JSON.

#include <yaml.h>

#include <string>

#include "benchmark/benchmark.h"
#include "manifest/readers.h"
#include "manifest_workload.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

constexpr int kPods = 5000;
constexpr uint64_t kSeed = 20240501;

const std::string& Dump(bench::Profile profile, bool json) {
  static const auto* const dumps = [] {
    auto* d = new std::string[4];
    for (int p = 0; p < 2; ++p) {
      bench::Value v = bench::ClusterDump(
          kPods, p == 0 ? bench::Profile::kCompact : bench::Profile::kFull,
          kSeed);
      d[p * 2] = bench::ToYaml(v);
      d[p * 2 + 1] = bench::ToJson(v);
    }
    return d;
  }();
  return dumps[(profile == bench::Profile::kFull ? 2 : 0) + (json ? 1 : 0)];
}

void Load(benchmark::State& state, bench::Profile profile, bool json) {
  const std::string& text = Dump(profile, json);
  v1::LoadOptions options;
  for (auto _ : state) {
    absl::StatusOr<v1::ManifestSet> set = LoadManifests(text, options);
    if (!set.ok() || set->pods_size() != kPods) {
      state.SkipWithError("load failed");
      return;
    }
    benchmark::DoNotOptimize(set);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.counters["input_MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_LoadYaml5000Pods(benchmark::State& state) {
  Load(state, bench::Profile::kCompact, false);
}
void BM_LoadJson5000Pods(benchmark::State& state) {
  Load(state, bench::Profile::kCompact, true);
}
void BM_LoadYaml5000PodsFull(benchmark::State& state) {
  Load(state, bench::Profile::kFull, false);
}
void BM_LoadJson5000PodsFull(benchmark::State& state) {
  Load(state, bench::Profile::kFull, true);
}

// Where the YAML time goes: libyaml's events alone, then events into tapes.
void BM_LibyamlEventsOnly(benchmark::State& state) {
  const std::string& text = Dump(bench::Profile::kCompact, false);
  for (auto _ : state) {
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(
        &parser, reinterpret_cast<const unsigned char*>(text.data()),
        text.size());
    yaml_event_t event;
    size_t events = 0;
    while (yaml_parser_parse(&parser, &event)) {
      const bool done = event.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&event);
      ++events;
      if (done) break;
    }
    yaml_parser_delete(&parser);
    benchmark::DoNotOptimize(events);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

void ReadOnly(benchmark::State& state, bool json) {
  const std::string& text = Dump(bench::Profile::kCompact, json);
  for (auto _ : state) {
    size_t nodes = 0;
    auto sink = [&](const manifest::Tape& tape, int) {
      nodes += tape.nodes.size();
      return absl::OkStatus();
    };
    bool syntax_error = false;
    absl::Status st = json ? manifest::ReadJson(text, sink, &syntax_error)
                           : manifest::ReadYaml(text, sink);
    if (!st.ok()) state.SkipWithError("read failed");
    benchmark::DoNotOptimize(nodes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
void BM_ReadYamlTapesOnly(benchmark::State& state) { ReadOnly(state, false); }
void BM_ReadJsonTapesOnly(benchmark::State& state) { ReadOnly(state, true); }

BENCHMARK(BM_LibyamlEventsOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadYamlTapesOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadJsonTapesOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadYaml5000Pods)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadJson5000Pods)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadYaml5000PodsFull)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadJson5000PodsFull)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodeplan
