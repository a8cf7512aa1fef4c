#include "render.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "json_to_yaml.h"
#include "nodeplan/manifest.h"
#include "yaml_to_json.h"

namespace nodeplan::cli {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

v1::ScheduleResponse HandBuilt() {
  v1::ScheduleResponse r;
  const bool ok = google::protobuf::TextFormat::ParseFromString(
      R"pb(
        new_node_claims {
          name: "default-8k2lq"
          node_pool: "default"
          node_claim {
            api_version: "karpenter.sh/v1"
            kind: "NodeClaim"
            metadata {
              name: "default-8k2lq"
              labels { key: "karpenter.sh/nodepool" value: "default" }
              labels { key: "type" value: "karpenter" }
              annotations {
                key: "karpenter.sh/nodepool-hash"
                value: "11982308706243269361"
              }
            }
            spec {
              requirements {
                key: "node.kubernetes.io/instance-type"
                operator: "In"
                values: "m5.xlarge"
                values: "r5.large"
              }
              requirements {
                key: "karpenter.sh/capacity-type"
                operator: "In"
                values: "on-demand"
              }
              node_class_ref {
                group: "eks.amazonaws.com"
                kind: "NodeClass"
                name: "default"
              }
              resources {
                requests { key: "cpu" value: "3750m" }
                requests { key: "memory" value: "3840Mi" }
                requests { key: "pods" value: "15" }
              }
              expire_after: "72h"
            }
          }
          instance_types: "m5.xlarge"
          instance_types: "r5.large"
          launch {
            instance_type: "m5.xlarge"
            zone: "us-east-1a"
            capacity_type: "on-demand"
            price: 0.192
          }
          pods: "default/inflate-0"
          pods: "default/inflate-1"
          requests { key: "cpu" value: "3750m" }
          requests { key: "memory" value: "3840Mi" }
          launch_allocatable { key: "cpu" value: "3920m" }
          launch_allocatable { key: "memory" value: "14140Mi" }
        }
        new_node_claims {
          name: "default-q9x4d"
          node_pool: "default"
          instance_types: "c5.large"
          launch {
            instance_type: "c5.large"
            zone: "us-east-1b"
            capacity_type: "on-demand"
            price: 0.085
          }
          pods: "default/inflate-2"
          requests { key: "cpu" value: "1250m" }
          launch_allocatable { key: "cpu" value: "1930m" }
        }
        existing_nodes {
          name: "ip-10-0-1-23"
          kind: "Node"
          pods: "default/a"
          pods: "default/b"
        }
        unschedulable {
          pod: "default/gpu-job"
          reason: "no instance type has nvidia.com/gpu: 1e3 \"quoted\""
        }
        cost: 0.277
        library_version: "nodeplan/0.1.0"
        ignored_pods: 3
      )pb",
      &r);
  EXPECT_TRUE(ok);
  return r;
}

v1::NodePool DefaultPool() {
  v1::NodePool np;
  google::protobuf::TextFormat::ParseFromString(
      R"pb(
        metadata { name: "default" }
        spec {
          template {
            spec {
              requirements {
                key: "karpenter.sh/capacity-type"
                operator: "In"
                values: "on-demand"
              }
              requirements {
                key: "eks.amazonaws.com/instance-generation"
                operator: "Gt"
                values: "4"
              }
            }
          }
        }
      )pb",
      &np);
  return np;
}

TEST(RenderTable, ShowsClaimsPlacementsReasonsAndCost) {
  const std::string table = RenderScheduleTable(HandBuilt(), {DefaultPool()});
  const std::string expected =
      "NodePool default  on-demand · generation > 4\n"
      "  NODECLAIM      TYPE       ZONE        CAPACITY   $/HOUR  PODS  "
      "CPU            MEMORY         OPTIONS\n"
      "  default-8k2lq  m5.xlarge  us-east-1a  on-demand  0.1920     2  "
      "████████  96%  ██░░░░░░  27%        2\n"
      "  default-q9x4d  c5.large   us-east-1b  on-demand  0.0850     1  "
      "█████░░░  65%  -                    1\n"
      "On existing nodes: 2 pods (ip-10-0-1-23: 2)\n"
      "Unschedulable: 1 pod\n"
      "  default/gpu-job  no instance type has nvidia.com/gpu: 1e3 "
      "\"quoted\"\n"
      "Not pending (ignored): 3 pods\n"
      "Total: 2 new NodeClaims, $0.277/hour ($202/month)\n";
  EXPECT_EQ(table, expected);
}

TEST(RenderTable, EmptyPlan) {
  v1::ScheduleResponse r;
  EXPECT_EQ(RenderScheduleTable(r, {}),
            "No new NodeClaims.\nTotal: 0 new NodeClaims, $0.000/hour "
            "($0/month)\n");
}

TEST(RenderJson, ParsesBackIntoTheSameResponse) {
  const v1::ScheduleResponse r = HandBuilt();
  absl::StatusOr<std::string> json = RenderJson(r);
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(*json, HasSubstr("\"newNodeClaims\""));
  EXPECT_THAT(*json, HasSubstr("\"launchAllocatable\""));
  v1::ScheduleResponse back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &back).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(r, back));
}

