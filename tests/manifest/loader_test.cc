// LoadManifests: tables of good inputs (with the exact ManifestSet expected)
// and bad inputs (with the exact error), findings and present-empty fields.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

v1::ManifestSet ParseTextProto(const std::string& text_proto) {
  v1::ManifestSet set;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text_proto, &set))
      << text_proto;
  return set;
}

absl::StatusOr<v1::ManifestSet> Load(const std::string& text,
                                     bool skip_unknown = false) {
  v1::LoadOptions options;
  options.set_source_name("test.yaml");
  options.set_skip_unknown_kinds(skip_unknown);
  return LoadManifests(text, options);
}

struct GoodCase {
  const char* name;
  const char* input;
  const char* expected;  // text proto of the ManifestSet
};

class GoodInputTest : public testing::TestWithParam<GoodCase> {};

TEST_P(GoodInputTest, LoadsExactly) {
  const GoodCase& c = GetParam();
  absl::StatusOr<v1::ManifestSet> got = Load(c.input);
  ASSERT_TRUE(got.ok()) << got.status();
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  EXPECT_TRUE(diff.Compare(ParseTextProto(c.expected), *got)) << report;
}

const GoodCase kGoodCases[] = {
    {"KindList",
     R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: ns}
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {topology.kubernetes.io/zone: us-east-1a}
metadata:
  resourceVersion: ""
)",
     R"pb(
       pods {
         api_version: "v1"
         kind: "Pod"
         metadata { name: "a" namespace: "ns" }
       }
       nodes {
         api_version: "v1"
         kind: "Node"
         metadata {
           name: "n1"
           labels { key: "topology.kubernetes.io/zone" value: "us-east-1a" }
         }
       }
     )pb"},
    {"KubectlJsonPodWithManagedFieldsAndStatus",
     R"({
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "creationTimestamp": "2024-05-01T10:00:00Z",
        "labels": {"app": "web"},
        "managedFields": [
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}},
                "manager": "kubectl",
                "operation": "Update",
                "time": "2024-05-01T10:00:00Z"
            }
        ],
        "name": "web-0",
        "namespace": "default",
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": true,
                "controller": true,
                "kind": "StatefulSet",
                "name": "web",
                "uid": "u-1"
            }
        ]
    },
    "spec": {
        "containers": [
            {
                "image": "nginx",
                "name": "web",
                "ports": [{"containerPort": 80, "hostIP": "10.0.0.1", "hostPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}
            }
        ],
        "priority": 0,
        "tolerations": [
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300}
        ]
    },
    "status": {
        "conditions": [{"lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:00Z", "status": "False", "type": "PodScheduled", "reason": "Unschedulable"}],
        "hostIP": "10.0.0.1",
        "phase": "Pending",
        "qosClass": "Burstable"
    }
}
)",
     R"pb(
       pods {
         api_version: "v1"
         kind: "Pod"
         metadata {
           creation_timestamp: "2024-05-01T10:00:00Z"
           labels { key: "app" value: "web" }
           name: "web-0"
           namespace: "default"
           owner_references {
             api_version: "apps/v1"
             block_owner_deletion: true
             controller: true
             kind: "StatefulSet"
             name: "web"
             uid: "u-1"
           }
         }
         spec {
           containers {
             name: "web"
             ports {
               container_port: 80
               host_ip: "10.0.0.1"
               host_port: 8080
               protocol: "TCP"
             }
             resources {
               requests { key: "cpu" value: "250m" }
               requests { key: "memory" value: "64Mi" }
             }
           }
           priority: 0
           tolerations {
             effect: "NoExecute"
             key: "node.kubernetes.io/not-ready"
             operator: "Exists"
             toleration_seconds: 300
           }
         }
         status {
           conditions {
             last_transition_time: "2024-05-01T10:00:00Z"
             status: "False"
             type: "PodScheduled"
             reason: "Unschedulable"
           }
           phase: "Pending"
         }
       }
     )pb"},
    {"ScalarsIntoStringFields",
     R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      requirements:
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [4]}
      - {key: flag, operator: In, values: [true, "false", 1.50, ~]}
  limits: {cpu: 1000, memory: 1000Gi}
  weight: "10"
)",
     R"pb(
       node_pools {
         api_version: "karpenter.sh/v1"
         kind: "NodePool"
         metadata { name: "np" }
         spec {
           template {
             spec {
               requirements {
                 key: "karpenter.k8s.aws/instance-generation"
                 operator: "Gt"
                 values: "4"
               }
               requirements {
                 key: "flag"
                 operator: "In"
                 values: [ "true", "false", "1.50", "" ]
               }
             }
           }
           limits { key: "cpu" value: "1000" }
           limits { key: "memory" value: "1000Gi" }
           weight: 10
         }
       }
     )pb"},
    {"CpuAsIntegerAndIntOrStringPdb",
     R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: 2, memory: 1Gi}
      limits: {nvidia.com/gpu: 1}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb, namespace: ns}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb2, namespace: ns}
