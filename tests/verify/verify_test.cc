#include "nodeplan/verify.h"

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"
#include "workload/builders.h"

namespace nodeplan {
namespace {

using workload::MakePod;
using workload::MakeTaint;
using workload::MatchLabels;
using workload::Requirement;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHost[] = "kubernetes.io/hostname";

v1::InstanceType Type(const std::string& name, int cpu, int memory_gi,
                      double price) {
  v1::InstanceType it;
  it.set_name(name);
  (*it.mutable_labels())["node.kubernetes.io/instance-type"] = name;
  (*it.mutable_labels())["kubernetes.io/arch"] = "amd64";
  (*it.mutable_labels())["example.com/family"] = name.substr(0, 1);
  (*it.mutable_capacity())["cpu"] = std::to_string(cpu);
  (*it.mutable_capacity())["memory"] = std::to_string(memory_gi) + "Gi";
  (*it.mutable_capacity())["pods"] = std::to_string(5 * cpu);
  (*it.mutable_overhead()->mutable_kube_reserved())["cpu"] = "100m";
  (*it.mutable_overhead()->mutable_kube_reserved())["memory"] = "100Mi";
  for (const char* zone : {"zone-a", "zone-b"}) {
    auto* o = it.add_offerings();
    o->set_zone(zone);
    o->set_capacity_type("on-demand");
    o->set_price(price);
  }
  auto* spot = it.add_offerings();
  spot->set_zone("zone-a");
  spot->set_capacity_type("spot");
  spot->set_price(price / 2);
  return it;
}

v1::Pod* FindPod(v1::ScheduleRequest& req, const std::string& name) {
  for (auto& p : *req.mutable_pods()) {
    if (p.metadata().name() == name) return &p;
  }
  ADD_FAILURE() << "no pod " << name;
  return req.add_pods();
}

struct Plan {
  v1::ScheduleRequest req;
  v1::ScheduleResponse resp;

