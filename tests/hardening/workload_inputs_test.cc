// Pods and Deployments that exhausted memory, ran for minutes, or were
// planned although the API server would have refused them (issue 17, items
// 7, 8, 9 and 11).

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inputs.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/limits.h"
#include "nodeplan/quantity.h"
#include "nodeplan/schedule.h"
#include "nodeplan/validate.h"
#include "nodeplan/verify.h"

namespace nodeplan::hardening {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Deployment(const std::string& replicas) {
  return absl::StrCat(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: )",
                      replicas, R"(
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: 100m}}
)");
}

v1::ScheduleRequest WithPool(const std::string& yaml) {
  return RequestFromYaml(
      absl::StrCat(kPoolYaml, "---\n", kCatalogYaml, "---\n", yaml));
}

// Item 7: every replica was copied, 2147483647 of them.
TEST(WorkloadInputsTest, HugeReplicasAreResourceExhaustedQuickly) {
  for (const char* replicas : {"2147483647", "10000000"}) {
    SCOPED_TRACE(replicas);
    v1::ScheduleRequest r = WithPool(Deployment(replicas));
    Stopwatch time;
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(resp.status().message(),
                HasSubstr(absl::StrCat(
                    "Deployment default/web: spec.replicas: ", replicas,
                    " replicas exceed the limit of 100000 "
                    "(nodeplan::limits::kMaxReplicas)")));
    EXPECT_LT(time.Seconds(), 0.5);
    // Verify and Disrupt expand Deployments too: they refuse as well.
    std::vector<Violation> found = Verify(r, v1::ScheduleResponse());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].message, HasSubstr("kMaxReplicas"));
    absl::StatusOr<v1::DisruptResponse> disrupt = Disrupt(DisruptFrom(r));
    ASSERT_FALSE(disrupt.ok());
    EXPECT_EQ(disrupt.status().code(), absl::StatusCode::kResourceExhausted);
  }
}

TEST(WorkloadInputsTest, PendingPodsInAllAreCapped) {
  v1::ScheduleRequest r = WithPool(Deployment("100000"));
  const v1::Deployment d = r.deployments(0);
  for (int i = 1; i <= limits::kMaxPendingPods / limits::kMaxReplicas; ++i) {
    v1::Deployment* copy = r.add_deployments();
    *copy = d;
    copy->mutable_metadata()->set_name(absl::StrCat("web", i));
  }
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(resp.status().message(), HasSubstr("kMaxPendingPods"));
}

// Item 7: replicas -1 was taken as 0 without a word.
TEST(WorkloadInputsTest, NegativeReplicasAreAnErrorWithTheFieldPath) {
  v1::ScheduleRequest r = WithPool(Deployment("-1"));
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(resp.status().message(),
              HasSubstr("Deployment default/web: spec.replicas: Invalid value: "
                        "-1: must be greater than or equal to 0"));
  const v1::ValidateResponse v = Validate(MustLoad(Deployment("-1")));
  ASSERT_EQ(v.violations_size(), 1);
  EXPECT_EQ(v.violations(0).field_path(), "spec.replicas");
}

std::string SpreadPod(int constraints, const std::string& when) {
  std::string yaml = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {app: p}}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: 100m}}
  topologySpreadConstraints:
)";
  for (int i = 0; i < constraints; ++i) {
    absl::StrAppend(&yaml, "  - {maxSkew: 1, topologyKey: key-", i,
                    ", whenUnsatisfiable: ", when,
                    ", labelSelector: {matchLabels: {app: p}}}\n");
  }
  return yaml;
}

// Item 8: 10,000 ScheduleAnyway constraints did not finish in a minute.
TEST(WorkloadInputsTest, TenThousandSpreadConstraintsAreResourceExhausted) {
  v1::ScheduleRequest r = WithPool(SpreadPod(10000, "ScheduleAnyway"));
  Stopwatch time;
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(resp.status().message(),
              HasSubstr("Pod default/p: spec.topologySpreadConstraints: 10000 "
                        "constraints exceed the limit of"));
  EXPECT_LT(time.Seconds(), 0.5);
}