spec:
  maxUnavailable: "50%"
)",
     R"pb(
       pods {
         api_version: "v1"
         kind: "Pod"
         metadata { name: "p" }
         spec {
           containers {
             name: "c"
             resources {
               requests { key: "cpu" value: "2" }
               requests { key: "memory" value: "1Gi" }
               limits { key: "nvidia.com/gpu" value: "1" }
             }
           }
         }
       }
       pod_disruption_budgets {
         api_version: "policy/v1"
         kind: "PodDisruptionBudget"
         metadata { name: "pdb" namespace: "ns" }
         spec {
           min_available: "1"
           selector { match_labels { key: "app" value: "web" } }
         }
       }
       pod_disruption_budgets {
         api_version: "policy/v1"
         kind: "PodDisruptionBudget"
         metadata { name: "pdb2" namespace: "ns" }
         spec { max_unavailable: "50%" }
       }
     )pb"},
    {"CommentsEmptyAndNullDocuments",
     R"(# leading comment
---
---
~
---
apiVersion: v1   # trailing comment
kind: Node
metadata:
  name: n   # the name
spec:
  providerID: aws:///us-east-1a/i-0abc
  unschedulable: yes
  taints: null
---
# only a comment
)",
     R"pb(
       nodes {
         api_version: "v1"
         kind: "Node"
         metadata { name: "n" }
         spec { provider_id: "aws:///us-east-1a/i-0abc" unschedulable: true }
       }
     )pb"},
    {"NullMeansDefault",
     R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  labels: null
  annotations: ~
spec:
  replicas: null
  template:
    metadata: null
    spec:
      priority:
      nodeSelector: {}
)",
     R"pb(
       deployments {
         api_version: "apps/v1"
         kind: "Deployment"
         metadata { name: "d" }
         spec { template { spec {} } }
       }
     )pb"},
    {"CatalogWithoutKindAndWithKind",
     R"(region: us-east-1
instanceTypes:
- name: m5.large
  labels: {karpenter.k8s.aws/instance-family: m5}
  capacity: {cpu: "2", memory: 8Gi, pods: 29}
  offerings:
  - {zone: us-east-1a, capacityType: on-demand, price: 0.096}
  - {zone: us-east-1b, capacityType: spot, price: 3.5e-2, available: false}
---
apiVersion: nodeplan.dev/v1
kind: Catalog
region: eu-west-1
wellKnownLabels: [karpenter.k8s.aws/instance-family]
)",
     R"pb(
       catalogs {
         region: "us-east-1"
         instance_types {
           name: "m5.large"
           labels { key: "karpenter.k8s.aws/instance-family" value: "m5" }
           capacity { key: "cpu" value: "2" }
           capacity { key: "memory" value: "8Gi" }
           capacity { key: "pods" value: "29" }
           offerings {
             zone: "us-east-1a"
             capacity_type: "on-demand"
             price: 0.096
           }
           offerings {
             zone: "us-east-1b"
             capacity_type: "spot"
             price: 0.035
             available: false
           }
         }
       }
       catalogs {
         api_version: "nodeplan.dev/v1"
         kind: "Catalog"
         region: "eu-west-1"
         well_known_labels: "karpenter.k8s.aws/instance-family"
       }
     )pb"},
    {"JsonStreamAndUnicodeEscapes",
     R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n\u00e9\ud83d\ude00","labels":{"a\/b":"x\"y\\z\n"}}}
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"gp3"},"provisioner":"ebs.csi.aws.com","volumeBindingMode":"WaitForFirstConsumer","allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.ebs.csi.aws.com/zone","values":["us-east-1a"]}]}]}
)",
     R"pb(
       nodes {
         api_version: "v1"
         kind: "Node"
         metadata {
           name: "n\303\251\360\237\230\200"
           labels { key: "a/b" value: "x\"y\\z\n" }
         }
       }
       storage_classes {
         api_version: "storage.k8s.io/v1"
         kind: "StorageClass"
         metadata { name: "gp3" }
         provisioner: "ebs.csi.aws.com"
         volume_binding_mode: "WaitForFirstConsumer"
         allowed_topologies {
           match_label_expressions {
             key: "topology.ebs.csi.aws.com/zone"
             values: "us-east-1a"
           }
         }
       }
     )pb"},
    // `kubectl get csinode -o json`: a List with server-set fields.
    {"CSINodeList",
     R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"ip-10-0-1-2.ec2.internal","ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"ip-10-0-1-2.ec2.internal","uid":"u"}]},"spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-0abc","allocatable":{"count":25},"topologyKeys":["topology.ebs.csi.aws.com/zone"]},{"name":"efs.csi.aws.com","nodeID":"i-0abc","topologyKeys":null}]}}]})",
     R"pb(
       csi_nodes {
         api_version: "storage.k8s.io/v1"
         kind: "CSINode"
         metadata {
           name: "ip-10-0-1-2.ec2.internal"
           owner_references {
             api_version: "v1"
             kind: "Node"
             name: "ip-10-0-1-2.ec2.internal"
             uid: "u"
           }
         }
         spec {
           drivers {
             name: "ebs.csi.aws.com"
             node_id: "i-0abc"
             allocatable { count: 25 }
             topology_keys: "topology.ebs.csi.aws.com/zone"
           }
           drivers { name: "efs.csi.aws.com" node_id: "i-0abc" }
         }
       }
     )pb"},
    {"Namespace",
     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: data\n  labels:\n"
     "    kubernetes.io/metadata.name: data\n    team: data\n",
     R"pb(
       namespaces {
         api_version: "v1"
         kind: "Namespace"
         metadata {
           name: "data"
           labels { key: "kubernetes.io/metadata.name" value: "data" }
           labels { key: "team" value: "data" }
         }
       }
     )pb"},
    {"YamlFlowThatIsNotJson",
     R"({apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data},
 spec: {storageClassName: "", accessModes: [ReadWriteOnce],
        resources: {requests: {storage: 10Gi}}}})",
     R"pb(
       persistent_volume_claims {
         api_version: "v1"
         kind: "PersistentVolumeClaim"
         metadata { name: "data" }
         spec {
           storage_class_name: ""
           access_modes: "ReadWriteOnce"
           resources { requests { key: "storage" value: "10Gi" } }
         }
       }
     )pb"},
    {"ProtoFieldNamesAndQuotedNumbers",
     R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  node_selector: {disk: ssd}
  tolerations:
  - {key: k, operator: Exists, tolerationSeconds: "60"}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    minDomains: 3
    labelSelector: {matchExpressions: [{key: app, operator: In, values: [a]}]}
)",
     R"pb(
       pods {
         api_version: "v1"
         kind: "Pod"
         metadata { name: "p" }
         spec {
           node_selector { key: "disk" value: "ssd" }
           tolerations { key: "k" operator: "Exists" toleration_seconds: 60 }
           topology_spread_constraints {
             max_skew: 1
             topology_key: "topology.kubernetes.io/zone"
             when_unsatisfiable: "DoNotSchedule"
             min_domains: 3
             label_selector {
               match_expressions { key: "app" operator: "In" values: "a" }
             }
           }
         }
       }
     )pb"},
    {"ApiServerPodList",
     R"({"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"},"spec":{"schedulerName":"default-scheduler"}}]})",
     // Items of a typed list carry no apiVersion/kind: they inherit them.
     R"pb(
       pods {
         api_version: "v1"
         kind: "Pod"
         metadata { name: "a" }
         spec { scheduler_name: "default-scheduler" }
       }
     )pb"},
    {"KarpenterObjects",
     R"(apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: nc}
spec:
  requirements:
  - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 1}
  resources: {requests: {cpu: 1500m}}
  nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
  expireAfter: Never