  v1::Pod& pod(const std::string& name) { return *FindPod(req, name); }
  v1::NewNodeClaim& claim() { return *resp.mutable_new_node_claims(0); }
  v1::NodePool& pool() { return *req.mutable_node_pools(0); }
  v1::Node& node() { return *req.mutable_nodes(0); }
  void PinClaim(const std::string& key, const std::string& value) {
    *claim().mutable_node_claim()->mutable_spec()->add_requirements() =
        Requirement(key, "In", {value});
  }
};

// A small correct plan: web-0 and api-0 on a new "small" NodeClaim, web-1 on
// the existing node-1 next to the bound cache pod.
Plan Baseline() {
  Plan plan;
  v1::ScheduleRequest& req = plan.req;
  *req.mutable_catalog()->add_instance_types() = Type("small", 2, 4, 0.1);
  *req.mutable_catalog()->add_instance_types() = Type("big", 8, 32, 0.4);
  v1::NodePool* pool = req.add_node_pools();
  pool->mutable_metadata()->set_name("default");
  (*pool->mutable_spec()
        ->mutable_template_()
        ->mutable_metadata()
        ->mutable_labels())["team"] = "blue";
  v1::Node* node = req.add_nodes();
  node->mutable_metadata()->set_name("node-1");
  auto& labels = *node->mutable_metadata()->mutable_labels();
  labels[kZone] = "zone-a";
  labels[kHost] = "node-1";
  labels["node.kubernetes.io/instance-type"] = "small";
  auto& alloc = *node->mutable_status()->mutable_allocatable();
  alloc["cpu"] = "1900m";
  alloc["memory"] = "3996Mi";
  alloc["pods"] = "10";
  (*node->mutable_status()->mutable_capacity())["cpu"] = "2";
  v1::Pod bound = MakePod("bound-1", "default", "500m", "512Mi");
  bound.mutable_spec()->set_node_name("node-1");
  (*bound.mutable_metadata()->mutable_labels())["app"] = "cache";
  *req.add_pods() = bound;
  for (const char* name : {"web-0", "web-1"}) {
    v1::Pod pod = MakePod(name, "default", "500m", "1Gi");
    (*pod.mutable_metadata()->mutable_labels())["app"] = "web";
    *req.add_pods() = pod;
  }
  v1::Pod api = MakePod("api-0", "default", "1", "1Gi");
  (*api.mutable_metadata()->mutable_labels())["app"] = "api";
  *req.add_pods() = api;

  v1::NewNodeClaim* claim = plan.resp.add_new_node_claims();
  claim->set_name("default-abc");
  claim->set_node_pool("default");
  claim->add_instance_types("small");
  claim->add_instance_types("big");
  claim->mutable_launch()->set_instance_type("small");
  claim->mutable_launch()->set_zone("zone-a");
  claim->mutable_launch()->set_capacity_type("spot");
  claim->mutable_launch()->set_price(0.05);
  claim->add_pods("default/web-0");
  claim->add_pods("default/api-0");
  v1::ExistingNodePlacement* existing = plan.resp.add_existing_nodes();
  existing->set_name("node-1");
  existing->set_kind("Node");
  existing->add_pods("default/web-1");
  return plan;
}

// node-1's NodeClaim (managed by NodePool default, linked by nodeName).
v1::NodeClaim LinkedNodeClaim(Plan& p) {
  v1::NodeClaim c;
  c.mutable_metadata()->set_name("node-1-claim");
  (*c.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
      "default";
  c.mutable_status()->set_node_name("node-1");
  (*c.mutable_status()->mutable_capacity())["cpu"] = "2";
  (*p.node().mutable_metadata()->mutable_labels())["karpenter.sh/registered"] =
      "true";
  (*p.node().mutable_metadata()->mutable_labels())["karpenter.sh/initialized"] =
      "true";
  return c;
}

v1::PodAffinityTerm Term(const std::string& app, const std::string& key) {
  v1::PodAffinityTerm term;
  *term.mutable_label_selector() = MatchLabels({{"app", app}});
  term.set_topology_key(key);
  return term;
}

// Adds a required anti-affinity `term` to `pod`.
void RequireAntiAffinity(v1::Pod& pod, const v1::PodAffinityTerm& term) {
  *pod.mutable_spec()
       ->mutable_affinity()
       ->mutable_pod_anti_affinity()
       ->add_required_during_scheduling_ignored_during_execution() = term;
}

// web-1 (on node-1) keeps away from app=cache pods in namespaces labelled
// team=data; the bound cache pod moves to namespace "data", which carries
// that label only when `namespace_object` sends the Namespace.
// web-0 (version v1), on the new NodeClaim with api-0 (version `other`),
// repels app=api pods of its own version on its hostname.
void AntiAffinityByVersion(Plan& p, const std::string& other) {
  v1::PodAffinityTerm term = Term("api", kHost);
  term.add_match_label_keys("version");
  RequireAntiAffinity(p.pod("web-0"), term);
  (*p.pod("web-0").mutable_metadata()->mutable_labels())["version"] = "v1";
  (*p.pod("api-0").mutable_metadata()->mutable_labels())["version"] = other;
}

void AntiAffinityAcrossNamespaces(Plan& p, bool namespace_object) {
  p.pod("bound-1").mutable_metadata()->set_namespace_("data");
  if (namespace_object) {
    v1::Namespace* ns = p.req.add_namespaces();
    ns->mutable_metadata()->set_name("data");
    (*ns->mutable_metadata()->mutable_labels())["team"] = "data";
  }
  v1::PodAffinityTerm term = Term("cache", kHost);
  *term.mutable_namespace_selector() = MatchLabels({{"team", "data"}});
  RequireAntiAffinity(p.pod("web-1"), term);
}

// api-0 becomes a cache pod with required zone affinity to cache pods and a
// required node-affinity term allowing `zones`, launched in zone-b; the
// bound cache pod sits in zone-a.
void SelfSelectingCacheInZoneB(Plan& p, const std::vector<std::string>& zones) {
  v1::Pod& api = p.pod("api-0");
  (*api.mutable_metadata()->mutable_labels())["app"] = "cache";
  v1::Affinity* affinity = api.mutable_spec()->mutable_affinity();
  *affinity->mutable_pod_affinity()
       ->add_required_during_scheduling_ignored_during_execution() =
      Term("cache", kZone);
  *affinity->mutable_node_affinity()
       ->mutable_required_during_scheduling_ignored_during_execution()
       ->add_node_selector_terms()
       ->add_match_expressions() = Requirement(kZone, "In", zones);
  p.PinClaim(kZone, "zone-b");
  p.claim().mutable_launch()->set_zone("zone-b");
  p.claim().mutable_launch()->set_capacity_type("on-demand");
  p.claim().mutable_launch()->set_price(0.1);
}

void AddSpread(v1::Pod& pod, const std::string& key) {
  auto* c = pod.mutable_spec()->add_topology_spread_constraints();
  c->set_max_skew(1);
  c->set_topology_key(key);
  c->set_when_unsatisfiable("DoNotSchedule");
  *c->mutable_label_selector() = MatchLabels({{"app", "web"}});
}

void AddHostPort(v1::PodSpec& spec, int port) {
  auto* p = spec.mutable_containers(0)->add_ports();
  p->set_host_port(port);
  p->set_container_port(port);
}

// `node.kubernetes.io/instance-type Exists` with minValues `n`, added to the
// NodePool's requirements or (`claim`) to the NodeClaim's own.
void AddTypeMinValues(Plan& p, int n, bool claim = false) {
  auto r = Requirement("node.kubernetes.io/instance-type", "Exists", {});
  r.set_min_values(n);
  if (claim) {
    *p.claim().mutable_node_claim()->mutable_spec()->add_requirements() = r;
  } else {
    *p.pool()
         .mutable_spec()
         ->mutable_template_()
         ->mutable_spec()
         ->add_requirements() = r;
  }
}

v1::DaemonSet* AddDaemon(Plan& plan, const std::string& cpu) {
  v1::DaemonSet* ds = plan.req.add_daemon_sets();
  ds->mutable_metadata()->set_name("agent");
  ds->mutable_metadata()->set_namespace_("kube-system");
  auto* c =
      ds->mutable_spec()->mutable_template_()->mutable_spec()->add_containers();
  c->set_name("agent");
  (*c->mutable_resources()->mutable_requests())["cpu"] = cpu;
  return ds;
}

// The "agent" DaemonSet with `template_cpu`, and two pods it controls: an
// older one asking 2 CPUs and the newest asking `newest_cpu`, whose
// requests are what a node pays.
void AddDaemonWithPods(Plan& plan, const std::string& template_cpu,
                       const std::string& newest_cpu) {
  AddDaemon(plan, template_cpu)->mutable_metadata()->set_uid("agent-uid");
  const std::pair<const char*, std::string> pods[] = {
      {"2026-01-01T00:00:00Z", "2"}, {"2026-02-01T00:00:00Z", newest_cpu}};
  int i = 0;
  for (const auto& [created, cpu] : pods) {
    v1::Pod pod =
        MakePod(absl::StrCat("agent-", i++), "kube-system", cpu, "64Mi");
    pod.mutable_metadata()->set_creation_timestamp(created);
    v1::OwnerReference* owner = pod.mutable_metadata()->add_owner_references();
    owner->set_kind("DaemonSet");
    owner->set_name("agent");
    owner->set_uid("agent-uid");
    owner->set_controller(true);
    pod.mutable_spec()->set_node_name("node-elsewhere");
    *plan.req.add_pods() = pod;
  }
}

struct Case {
  std::string name;
  std::function<void(Plan&)> mutate;
  std::string rule;  // empty: the plan must pass
};

std::vector<Case> Cases() {
  return {
      {"baseline", [](Plan&) {}, ""},
      {"missing pod", [](Plan& p) { p.claim().mutable_pods()->RemoveLast(); },
       "coverage"},
      {"pod twice",
       [](Plan& p) {
         auto* u = p.resp.add_unschedulable();
         u->set_pod("default/web-1");
         u->set_reason("x");
       },
       "coverage"},
      {"unknown pod", [](Plan& p) { p.claim().add_pods("default/ghost"); },
       "coverage"},
      {"bound pod placed",
       [](Plan& p) { p.claim().add_pods("default/bound-1"); }, "coverage"},
      {"daemonset-owned pod is not pending",
       [](Plan& p) {
         v1::Pod ds_pod = MakePod("agent-x", "kube-system", "10m", "");
         v1::OwnerReference* owner =
             ds_pod.mutable_metadata()->add_owner_references();
         owner->set_api_version("apps/v1");
         owner->set_kind("DaemonSet");
         *p.req.add_pods() = ds_pod;
       },
       ""},
      {"unschedulable without reason",
       [](Plan& p) {
         p.claim().mutable_pods()->RemoveLast();
         p.resp.add_unschedulable()->set_pod("default/api-0");
       },
       "reason"},
      {"deployment replicas listed",
       [](Plan& p) {
         auto* d = p.req.add_deployments();
         d->mutable_metadata()->set_name("dep");
         d->mutable_spec()->set_replicas(2);
         d->mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->add_containers();
         for (const char* n : {"default/dep-0", "default/dep-1"}) {
           auto* u = p.resp.add_unschedulable();
           u->set_pod(n);
           u->set_reason("no capacity");
         }
       },
       ""},
      {"deployment replica missing",
       [](Plan& p) {
         auto* d = p.req.add_deployments();
         d->mutable_metadata()->set_name("dep");
         d->mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->add_containers();
       },
       "coverage"},
      // Replicas after the first are keyed by their own names.
      {"a later deployment replica missing",
       [](Plan& p) {
         auto* d = p.req.add_deployments();
         d->mutable_metadata()->set_name("dep");
         d->mutable_spec()->set_replicas(3);
         d->mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->add_containers();
         for (const char* n : {"default/dep-0", "default/dep-2"}) {
           auto* u = p.resp.add_unschedulable();
           u->set_pod(n);
           u->set_reason("no capacity");
         }
       },
       "coverage"},
      // A template with spec.nodeName makes replicas created bound to that
      // node: not pending, so not planned (found by fuzz_schedule_request).
      {"deployment replicas bound by the template's nodeName",
       [](Plan& p) {
         auto* d = p.req.add_deployments();
         d->mutable_metadata()->set_name("dep");
         d->mutable_spec()->set_replicas(3);
         auto* spec = d->mutable_spec()->mutable_template_()->mutable_spec();
         spec->add_containers();
         spec->set_node_name("elsewhere");
       },
       ""},
      {"unknown NodePool", [](Plan& p) { p.claim().set_node_pool("nope"); },
       "node"},
      {"unknown instance type",
       [](Plan& p) { p.claim().add_instance_types("huge"); }, "node"},
      {"unknown existing node",
       [](Plan& p) { p.resp.mutable_existing_nodes(0)->set_name("node-9"); },
       "node"},
      {"option contradicts NodePool requirements",
       [](Plan& p) {
         *p.pool()
              .mutable_spec()
              ->mutable_template_()
              ->mutable_spec()
              ->add_requirements() =
             Requirement("example.com/family", "In", {"s"});
       },
       "instance-type"},
      {"option contradicts NodeClaim requirements",
       [](Plan& p) { p.PinClaim("node.kubernetes.io/instance-type", "small"); },
       "instance-type"},
      {"option has no allowed offering",
       [](Plan& p) { p.PinClaim(kZone, "zone-c"); }, "instance-type"},
      {"launch type not an option",
       [](Plan& p) {
         p.claim().mutable_instance_types()->RemoveLast();
         p.claim().mutable_launch()->set_instance_type("big");
         p.claim().mutable_launch()->set_price(0.2);
       },
       "launch"},
      {"launch offering missing",
       [](Plan& p) { p.claim().mutable_launch()->set_zone("zone-b"); },
       "launch"},
      {"launch price wrong",
       [](Plan& p) { p.claim().mutable_launch()->set_price(0.07); }, "launch"},
      {"launch offering unavailable",
       [](Plan& p) {
         auto* u = p.req.add_unavailable_offerings();
         u->set_instance_type("small");
         u->set_zone("zone-a");
         u->set_capacity_type("spot");
       },
       "launch"},
      {"launch outside NodeClaim zone",
       [](Plan& p) { p.PinClaim(kZone, "zone-b"); }, "launch"},
      {"new NodeClaim over allocatable",
       [](Plan& p) {
         (*p.pod("api-0")
               .mutable_spec()
               ->mutable_containers(0)
               ->mutable_resources()
               ->mutable_requests())["cpu"] = "1500m";
       },
       "resources"},
      {"new NodeClaim over allocatable by its pod-level request",
       [](Plan& p) {
         (*p.pod("api-0")
               .mutable_spec()
               ->mutable_resources()
               ->mutable_requests())["cpu"] = "1500m";
       },
       "resources"},
      // With pod-level limits, a resource without a pod-level request
      // requests its limit (the API server's defaulting).
      {"new NodeClaim over allocatable by its pod-level limit",
       [](Plan& p) {
         (*p.pod("api-0")
               .mutable_spec()
               ->mutable_resources()
               ->mutable_limits())["cpu"] = "1500m";
       },
       "resources"},
      // Only cpu, memory and hugepages-* may be named at pod level.
      {"pod-level request of another resource",
       [](Plan& p) {
         (*p.pod("api-0")
               .mutable_spec()
               ->mutable_resources()
               ->mutable_requests())["nvidia.com/gpu"] = "1";
       },
       "input"},
      {"DaemonSet overhead counts", [](Plan& p) { AddDaemon(p, "500m"); },
       "resources"},
      // Karpenter's resources.Fits counts a resource the instance type does
      // not list as 0 (pkg/utils/resources/resources.go): a GPU pod on an
      // option without GPUs is over allocatable, not unconstrained.
      {"new NodeClaim lacks an extended resource",
       [](Plan& p) {
         (*p.pod("api-0")
               .mutable_spec()
               ->mutable_containers(0)
               ->mutable_resources()
               ->mutable_requests())["nvidia.com/gpu"] = "1";
       },
       "resources"},
      {"existing node lacks an extended resource",
       [](Plan& p) {
         (*p.pod("web-1")
               .mutable_spec()
               ->mutable_containers(0)
               ->mutable_resources()
               ->mutable_requests())["nvidia.com/gpu"] = "1";
       },
       "resources"},
      {"DaemonSet overhead from its newest pod",
       [](Plan& p) { AddDaemonWithPods(p, "10m", "500m"); }, "resources"},
      {"DaemonSet's newest pod smaller than its template",
       [](Plan& p) { AddDaemonWithPods(p, "500m", "10m"); }, ""},
      {"DaemonSet that cannot run there does not count",
       [](Plan& p) {
         (*AddDaemon(p, "500m")
               ->mutable_spec()
               ->mutable_template_()
               ->mutable_spec()
               ->mutable_node_selector())["kubernetes.io/arch"] = "arm64";
       },
       ""},
      {"DaemonSet that does not tolerate the NodePool taint does not count",
       [](Plan& p) {
         AddDaemon(p, "500m");
         *p.pool()
              .mutable_spec()
              ->mutable_template_()
              ->mutable_spec()
              ->add_taints() = MakeTaint("dedicated", "x", "NoSchedule");
         for (const char* n : {"web-0", "api-0"}) {
           auto* t = p.pod(n).mutable_spec()->add_tolerations();
           t->set_key("dedicated");
           t->set_operator_("Exists");
         }
       },
       ""},
      {"existing node over allocatable",
       [](Plan& p) {
         (*p.pod("web-1")
               .mutable_spec()
               ->mutable_containers(0)
               ->mutable_resources()
               ->mutable_requests())["cpu"] = "1500m";
       },
       "resources"},
      {"nodeSelector on an undecided zone",
       [](Plan& p) {
         (*p.pod("web-0").mutable_spec()->mutable_node_selector())[kZone] =
             "zone-a";
       },
       "node-selector"},
      {"nodeSelector met through NodeClaim requirements",
       [](Plan& p) {
         (*p.pod("web-0").mutable_spec()->mutable_node_selector())[kZone] =
             "zone-a";
         p.PinClaim(kZone, "zone-a");
       },
       ""},
      {"nodeSelector on a NodePool label",
       [](Plan& p) {
         (*p.pod("web-0").mutable_spec()->mutable_node_selector())["team"] =
             "blue";
       },
       ""},
      {"nodeSelector on a label nobody sets",
       [](Plan& p) {
         (*p.pod("web-0").mutable_spec()->mutable_node_selector())["tier"] =
             "gold";
       },
       "node-selector"},
      // Karpenter's AllowUndefinedWellKnownLabels: neither type defines
      // kubernetes.io/os, a Karpenter well-known key.
      {"nodeSelector on a well-known label no type defines",
       [](Plan& p) {
         (*p.pod("web-0")
               .mutable_spec()
               ->mutable_node_selector())["kubernetes.io/os"] = "linux";
       },
       ""},
      {"nodeSelector on a well-known label the types define otherwise",
       [](Plan& p) {
         (*p.pod("web-0")
               .mutable_spec()
               ->mutable_node_selector())["kubernetes.io/arch"] = "arm64";
       },
       "node-selector"},
      // A catalog's own well-known key, which the NodeClaim's requirements
      // (the pod's strict form, Gt 5 and Lt 6: nothing) say is absent.
      {"node affinity on a catalog well-known label no type defines",
       [](Plan& p) {
         p.req.mutable_catalog()->add_well_known_labels(
             "example.com/generation");
         *p.pod("web-0")
              .mutable_spec()
              ->mutable_affinity()
              ->mutable_node_affinity()
              ->mutable_required_during_scheduling_ignored_during_execution()
              ->add_node_selector_terms()
              ->add_match_expressions() =
             Requirement("example.com/generation", "Gt", {"5"});
         *p.claim().mutable_node_claim()->mutable_spec()->add_requirements() =
             Requirement("example.com/generation", "DoesNotExist");
       },
       ""},
      {"node affinity on a catalog well-known label a type defines",
       [](Plan& p) {
         p.req.mutable_catalog()->add_well_known_labels("example.com/family");
         (*p.pod("web-0")
               .mutable_spec()
               ->mutable_node_selector())["example.com/family"] = "x";
       },
       "node-selector"},
      {"required node affinity, second term satisfied",
       [](Plan& p) {
         auto* required =
             p.pod("api-0")
                 .mutable_spec()
                 ->mutable_affinity()
                 ->mutable_node_affinity()
                 ->mutable_required_during_scheduling_ignored_during_execution();
         *required->add_node_selector_terms()->add_match_expressions() =
             Requirement("example.com/family", "In", {"x"});
         *required->add_node_selector_terms()->add_match_expressions() =
             Requirement("example.com/family", "NotIn", {"x"});
       },
       ""},
      {"required node affinity DoesNotExist on present label",
       [](Plan& p) {
         *p.pod("api-0")
              .mutable_spec()
              ->mutable_affinity()
              ->mutable_node_affinity()
              ->mutable_required_during_scheduling_ignored_during_execution()
              ->add_node_selector_terms()
              ->add_match_expressions() = Requirement("team", "DoesNotExist");
       },
       "node-selector"},
      {"nodeSelector unmet on existing node",
       [](Plan& p) {
         (*p.pod("web-1").mutable_spec()->mutable_node_selector())[kZone] =
             "zone-b";
       },
       "node-selector"},
      {"NodePool taint not tolerated",
       [](Plan& p) {
         *p.pool()
              .mutable_spec()
              ->mutable_template_()
              ->mutable_spec()
              ->add_taints() = MakeTaint("dedicated", "x", "NoSchedule");
       },
       "taints"},
      {"NodePool taint tolerated",
       [](Plan& p) {
         *p.pool()
              .mutable_spec()
              ->mutable_template_()
              ->mutable_spec()
              ->add_taints() = MakeTaint("dedicated", "x", "NoSchedule");
         for (const char* n : {"web-0", "api-0"}) {
           auto* t = p.pod(n).mutable_spec()->add_tolerations();
           t->set_key("dedicated");
           t->set_value("x");
           t->set_effect("NoSchedule");
         }
       },
       ""},
      // An empty key matches every key only with Exists: the API server
      // refuses an empty-key Equal toleration (ValidateTolerations).
      {"empty-key Exists toleration tolerates a valued taint",
       [](Plan& p) {
         *p.node().mutable_spec()->add_taints() =
             MakeTaint("gpu", "true", "NoExecute");
         p.pod("web-1").mutable_spec()->add_tolerations()->set_operator_(
             "Exists");
       },
       ""},
      {"empty-key Equal toleration is refused as the API server refuses it",
       [](Plan& p) {
         *p.node().mutable_spec()->add_taints() =
             MakeTaint("gpu", "", "NoExecute");
         p.pod("web-1").mutable_spec()->add_tolerations();
       },
       "input"},
      {"PreferNoSchedule and startup taints are not hard",
       [](Plan& p) {
         auto* spec =
             p.pool().mutable_spec()->mutable_template_()->mutable_spec();
         *spec->add_taints() = MakeTaint("soft", "", "PreferNoSchedule");
         *spec->add_startup_taints() = MakeTaint("boot", "", "NoSchedule");
       },
       ""},
      {"existing node taint not tolerated",
       [](Plan& p) {
         *p.node().mutable_spec()->add_taints() =
             MakeTaint("gpu", "true", "NoExecute");
       },
       "taints"},
      // Karpenter's StateNode: a managed node (one with a NodeClaim) whose
      // karpenter.sh/registered label is not "true" is seen through its
      // NodeClaim's taints.
      {"unregistered managed node: the NodeClaim's taints count",
       [](Plan& p) {
         *p.node().mutable_spec()->add_taints() =
             MakeTaint("gpu", "true", "NoExecute");
         v1::NodeClaim* c = p.req.add_node_claims();
         c->mutable_metadata()->set_name("node-1-claim");
         c->mutable_status()->set_node_name("node-1");
       },
       ""},
      {"registered managed node: the Node's taints count",
       [](Plan& p) {
         *p.node().mutable_spec()->add_taints() =
             MakeTaint("gpu", "true", "NoExecute");
         (*p.node()
               .mutable_metadata()
               ->mutable_labels())["karpenter.sh/registered"] = "true";
         v1::NodeClaim* c = p.req.add_node_claims();
         c->mutable_metadata()->set_name("node-1-claim");
         c->mutable_status()->set_node_name("node-1");
       },
       "taints"},
      {"zone spread broken",
       [](Plan& p) {
         AddSpread(p.pod("web-0"), kZone);
         AddSpread(p.pod("web-1"), kZone);
         p.PinClaim(kZone, "zone-a");
       },
       "topology-spread"},
      {"zone spread kept",
       [](Plan& p) {
         AddSpread(p.pod("web-0"), kZone);
         AddSpread(p.pod("web-1"), kZone);
         p.PinClaim(kZone, "zone-b");
         p.claim().mutable_launch()->set_zone("zone-b");
         p.claim().mutable_launch()->set_capacity_type("on-demand");
         p.claim().mutable_launch()->set_price(0.1);
       },
       ""},
      {"hostname spread broken",
       [](Plan& p) {
         (*p.pod("api-0").mutable_metadata()->mutable_labels())["app"] = "web";
         AddSpread(p.pod("web-0"), kHost);
         AddSpread(p.pod("api-0"), kHost);
       },
       "topology-spread"},
      {"pod affinity unmet",
       [](Plan& p) {
         *p.pod("api-0")
              .mutable_spec()
              ->mutable_affinity()
              ->mutable_pod_affinity()
              ->add_required_during_scheduling_ignored_during_execution() =
             Term("cache", kZone);
         p.PinClaim(kZone, "zone-b");
         p.claim().mutable_launch()->set_zone("zone-b");
         p.claim().mutable_launch()->set_capacity_type("on-demand");
         p.claim().mutable_launch()->set_price(0.1);
       },
       "pod-affinity"},
      {"pod affinity met",
       [](Plan& p) {
         *p.pod("api-0")
              .mutable_spec()
              ->mutable_affinity()
              ->mutable_pod_affinity()
              ->add_required_during_scheduling_ignored_during_execution() =
             Term("cache", kZone);
         p.PinClaim(kZone, "zone-a");
       },
       ""},
      // A self-selecting pod may start a domain when no matching pod counts
      // in the domains its own requirements allow (Karpenter's
      // nextDomainAffinity): the cache pod in zone-a does not count for a
      // pod whose node affinity allows only zone-b, and does count for one
      // whose node affinity allows both (found by nodeplan_soak, seed 12706).
      {"self-selecting pod affinity starts a zone only it allows",
       [](Plan& p) { SelfSelectingCacheInZoneB(p, {"zone-b"}); }, ""},
      {"self-selecting pod affinity with a match in a zone it allows",
       [](Plan& p) {
         SelfSelectingCacheInZoneB(p, {"zone-a", "zone-b"});
       },
       "pod-affinity"},
      {"pod affinity on an undecided zone",
       [](Plan& p) {
         *p.pod("api-0")
              .mutable_spec()
              ->mutable_affinity()
              ->mutable_pod_affinity()
              ->add_required_during_scheduling_ignored_during_execution() =
             Term("cache", kZone);
       },
       "pod-affinity"},
      {"anti-affinity broken on a new NodeClaim",
       [](Plan& p) {
         RequireAntiAffinity(p.pod("web-0"), Term("web", kHost));
         p.resp.mutable_existing_nodes()->Clear();
         p.claim().add_pods("default/web-1");
       },
       "pod-anti-affinity"},
      // matchLabelKeys join the selector as the API server admits the pod.
      {"anti-affinity broken within the pod's matchLabelKeys value",
       [](Plan& p) { AntiAffinityByVersion(p, "v1"); }, "pod-anti-affinity"},
      {"anti-affinity kept outside the pod's matchLabelKeys value",
       [](Plan& p) { AntiAffinityByVersion(p, "v2"); }, ""},
      {"inverse anti-affinity of a bound pod",
       [](Plan& p) {
         RequireAntiAffinity(p.pod("bound-1"), Term("web", kHost));
       },
       "pod-anti-affinity"},
      // Karpenter records a bound pod's term from its node's labels
      // (updateInverseAntiAffinity(pod, node.Labels)): a node without a
      // hostname label gives it no hostname domain, though the node's
      // hostname is its name everywhere else.
      {"inverse anti-affinity of a bound pod on a node without hostname",
       [](Plan& p) {
         p.node().mutable_metadata()->mutable_labels()->erase(kHost);
         RequireAntiAffinity(p.pod("bound-1"), Term("web", kHost));
       },
       ""},
      {"own anti-affinity against a bound pod on a node without hostname",
       [](Plan& p) {
         p.node().mutable_metadata()->mutable_labels()->erase(kHost);
         RequireAntiAffinity(p.pod("web-1"), Term("cache", kHost));
       },
       "pod-anti-affinity"},
      {"anti-affinity across namespaces by namespaceSelector",
       [](Plan& p) { AntiAffinityAcrossNamespaces(p, true); },
       "pod-anti-affinity"},
      {"namespaceSelector matching no known namespace",
       [](Plan& p) { AntiAffinityAcrossNamespaces(p, false); }, ""},
      {"anti-affinity against an undecided zone",
       [](Plan& p) {
         RequireAntiAffinity(p.pod("bound-1"), Term("api", kZone));
       },
       "pod-anti-affinity"},
      {"anti-affinity kept by pinning the zone",
       [](Plan& p) {
         RequireAntiAffinity(p.pod("bound-1"), Term("api", kZone));
         p.PinClaim(kZone, "zone-b");
         p.claim().mutable_launch()->set_zone("zone-b");
         p.claim().mutable_launch()->set_capacity_type("on-demand");
         p.claim().mutable_launch()->set_price(0.1);
       },
       ""},
      {"host ports collide",
       [](Plan& p) {
         AddHostPort(*p.pod("web-0").mutable_spec(), 8080);
         AddHostPort(*p.pod("api-0").mutable_spec(), 8080);
       },
       "host-ports"},
      {"host ports on different nodes",
       [](Plan& p) {
         AddHostPort(*p.pod("web-0").mutable_spec(), 8080);
         AddHostPort(*p.pod("web-1").mutable_spec(), 8080);
       },
       ""},
      {"DaemonSet host port collides",
       [](Plan& p) {
         AddHostPort(*AddDaemon(p, "10m")
                          ->mutable_spec()
                          ->mutable_template_()
                          ->mutable_spec(),
                     8080);
         AddHostPort(*p.pod("web-0").mutable_spec(), 8080);
       },
       "host-ports"},
      {"minValues met by the options", [](Plan& p) { AddTypeMinValues(p, 2); },
       ""},
      {"minValues not met by the options",
       [](Plan& p) {
         AddTypeMinValues(p, 2);
         p.claim().clear_instance_types();
         p.claim().add_instance_types("small");
       },
       "min-values"},
      {"minValues of the NodeClaim's own requirements",
       [](Plan& p) { AddTypeMinValues(p, 3, /*claim=*/true); }, "min-values"},
      {"BestEffort: a relaxed NodeClaim minValues stands",
       [](Plan& p) {
         p.req.mutable_options()->set_min_values_policy("BestEffort");
         AddTypeMinValues(p, 3);
         AddTypeMinValues(p, 2, /*claim=*/true);
       },
       ""},
      {"NodePool limits within",
       [](Plan& p) {
         (*p.pool().mutable_spec()->mutable_limits())["cpu"] = "4";
         (*p.node()
               .mutable_metadata()
               ->mutable_labels())["karpenter.sh/nodepool"] = "default";
       },
       ""},
      {"NodePool limits exceeded",
       [](Plan& p) {
         (*p.pool().mutable_spec()->mutable_limits())["cpu"] = "3";
         (*p.node()
               .mutable_metadata()
               ->mutable_labels())["karpenter.sh/nodepool"] = "default";
       },
       "limits"},
      {"placed on an unmanaged node being deleted",
       [](Plan& p) {
         p.node().mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       "destination"},
      {"placed on a node whose NodeClaim is being deleted",
       [](Plan& p) {
         v1::NodeClaim c = LinkedNodeClaim(p);
         c.mutable_metadata()->set_deletion_timestamp("2026-12-01T00:00:00Z");
         *p.req.add_node_claims() = c;
       },
       "destination"},
      {"a managed node being deleted, its NodeClaim not, is active",
       [](Plan& p) {
         *p.req.add_node_claims() = LinkedNodeClaim(p);
         p.node().mutable_metadata()->set_deletion_timestamp(
             "2026-12-01T00:00:00Z");
       },
       ""},
      {"NodePool limits count a Node and its NodeClaim once",
       [](Plan& p) {
         (*p.pool().mutable_spec()->mutable_limits())["cpu"] = "4";
         (*p.node()
               .mutable_metadata()
               ->mutable_labels())["karpenter.sh/nodepool"] = "default";
         *p.req.add_node_claims() = LinkedNodeClaim(p);
       },
       ""},
      {"NodePool limits leave out a node being deleted",
       [](Plan& p) {
         (*p.pool().mutable_spec()->mutable_limits())["cpu"] = "3";
         (*p.node()
               .mutable_metadata()
               ->mutable_labels())["karpenter.sh/nodepool"] = "default";
         v1::NodeClaim c = LinkedNodeClaim(p);
         c.mutable_metadata()->set_deletion_timestamp("2026-12-01T00:00:00Z");
         *p.req.add_node_claims() = c;
         // Nothing is placed on it and its bound pod has finished; web-1
         // waits.
         p.resp.clear_existing_nodes();
         auto* u = p.resp.add_unschedulable();
         u->set_pod("default/web-1");
         u->set_reason("kept out of this test");
         p.pod("bound-1").mutable_status()->set_phase("Succeeded");
       },
       ""},
      {"a NodePool no node carries is no karpenter.sh/nodepool domain",
       [](Plan& p) {
         // As Karpenter's buildDomainGroups: template requirements and
         // labels and instance types, not the label NodeClaims get (found
         // by fuzz_schedule_request).
         v1::NodePool other = p.pool();
         other.mutable_metadata()->set_name("other");
         *p.req.add_node_pools() = other;
         (*p.node()
               .mutable_metadata()
               ->mutable_labels())["karpenter.sh/nodepool"] = "default";
         AddSpread(p.pod("web-0"), "karpenter.sh/nodepool");
       },
       ""},
      {"malformed quantity",
       [](Plan& p) {
         (*p.pod("api-0")
               .mutable_spec()
               ->mutable_containers(0)
               ->mutable_resources()
               ->mutable_requests())["cpu"] = "12x";
       },
       "input"},
  };
}

class VerifyCaseTest : public ::testing::TestWithParam<Case> {};

TEST_P(VerifyCaseTest, FindsExactlyTheBrokenRule) {
  Plan plan = Baseline();
  GetParam().mutate(plan);
  const std::vector<Violation> violations = Verify(plan.req, plan.resp);
  std::string all;
  for (const auto& v : violations) all += FormatViolation(v) + "\n";
  if (GetParam().rule.empty()) {
    EXPECT_TRUE(violations.empty()) << all;
    return;
  }
  bool found = false;
  for (const auto& v : violations) found |= v.rule == GetParam().rule;
  EXPECT_TRUE(found) << "expected rule " << GetParam().rule << ", got:\n"
                     << all;
}

INSTANTIATE_TEST_SUITE_P(Rules, VerifyCaseTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name;
                           for (char c : info.param.name) {
                             name += std::isalnum(static_cast<unsigned char>(c))
                                         ? c
                                         : '_';
                           }
                           return name;
                         });

TEST(VerifyTest, ViolationNamesPodAndRule) {
  Plan plan = Baseline();
  (*plan.pod("web-0").mutable_spec()->mutable_node_selector())["tier"] = "gold";
  const auto violations = Verify(plan.req, plan.resp);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].rule, "node-selector");
  EXPECT_EQ(violations[0].subject, "pod default/web-0");
  EXPECT_NE(violations[0].message.find("tier In [gold]"), std::string::npos)
      << violations[0].message;
}

TEST(VerifyTest, Deterministic) {
  Plan plan = Baseline();
  plan.claim().mutable_pods()->Clear();
  plan.claim().add_pods("default/ghost");
  const auto a = Verify(plan.req, plan.resp);
  const auto b = Verify(plan.req, plan.resp);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(FormatViolation(a[i]), FormatViolation(b[i]));
  }
}

}  // namespace
}  // namespace nodeplan

namespace nodeplan {
namespace {

// The seed NodePool on the embedded AWS catalog (catalog_ref "aws").
TEST(VerifyAwsCatalogTest, SeedNodePoolLaunches) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(nullptr);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  const v1::InstanceType* m5 = nullptr;
  const v1::InstanceType* t3 = nullptr;
  for (const auto& it : catalog->instance_types()) {
    if (it.name() == "m5.large") m5 = &it;
    if (it.name() == "t3.large") t3 = &it;
  }
  ASSERT_NE(m5, nullptr);
  ASSERT_NE(t3, nullptr);
  double price = -1;
  for (const auto& o : m5->offerings()) {
    if (o.zone() == "us-east-1a" && o.capacity_type() == "on-demand") {
      price = o.price();
    }
  }
  ASSERT_GT(price, 0);

  v1::ScheduleRequest req;
  req.set_catalog_ref("aws");
  *req.add_node_pools() = workload::WorkshopNodePool();
  *req.add_pods() = MakePod("web-0", "default", "500m", "1Gi");
  v1::ScheduleResponse resp;
  v1::NewNodeClaim* claim = resp.add_new_node_claims();
  claim->set_name("general-purpose-x");
  claim->set_node_pool("general-purpose");
  claim->add_instance_types("m5.large");
  claim->mutable_launch()->set_instance_type("m5.large");
  claim->mutable_launch()->set_zone("us-east-1a");
  claim->mutable_launch()->set_capacity_type("on-demand");
  claim->mutable_launch()->set_price(price);
  claim->add_pods("default/web-0");
  std::string all;
  for (const auto& v : Verify(req, resp)) all += FormatViolation(v) + "\n";
  EXPECT_EQ(all, "");