// At the limit, every ScheduleAnyway constraint (on a key no node has) is
// relaxed away one at a time, as Karpenter does, in time linear per step.
TEST(WorkloadInputsTest, RelaxingSpreadConstraintsAtTheLimitIsFast) {
  v1::ScheduleRequest r = WithPool(
      SpreadPod(limits::kMaxTopologySpreadConstraints, "ScheduleAnyway"));
  Stopwatch time;
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
  ASSERT_TRUE(resp.ok()) << resp.status();
  EXPECT_EQ(resp->new_node_claims_size(), 1);
  EXPECT_THAT(resp->unschedulable(), IsEmpty());
  EXPECT_LT(time.Seconds(), 5.0);
}

// Item 9: a quantity of 100,000,000 digits took 28 s and 725 MB.
TEST(WorkloadInputsTest, QuantityDigitsAreBounded) {
  const std::string digits(100000000, '7');
  Stopwatch time;
  absl::StatusOr<int64_t> milli = ParseQuantityMilli(digits);
  ASSERT_FALSE(milli.ok());
  EXPECT_EQ(milli.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(milli.status().message(),
              HasSubstr("quantity of 100000000 characters exceeds the limit of "
                        "128 (nodeplan::limits::kMaxQuantityChars)"));
  EXPECT_FALSE(ParseQuantityValue(digits).ok());
  EXPECT_FALSE(ParseDuration(digits).ok());
  EXPECT_LT(time.Seconds(), 0.5);
  // Through a pod's request, with its path.
  v1::ScheduleRequest r = WithPool(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: c}]}
)");
  (*r.mutable_pods(0)
        ->mutable_spec()
        ->mutable_containers(0)
        ->mutable_resources()
        ->mutable_requests())["memory"] = digits;
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
  ASSERT_FALSE(resp.ok());
  // Refused by the API server's rules, which run on every pod first.
  EXPECT_THAT(resp.status().message(),
              HasSubstr("Pod default/p: spec.containers[0].resources.requests["
                        "memory]: Invalid value: \"777"));
  EXPECT_THAT(resp.status().message(),
              HasSubstr("quantity of 100000000 characters"));
  // Long but legitimate quantities still parse.
  EXPECT_EQ(*ParseQuantityMilli("0000000000000000000000000000001.5"), 1500);
}

// Item 11: pod-level nonsense was planned; now Schedule refuses it and
// Validate says so, field by field, as the API server would.
TEST(WorkloadInputsTest, ApiServerRulesForPodsAreEnforced) {
  constexpr char kPod[] = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {app: p}}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: "-1"}}
  topologySpreadConstraints:
  - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
  - {maxSkew: -3, topologyKey: "", whenUnsatisfiable: ScheduleAnyway}
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 0, preference: {matchExpressions: [{key: a, operator: Exists}]}}
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 101
        podAffinityTerm: {topologyKey: zone, labelSelector: {matchLabels: {app: p}}}
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: "", labelSelector: {matchLabels: {app: p}}}
)";
  const v1::ValidateResponse v = Validate(MustLoad(kPod));
  std::vector<std::string> lines;
  for (const v1::FieldViolation& f : v.violations()) {
    lines.push_back(
        absl::StrCat(f.object(), ": ", f.field_path(), ": ", f.message()));
  }
  constexpr char kSpread[] = "Pod default/p: spec.topologySpreadConstraints";
  constexpr char kAnti[] = "Pod default/p: spec.affinity.podAntiAffinity.";
  EXPECT_THAT(
      lines,
      ::testing::ElementsAre(
          "Pod default/p: spec.containers[0].resources.requests[cpu]: Invalid "
          "value: \"-1\": must be greater than or equal to 0",
          absl::StrCat(kSpread,
                       "[0].maxSkew: Invalid value: 0: must be greater than "
                       "zero"),
          absl::StrCat(kSpread,
                       "[1].maxSkew: Invalid value: -3: must be greater than "
                       "zero"),
          absl::StrCat(kSpread,
                       "[1].topologyKey: Required value: can not be empty"),
          "Pod default/p: "
          "spec.affinity.nodeAffinity."
          "preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid "
          "value: 0: must be in the range 1-100",
          absl::StrCat(kAnti,
                       "requiredDuringSchedulingIgnoredDuringExecution[0]."
                       "topologyKey: Required value: can not be empty"),
          absl::StrCat(kAnti,
                       "preferredDuringSchedulingIgnoredDuringExecution[0]."
                       "weight: Invalid value: 101: must be in the range "
                       "1-100")));

  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(WithPool(kPod));
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(resp.status().message(),
              HasSubstr("Pod default/p: spec.topologySpreadConstraints[0]."
                        "maxSkew: Invalid value: 0"));
}