status:
  providerID: aws:///i-1
  imageID: ami-1
  nodeName: ip-1
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: o}
spec:
  requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
  priceAdjustment: "-10%"
  capacity: {smarter-devices/fuse: 1}
  weight: 5
)",
     R"pb(
       node_claims {
         api_version: "karpenter.sh/v1"
         kind: "NodeClaim"
         metadata { name: "nc" }
         spec {
           requirements {
             key: "node.kubernetes.io/instance-type"
             operator: "In"
             values: "m5.large"
             min_values: 1
           }
           resources { requests { key: "cpu" value: "1500m" } }
           node_class_ref {
             group: "eks.amazonaws.com"
             kind: "NodeClass"
             name: "default"
           }
           expire_after: "Never"
         }
         status {
           provider_id: "aws:///i-1"
           image_id: "ami-1"
           node_name: "ip-1"
         }
       }
       node_overlays {
         api_version: "karpenter.sh/v1alpha1"
         kind: "NodeOverlay"
         metadata { name: "o" }
         spec {
           requirements {
             key: "karpenter.sh/capacity-type"
             operator: "In"
             values: "spot"
           }
           price_adjustment: "-10%"
           capacity { key: "smarter-devices/fuse" value: "1" }
           weight: 5
         }
       }
     )pb"},
};

