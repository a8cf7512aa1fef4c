#include "nodeplan/validate.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace nodeplan {
namespace {

using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

constexpr char kSeedNodePool[] = R"({
  "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
  "metadata": {"name": "general-purpose"},
  "spec": {
    "disruption": {"budgets": [{"nodes": "10%"}], "consolidateAfter": "30s",
                   "consolidationPolicy": "WhenEmptyOrUnderutilized"},
    "template": {"metadata": {}, "spec": {
      "expireAfter": "336h",
      "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass",
                       "name": "default"},
      "requirements": [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
        {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c", "m", "r"]},
        {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["4"]},
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}],
      "terminationGracePeriod": "24h0m0s"}}}})";

constexpr char kSeedNodeClaim[] = R"({
  "apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
  "metadata": {"name": "general-purpose-8k2lq",
               "labels": {"karpenter.sh/nodepool": "general-purpose"}},
  "spec": {
    "expireAfter": "336h",
    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
    "requirements": [
      {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["general-purpose"]},
      {"key": "node.kubernetes.io/instance-type", "operator": "In",
       "values": ["c6a.large", "m6a.large"], "minValues": 2}],
    "resources": {"requests": {"cpu": "1500m", "memory": "3Gi", "pods": "4"}}}})";

constexpr char kSeedOverlay[] = R"({
  "apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
  "metadata": {"name": "discount"},
  "spec": {"requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                             "values": ["spot"]}],
           "priceAdjustment": "-10%", "weight": 10}})";

constexpr char kSeedPod[] = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "inflate-1", "namespace": "default"},
  "spec": {"nodeSelector": {"type": "karpenter"},
           "containers": [{"name": "app", "resources": {"requests": {"cpu": "1"}}}]}})";

template <typename T>
T FromJson(const std::string& json) {
  T message;
  auto status = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << status.message();
  return message;
}

struct Expected {
  std::string path;
  std::string message;
  bool operator==(const Expected& o) const {
    return path == o.path && message == o.message;
  }
};

void PrintTo(const Expected& e, std::ostream* os) {
  *os << e.path << ": " << e.message;
}

struct Case {
  std::string name;
  std::function<void(v1::ManifestSet*)> mutate;
  std::string object;
  std::vector<Expected> violations;
};

v1::ManifestSet Seed() {
  v1::ManifestSet set;
  *set.add_node_pools() = FromJson<v1::NodePool>(kSeedNodePool);
  *set.add_node_claims() = FromJson<v1::NodeClaim>(kSeedNodeClaim);
  *set.add_node_overlays() = FromJson<v1::NodeOverlay>(kSeedOverlay);
  *set.add_pods() = FromJson<v1::Pod>(kSeedPod);
  return set;
}

v1::NodeClaimTemplateSpec* Tmpl(v1::ManifestSet* s) {
  return s->mutable_node_pools(0)
      ->mutable_spec()
      ->mutable_template_()
      ->mutable_spec();
}

v1::NodeSelectorRequirement* Req(v1::ManifestSet* s, int i) {
  return Tmpl(s)->mutable_requirements(i);
}

std::string Pattern(const std::string& path, const std::string& value,
                    const std::string& pattern) {
  return absl::StrCat("Invalid value: \"", value, "\": ", path,
                      " in body should match '", pattern, "'");
}

constexpr char kRestrictedMessage[] =
    " is not allowed as it might interfere with the internal provisioning "
    "logic; specify a well known label: [karpenter.sh/capacity-type "
    "karpenter.sh/nodepool kubernetes.io/arch kubernetes.io/os "
    "node.kubernetes.io/instance-type node.kubernetes.io/windows-build "
    "topology.kubernetes.io/region topology.kubernetes.io/zone], or a custom "
    "label that does not use a restricted domain: [karpenter.sh]";

const char* const kNP = "NodePool general-purpose";
const char* const kReqs = "spec.template.spec.requirements";