// Node selectors, node affinity, label selectors and tolerations follow the
// API server's ValidatePodSpec: a required node affinity term with an empty
// key reached the scheduler, which placed the pod on a node that did not
// satisfy it (found by fuzz_schedule_request, caught by Verify).
// A pod with one 100m container unless `spec` brings its own containers.
std::string PodWithSpec(const std::string& spec) {
  constexpr char kContainer[] = R"(  containers:
  - name: c
    resources: {requests: {cpu: 100m}}
)";
  const bool own = absl::StrContains(spec, "  containers:");
  return absl::StrCat(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {app: p}}
spec:
)",
                      own ? "" : kContainer, spec);
}

TEST(WorkloadInputsTest, WellFormedSelectorsAndTolerationsAreAccepted) {
  const std::string pod = PodWithSpec(R"(  nodeSelector: {example.com/tier: web}
  tolerations:
  - {operator: Exists}
  - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
  - {key: gone, operator: Exists, effect: NoExecute, tolerationSeconds: 30}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector: {matchExpressions: [{key: app, operator: In, values: [p]}]}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: example.com/gen, operator: Gt, values: ["5"]}]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 5
        preference: {matchExpressions: [{key: x, operator: In, values: ["not a label value"]}]}
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchExpressions: [{key: app, operator: Exists}]}
        namespaceSelector: {matchLabels: {team: a}}
)");
  EXPECT_THAT(Validate(MustLoad(pod)).violations(), IsEmpty());
}

TEST(WorkloadInputsTest, ApiServerRulesForSelectorsAndTolerations) {
  struct Case {
    const char* spec;
    const char* violation;
  };
  const std::vector<Case> cases = {
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{operator: Gt, values: ["5"]}]}]}}}
)",
       "nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: \"\": "
       "name part must be non-empty"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Gt, values: ["1", "2"]}]}]}}}
)",
       "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must "
       "be specified single value when `operator` is 'Lt' or 'Gt'"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}]}]}}}
)",
       "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must "
       "be specified when `operator` is 'In' or 'NotIn'"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Exists, values: [b]}]}]}}}
)",
       "nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not "
       "be specified when `operator` is 'Exists' or 'DoesNotExist'"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Has}]}]}}}
)",
       "nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "
       "\"Has\": not a valid selector operator"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In, values: ["a b"]}]}]}}}
)",
       "nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "
       "\"a b\": a valid label must be an empty string or consist of"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}
)",
       "nodeSelectorTerms: Required value: must have at least one node "
       "selector term"},
      {R"(  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: spec.nodeName, operator: In, values: [n]}]}]}}}
)",
       "nodeSelectorTerms[0].matchFields[0].key: Invalid value: "
       "\"spec.nodeName\": not a valid field selector key"},
      {R"(  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 6, preference: {matchExpressions: [{}]}}]}}
)",
       "preferredDuringSchedulingIgnoredDuringExecution[0].preference."
       "matchExpressions[0].operator: Invalid value: \"\": not a valid "
       "selector operator"},
      {R"(  nodeSelector: {"bad key!": x}
)",
       "spec.nodeSelector: Invalid value: \"bad key!\": name part must "
       "consist of"},
      {R"(  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchExpressions: [{key: app, operator: Gt, values: ["1"]}]}}
)",
       "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0]."
       "operator: Invalid value: \"Gt\": not a valid selector operator"},
      {R"(  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, labelSelector: {matchLabels: {app: "a/b"}}}]}}
)",
       "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuring"
       "Execution[0].labelSelector.matchLabels[app]: Invalid value: \"a/b\""},
      {R"(  tolerations: [{value: x}]
)",
       "spec.tolerations[0].operator: Invalid value: \"\": operator must be "
       "Exists when `key` is empty"},
      {R"(  tolerations: [{key: k, operator: Exists, value: x}]
)",
       "spec.tolerations[0].operator: Invalid value: \"x\": value must be "
       "empty when `operator` is 'Exists'"},
      {R"(  tolerations: [{key: k, operator: Gt, value: "1"}]
)",
       "spec.tolerations[0].operator: Unsupported value: \"Gt\": supported "
       "values: \"Equal\", \"Exists\""},
      {R"(  tolerations: [{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]
)",
       "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect "
       "must be 'NoExecute' when `tolerationSeconds` is set"},
      {R"(  tolerations: [{key: k, operator: Exists, effect: Never}]
)",
       "spec.tolerations[0].effect: Unsupported value: \"Never\""},
      {R"(  topologySpreadConstraints:
  - {maxSkew: 1, minDomains: 2, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}
)",
       "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can "
       "only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
       "ScheduleAnyway"},
      {R"(  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Maybe}
)",
       "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported "
       "value: \"Maybe\": supported values: \"Honor\", \"Ignore\""},
      {R"(  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, matchLabelKeys: ["a b"]}
)",
       "spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "
       "\"a b\""},
      {R"(  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
)",
       "spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: "
       "Duplicate value: \"{zone, DoNotSchedule}\""},
      {R"(  containers:
  - name: c
    ports: [{containerPort: 80, hostPort: 70000}]
)",
       "spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be "
       "between 1 and 65535, inclusive"},
      {R"(  containers:
  - name: d
    ports: [{containerPort: -1, protocol: QUIC}]
)",
       "spec.containers[0].ports[0].protocol: Unsupported value: \"QUIC\": "
       "supported values: \"SCTP\", \"TCP\", \"UDP\""},
      {R"(  containers:
  - name: d
    ports: [{containerPort: 80, hostPort: 80}, {containerPort: 81, hostPort: 80}]
)",
       "spec.containers[0].ports[1].hostPort: Duplicate value: \"/TCP/80\""},
      {R"(  initContainers:
  - name: i
    resources: {requests: {cpu: "2"}, limits: {cpu: 1000m}}
)",
       "spec.initContainers[0].resources.requests[cpu]: Invalid value: \"2\": "
       "must be less than or equal to cpu limit of 1"},
      {R"(  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: p}}, matchLabelKeys: ["a b"]}
)",
       "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuring"
       "Execution[0].matchLabelKeys[0]: Invalid value: \"a b\""},
      // Pod-level resources (validatePodResourceRequirements and
      // validatePodResourceConsistency).
      {R"(  resources: {requests: {nvidia.com/gpu: "1"}}
)",
       "spec.resources.requests[nvidia.com/gpu]: Unsupported value: "
       "\"nvidia.com/gpu\": supported values: \"cpu\", \"hugepages-\", "
       "\"memory\""},
      {R"(  resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}
)",
       "spec.resources.requests[cpu]: Invalid value: \"2\": must be less "
       "than or equal to cpu limit of 1"},
      {R"(  resources: {limits: {memory: -1Gi}}
)",
       "spec.resources.limits[memory]: Invalid value: \"-1Gi\": must be "
       "greater than or equal to 0"},
      {R"(  resources: {requests: {cpu: 500m}}
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
  - name: d
    resources: {requests: {cpu: 500m}}
)",
       "spec.resources.requests[cpu]: Invalid value: \"500m\": must be "
       "greater than or equal to aggregate container requests of 1500m"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    const std::string pod = PodWithSpec(c.spec);
    const v1::ValidateResponse v = Validate(MustLoad(pod));
    std::string lines;
    for (const v1::FieldViolation& f : v.violations()) {
      absl::StrAppend(&lines, f.field_path(), ": ", f.message(), "\n");
    }
    EXPECT_THAT(lines, HasSubstr(c.violation));
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(WithPool(pod));
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(), HasSubstr(c.violation));
  }
}

// ValidatePodDisruptionBudgetSpec: Disrupt reads a PDB's spec (a fully
// blocking budget) and its selector.
TEST(WorkloadInputsTest, PodDisruptionBudgetsTheApiServerRefusesAreRefused) {
  struct Case {
    const char* spec;
    const char* violation;
  } cases[] = {
      {"{minAvailable: 1, maxUnavailable: 1}",
       "spec: Invalid value: minAvailable and maxUnavailable cannot be both "
       "set"},
      {"{maxUnavailable: \"ten\"}",
       "spec.maxUnavailable: Invalid value: \"ten\": must be an integer or "
       "percentage (e.g '5%')"},
      {"{minAvailable: 101%}",
       "spec.minAvailable: Invalid value: \"101%\": must not be greater than "
       "100%"},
      {"{minAvailable: -1}",
       "spec.minAvailable: Invalid value: -1: must be greater than or equal "
       "to 0"},
      {"{maxUnavailable: 1, selector: {matchExpressions: [{key: app, "
       "operator: Gt, values: [\"1\"]}]}}",
       "spec.selector.matchExpressions[0].operator: Invalid value: \"Gt\": "
       "not a valid selector operator"},
      {"{maxUnavailable: 1, unhealthyPodEvictionPolicy: Never}",
       "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    const std::string pdb = absl::StrCat(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
        "metadata: {name: b, namespace: default}\nspec: ",
        c.spec, "\n");
    const v1::ValidateResponse v = Validate(MustLoad(pdb));
    std::string lines;
    for (const v1::FieldViolation& f : v.violations()) {
      absl::StrAppend(&lines, f.object(), ": ", f.field_path(), ": ",
                      f.message(), "\n");
    }
    EXPECT_THAT(lines, HasSubstr(absl::StrCat("PodDisruptionBudget default/b: ",
                                              c.violation)));
    v1::ScheduleRequest s = WithPool(PodWithSpec(""));
    v1::DisruptRequest d = DisruptFrom(s);
    *d.mutable_pod_disruption_budgets() =
        MustLoad(pdb).pod_disruption_budgets();
    d.set_now("2026-12-02T10:00:00Z");
    absl::StatusOr<v1::DisruptResponse> disrupt = Disrupt(d);
    ASSERT_FALSE(disrupt.ok());
    EXPECT_EQ(disrupt.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(disrupt.status().message(), HasSubstr(c.violation));
  }
  const v1::ValidateResponse ok = Validate(MustLoad(
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
      "metadata: {name: b, namespace: default}\n"
      "spec: {maxUnavailable: 0%, selector: {matchLabels: {app: p}}}\n"));
  EXPECT_THAT(ok.violations(), IsEmpty());
}

// ValidateObjectMeta's labels on every object, and a Node's taints.
TEST(WorkloadInputsTest, ObjectLabelsAndNodeTaintsFollowTheApiServer) {
  struct Case {
    std::function<void(v1::ScheduleRequest&)> mutate;
    const char* message;
  } cases[] = {
      {[](v1::ScheduleRequest& r) {
         (*r.mutable_pods(0)->mutable_metadata()->mutable_labels())["a b"] =
             "x";
       },
       "Pod default/p: metadata.labels: Invalid value: \"a b\": name part "
       "must consist of"},
      {[](v1::ScheduleRequest& r) {
         v1::Node* n = r.add_nodes();
         n->mutable_metadata()->set_name("n");
         (*n->mutable_metadata()->mutable_labels())["zone"] = "-bad-";
       },
       "Node n: metadata.labels[zone]: Invalid value: \"-bad-\""},
      {[](v1::ScheduleRequest& r) {
         v1::Node* n = r.add_nodes();
         n->mutable_metadata()->set_name("n");
         v1::Taint* t = n->mutable_spec()->add_taints();
         t->set_key("k");
         t->set_effect("Sometimes");
       },
       "Node n: spec.taints[0].effect: Unsupported value: \"Sometimes\""},
      {[](v1::ScheduleRequest& r) {
         v1::Node* n = r.add_nodes();
         n->mutable_metadata()->set_name("n");
         for (int i = 0; i < 2; ++i) {
           v1::Taint* t = n->mutable_spec()->add_taints();
           t->set_key("k");
           t->set_value(absl::StrCat(i));
           t->set_effect("NoSchedule");
         }
       },
       "Node n: spec.taints[1]: Duplicate value: \"k:NoSchedule\""},
      {[](v1::ScheduleRequest& r) {
         v1::Node* n = r.add_nodes();
         n->mutable_metadata()->set_name("n");
         n->mutable_spec()->add_taints()->set_key("k");
       },
       "Node n: spec.taints[0].effect: Required value"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    v1::ScheduleRequest r = WithPool(PodWithSpec(""));
    c.mutate(r);
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(), HasSubstr(c.message));
  }
}

TEST(WorkloadInputsTest, NegativeRequestsAreRefusedBySchedule) {
  absl::StatusOr<v1::ScheduleResponse> resp =
      Schedule(WithPool(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: c
    resources: {requests: {memory: -1Gi}}
)"));
  ASSERT_FALSE(resp.ok());
  EXPECT_THAT(resp.status().message(),
              HasSubstr("containers[0].resources.requests[memory]: Invalid "
                        "value: \"-1Gi\": must be greater than or equal to 0"));
}

// The API server's integer resources (pods, extended resources) take
// whole numbers only, in a Node's status as in a container's requests. A
// Node reporting 1.92 pods let the scheduler, which counts whole units,
// put a second pod where Karpenter's exact comparison does not (found by
// fuzz_schedule_request); fractional memory stays valid.
TEST(WorkloadInputsTest, IntegerResourcesTakeWholeNumbers) {
  struct Case {
    std::string yaml;
    std::string error;  // empty: accepted
  };
  const std::vector<Case> cases = {
      {R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: 1920m}}
)",
       "status.allocatable[pods]: Invalid value: \"1920m\": must be an "
       "integer"},
      {R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {example.com/dongle: 500m}}
)",
       "status.capacity[example.com/dongle]: Invalid value: \"500m\": must "
       "be an integer"},
      {R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: c
    resources: {requests: {nvidia.com/gpu: 500m}}
)",
       "containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "
       "\"500m\": must be an integer"},
      {R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: c
    resources: {requests: {memory: 1500m, cpu: 1500m}}
)",
       ""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(WithPool(c.yaml));
    if (c.error.empty()) {
      EXPECT_TRUE(resp.ok()) << c.yaml << resp.status();
      continue;
    }
    ASSERT_FALSE(resp.ok()) << c.yaml;
    EXPECT_THAT(resp.status().message(), HasSubstr(c.error)) << c.yaml;
  }
}