INSTANTIATE_TEST_SUITE_P(Table, GoodInputTest, testing::ValuesIn(kGoodCases),
                         [](const testing::TestParamInfo<GoodCase>& info) {
                           return std::string(info.param.name);
                         });

struct BadCase {
  const char* name;
  const char* input;
  const char* error;
};

class BadInputTest : public testing::TestWithParam<BadCase> {};

TEST_P(BadInputTest, FailsWithExactError) {
  const BadCase& c = GetParam();
  absl::StatusOr<v1::ManifestSet> got = Load(c.input);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(got.status().message()), c.error);
}

const BadCase kBadCases[] = {
    {"BadOperatorValuesShape",
     R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      requirements:
      - {key: a, operator: In, values: [x]}
      - {key: b, operator: In, values: [y]}
      - key: c
        operator: In
        values:
        - {nested: map}
)",
     "test.yaml: document 1: NodePool general-purpose: "
     "spec.template.spec.requirements[2].values[0]: expected a string, got a "
     "mapping (line 13, column 11)"},
    {"ValuesNotASequence",
     "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\n"
     "spec:\n  template:\n    spec:\n      requirements:\n"
     "      - {key: a, operator: In, values: c}\n",
     "test.yaml: document 1: NodePool np: "
     "spec.template.spec.requirements[0].values: expected a sequence, got "
     "\"c\" (line 8, column 40)"},
    {"IntegerFieldWithWord",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  namespace: default\n"
     "spec:\n  priority: high\n",
     "test.yaml: document 1: Pod default/a: spec.priority: expected an "
     "integer, got \"high\" (line 7, column 13)"},
    {"IntegerOutOfRange",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n"
     "  priority: 99999999999\n",
     "test.yaml: document 1: Pod a: spec.priority: value \"99999999999\" is "
     "not a valid int32 (line 5, column 13)"},
    {"FractionalInteger",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n"
     "  tolerations: [{key: k, tolerationSeconds: 1.5}]\n",
     "test.yaml: document 1: Pod a: spec.tolerations[0].tolerationSeconds: "
     "expected an integer, got \"1.5\" (line 5, column 45)"},
    {"BadBoolean",
     "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n"
     "  unschedulable: maybe\n",
     "test.yaml: document 1: Node n: spec.unschedulable: expected a boolean, "
     "got \"maybe\" (line 5, column 18)"},
    {"BadDouble", "instanceTypes:\n- name: t\n  offerings:\n  - price: cheap\n",
     "test.yaml: document 1: instanceTypes[0].offerings[0].price: expected a "
     "number, got \"cheap\" (line 4, column 12)"},
    {"UnknownKind",
     "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns}\n",
     "test.yaml: document 1: Service ns/s: unsupported kind \"Service\" of "
     "apiVersion \"v1\" (line 1, column 1)"},
    {"OldKarpenterApi",
     "---\n---\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\n"
     "metadata: {name: np}\n",
     "test.yaml: document 2: NodePool np: unsupported kind \"NodePool\" of "
     "apiVersion \"karpenter.sh/v1beta1\": NodePool needs apiVersion "
     "\"karpenter.sh/v1\" (line 3, column 1)"},
    {"NoKind", "metadata: {name: x}\n",
     "test.yaml: document 1: object x: no kind: expected apiVersion and "
     "kind, or a catalog with instanceTypes (line 1, column 1)"},
    {"ScalarDocument", "just text\n",
     "test.yaml: document 1: a document must be a mapping (an object) (line "
     "1, column 1)"},
    {"SequenceDocument", "- a\n- b\n",
     "test.yaml: document 1: a document must be a mapping (an object) (line "
     "1, column 1)"},
    {"ListItemError",
     R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: x}
- apiVersion: v1
  kind: Pod
  metadata: {name: y, namespace: default}
  spec: {containers: {}}
)",
     "test.yaml: document 1, items[1]: Pod default/y: spec.containers: "
     "expected a sequence, got a mapping (line 10, column 22)"},
    {"ListItemsNotASequence", "apiVersion: v1\nkind: List\nitems: {a: b}\n",
     "test.yaml: document 1: List: items: expected a sequence of objects "
     "(line 3, column 8)"},
    {"MetadataNotAMapping", "apiVersion: v1\nkind: Pod\nmetadata: [a]\n",
     "test.yaml: document 1: Pod: metadata: expected a mapping, got a "
     "sequence (line 3, column 11)"},
    {"MapValueNotAScalar",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n"
     "    app: {x: y}\n",
     "test.yaml: document 1: Pod p: metadata.labels.app: expected a string, "
     "got a mapping (line 6, column 10)"},
    {"DuplicateField",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  name: q\n",
     "test.yaml: document 1: Pod p: metadata.name: duplicate key \"name\" "
     "(line 5, column 3)"},
    {"DuplicateFieldUnderBothNames",
     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
     "  nodeName: a\n  node_name: b\n",
     "test.yaml: document 1: Pod p: spec.node_name: duplicate key "
     "\"node_name\" (line 6, column 3)"},
    {"DuplicateLabel",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n"
     "    a: x\n    a: y\n",
     "test.yaml: document 1: Pod p: metadata.labels.a: duplicate key \"a\" "
     "(line 7, column 5)"},
    {"Alias",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: &l {a: b}\n"
     "  annotations: *l\n",
     "test.yaml: document 1: YAML aliases are not supported (*l at line 5, "
     "column 16); write the value out in full"},
    {"YamlSyntaxError", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [\n",
     "test.yaml: document 1: YAML syntax error: while parsing a flow node: "
     "did not find expected node content (line 5, column 1)"},
    {"SyntaxErrorInThirdDocument",
     "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n---\n"
     "a: b\n c: d\n",
     "test.yaml: document 3: YAML syntax error: mapping values are not "
     "allowed in this context (line 7, column 3)"},
    {"BrokenJson",
     R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"})",
     "test.yaml: document 1: YAML syntax error: while parsing a flow "
     "mapping: did not find expected ',' or '}' (line 2, column 1)"},
    {"ComplexKey", "apiVersion: v1\nkind: Pod\nmetadata:\n  ? [a]\n  : b\n",
     "test.yaml: document 1: Pod: metadata.<key>: mapping keys must be "
     "scalars (line 4, column 5)"},
};

INSTANTIATE_TEST_SUITE_P(Table, BadInputTest, testing::ValuesIn(kBadCases),
                         [](const testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(LoadManifestsTest, TypedListItemErrorsNameTheInheritedKind) {
  absl::StatusOr<v1::ManifestSet> got = Load(
      R"({"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"a"},"spec":{"unschedulable":"no way"}}]})");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message()),
            "test.yaml: document 1, items[0]: Node a: spec.unschedulable: "
            "expected a boolean, got \"no way\" (line 1, column 96)");
}

TEST(LoadManifestsTest, SkipUnknownKindsReportsFindings) {
  absl::StatusOr<v1::ManifestSet> got = Load(
      "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns}\n"
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
      "metadata: {name: x}\n",
      /*skip_unknown=*/true);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->nodes_size(), 1);
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  v1::ManifestSet findings;
  *findings.mutable_findings() = got->findings();
  EXPECT_TRUE(diff.Compare(ParseTextProto(R"pb(
        findings {
          object: "test.yaml: document 1: Service ns/s"
          message: "skipped: unsupported kind \"Service\" of apiVersion \"v1\""
        }
        findings {
          object: "test.yaml: document 3: object x"
          message: "skipped: no kind: expected apiVersion and kind, or a catalog with instanceTypes"
        }
      )pb"),
                           findings))
      << report;
}

