// LoadManifests on a generated 5,000-pod cluster dump, YAML and JSON.

#include <yaml.h>

#include <map>
#include <string>
#include <tuple>

#include "benchmark/benchmark.h"
#include "manifest/readers.h"
#include "manifest_workload.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

constexpr int kPods = 5000;
constexpr uint64_t kSeed = 20240501;

// Dumps are generated once per (profile, format, pods) and kept.
const std::string& Dump(bench::Profile profile, bool json, int pods = kPods) {
  static auto* const dumps =
      new std::map<std::tuple<int, bool, int>, std::string>();
  auto key = std::make_tuple(static_cast<int>(profile), json, pods);
  auto it = dumps->find(key);
  if (it == dumps->end()) {
    bench::Value v = bench::ClusterDump(pods, profile, kSeed);
    it = dumps->emplace(key, json ? bench::ToJson(v) : bench::ToYaml(v)).first;
  }
  return it->second;
}

void Load(benchmark::State& state, bench::Profile profile, bool json) {
  const int pods = static_cast<int>(state.range(0));
  const std::string& text = Dump(profile, json, pods);
  v1::LoadOptions options;
  for (auto _ : state) {
    absl::StatusOr<v1::ManifestSet> set = LoadManifests(text, options);
    if (!set.ok() || set->pods_size() != pods) {
      state.SkipWithError("load failed");
      return;
    }
    benchmark::DoNotOptimize(set);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.counters["input_MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_LoadYaml(benchmark::State& state) {
  Load(state, bench::Profile::kCompact, false);
}
void BM_LoadJson(benchmark::State& state) {
  Load(state, bench::Profile::kCompact, true);
}
void BM_LoadYamlFull(benchmark::State& state) {
  Load(state, bench::Profile::kFull, false);
}
void BM_LoadJsonFull(benchmark::State& state) {
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

enum class Reader { kLibyaml, kYamlFast, kJson };

void ReadOnly(benchmark::State& state, Reader reader) {
  const bool json = reader == Reader::kJson;
  const std::string& text = Dump(bench::Profile::kCompact, json);
  for (auto _ : state) {
    size_t nodes = 0;
    auto sink = [&](const manifest::Tape& tape, int) {
      nodes += tape.nodes.size();
      return absl::OkStatus();
    };
    bool failed = false;
    absl::Status st;
    switch (reader) {
      case Reader::kJson:
        st = manifest::ReadJson(text, sink, &failed);
        break;
      case Reader::kYamlFast:
        st = manifest::ReadYamlFast(text, sink, &failed);
        break;
      case Reader::kLibyaml:
        st = manifest::ReadYaml(text, sink);
        break;
    }
    if (!st.ok() || failed) state.SkipWithError("read failed");
    benchmark::DoNotOptimize(nodes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
void BM_ReadYamlTapesOnly(benchmark::State& state) {
  ReadOnly(state, Reader::kLibyaml);
}
void BM_ReadYamlFastTapesOnly(benchmark::State& state) {
  ReadOnly(state, Reader::kYamlFast);
}
void BM_ReadJsonTapesOnly(benchmark::State& state) {
  ReadOnly(state, Reader::kJson);
}

BENCHMARK(BM_LibyamlEventsOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadYamlTapesOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadYamlFastTapesOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadJsonTapesOnly)->Unit(benchmark::kMillisecond);
// The argument is the number of pods; 900 compact pods are about 2 MB of
// YAML, the size the targets were set for.
BENCHMARK(BM_LoadYaml)->Arg(kPods)->Arg(900)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadJson)->Arg(kPods)->Arg(900)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadYamlFull)->Arg(kPods)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadJsonFull)->Arg(kPods)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodeplan
