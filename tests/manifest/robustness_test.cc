// Random truncations and mutations of valid documents never crash the loader
// (run under the asan preset), and a kubectl dump loads identically from YAML
// and JSON.

#include <random>
#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "manifest_workload.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

std::string Mutate(std::string text, std::mt19937_64& rng) {
  static const char kBytes[] = "{}[]:,-\"'#&*!|>\n \t0aZ\\\xC3\xA9\x80";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const size_t at = rng() % text.size();
    switch (rng() % 4) {
      case 0:  // truncate
        text.resize(at);
        break;
      case 1:  // replace a byte
        text[at] = kBytes[rng() % (sizeof(kBytes) - 1)];
        break;
      case 2:  // insert a byte
        text.insert(at, 1, kBytes[rng() % (sizeof(kBytes) - 1)]);
        break;
      default:  // delete a run
        text.erase(at, rng() % 16);
        break;
    }
  }
  return text;
}

void FuzzFrom(const std::string& seed_text, uint64_t seed, int rounds) {
  std::mt19937_64 rng(seed);
  v1::LoadOptions options;
  for (int i = 0; i < rounds; ++i) {
    const std::string text = Mutate(seed_text, rng);
    absl::StatusOr<v1::ManifestSet> got = LoadManifests(text, options);
    if (!got.ok()) {
      // Every error names the source and a document.
      ASSERT_EQ(got.status().message().rfind("<input>: ", 0), 0u)
          << got.status();
    }
    options.set_skip_unknown_kinds(!options.skip_unknown_kinds());
  }
}

TEST(RobustnessTest, MutatedYamlNeverCrashes) {
  const std::string yaml =
      bench::ToYaml(bench::ClusterDump(3, bench::Profile::kFull, 1));
  FuzzFrom(yaml, 1, 3000);
  FuzzFrom(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np, labels: {a: b}}
spec:
  template:
    metadata: {}
    spec:
      taints: []
      requirements:
      - {key: k, operator: In, values: [a, "b", 4], minValues: 2}
  disruption: {budgets: [{nodes: 10%}], consolidateAfter: 30s}
  weight: 10
---
instanceTypes: [{name: t, offerings: [{price: 0.1, available: true}]}]
)",
           2, 3000);
}

TEST(RobustnessTest, MutatedJsonNeverCrashes) {
  const std::string json =
      bench::ToJson(bench::ClusterDump(3, bench::Profile::kFull, 2));
  FuzzFrom(json, 3, 3000);
}

TEST(RobustnessTest, YamlAndJsonDumpsLoadIdentically) {
  const bench::Value dump = bench::ClusterDump(200, bench::Profile::kFull, 9);
  absl::StatusOr<v1::ManifestSet> from_yaml =
      LoadManifests(bench::ToYaml(dump), {});
  absl::StatusOr<v1::ManifestSet> from_json =
      LoadManifests(bench::ToJson(dump), {});
  ASSERT_TRUE(from_yaml.ok()) << from_yaml.status();
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  ASSERT_EQ(from_yaml->pods_size(), 200);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*from_yaml,
                                                                 *from_json));
  // Spot-check what a kubectl dump carries into the proto.
  const v1::Pod& pod = from_yaml->pods(0);
  EXPECT_FALSE(pod.metadata().name().empty());
  EXPECT_EQ(pod.metadata().owner_references(0).kind(), "ReplicaSet");
  EXPECT_TRUE(pod.metadata().owner_references(0).controller());
  EXPECT_EQ(pod.spec().tolerations(0).toleration_seconds(), 300);
  EXPECT_FALSE(
      pod.spec().containers(0).resources().requests().at("cpu").empty());
  EXPECT_EQ(pod.status().phase(), "Running");
  EXPECT_EQ(from_yaml->findings_size(), 0);
}

}  // namespace
}  // namespace nodeplan