TEST(LoadManifestsTest, UnmodelledConstructsBecomeFindings) {
  absl::StatusOr<v1::ManifestSet> got = Load(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: x, namespace: ns}
  spec:
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchFields:
            - key: metadata.name
              operator: In
              values: [n1]
    schedulingGates: [{name: example.com/gate}]
    resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-template}]
    containers:
    - name: c
      resources: {requests: {cpu: 2}, claims: [{name: gpu}]}
    resources: {requests: {cpu: 3}}
- apiVersion: v1
  kind: Pod
  metadata: {name: quiet}
  spec:
    schedulingGates: []
    resourceClaims: []
    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: []}]}}}
)");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->pods_size(), 2);
  // The modelled parts are still there.
  EXPECT_EQ(
      got->pods(0).spec().resource_claims(0).resource_claim_template_name(),
      "gpu-template");
  EXPECT_EQ(got->pods(0)
                .spec()
                .affinity()
                .node_affinity()
                .required_during_scheduling_ignored_during_execution()
                .node_selector_terms(0)
                .match_fields(0)
                .key(),
            "metadata.name");
  // Pod-level resources are modelled (PodRequests reads them): no finding.
  EXPECT_EQ(got->pods(0).spec().resources().requests().at("cpu"), "3");
  // Scheduling gates too (a gated pod is not planned).
  EXPECT_EQ(got->pods(0).spec().scheduling_gates(0).name(), "example.com/gate");
  v1::ManifestSet findings;
  *findings.mutable_findings() = got->findings();
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  EXPECT_TRUE(diff.Compare(ParseTextProto(R"pb(
        findings {
          object: "test.yaml: document 1, items[0]: Pod ns/x"
          field_path: "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields"
          message: "node affinity matchFields is not modelled: the term is evaluated without it (line 12, column 13)"
        }
        findings {
          object: "test.yaml: document 1, items[0]: Pod ns/x"
          field_path: "spec.resourceClaims"
          message: "dynamic resource allocation (resourceClaims) is not modelled: the claimed devices are not considered (line 17, column 5)"
        }
        findings {
          object: "test.yaml: document 1, items[0]: Pod ns/x"
          field_path: "spec.containers[0].resources.claims"
          message: "dynamic resource allocation (resources.claims) is not modelled: the claimed devices are not considered (line 20, column 39)"
        }
      )pb"),
                           findings))
      << report;
}

struct PresentEmptyCase {
  const char* template_yaml;
  std::vector<std::string> expected;
};

TEST(LoadManifestsTest, RecordsPresentEmptyTemplateFields) {
  const PresentEmptyCase cases[] = {
      {"    metadata: {}\n", {"metadata"}},
      {"    metadata: {labels: {}, annotations: {}}\n",
       {"metadata.labels", "metadata.annotations"}},
      {"    metadata: {labels: {a: b}, annotations: {}}\n",
       {"metadata.annotations"}},
      {"    metadata: null\n", {}},
      {"    spec: {taints: [], startupTaints: []}\n",
       {"spec.taints", "spec.startupTaints"}},
      {"    spec: {taints: [{key: k, effect: NoSchedule}], startupTaints: "
       "[]}\n",
       {"spec.startupTaints"}},
      {"    spec: {taints: null}\n", {}},
      {"    spec:\n      startupTaints: []\n    metadata:\n      labels: {}\n",
       {"metadata.labels", "spec.startupTaints"}},
      {"    nodeplanPresentEmptyFields: [spec.taints, metadata]\n"
       "    metadata: {}\n",
       {"metadata", "spec.taints"}},
      {"    {}\n", {}},
  };
  for (const PresentEmptyCase& c : cases) {
    std::string yaml = absl::StrCat(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\n"
        "spec:\n  template:\n",
        c.template_yaml);
    absl::StatusOr<v1::ManifestSet> got = Load(yaml);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << yaml;
    const auto& fields =
        got->node_pools(0).spec().template_().present_empty_fields();
    EXPECT_EQ(std::vector<std::string>(fields.begin(), fields.end()),
              c.expected)
        << yaml;
  }
}