// Item 11: three pods default/p were all scheduled, two NodePools np both
// used.
TEST(WorkloadInputsTest, DuplicateObjectNamesAreRefused) {
  constexpr char kPod[] = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
)";
  const std::string pods = absl::StrCat(kPod, "---\n", kPod, "---\n", kPod);
  const v1::ValidateResponse v = Validate(MustLoad(pods));
  ASSERT_EQ(v.violations_size(), 2);
  EXPECT_EQ(v.violations(0).object(), "Pod default/p");
  EXPECT_EQ(v.violations(0).field_path(), "metadata.name");
  EXPECT_EQ(v.violations(0).message(), "Duplicate value: \"p\"");
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(WithPool(pods));
  ASSERT_FALSE(resp.ok());
  EXPECT_THAT(
      resp.status().message(),
      HasSubstr("Pod default/p: metadata.name: Duplicate value: \"p\""));

  v1::ScheduleRequest two_pools = WithPool(kPod);
  *two_pools.add_node_pools() = two_pools.node_pools(0);
  absl::StatusOr<v1::ScheduleResponse> pools = Schedule(two_pools);
  ASSERT_FALSE(pools.ok());
  EXPECT_THAT(pools.status().message(),
              HasSubstr("NodePool np: metadata.name: Duplicate value: \"np\""));
  // The same name in two namespaces is two objects.
  v1::ScheduleRequest namespaces = WithPool(kPod);
  *namespaces.add_pods() = namespaces.pods(0);
  namespaces.mutable_pods(1)->mutable_metadata()->set_namespace_("other");
  EXPECT_TRUE(Schedule(namespaces).ok());
}

}  // namespace
}  // namespace nodeplan::hardening

