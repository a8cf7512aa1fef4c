// The seed manifests in examples/workshop load field for field.

#include <fstream>
#include <sstream>
#include <string>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

std::string ReadSeed(const std::string& name) {
  std::ifstream in(std::string(NODEPLAN_SOURCE_DIR) + "/examples/workshop/" +
                   name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

v1::ManifestSet Parse(const std::string& text_proto) {
  v1::ManifestSet set;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text_proto, &set));
  return set;
}

void ExpectLoads(const std::string& file, const std::string& expected) {
  v1::LoadOptions options;
  options.set_source_name(file);
  absl::StatusOr<v1::ManifestSet> got = LoadManifests(ReadSeed(file), options);
  ASSERT_TRUE(got.ok()) << got.status();
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  EXPECT_TRUE(diff.Compare(Parse(expected), *got)) << report;
}

TEST(SeedManifestTest, NodePoolGeneralPurpose) {
  ExpectLoads("nodepool-general-purpose.yaml", R"pb(
    node_pools {
      api_version: "karpenter.sh/v1"
      kind: "NodePool"
      metadata {
        name: "general-purpose"
        resource_version: "57384"
        generation: 1
        labels { key: "app.kubernetes.io/managed-by" value: "eks" }
        annotations {
          key: "karpenter.sh/nodepool-hash"
          value: "4012513481623584108"
        }
        annotations { key: "karpenter.sh/nodepool-hash-version" value: "v3" }
      }
      spec {
        disruption {
          budgets { nodes: "10%" }
          consolidate_after: "30s"
          consolidation_policy: "WhenEmptyOrUnderutilized"
        }
        template {
          metadata {}
          present_empty_fields: "metadata"
          spec {
            expire_after: "336h"
            node_class_ref {
              group: "eks.amazonaws.com"
              kind: "NodeClass"
              name: "default"
            }
            requirements {
              key: "karpenter.sh/capacity-type"
              operator: "In"
              values: "on-demand"
            }
            requirements {
              key: "eks.amazonaws.com/instance-category"
              operator: "In"
              values: [ "c", "m", "r" ]
            }
            requirements {
              key: "eks.amazonaws.com/instance-generation"
              operator: "Gt"
              values: "4"
            }
            requirements {
              key: "kubernetes.io/arch"
              operator: "In"
              values: "amd64"
            }
            requirements {
              key: "kubernetes.io/os"
              operator: "In"
              values: "linux"
            }
            termination_grace_period: "24h0m0s"
          }
        }
      }
    }
  )pb");
}

TEST(SeedManifestTest, NodeClassDefault) {
  ExpectLoads("nodeclass-default.yaml", R"pb(
    node_classes {
      api_version: "eks.amazonaws.com/v1"
      kind: "NodeClass"
      metadata {
        name: "default"
        resource_version: "304263"
        generation: 1
        finalizers: "eks.amazonaws.com/termination"
        labels { key: "app.kubernetes.io/managed-by" value: "eks" }
        annotations {
          key: "eks.amazonaws.com/nodeclass-hash"
          value: "495408067366721138"
        }
        annotations {
          key: "eks.amazonaws.com/nodeclass-hash-version"
          value: "v2"
        }
      }
      spec {
        ephemeral_storage { iops: 3000 size: "80Gi" throughput: 125 }
        network_policy: "DefaultAllow"
        network_policy_event_logs: "Disabled"
        role: "eks-workshop-auto-auto-node"
        security_group_selector_terms { id: "sg-0c70efd097a74a4cf" }
        snat_policy: "Random"
        subnet_selector_terms { id: "subnet-096bfe6623a87be3f" }
        subnet_selector_terms { id: "subnet-09e84ab4eee5d16bb" }
        subnet_selector_terms { id: "subnet-02a87ab5b226b952d" }
      }
    }
  )pb");
}

TEST(SeedManifestTest, DirectoryLoadsBothInNameOrder) {
  absl::StatusOr<v1::ManifestSet> got = LoadManifestFiles(
      {std::string(NODEPLAN_SOURCE_DIR) + "/examples/workshop"}, {});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->node_pools_size(), 1);
  ASSERT_EQ(got->node_classes_size(), 1);
  EXPECT_EQ(got->node_pools(0).metadata().name(), "general-purpose");
  EXPECT_EQ(got->node_classes(0).metadata().name(), "default");
  EXPECT_EQ(got->findings_size(), 0);
}

}  // namespace
}  // namespace nodeplan
