#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/hash.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan {
namespace {

// The seed general-purpose NodePool (EKS Auto Mode), as JSON; `extra_spec`
// and `metadata` are spliced into spec.template.
std::string SeedJson(
    const std::string& template_metadata = "{}",
    const std::string& extra_spec = "",
    const std::string& expire_after = "\"336h\"",
    const std::string& requirements =
        R"([{"key":"karpenter.sh/capacity-type","operator":"In","values":["on-demand"]},
{"key":"eks.amazonaws.com/instance-category","operator":"In","values":["c","m","r"]},
{"key":"eks.amazonaws.com/instance-generation","operator":"Gt","values":["4"]},
{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]},
{"key":"kubernetes.io/os","operator":"In","values":["linux"]}])") {
  return absl::StrCat(
      R"({"apiVersion":"karpenter.sh/v1","kind":"NodePool",
"metadata":{"name":"general-purpose"},
"spec":{"disruption":{"budgets":[{"nodes":"10%"}],"consolidateAfter":"30s",
"consolidationPolicy":"WhenEmptyOrUnderutilized"},
"template":{"metadata":)",
      template_metadata, R"(,"spec":{)",
      expire_after.empty()
          ? ""
          : absl::StrCat(R"("expireAfter":)", expire_after, ","),
      R"("nodeClassRef":{"group":"eks.amazonaws.com","kind":"NodeClass","name":"default"},
"requirements":)",
      requirements, extra_spec, R"(,"terminationGracePeriod":"24h0m0s"}}}})");
}

v1::NodePool Parse(const std::string& json) {
  v1::NodePool np;
  auto status = google::protobuf::util::JsonStringToMessage(json, &np);
  EXPECT_TRUE(status.ok()) << status.message() << "\n" << json;
  return np;
}

std::string HashOf(const v1::NodePool& np) {
  absl::StatusOr<std::string> h = NodePoolHash(np);
  EXPECT_TRUE(h.ok()) << h.status();
  return h.ok() ? *h : "";
}

struct Vector {
  std::string name;
  std::string json;
  std::string hash;
};

TEST(NodePoolHash, ReferenceVectors) {
  const Vector vectors[] = {
      {"seed", SeedJson(), "4012513481623584108"},
      {"labels", SeedJson(R"({"labels":{"type":"karpenter"}})"),
       "1445944945662556359"},
      {"taint",
       SeedJson(
           "{}",
           R"(,"taints":[{"key":"example.com/special","value":"true","effect":"NoSchedule"}])"),
       "11255377023678766593"},
      {"expireAfter 720h", SeedJson("{}", "", "\"720h\""),
       "7905616995495583176"},
      {"requirements ignored",
       SeedJson(
           "{}", "", "\"336h\"",
           R"([{"key":"kubernetes.io/arch","operator":"In","values":["arm64"]}])"),
       "4012513481623584108"},
  };
  for (const Vector& v : vectors) {
    EXPECT_EQ(HashOf(Parse(v.json)), v.hash) << v.name;
  }
}

TEST(NodePoolHash, AbsentExpireAfterIsTheCrdDefault720h) {
  EXPECT_EQ(HashOf(Parse(SeedJson("{}", "", ""))), "7905616995495583176");
}

TEST(NodePoolHash, EquivalentDurationSpellingsHashAlike) {
  EXPECT_EQ(HashOf(Parse(SeedJson("{}", "", "\"336h0m0s\""))),
            "4012513481623584108");
  EXPECT_EQ(HashOf(Parse(SeedJson("{}", "", "\"20160m\""))),
            "4012513481623584108");
}

TEST(NodePoolHash, OnlyTheTemplateCounts) {
  v1::NodePool np = Parse(SeedJson());
  np.mutable_metadata()->set_name("other");
  np.mutable_spec()->mutable_disruption()->set_consolidate_after("10m");
  (*np.mutable_spec()->mutable_limits())["cpu"] = "1000";
  np.mutable_spec()->set_weight(50);
  EXPECT_EQ(HashOf(np), "4012513481623584108");
}

TEST(NodePoolHash, TaintOrderDoesNotMatter) {
  const std::string a =
      R"({"key":"a.example.com/x","value":"1","effect":"NoSchedule"})";
  const std::string b = R"({"key":"b.example.com/y","effect":"NoExecute"})";
  EXPECT_EQ(HashOf(Parse(
                SeedJson("{}", absl::StrCat(",\"taints\":[", a, ",", b, "]")))),
            HashOf(Parse(SeedJson(
                "{}", absl::StrCat(",\"taints\":[", b, ",", a, "]")))));
}

TEST(NodePoolHash, NeverAndPresentEmptyFieldsChangeTheHash) {
  const std::string seed = HashOf(Parse(SeedJson()));
  const std::string never = HashOf(Parse(SeedJson("{}", "", "\"Never\"")));
  EXPECT_NE(never, seed);
  EXPECT_NE(never, HashOf(Parse(SeedJson("{}", "", ""))));

  // "metadata: {}" alone is a zero ObjectMeta: skipped.
  v1::NodePool np = Parse(SeedJson());
  np.mutable_spec()->mutable_template_()->add_present_empty_fields("metadata");
  EXPECT_EQ(HashOf(np), seed);

  // "labels: {}" is a non-nil map: it counts, and differs from no labels.
  np.mutable_spec()->mutable_template_()->add_present_empty_fields(
      "metadata.labels");
  const std::string empty_labels = HashOf(np);
  EXPECT_NE(empty_labels, seed);

  // "taints: []" counts too (value 0), and differs from startupTaints: [].
  v1::NodePool taints = Parse(SeedJson());
  taints.mutable_spec()->mutable_template_()->add_present_empty_fields(
      "spec.taints");
  v1::NodePool startup = Parse(SeedJson());
  startup.mutable_spec()->mutable_template_()->add_present_empty_fields(
      "spec.startupTaints");
  EXPECT_NE(HashOf(taints), seed);
  EXPECT_NE(HashOf(taints), HashOf(startup));
}

TEST(NodePoolHash, UnparsableDurationsAreErrorsNamingTheField) {
  absl::StatusOr<std::string> h =
      NodePoolHash(Parse(SeedJson("{}", "", "\"two weeks\"")));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(h.status().message().find("NodePool general-purpose"),
            std::string::npos);
  EXPECT_NE(h.status().message().find("spec.template.spec.expireAfter"),
            std::string::npos)
      << h.status();

  v1::NodePool np = Parse(SeedJson());
  np.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->set_termination_grace_period("Never");
  h = NodePoolHash(np);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("terminationGracePeriod"),
            std::string::npos);

  np = Parse(SeedJson(
      "{}",
      R"(,"taints":[{"key":"k","effect":"NoSchedule","timeAdded":"yesterday"}])"));
  h = NodePoolHash(np);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("spec.template.spec.taints[0].timeAdded"),
            std::string::npos);
}

TEST(NodePoolHash, TimeAddedCounts) {
  const std::string with_time = HashOf(Parse(SeedJson(
      "{}",
      R"(,"taints":[{"key":"example.com/special","value":"true","effect":"NoSchedule","timeAdded":"2026-01-02T03:04:05Z"}])")));
  EXPECT_NE(with_time, "11255377023678766593");
}

}  // namespace
}  // namespace nodeplan