// Karpenter's budget defaulting and reason matching tell an empty list from
// an absent one; the loader records which lists were present but empty.
TEST(LoadManifestsTest, RecordsPresentEmptyBudgetsAndReasons) {
  struct Case {
    const char* disruption_yaml;
    std::vector<std::string> disruption;
    std::vector<std::string> first_budget;
  };
  const Case cases[] = {
      {"{budgets: []}", {"budgets"}, {}},
      {"{}", {}, {}},
      {"{budgets: null}", {}, {}},
      {"{budgets: [{nodes: '1', reasons: []}]}", {}, {"reasons"}},
      {"{budgets: [{nodes: '1', reasons: [Empty]}]}", {}, {}},
      {"{budgets: [{nodes: '1'}]}", {}, {}},
  };
  for (const Case& c : cases) {
    std::string yaml = absl::StrCat(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\n"
        "spec:\n  template: {}\n  disruption: ",
        c.disruption_yaml, "\n");
    absl::StatusOr<v1::ManifestSet> got = Load(yaml);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << yaml;
    const v1::Disruption& d = got->node_pools(0).spec().disruption();
    EXPECT_EQ(std::vector<std::string>(d.present_empty_fields().begin(),
                                       d.present_empty_fields().end()),
              c.disruption)
        << yaml;
    std::vector<std::string> first;
    if (d.budgets_size() > 0) {
      first.assign(d.budgets(0).present_empty_fields().begin(),
                   d.budgets(0).present_empty_fields().end());
    }
    EXPECT_EQ(first, c.first_budget) << yaml;
  }
}

TEST(LoadManifestsTest, NothingPartialOnError) {
  // Two good documents, then a bad one: no result at all.
  absl::StatusOr<v1::ManifestSet> got = Load(
      "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n---\n"
      "apiVersion: v1\nkind: Node\nmetadata: {name: c}\nspec: {unschedulable: "
      "7}\n");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message()),
            "test.yaml: document 3: Node c: spec.unschedulable: expected a "
            "boolean, got \"7\" (line 12, column 23)");
}

TEST(LoadManifestsTest, JsonErrorAfterGoodDocumentsFallsBackCleanly) {
  // The JSON fast path reads document 1 and then fails; libyaml reads the
  // whole input again, and the error is libyaml's (nothing duplicated).
  absl::StatusOr<v1::ManifestSet> got = Load(
      "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}"
      "\n---\n{apiVersion: v1, kind: Node, metadata: {name: b}}\n");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->nodes_size(), 2);
  EXPECT_EQ(got->nodes(0).metadata().name(), "a");
  EXPECT_EQ(got->nodes(1).metadata().name(), "b");
}

TEST(LoadManifestsTest, JsonAndYamlGiveTheSameLineNumbers) {
  const char* json =
      "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n"
      "  \"metadata\": {\"name\": \"p\"},\n  \"spec\": {\"priority\": "
      "\"x\"}\n}\n";
  absl::StatusOr<v1::ManifestSet> got = Load(json);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message()),
            "test.yaml: document 1: Pod p: spec.priority: expected an integer, "
            "got \"x\" (line 5, column 24)");
}

TEST(LoadManifestsTest, RejectsDeepNesting) {
  std::string deep = "apiVersion: v1\nkind: Pod\nmetadata: ";
  for (int i = 0; i < 100000; ++i) deep += '[';
  absl::StatusOr<v1::ManifestSet> got = Load(deep);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message()),
            "test.yaml: document 1: nesting deeper than 200 levels (line 3, "
            "column 210)");
  std::string deep_json = "{\"a\":";
  for (int i = 0; i < 100000; ++i) deep_json += '[';
  got = Load(deep_json);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message()),
            "test.yaml: document 1: nesting deeper than 200 levels (line 1, "
            "column 205)");
}

TEST(LoadManifestsTest, RejectsHugeInput) {
  std::string huge((size_t{256} << 20) + 1, ' ');
  absl::StatusOr<v1::ManifestSet> got = Load(huge);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message()),
            "test.yaml: input is 268435457 bytes, more than the limit of "
            "268435456 bytes");
}

TEST(LoadManifestsTest, EmptyInputIsAnEmptySet) {
  for (const char* text : {"", "   \n", "# nothing\n", "---\n", "null\n"}) {
    absl::StatusOr<v1::ManifestSet> got = Load(text);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->ByteSizeLong(), 0u) << text;
  }
}

}  // namespace
}  // namespace nodeplan