namespace nodeplan::hardening {
namespace {

// Found by the structure-aware fuzzers: two Nodes named "node-0" were
// planned as two nodes (Verify, which keys nodes by name, saw one
// over-committed), and a Deployment without a name was planned as replicas
// "-0", "-1". The API server holds one object per kind, namespace and name,
// and refuses an object without a name: so do Schedule and Disrupt, for
// every kind of a request.
TEST(WorkloadInputsTest, DuplicateAndMissingNamesAreRefusedForEveryKind) {
  const std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - {name: c, resources: {requests: {cpu: 100m}}}
)";
  struct Case {
    std::function<void(v1::ScheduleRequest&)> mutate;
    const char* message;
  } cases[] = {
      {[](v1::ScheduleRequest& r) {
         r.add_nodes()->mutable_metadata()->set_name("n");
         r.add_nodes()->mutable_metadata()->set_name("n");
       },
       "Node n: metadata.name: Duplicate value: \"n\""},
      {[](v1::ScheduleRequest& r) {
         r.add_daemon_sets()->mutable_metadata()->set_name("d");
         r.mutable_daemon_sets(0)->mutable_metadata()->set_namespace_("x");
         *r.add_daemon_sets() = r.daemon_sets(0);
       },
       "DaemonSet x/d: metadata.name: Duplicate value"},
      {[](v1::ScheduleRequest& r) { r.add_deployments(); },
       "Deployment [0]: metadata.name: Required value"},
      {[](v1::ScheduleRequest& r) { r.add_storage_classes(); },
       "StorageClass [0]: metadata.name: Required value"},
      {[](v1::ScheduleRequest& r) {
         v1::CSINode* n = r.add_csi_nodes();
         n->mutable_metadata()->set_name("n");
         v1::CSINodeDriver* d = n->mutable_spec()->add_drivers();
         d->set_name("ebs.csi.aws.com");
         d->mutable_allocatable()->set_count(-3);
       },
       "CSINode n: spec.drivers[0].allocatable.count: Invalid value: -3"},
      // A Node the request cannot use is still an object the API server
      // validated (found by fuzz_schedule_request).
      {[](v1::ScheduleRequest& r) {
         v1::Node* n = r.add_nodes();
         n->mutable_metadata()->set_name("unused");
         (*n->mutable_status()->mutable_allocatable())["pods"] = "zone";
       },
       "Node unused: status.allocatable[pods]: Invalid value: \"zone\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    v1::ScheduleRequest r = WithPool(pod);
    c.mutate(r);
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(), HasSubstr(c.message));
    absl::StatusOr<v1::DisruptResponse> disrupt = Disrupt(DisruptFrom(r));
    ASSERT_FALSE(disrupt.ok());
    EXPECT_THAT(disrupt.status().message(), HasSubstr(c.message));
  }
}

// Found by both structure-aware fuzzers: a malformed quantity in a pod that
// Schedule or Disrupt never places (terminal, bound to a node the request
// lacks, owned by a DaemonSet) was never parsed, so the request was
// answered although the API server could not have held such a pod. Every
// pod's quantities are now checked first.
TEST(WorkloadInputsTest, MalformedQuantitiesOfUnplacedPodsAreRefused) {
  const char* variants[] = {
      "spec: {nodeName: gone, containers: [{name: c, resources: {requests: "
      "{memory: Pending}}}]}",
      "spec: {containers: [{name: c, resources: {limits: {cpu: 5p6}}}]}\n"
      "status: {phase: Succeeded}",
  };
  for (const char* spec : variants) {
    SCOPED_TRACE(spec);
    v1::ScheduleRequest r = WithPool(absl::StrCat(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: "
        "default}\n",
        spec, "\n"));
    ASSERT_EQ(r.pods_size(), 1);
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(),
                HasSubstr("Pod default/p: spec.containers[0].resources."));
    absl::StatusOr<v1::DisruptResponse> disrupt = Disrupt(DisruptFrom(r));
    ASSERT_FALSE(disrupt.ok());
    EXPECT_THAT(disrupt.status().message(), HasSubstr("Pod default/p"));
  }
}

