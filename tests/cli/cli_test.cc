// Runs the `nodeplan` binary as a user would and checks stdout, stderr and
// the exit status.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/manifest.h"
#include "nodeplan/v1/disrupt.pb.h"
#include "nodeplan/v1/schedule.pb.h"
#include "test_files.h"

namespace nodeplan {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

using testing_files::ReadFile;

std::string TempPath(const std::string& name) {
  return testing_files::TempPath("cli", name);
}

// Runs `nodeplan <args>` from the source tree, `stdin_text` on its input.
Result Nodeplan(const std::string& args, const std::string& stdin_text = "") {
  const std::string in_path = TempPath("stdin");
  const std::string err_path = TempPath("stderr");
  std::ofstream(in_path) << stdin_text;
  const std::string cmd =
      absl::StrCat("cd '", NODEPLAN_SOURCE_DIR, "' && '", NODEPLAN_BINARY, "' ",
                   args, " <'", in_path, "' 2>'", err_path, "'");
  Result run;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return run;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) run.out.append(buf, n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.err = ReadFile(err_path);
  std::remove(in_path.c_str());
  std::remove(err_path.c_str());
  return run;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

constexpr char kBadNodePool[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: broken
spec:
  weight: 101
  template:
    metadata:
      labels:
        kubernetes.io/hostname: x
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      expireAfter: 14d
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: [on-demand]
      - key: eks.amazonaws.com/instance-generation
        operator: Greater
        values: ["4"]
)";

TEST(Cli, HelpForEverySubcommandWithAnExample) {
  for (const char* sub :
       {"", "schedule", "disrupt", "explain", "explain pod", "explain nodepool",
        "diff", "catalog", "validate", "hash"}) {
    Result r = Nodeplan(absl::StrCat(sub, " --help"));
    EXPECT_EQ(r.status, 0) << sub << r.err;
    EXPECT_THAT(r.out, HasSubstr("Example")) << sub;
    EXPECT_THAT(r.out, HasSubstr("nodeplan ")) << sub;
  }
  Result schedule = Nodeplan("schedule --help");
  for (const char* option :
       {"--catalog", "-o,--output", "--preference-policy",
        "--min-values-policy", "--max-instance-types", "--apply-ready"}) {
    EXPECT_THAT(schedule.out, HasSubstr(option));
  }
}

TEST(Cli, ExplainPodAndNodePool) {
  Result pod = Nodeplan("explain pod default/inflate-0 -f examples/workshop/");
  EXPECT_EQ(pod.status, 0) << pod.err;
  EXPECT_THAT(pod.out, HasSubstr("Goes to: new NodeClaim"));
  EXPECT_THAT(pod.out,
              HasSubstr("1. general-purpose (weight 0): requirements"));
  // kubectl's reading: a bare name is in the default namespace.
  EXPECT_EQ(Nodeplan("explain pod inflate-0 -f examples/workshop/").out,
            pod.out);
  Result missing = Nodeplan("explain pod default/nope -f examples/workshop/");
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.err, HasSubstr("pod default/nope: not among"));
  Result np =
      Nodeplan("explain nodepool default -f examples/workshop/ -o json");
  EXPECT_EQ(np.status, 0) << np.err;
  EXPECT_THAT(np.out, HasSubstr("\"nodePool\": {"));
}

// --packing Optimized adds nodeplan's own proposal under Karpenter's
// command, labelled as not Karpenter's; without it the table is unchanged.
TEST(Cli, DisruptPackingOptimizedIsShownApart) {
  const std::string base =
      "disrupt -f examples/workshop/nodepool-default.yaml -f "
      "examples/workshop/nodepool-general-purpose.yaml -f "
      "examples/workshop/nodeclass-default.yaml -f "
      "examples/workshop/scale-in/ --now 2026-12-02T12:00:00Z";
  Result karpenter = Nodeplan(base);
  ASSERT_EQ(karpenter.status, 0) << karpenter.err;
  EXPECT_THAT(karpenter.out, Not(HasSubstr("optimized")));
  Result optimized = Nodeplan(base + " --packing Optimized");
  ASSERT_EQ(optimized.status, 0) << optimized.err;
  EXPECT_THAT(optimized.out,
              HasSubstr("Command: single-node-consolidation (Underutilized): "
                        "delete ip-10-0-1-23.ec2.internal"));
  EXPECT_THAT(optimized.out,
              HasSubstr("nodeplan's optimized consolidation (not Karpenter's "
                        "decision): none (this pass's commands save as much "
                        "($0.192/hour))"));
  EXPECT_NE(Nodeplan(base + " --packing Cheapest").status, 0);
}

// The workshop's consolidation (examples/workshop/consolidate): the proposal
// from `-o json`, re-validated fifteen seconds later by --validate, from the
// command alone or from a response whose only command is the proposal.
TEST(Cli, DisruptValidatesTheOptimizedProposal) {
  const std::string cluster =
      "disrupt -f examples/workshop/nodeclass-default.yaml -f "
      "examples/workshop/consolidate/";
  Result json = Nodeplan(cluster +
                         " --now 2026-12-02T12:00:00Z --packing Optimized "
                         "-o json");
  ASSERT_EQ(json.status, 0) << json.err;
  v1::DisruptResponse response;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json.out, &response).ok());
  ASSERT_EQ(response.commands_size(), 1);
  ASSERT_TRUE(response.optimized().has_command());
  std::string text;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(
                  response.optimized().command(), &text)
                  .ok());
  const std::string command = WriteTemp("optimized-command.json", text);
  response.clear_commands();
  text.clear();
  ASSERT_TRUE(
      google::protobuf::util::MessageToJsonString(response, &text).ok());
  const std::string only = WriteTemp("optimized-response.json", text);
  const std::string later = cluster + " --now 2026-12-02T12:00:15Z";
  for (const std::string& path : {command, only}) {
    Result ok = Nodeplan(absl::StrCat(later, " --validate '", path, "'"));
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(ok.out,
              "valid: optimized-consolidation replace of 3 node(s) may go "
              "ahead\n");
  }
  Result taken = Nodeplan(absl::StrCat(
      later, " --marked-for-deletion ip-10-0-1-88.ec2.internal --validate '",
      command, "'"));
  EXPECT_EQ(taken.status, 0) << taken.err;
  EXPECT_EQ(taken.out, "invalid: 1 candidates are no longer valid\n");
  std::remove(command.c_str());
  std::remove(only.c_str());
}

// --with a whole cluster (it has NodeClaims) is compared as it is; NodePools
// alone edit the -f cluster.
TEST(Cli, DiffEditsOrCompares) {
  Result whole = Nodeplan(
      "diff -f examples/workshop/ --with examples/workshop/ --with "
      "examples/workshop/scale-in/ --now 2026-12-02T12:00:00Z");
  EXPECT_EQ(whole.status, 0) << whole.err;
  EXPECT_THAT(whole.out, HasSubstr("New NodeClaims: 2 -> 1"));
  Result same = Nodeplan(
      "diff -f examples/workshop/ --with "
      "examples/workshop/nodepool-default.yaml --now 2026-12-02T12:00:00Z");
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_THAT(same.out, HasSubstr("The same NodeClaims"));
  EXPECT_THAT(same.out, HasSubstr("No running NodeClaim drifts."));
}

TEST(Cli, UsageErrorsExitTwoWithNothingOnStdout) {
  for (const char* args :
       {"", "frobnicate", "validate", "schedule -f examples/workshop/ -o xml",
        "schedule -f examples/workshop/ --apply-ready",
        "schedule -f examples/workshop/ --preference-policy Sometimes"}) {
    Result r = Nodeplan(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_THAT(r.out, IsEmpty()) << args;
    EXPECT_THAT(r.err, StartsWith("nodeplan: ")) << args;
  }
}

TEST(Cli, ValidateTheWorkshop) {
  Result r = Nodeplan("validate -f examples/workshop/");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "No violations: 2 NodePools, 0 NodeClaims, 0 NodeOverlays, 0 "
            "Pods, 1 Deployments checked.\n");
}

TEST(Cli, ValidateReportsEveryViolationAndExitsOne) {
  const std::string path = WriteTemp("bad.yaml", kBadNodePool);
  Result r = Nodeplan(absl::StrCat("validate -f '", path, "'"));
  EXPECT_EQ(r.status, 1) << r.err;
  // Each line starts with the file and document a person has to edit.
  const std::string at = absl::StrCat(path, ": document 1 (line 1): ");
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                absl::StrCat(at,
                             "NodePool broken: "
                             "spec.template.metadata.labels[kubernetes.io/"
                             "hostname]: label \"kubernetes.io/hostname\" is "
                             "restricted"),
                absl::StrCat(at,
                             "NodePool broken: "
                             "spec.template.spec.requirements[1].operator: "
                             "Unsupported value: \"Greater\": supported "
                             "values: \"In\", \"NotIn\", \"Exists\", "
                             "\"DoesNotExist\", \"Gt\", \"Lt\", \"Gte\", "
                             "\"Lte\""),
                absl::StrCat(at,
                             "NodePool broken: spec.template.spec.expireAfter: "
                             "Invalid value: \"14d\": "
                             "spec.template.spec.expireAfter in body should "
                             "match '^(([0-9]+(s|m|h))+|Never)$'"),
                absl::StrCat(at,
                             "NodePool broken: spec.weight: Invalid value: "
                             "101: spec.weight in body should be less than or "
                             "equal to 100"),
                "4 violations", ""}));

  Result json = Nodeplan(absl::StrCat("validate -o json -f '", path, "'"));
  EXPECT_EQ(json.status, 1);
  v1::ValidateResponse parsed;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json.out, &parsed).ok());
  EXPECT_EQ(parsed.violations_size(), 4);
}

TEST(Cli, ScheduleRefusesInvalidNodePoolNamingFileAndDocument) {
  // The NodePool is the second document of its file, after a Pod.
  const std::string path = WriteTemp(
      "pool.yaml",
      absl::StrCat("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n",
                   kBadNodePool));
  Result r = Nodeplan(absl::StrCat("schedule -f '", path, "'"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, StartsWith(absl::StrCat("nodeplan: ", path,
                                             ": document 2 (line 5): "
                                             "NodePool broken: ")));
  // Every violation on a line of its own, each with the prefix.
  const std::vector<std::string> lines =
      absl::StrSplit(r.err, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 4u) << r.err;
  for (const std::string& line : lines) {
    EXPECT_THAT(line, StartsWith(absl::StrCat("nodeplan: ", path)));
  }
  EXPECT_THAT(r.err, HasSubstr("spec.weight: Invalid value: 101"));
}

TEST(Cli, BadInputNamesFileAndDocumentAndExitsTwo) {
  const std::string path = WriteTemp(
      "malformed.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: "
      "karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec:\n  "
      "weight: heavy\n");
  for (const char* sub : {"validate", "schedule", "hash", "catalog"}) {
    Result r = Nodeplan(absl::StrCat(sub, " -f '", path, "'"));
    EXPECT_EQ(r.status, 2) << sub;
    EXPECT_THAT(r.out, IsEmpty()) << sub;
    EXPECT_THAT(r.err, HasSubstr("malformed.yaml")) << sub << r.err;
    EXPECT_THAT(r.err, HasSubstr("document 2")) << sub << r.err;
    EXPECT_THAT(r.err, HasSubstr("spec.weight")) << sub << r.err;
  }
  Result missing = Nodeplan("validate -f /nonexistent/nodepool.yaml");
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/nodepool.yaml"));
}

TEST(Cli, InvalidNodePoolsAreBadInputForScheduleAndCatalog) {
  const std::string path = WriteTemp("bad_np.yaml", kBadNodePool);
  for (const char* sub : {"schedule", "catalog"}) {
    Result r = Nodeplan(absl::StrCat(sub, " -f '", path, "'"));
    EXPECT_EQ(r.status, 2) << sub;
    EXPECT_THAT(r.out, IsEmpty());
    EXPECT_THAT(r.err, HasSubstr("NodePool broken: spec.weight: "));
  }
}

TEST(Cli, HashMatchesTheSeedAnnotation) {
  Result r =
      Nodeplan("hash -f examples/workshop/nodepool-general-purpose.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "NODEPOOL         HASH                 STORED\n"
            "general-purpose  4012513481623584108  matches\n");
  // From standard input too.
  Result stdin_run = Nodeplan(
      "hash -f -", ReadFile(absl::StrCat(
                       NODEPLAN_SOURCE_DIR,
                       "/examples/workshop/nodepool-general-purpose.yaml")));
  EXPECT_EQ(stdin_run.out, r.out);
}

TEST(Cli, CatalogListsAdmittedTypesInPriceOrder) {
  Result r = Nodeplan(
      "catalog -f examples/workshop/nodepool-default.yaml -f "
      "examples/workshop/nodeclass-default.yaml --rejected");
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  ASSERT_GE(lines.size(), 8u);
  EXPECT_THAT(lines[0], StartsWith("NodePool default: 4 of "));
  EXPECT_THAT(lines[2], StartsWith("  c5.large "));
  EXPECT_THAT(lines[3], StartsWith("  m5.large "));
  EXPECT_THAT(lines[4], StartsWith("  r5.large "));
  EXPECT_THAT(lines[5], StartsWith("  m5.xlarge "));
  EXPECT_THAT(lines[6], StartsWith("Rejected: "));
  EXPECT_THAT(r.out, HasSubstr("node.kubernetes.io/instance-type In [c5.large "
                               "m5.large r5.large m5.xlarge]"));
}

constexpr char kCatalogFile[] = R"(region: us-test-1
source: hand-written test catalog
instanceTypes:
- name: small
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 4Gi, pods: "10"}
  offerings:
  - {zone: us-test-1a, capacityType: on-demand, price: 0.05}
- name: big
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "8", memory: 32Gi, pods: "50"}
  offerings:
  - {zone: us-test-1a, capacityType: on-demand, price: 0.4}
)";

TEST(Cli, CatalogFromAFile) {
  const std::string catalog = WriteTemp("catalog.yaml", kCatalogFile);
  Result r = Nodeplan(absl::StrCat("catalog --catalog '", catalog, "'"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "2 instance types with an available offering (of 2)\n"
            "Source: hand-written test catalog\n"
            "  TYPE   $/HOUR  ZONE        CAPACITY    CPU  MEMORY  PODS\n"
            "  small  0.0500  us-test-1a  on-demand  2.00   4.0Gi    10\n"
            "  big    0.4000  us-test-1a  on-demand  8.00  32.0Gi    50\n");
  Result s =
      Nodeplan(absl::StrCat("schedule -o json --catalog '", catalog,
                            "' -f examples/workshop/nodepool-default.yaml"));
  EXPECT_EQ(s.status, 0) << s.err;
  v1::ScheduleResponse response;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(s.out, &response).ok());
  EXPECT_EQ(response.new_node_claims_size(), 0);  // no pods in the input
  Result empty =
      Nodeplan("catalog --catalog examples/workshop/nodepool-default.yaml");
  EXPECT_EQ(empty.status, 2);
  EXPECT_THAT(empty.err, HasSubstr("needs exactly one Catalog document"));
}

// Issue 17, item 5: an empty catalog file planned on the embedded catalog.
TEST(Cli, EmptyCatalogFileIsRefused) {
  const std::string catalog = WriteTemp(
      "empty.yaml",
      "apiVersion: nodeplan.dev/v1\nkind: Catalog\ninstanceTypes: []\n");
  Result r =
      Nodeplan(absl::StrCat("schedule --catalog '", catalog,
                            "' -f examples/workshop/nodepool-default.yaml"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("instanceTypes: the catalog has no instance "
                               "types, so nothing could launch"));
  EXPECT_THAT(r.out, IsEmpty());
}

// Issue 17, item 12: a Catalog of another apiVersion said only "found 0".
TEST(Cli, CatalogOfAnotherApiVersionSaysWhy) {
  const std::string catalog = WriteTemp(
      "v2.yaml",
      "apiVersion: nodeplan.dev/v2\nkind: Catalog\ninstanceTypes: []\n");
  Result r = Nodeplan(absl::StrCat("catalog --catalog '", catalog, "'"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("found 0"));
  EXPECT_THAT(r.err, HasSubstr("unsupported kind \"Catalog\" of apiVersion "
                               "\"nodeplan.dev/v2\": Catalog needs apiVersion "
                               "\"nodeplan.dev/v1\""));
}

// Issue 17, items 1 and 3 through the CLI: an error naming the path, not a
// crash or a silent default.
TEST(Cli, BadCatalogFieldsAreNamed) {
  const std::string reserved =
      WriteTemp("reserved.yaml", R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: small
  capacity: {cpu: "2", memory: 4Gi, pods: "10"}
  offerings:
  - {zone: us-test-1a, capacityType: reserved, price: 0.01}
)");
  Result r = Nodeplan(absl::StrCat("schedule --catalog '", reserved,
                                   "' -f examples/workshop/"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("offerings[0]: reservationID: Required value"));
  const std::string typo = WriteTemp("typo.yaml", R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: small
  capacity: {cpu: "2", memory: 4Gi, pods: "10"}
  offerings:
  - {zone: us-test-1a, capacityType: reserved, price: 0.01, reservationId: cr-1}
)");
  Result t = Nodeplan(absl::StrCat("catalog --catalog '", typo, "'"));
  EXPECT_EQ(t.status, 2);
  EXPECT_THAT(t.err, HasSubstr("did you mean \"reservationID\"?"));
}

TEST(Cli, ScheduleTheWorkshopTable) {
  Result r = Nodeplan("schedule -f examples/workshop/");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("NodePool default  on-demand · "));
  EXPECT_THAT(r.out, HasSubstr("NODECLAIM"));
  EXPECT_THAT(r.out, HasSubstr("Total: "));
  EXPECT_THAT(r.out, Not(HasSubstr("Unschedulable")));
}

TEST(Cli, ScheduleJsonParsesBackIntoAScheduleResponse) {
  Result r = Nodeplan("schedule -f examples/workshop/ -o json");
  EXPECT_EQ(r.status, 0) << r.err;
  v1::ScheduleResponse response;
  auto status = google::protobuf::util::JsonStringToMessage(r.out, &response);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_GE(response.new_node_claims_size(), 2);
  int pods = 0;
  for (const v1::NewNodeClaim& nc : response.new_node_claims()) {
    EXPECT_EQ(nc.node_pool(), "default");
    pods += nc.pods_size();
  }
  EXPECT_EQ(pods, 20);
  EXPECT_TRUE(response.unschedulable().empty());
  // The same plan from standard input.
  std::string all;
  for (const char* f :
       {"nodeclass-default.yaml", "nodepool-general-purpose.yaml",
        "nodepool-default.yaml", "deployment-inflate.yaml"}) {
    all +=
        ReadFile(absl::StrCat(NODEPLAN_SOURCE_DIR, "/examples/workshop/", f));
    all += "\n---\n";
  }
  Result piped = Nodeplan("schedule -f - -o json", all);
  EXPECT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out, r.out);
}

TEST(Cli, ApplyReadyOutputLoadsAsNodeClaims) {
  Result json = Nodeplan("schedule -f examples/workshop/ -o json");
  v1::ScheduleResponse response;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(json.out, &response).ok());
  Result r = Nodeplan("schedule -f examples/workshop/ -o yaml --apply-ready");
  EXPECT_EQ(r.status, 0) << r.err;
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(r.out, v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->node_claims_size(), response.new_node_claims_size());
  for (int i = 0; i < set->node_claims_size(); ++i) {
    EXPECT_EQ(set->node_claims(i).kind(), "NodeClaim");
    EXPECT_EQ(set->node_claims(i).metadata().name(),
              response.new_node_claims(i).node_claim().metadata().name());
  }
  EXPECT_EQ(set->node_pools_size() + set->pods_size(), 0);
}

}  // namespace
}  // namespace nodeplan
