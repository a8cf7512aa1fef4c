// Manifest text that was refused wrongly, passed through undecoded, or
// exhausted memory before its error (issue 17, items 2, 10, 11 and 12).

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inputs.h"
#include "nodeplan/hash.h"
#include "nodeplan/limits.h"
#include "nodeplan/validate.h"

namespace nodeplan::hardening {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kPoolHead[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
)";

// Item 2: the CRD requires requirements to be present, not non-empty.
TEST(ManifestInputsTest, EmptyNodePoolRequirementsAreAccepted) {
  const v1::ManifestSet set =
      MustLoad(absl::StrCat(kPoolHead, "      requirements: []\n"));
  ASSERT_EQ(set.node_pools_size(), 1);
  EXPECT_THAT(Validate(set).violations(), IsEmpty());
  EXPECT_THAT(set.node_pools(0).spec().template_().present_empty_fields(),
              ::testing::Contains("spec.requirements"));
  EXPECT_TRUE(NodePoolHash(set.node_pools(0)).ok());
}

TEST(ManifestInputsTest, AbsentNodePoolRequirementsStayAnError) {
  const v1::ValidateResponse response = Validate(MustLoad(kPoolHead));
  ASSERT_EQ(response.violations_size(), 1);
  EXPECT_EQ(response.violations(0).field_path(),
            "spec.template.spec.requirements");
  EXPECT_EQ(response.violations(0).message(), "Required value");
}

// Item 10: 250 MB of empty lists reached 8.4 GB before "a document must be
// a mapping": the root is now checked before the tape is built.
TEST(ManifestInputsTest, HugeRootListIsRefusedBeforeItsTapeIsBuilt) {
  constexpr size_t kBytes = size_t{250} << 20;
  std::string json = "[";
  json.reserve(kBytes + 2);
  while (json.size() < kBytes) json += "[],";
  json += "[]]";
  Stopwatch json_time;
  absl::StatusOr<v1::ManifestSet> from_json =
      LoadManifests(json, v1::LoadOptions());
  ASSERT_FALSE(from_json.ok());
  EXPECT_THAT(from_json.status().message(),
              HasSubstr("document 1: a document must be a mapping (an object) "
                        "(line 1, column 1)"));
  EXPECT_LT(json_time.Seconds(), 2.0);
  json.clear();
  json.shrink_to_fit();

  std::string yaml;
  yaml.reserve(kBytes + 8);
  while (yaml.size() < kBytes) yaml += "- []\n";
  Stopwatch yaml_time;
  absl::StatusOr<v1::ManifestSet> from_yaml =
      LoadManifests(yaml, v1::LoadOptions());
  ASSERT_FALSE(from_yaml.ok());
  EXPECT_THAT(from_yaml.status().message(),
              HasSubstr("document 1: a document must be a mapping (an object) "
                        "(line 1, column 1)"));
  EXPECT_LT(yaml_time.Seconds(), 5.0);
}

// A mapping root with the lists inside: the tape stops at the documented
// node cap.
TEST(ManifestInputsTest, DocumentPastTheNodeCapIsResourceExhausted) {
  const size_t lists = limits::kMaxDocumentNodes / 2 + 1;
  std::string json = "{\"items\":[";
  json.reserve(lists * 3 + 16);
  for (size_t i = 0; i < lists; ++i) json += "[],";
  json += "[]]}";
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(json, v1::LoadOptions());
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(set.status().message(), HasSubstr("kMaxDocumentNodes"));
}

TEST(ManifestInputsTest, SmallRootListsAreRefusedAlikeByEveryReader) {
  for (const char* text :
       {"[1, 2]", "- 1\n- 2\n", "--- !!seq\n- 1\n", "[1, 2,]"}) {
    SCOPED_TRACE(text);
    absl::StatusOr<v1::ManifestSet> set =
        LoadManifests(text, v1::LoadOptions());
    ASSERT_FALSE(set.ok());
    EXPECT_THAT(set.status().message(),
                HasSubstr("a document must be a mapping (an object)"));
  }
}

// Item 11: tags were passed through undecoded.
TEST(ManifestInputsTest, YamlTagsBeyondTheCoreSchemaAreRefused) {
  absl::StatusOr<v1::ManifestSet> binary = LoadManifests(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: !!binary cA==\n",
      v1::LoadOptions());
  ASSERT_FALSE(binary.ok());
  EXPECT_THAT(
      binary.status().message(),
      HasSubstr("YAML tag !!binary is not supported (line 4, column 9)"));
  absl::StatusOr<v1::ManifestSet> custom =
      LoadManifests("apiVersion: v1\nkind: Pod\nmetadata: !thing {name: p}\n",
                    v1::LoadOptions());
  ASSERT_FALSE(custom.ok());
  EXPECT_THAT(custom.status().message(), HasSubstr("YAML tag !thing"));
  // Core-schema tags only restate the type and stay accepted.
  EXPECT_TRUE(LoadManifests("apiVersion: v1\nkind: Pod\nmetadata:\n"
                            "  name: !!str p\n",
                            v1::LoadOptions())
                  .ok());
}

// Item 11: `<<: 5` became an extended resource named "<<".
TEST(ManifestInputsTest, MergeKeysAreRefused) {
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    resources:
      requests:
        cpu: "1"
        <<: 5
)",
                                                      v1::LoadOptions());
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              HasSubstr("spec.containers[0].resources.requests.<<: YAML merge "
                        "keys (<<) are not supported"));
  absl::StatusOr<v1::ManifestSet> in_object = LoadManifests(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n<<: {spec: {}}\n",
      v1::LoadOptions());
  ASSERT_FALSE(in_object.ok());
  EXPECT_THAT(in_object.status().message(), HasSubstr("merge keys"));
}

// Item 12: a Catalog of another apiVersion says which one is expected.
TEST(ManifestInputsTest, KnownKindUnderAnotherApiVersionSaysWhichIsExpected) {
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(
      "apiVersion: nodeplan.dev/v2\nkind: Catalog\ninstanceTypes: []\n",
      v1::LoadOptions());
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              HasSubstr("unsupported kind \"Catalog\" of apiVersion "
                        "\"nodeplan.dev/v2\": Catalog needs apiVersion "
                        "\"nodeplan.dev/v1\""));
}

}  // namespace
}  // namespace nodeplan::hardening