TEST(RenderYaml, AnIndependentYamlReaderGetsTheSameResponse) {
  const v1::ScheduleResponse r = HandBuilt();
  absl::StatusOr<std::string> yaml = RenderYaml(r);
  ASSERT_TRUE(yaml.ok());
  std::vector<std::string> docs;
  ASSERT_TRUE(testing::YamlDocumentsToJson(*yaml, &docs)) << *yaml;
  ASSERT_EQ(docs.size(), 1u);
  v1::ScheduleResponse back;
  auto status = google::protobuf::util::JsonStringToMessage(docs[0], &back);
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << docs[0];
  EXPECT_TRUE(MessageDifferencer::Equals(r, back)) << *yaml;
  // Block style, kubectl-like sequences, quoted numbers-as-strings.
  EXPECT_THAT(*yaml, HasSubstr("newNodeClaims:\n- name: default-8k2lq\n"));
  EXPECT_THAT(
      *yaml, HasSubstr("karpenter.sh/nodepool-hash: \"11982308706243269361\""));
  EXPECT_THAT(*yaml, HasSubstr("pods: \"15\""));
  EXPECT_THAT(*yaml, HasSubstr("ignoredPods: 3\n"));
  // Map entries in key order, whatever the map's hash order.
  EXPECT_THAT(*yaml, HasSubstr("cpu: \"3750m\"\n          memory: \"3840Mi\"\n"
                               "          pods: \"15\"\n"));
}

TEST(RenderApplyReady, LoadsAsNodeClaims) {
  absl::StatusOr<std::string> yaml = RenderApplyReady(HandBuilt());
  ASSERT_TRUE(yaml.ok());
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(*yaml, v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status() << "\n" << *yaml;
  // The second NodeClaim carries no manifest in the hand-built response:
  // nothing to apply.
  ASSERT_EQ(set->node_claims_size(), 1);
  EXPECT_TRUE(MessageDifferencer::Equals(
      set->node_claims(0), HandBuilt().new_node_claims(0).node_claim()));
}

TEST(JsonToYaml, QuotesWhatAReaderWouldMisread) {
  struct Case {
    std::string text;
    bool quoted;
  };
  const Case cases[] = {
      {"", true},
      {"true", true},
      {"No", true},
      {"on", true},
      {"y", true},
      {"null", true},
      {"~", true},
      {"10", true},
      {"1e3", true},
      {"0x1F", true},
      {".5", true},
      {"-10%", true},
      {"+1", true},
      {"2026-11-29", true},
      {"a: b", true},
      {"a #b", true},
      {"trailing ", true},
      {"key:", true},
      {"*alias", true},
      {"&anchor", true},
      {"!tag", true},
      {"@at", true},
      {"%pct", true},
      {"'q", true},
      {"\"q", true},
      {"{a}", true},
      {"[a]", true},
      {"a\nb", true},
      {"|x", true},
      {">x", true},
      {"c6a.2xlarge", false},
      {"us-east-1a", false},
      {"on-demand", false},
      {"karpenter.sh/nodepool", false},
      {"default/inflate-1", false},
      {"a b c", false},
      {"NaN", false},
      {"x:y", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(YamlNeedsQuotes(c.text), c.quoted) << "\"" << c.text << "\"";
  }
}

TEST(JsonToYaml, EmptyCollectionsNestingAndEscapes) {
  absl::StatusOr<std::string> y = JsonToYaml(
      R"({"a":{},"b":[],"c":[[1,2],[]],"d":[{"x":1,"y":{"z":"é\u0001"}}],"e":1e-05,"f":null,"g":false})");
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(*y,
            "a: {}\n"
            "b: []\n"
            "c:\n"
            "-\n"
            "  - 1\n"
            "  - 2\n"
            "- []\n"
            "d:\n"
            "- x: 1\n"
            "  \"y\":\n"
            "    z: \"é\\x01\"\n"
            "e: 1.0e-05\n"
            "f: null\n"
            "g: false\n");
  EXPECT_FALSE(JsonToYaml("{\"a\":").ok());
  EXPECT_FALSE(JsonToYaml("[1,]").ok());
}

TEST(Bars, WidthAndRounding) {
  EXPECT_EQ(UtilizationBar(0.875, 8), "███████░  88%");
  EXPECT_EQ(UtilizationBar(0, 4), "░░░░   0%");
  EXPECT_EQ(UtilizationBar(1.2, 4), "████ 120%");
  EXPECT_EQ(DisplayWidth("██░ 5%"), 6u);
}

}  // namespace
}  // namespace nodeplan::cli

namespace nodeplan::cli {
namespace {

TEST(RenderTable, CostBoundLine) {
  v1::ScheduleResponse r;
  r.set_cost(0.277);
  r.mutable_cost_bound()->set_available(true);
  r.mutable_cost_bound()->set_lower_bound(0.2202);
  r.mutable_cost_bound()->set_covered_pods(20);
  EXPECT_EQ(CostBoundLine(r),
            "Lower bound: $0.220/hour: $0.277/hour is at most 26% above the "
            "cheapest possible");
  r.mutable_cost_bound()->set_relaxed_pods(3);
  EXPECT_EQ(CostBoundLine(r),
            "Lower bound: $0.220/hour: $0.277/hour is at most 26% above the "
            "cheapest possible; covers the 20 placed pods, 3 of them by "
            "requests, taints and limits only");
  r.mutable_cost_bound()->set_lower_bound(0.277);
  r.mutable_cost_bound()->set_relaxed_pods(0);
  EXPECT_EQ(CostBoundLine(r),
            "Lower bound: $0.277/hour: $0.277/hour is the cheapest possible");
  r.mutable_cost_bound()->set_available(false);
  r.mutable_cost_bound()->set_reason("options.costBound is Skip");
  EXPECT_EQ(CostBoundLine(r),
            "Lower bound: unavailable (options.costBound is Skip)");
  EXPECT_NE(RenderScheduleTable(r, {}).find("Lower bound: unavailable"),
            std::string::npos);
}

}  // namespace
}  // namespace nodeplan::cli