std::vector<Case> Cases() {
  return {
      {"seed is valid", [](v1::ManifestSet*) {}, "", {}},
      {"unsupported operator",
       [](v1::ManifestSet* s) { Req(s, 2)->set_operator_("Greater"); },
       kNP,
       {{"spec.template.spec.requirements[2].operator",
         "Unsupported value: \"Greater\": supported values: \"In\", \"NotIn\", "
         "\"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\", \"Gte\", \"Lte\""}}},
      {"In without values",
       [](v1::ManifestSet* s) { Req(s, 3)->clear_values(); },
       kNP,
       {{"spec.template.spec.requirements[3].values",
         "requirements with operator 'In' must have a value defined"}}},
      {"Gt with a negative, and Lte with two values",
       [](v1::ManifestSet* s) {
         Req(s, 2)->set_values(0, "-4");
         Req(s, 1)->set_operator_("Lte");
       },
       kNP,
       {{"spec.template.spec.requirements[1].values",
         "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a "
         "single positive integer value"},
        // "-4" is not a label value either.
        {"spec.template.spec.requirements[2].values[0]",
         Pattern("spec.template.spec.requirements[2].values[0]", "-4",
                 "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")},
        {"spec.template.spec.requirements[2].values",
         "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a "
         "single positive integer value"}}},
      {"minValues beyond the values and out of range",
       [](v1::ManifestSet* s) {
         Req(s, 1)->set_min_values(4);
         Req(s, 3)->set_min_values(51);
       },
       kNP,
       {{"spec.template.spec.requirements[1].minValues",
         "requirements with 'minValues' must have at least that many values "
         "specified in the 'values' field"},
        {"spec.template.spec.requirements[3].minValues",
         "Invalid value: 51: spec.template.spec.requirements[3].minValues in "
         "body should be less than or equal to 50"},
        {"spec.template.spec.requirements[3].minValues",
         "requirements with 'minValues' must have at least that many values "
         "specified in the 'values' field"}}},
      {"restricted requirement keys",
       [](v1::ManifestSet* s) {
         Req(s, 1)->set_key("kubernetes.io/hostname");
         Req(s, 3)->set_key("karpenter.sh/nodepool");
         Req(s, 4)->set_key("team.karpenter.sh/owner");
       },
       kNP,
       {{"spec.template.spec.requirements[1].key",
         "label \"kubernetes.io/hostname\" is restricted"},
        {"spec.template.spec.requirements[3].key",
         "label \"karpenter.sh/nodepool\" is restricted"},
        {"spec.template.spec.requirements[4].key",
         "label domain \"karpenter.sh\" is restricted"}}},
      {"kubernetes.io and k8s.io keys are allowed",
       [](v1::ManifestSet* s) {
         Req(s, 1)->set_key("node.kubernetes.io/instance-type");
         Req(s, 4)->set_key("example.k8s.io/thing");
         (*s->mutable_node_pools(0)
               ->mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["kubernetes.io/team"] = "a";
       },
       "",
       {}},
      {"bad key and value format",
       [](v1::ManifestSet* s) {
         Req(s, 1)->set_key("Example.com/x");
         Req(s, 1)->set_values(0, "c!");
       },
       kNP,
       {{"spec.template.spec.requirements[1].key",
         Pattern("spec.template.spec.requirements[1].key", "Example.com/x",
                 "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-"
                 "9])?)*(\\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")},
        {"spec.template.spec.requirements[1].values[0]",
         Pattern("spec.template.spec.requirements[1].values[0]", "c!",
                 "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")}}},
      {"unknown capacity type",
       [](v1::ManifestSet* s) { Req(s, 0)->set_values(0, "ondemand"); },
       kNP,
       {{"spec.template.spec.requirements[0].values",
         "no valid values found in [ondemand] for karpenter.sh/capacity-type, "
         "expected one of: [on-demand reserved spot], got: [ondemand]"}}},
      {"template labels",
       [](v1::ManifestSet* s) {
         auto* labels = s->mutable_node_pools(0)
                            ->mutable_spec()
                            ->mutable_template_()
                            ->mutable_metadata()
                            ->mutable_labels();
         (*labels)["karpenter.sh/nodepool"] = "x";
         (*labels)["karpenter.sh/team"] = "x";
         (*labels)["kubernetes.io/hostname"] = "x";
         (*labels)["type"] = "bad value";
       },
       kNP,
       {{"spec.template.metadata.labels[karpenter.sh/nodepool]",
         "label \"karpenter.sh/nodepool\" is restricted"},
        {"spec.template.metadata.labels[karpenter.sh/team]",
         "label domain \"karpenter.sh\" is restricted"},
        {"spec.template.metadata.labels[kubernetes.io/hostname]",
         "label \"kubernetes.io/hostname\" is restricted"},
        {"spec.template.metadata.labels[type]",
         Pattern("spec.template.metadata.labels[type]", "bad value",
                 "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")}}},
      {"nodeClassRef fields required, requirements required",
       [](v1::ManifestSet* s) {
         Tmpl(s)->mutable_node_class_ref()->clear_group();
         Tmpl(s)->mutable_node_class_ref()->clear_name();
         Tmpl(s)->clear_requirements();
       },
       kNP,
       {{kReqs, "Required value"},
        {"spec.template.spec.nodeClassRef.group", "Required value"},
        {"spec.template.spec.nodeClassRef.name", "Required value"}}},
      {"durations",
       [](v1::ManifestSet* s) {
         Tmpl(s)->set_expire_after("14d");
         Tmpl(s)->set_termination_grace_period("Never");
         s->mutable_node_pools(0)
             ->mutable_spec()
             ->mutable_disruption()
             ->set_consolidate_after("-1s");
       },
       kNP,
       {{"spec.template.spec.expireAfter",
         Pattern("spec.template.spec.expireAfter", "14d",
                 "^(([0-9]+(s|m|h))+|Never)$")},
        {"spec.template.spec.terminationGracePeriod",
         Pattern("spec.template.spec.terminationGracePeriod", "Never",
                 "^([0-9]+(s|m|h))+$")},
        {"spec.disruption.consolidateAfter",
         Pattern("spec.disruption.consolidateAfter", "-1s",
                 "^(([0-9]+(s|m|h))+|Never)$")}}},
      {"duration that overflows Go's time.Duration",
       [](v1::ManifestSet* s) { Tmpl(s)->set_expire_after("9999999999h"); },
       kNP,
       {{"spec.template.spec.expireAfter",
         "time: invalid duration \"9999999999h\""}}},
      {"taints",
       [](v1::ManifestSet* s) {
         auto* t = Tmpl(s)->add_taints();
         t->set_key("example.com/special");
         t->set_effect("NoSchedul");
         auto* u = Tmpl(s)->add_startup_taints();
         u->set_key("example.com/special");
         u->set_effect("NoSchedul");
         Tmpl(s)->add_taints()->set_effect("NoExecute");
       },
       kNP,
       {{"spec.template.spec.taints[0].effect",
         "Unsupported value: \"NoSchedul\": supported values: \"NoSchedule\", "
         "\"PreferNoSchedule\", \"NoExecute\""},
        {"spec.template.spec.taints[1].key", "Required value"},
        {"spec.template.spec.startupTaints[0].effect",
         "Unsupported value: \"NoSchedul\": supported values: \"NoSchedule\", "
         "\"PreferNoSchedule\", \"NoExecute\""},
        {"spec.template.spec.startupTaints[0]",
         "duplicate taint Key/Effect pair example.com/special=NoSchedul"}}},
      {"disruption",
       [](v1::ManifestSet* s) {
         auto* d =
             s->mutable_node_pools(0)->mutable_spec()->mutable_disruption();
         d->set_consolidation_policy("WhenUnderutilized");
         d->mutable_budgets(0)->set_nodes("110%");
         auto* b = d->add_budgets();
         b->set_nodes("0");
         b->set_schedule("0 9 * * mon-fri");
         auto* c = d->add_budgets();
         c->set_nodes("1");
         c->set_schedule("0 25 * * *");
         c->set_duration("90s");
         c->add_reasons("Expired");
         c->add_reasons("Empty");
         c->add_reasons("Empty");
       },
       kNP,
       {{"spec.disruption.consolidationPolicy",
         "Unsupported value: \"WhenUnderutilized\": supported values: "
         "\"WhenEmpty\", \"WhenEmptyOrUnderutilized\", \"Balanced\""},
        {"spec.disruption.budgets[0].nodes",
         Pattern("spec.disruption.budgets[0].nodes", "110%",
                 "^((100|[0-9]{1,2})%|[0-9]+)$")},
        {"spec.disruption.budgets[1]",
         "'schedule' must be set with 'duration'"},
        {"spec.disruption.budgets[2].schedule",
         "invalid cron, end of range (25) above maximum (23): 25"},
        {"spec.disruption.budgets[2].duration",
         Pattern("spec.disruption.budgets[2].duration", "90s",
                 "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")},
        {"spec.disruption.budgets[2].reasons[0]",
         "Unsupported value: \"Expired\": supported values: "
         "\"Underutilized\", \"Empty\", \"Drifted\""},
        {"spec.disruption.budgets[2].reasons[2]",
         "Duplicate value: \"Empty\""}}},
      {"limits and weight",
       [](v1::ManifestSet* s) {
         auto* spec = s->mutable_node_pools(0)->mutable_spec();
         (*spec->mutable_limits())["cpu"] = "1000";
         (*spec->mutable_limits())["memory"] = "1000 Gi";
         spec->set_weight(0);
       },
       kNP,
       {{"spec.limits[memory]",
         Pattern("spec.limits[memory]", "1000 Gi",
                 "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|["
                 "numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+)))"
                 ")?$")},
        {"spec.weight",
         "Invalid value: 0: spec.weight in body should be greater than or "
         "equal to 1"}}},
      {"static NodePool",
       [](v1::ManifestSet* s) {
         auto* spec = s->mutable_node_pools(0)->mutable_spec();
         spec->set_replicas(3);
         spec->set_weight(100);
         (*spec->mutable_limits())["cpu"] = "10";
       },
       kNP,
       {{"spec", "only 'limits.nodes' is supported on static NodePools"},
        {"spec", "'weight' is not supported on static NodePools"}}},
      {"NodeClaim",
       [](v1::ManifestSet* s) {
         auto* spec = s->mutable_node_claims(0)->mutable_spec();
         spec->mutable_requirements(1)->set_min_values(3);
         spec->mutable_requirements(0)->set_key("kubernetes.io/hostname");
         (*spec->mutable_resources()->mutable_requests())["cpu"] = "1.5 cores";
         spec->clear_node_class_ref();
       },
       "NodeClaim general-purpose-8k2lq",
       {{"spec.requirements[0].key",
         "label \"kubernetes.io/hostname\" is restricted"},
        {"spec.requirements[1].minValues",
         "requirements with 'minValues' must have at least that many values "
         "specified in the 'values' field"},
        {"spec.resources.requests[cpu]",
         Pattern("spec.resources.requests[cpu]", "1.5 cores",
                 "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|["
                 "numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+)))"
                 ")?$")},
        {"spec.nodeClassRef", "Required value"}}},
      {"NodeOverlay",
       [](v1::ManifestSet* s) {
         auto* spec = s->mutable_node_overlays(0)->mutable_spec();
         spec->set_price("0.5");
         spec->set_price_adjustment("10%");
         (*spec->mutable_capacity())["cpu"] = "1";
         (*spec->mutable_capacity())["example.com/gpu"] = "1";
         auto* r = spec->add_requirements();
         r->set_key("node.kubernetes.io/instance-type");
         r->set_operator_("NotIn");
         spec->set_weight(10001);
       },
       "NodeOverlay discount",
       {{"spec.requirements[1].values",
         "requirements with operator 'NotIn' must have a value defined"},
        {"spec.priceAdjustment",
         Pattern("spec.priceAdjustment", "10%",
                 "^(([+-]{1}(\\d*\\.?\\d+))|(\\+{1}\\d*\\.?\\d+%)|(^(-\\d{1,2}"
                 "(\\.\\d+)?%)$)|(-100%))$")},
        {"spec", "cannot set both 'price' and 'priceAdjustment'"},
        {"spec.capacity[cpu]", "invalid resource restricted"},
        {"spec.weight",
         "Invalid value: 10001: spec.weight in body should be less than or "
         "equal to 10000"}}},
      {"NodeOverlay requirements have no minValues",
       [](v1::ManifestSet* s) {
         s->mutable_node_overlays(0)
             ->mutable_spec()
             ->mutable_requirements(0)
             ->set_min_values(1);
       },
       "NodeOverlay discount",
       {{"spec.requirements[0].minValues",
         "unknown field \"spec.requirements[0].minValues\""}}},
      {"pod: hostname in required node affinity, matchFields",
       [](v1::ManifestSet* s) {
         auto* term =
             s->mutable_pods(0)
                 ->mutable_spec()
                 ->mutable_affinity()
                 ->mutable_node_affinity()
                 ->mutable_required_during_scheduling_ignored_during_execution()
                 ->add_node_selector_terms();
         auto* r = term->add_match_expressions();
         r->set_key("kubernetes.io/hostname");
         r->set_operator_("In");
         r->add_values("ip-10-0-1-23");
         auto* field = term->add_match_fields();
         field->set_key("metadata.name");
         field->set_operator_("In");
         field->add_values("node-a");
       },
       "Pod default/inflate-1",
       {{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
         "Execution.nodeSelectorTerms[0].matchFields",
         "node selector term with matchFields is not supported"},
        {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
         "Execution.nodeSelectorTerms[0].matchExpressions[0]",
         absl::StrCat("using label kubernetes.io/hostname",
                      kRestrictedMessage)}}},
      {"pod: nodeSelector on a karpenter.sh label, Gt not an integer",
       [](v1::ManifestSet* s) {
         auto* spec = s->mutable_pods(0)->mutable_spec();
         (*spec->mutable_node_selector())["karpenter.sh/registered"] = "true";
         auto* r =
             spec->mutable_affinity()
                 ->mutable_node_affinity()
                 ->mutable_required_during_scheduling_ignored_during_execution()
                 ->add_node_selector_terms()
                 ->add_match_expressions();
         r->set_key("example.com/generation");
         r->set_operator_("Gt");
         r->add_values("four");
       },
       "Pod default/inflate-1",
       {{"spec.nodeSelector[karpenter.sh/registered]",
         absl::StrCat("using label karpenter.sh/registered",
                      kRestrictedMessage)},
        {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
         "Execution.nodeSelectorTerms[0].matchExpressions[0]",
         "key example.com/generation with operator Gt must have a single "
         "positive integer value"}}},
      {"pod: does not want a Karpenter node",
       [](v1::ManifestSet* s) {
         auto* r =
             s->mutable_pods(0)
                 ->mutable_spec()
                 ->mutable_affinity()
                 ->mutable_node_affinity()
                 ->mutable_required_during_scheduling_ignored_during_execution()
                 ->add_node_selector_terms()
                 ->add_match_expressions();
         r->set_key("karpenter.sh/nodepool");
         r->set_operator_("DoesNotExist");
       },
       "Pod default/inflate-1",
       {{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
         "Execution.nodeSelectorTerms[0].matchExpressions[0]",
         "configured to not run on a Karpenter provisioned node"}}},
      {"bound pods are not checked",
       [](v1::ManifestSet* s) {
         auto* spec = s->mutable_pods(0)->mutable_spec();
         spec->set_node_name("ip-10-0-1-23");
         (*spec->mutable_node_selector())["kubernetes.io/hostname"] =
             "ip-10-0-1-23";
       },
       "",
       {}},
      {"csinode: a negative limit and a driver listed twice",
       [](v1::ManifestSet* s) {
         auto* n = s->add_csi_nodes();
         n->mutable_metadata()->set_name("ip-10-0-1-23");
         auto* d = n->mutable_spec()->add_drivers();
         d->set_name("ebs.csi.aws.com");
         d->mutable_allocatable()->set_count(-1);
         n->mutable_spec()->add_drivers()->set_name("ebs.csi.aws.com");
       },
       "CSINode ip-10-0-1-23",
       {{"spec.drivers[0].allocatable.count",
         "Invalid value: -1: must be greater than or equal to 0"},
        {"spec.drivers[1].name", "Duplicate value: \"ebs.csi.aws.com\""}}},
      {"deployment pod template",
       [](v1::ManifestSet* s) {
         auto* d = s->add_deployments();
         d->mutable_metadata()->set_name("inflate");
         (*d->mutable_spec()
               ->mutable_template_()
               ->mutable_spec()
               ->mutable_node_selector())["kubernetes.io/hostname"] = "x";
       },
       "Deployment default/inflate",
       {{"spec.template.spec.nodeSelector[kubernetes.io/hostname]",
         absl::StrCat("using label kubernetes.io/hostname",
                      kRestrictedMessage)}}},
  };
}

TEST(Validate, TableOfBadObjects) {
  for (const Case& c : Cases()) {
    v1::ManifestSet set = Seed();
    c.mutate(&set);
    v1::ValidateResponse response = Validate(set);
    std::vector<Expected> got;
    for (const v1::FieldViolation& v : response.violations()) {
      EXPECT_EQ(v.object(), c.object) << c.name;
      got.push_back({v.field_path(), v.message()});
    }
    EXPECT_THAT(got, ElementsAreArray(c.violations)) << c.name;
  }
}

TEST(Validate, EverySeedObjectIsValid) {
  EXPECT_THAT(Validate(Seed()).violations(), IsEmpty());
}

TEST(Validate, IsDeterministic) {
  v1::ManifestSet set = Seed();
  auto* labels = set.mutable_node_pools(0)
                     ->mutable_spec()
                     ->mutable_template_()
                     ->mutable_metadata()
                     ->mutable_labels();
  for (int i = 0; i < 50; ++i) {
    (*labels)[absl::StrCat("karpenter.sh/k", i)] = "v";
  }
  const std::string first = Validate(set).SerializeAsString();
  for (int i = 0; i < 5; ++i) {
    v1::ManifestSet copy = set;
    EXPECT_EQ(Validate(copy).SerializeAsString(), first);
  }
}

}  // namespace
}  // namespace nodeplan