  // t3 is outside the NodePool's categories c/m/r.
  claim->add_instance_types("t3.large");
  bool flagged = false;
  for (const auto& v : Verify(req, resp)) {
    flagged |= v.rule == "instance-type" &&
               v.message.find("t3.large") != std::string::npos;
  }
  EXPECT_TRUE(flagged);

  // The spaces of the embedded catalog are kept per process for NodePools
  // of the same name, template labels and requirements: a NodePool of the
  // same name without the category and generation requirements must not
  // reuse them (t3.large is then fine), and one that admits category c only
  // must flag m5.large.
  auto* reqs = req.mutable_node_pools(0)
                   ->mutable_spec()
                   ->mutable_template_()
                   ->mutable_spec()
                   ->mutable_requirements();
  const v1::NodePool seed = req.node_pools(0);
  reqs->Clear();
  for (const auto& r : seed.spec().template_().spec().requirements())
    if (r.key().find("instance-category") == std::string::npos &&
        r.key().find("instance-generation") == std::string::npos)
      *reqs->Add() = r;
  ASSERT_EQ(reqs->size() + 2,
            seed.spec().template_().spec().requirements_size());
  for (const auto& v : Verify(req, resp))
    EXPECT_EQ(v.message.find("t3.large"), std::string::npos)
        << FormatViolation(v);
  *reqs = seed.spec().template_().spec().requirements();
  for (auto& r : *reqs)
    if (r.key().find("instance-category") != std::string::npos) {
      r.clear_values();
      r.add_values("c");
    }
  claim->mutable_instance_types()->RemoveLast();
  flagged = false;
  for (const auto& v : Verify(req, resp))
    flagged |= v.rule == "instance-type" &&
               v.message.find("m5.large") != std::string::npos;
  EXPECT_TRUE(flagged);
}

// Verifiers on several threads share the process's spaces: each finds
// what one verifier alone finds.
TEST(VerifyAwsCatalogTest, ThreadsAgree) {
  v1::ScheduleRequest req = workload::SeedNodePoolWorkload(200);
  auto resp = Schedule(req);
  ASSERT_TRUE(resp.ok()) << resp.status();
  v1::ScheduleResponse broken = *resp;
  ASSERT_GT(broken.new_node_claims_size(), 0);
  broken.mutable_new_node_claims(0)->add_instance_types("t3.large");
  auto text = [](const std::vector<Violation>& vs) {
    std::string all;
    for (const auto& v : vs) all += FormatViolation(v) + "\n";
    return all;
  };
  const std::string clean = text(Verify(req, *resp));
  const std::string flagged = text(Verify(req, broken));
  EXPECT_EQ(clean, "");
  EXPECT_NE(flagged.find("t3.large"), std::string::npos) << flagged;
  std::vector<std::string> got(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back(
        [&, i] { got[i] = text(Verify(req, i % 2 == 0 ? *resp : broken)); });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(got[i], i % 2 == 0 ? clean : flagged) << i;
}

}  // namespace
}  // namespace nodeplan