// Found by fuzz_schedule_request: a NodePool requirement with neither key
// nor operator (which the CRD schema refuses, and which LoadManifests
// refuses too) reached Schedule through a protobuf request and was planned
// into the NodeClaims' requirements. Schedule and Disrupt now refuse the
// request, naming the field, as they refuse a pod the API server would.
TEST(WorkloadInputsTest, NodePoolRequirementsTheCrdRefusesAreRefused) {
  const std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - {name: c, resources: {requests: {cpu: 100m}}}
)";
  struct Case {
    const char* key;
    const char* op;
    const char* value;
    const char* message;
  } cases[] = {
      {"", "", nullptr,
       "NodePool np: spec.template.spec.requirements[0].key: Required value"},
      {"example.com/team", "Matches", "a",
       "spec.template.spec.requirements[0].operator: Unsupported value: "
       "\"Matches\""},
      {"example.com/gen", "Gt", "five",
       "spec.template.spec.requirements[0].values: requirements operator "
       "'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer"},
      {"kubernetes.io/hostname", "In", "a",
       "label \"kubernetes.io/hostname\" is restricted"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    v1::ScheduleRequest r = WithPool(pod);
    auto* reqs = r.mutable_node_pools(0)
                     ->mutable_spec()
                     ->mutable_template_()
                     ->mutable_spec()
                     ->mutable_requirements();
    v1::NodeSelectorRequirement bad;
    bad.set_key(c.key);
    bad.set_operator_(c.op);
    if (c.value != nullptr) bad.add_values(c.value);
    *reqs->Add() = bad;
    reqs->SwapElements(0, reqs->size() - 1);
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(), HasSubstr(c.message));

    absl::StatusOr<v1::DisruptResponse> disrupt = Disrupt(DisruptFrom(r));
    ASSERT_FALSE(disrupt.ok());
    EXPECT_THAT(disrupt.status().message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace nodeplan::hardening
