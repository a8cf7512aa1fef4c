#ifndef NODEPLAN_TESTS_DISRUPTION_FIXTURE_H_
#define NODEPLAN_TESTS_DISRUPTION_FIXTURE_H_

// Disruption scenarios written the way Karpenter's own suites build them: a
// small catalog shaped like its fake cloud provider, NodePools, Nodes with
// their NodeClaims (launched, registered, initialized), pods bound to them,
// PDBs, and a fixed `now`.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeplan/disrupt.h"

namespace nodeplan::testing {

inline constexpr char kNow[] = "2026-12-02T10:00:00Z";
// An hour before kNow: nodes created then are initialized and consolidatable
// (consolidateAfter 0s) unless a test says otherwise.
inline constexpr char kHourAgo[] = "2026-12-02T09:00:00Z";

// Karpenter's fake price: 0.1 per core + 0.1 per GB.
inline double FakePrice(int cpu, int mem_gib) {
  return 0.1 * cpu + 0.1 * mem_gib * 1073741824.0 / 1e9;
}

// size-<n>: n cpu, 2n Gi, 10n pods; on-demand in zones 1-3, spot (at 70% of
// on-demand) in zones 1-2.
inline v1::InstanceType SizedType(int cpu) {
  v1::InstanceType t;
  t.set_name(absl::StrCat("size-", cpu));
  (*t.mutable_labels())["kubernetes.io/arch"] = "amd64";
  (*t.mutable_labels())["kubernetes.io/os"] = "linux";
  (*t.mutable_capacity())["cpu"] = absl::StrCat(cpu);
  (*t.mutable_capacity())["memory"] = absl::StrCat(2 * cpu, "Gi");
  (*t.mutable_capacity())["pods"] = absl::StrCat(10 * cpu);
  const double price = FakePrice(cpu, 2 * cpu);
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    v1::Offering* o = t.add_offerings();
    o->set_zone(z);
    o->set_capacity_type("on-demand");
    o->set_price(price);
  }
  for (const char* z : {"test-zone-1", "test-zone-2"}) {
    v1::Offering* o = t.add_offerings();
    o->set_zone(z);
    o->set_capacity_type("spot");
    o->set_price(price * 0.7);
  }
  return t;
}

inline v1::Catalog SizedCatalog(std::vector<int> sizes = {1, 2, 4, 8, 16}) {
  v1::Catalog c;
  for (int s : sizes) *c.add_instance_types() = SizedType(s);
  return c;
}

class Cluster {
 public:
  Cluster() {
    req_.set_now(kNow);
    *req_.mutable_catalog() = SizedCatalog();
  }
  v1::DisruptRequest& request() { return req_; }

  v1::NodePool& NodePool(const std::string& name) {
    v1::NodePool& np = *req_.add_node_pools();
    np.set_api_version("karpenter.sh/v1");
    np.set_kind("NodePool");
    np.mutable_metadata()->set_name(name);
    np.mutable_metadata()->set_uid("uid-" + name);
    v1::NodeClaimTemplateSpec& spec =
        *np.mutable_spec()->mutable_template_()->mutable_spec();
    spec.mutable_node_class_ref()->set_group("karpenter.test.sh");
    spec.mutable_node_class_ref()->set_kind("TestNodeClass");
    spec.mutable_node_class_ref()->set_name("default");
    v1::NodeSelectorRequirement* ct = spec.add_requirements();
    ct->set_key("karpenter.sh/capacity-type");
    ct->set_operator_("In");
    ct->add_values("on-demand");
    ct->add_values("spot");
    return np;
  }

  // A launched, registered and initialized Node and NodeClaim of `pool`,
  // created and initialized at `created`.
  struct NodeOptions {
    std::string type = "size-4";
    std::string zone = "test-zone-1";
    std::string capacity_type = "on-demand";
    std::string created = kHourAgo;
    bool initialized = true;
    bool ready = true;
  };
  v1::Node& Node(const std::string& name, const std::string& pool,
                 const NodeOptions& o) {
    v1::NodeClaim& nc = *req_.add_node_claims();
    nc.set_api_version("karpenter.sh/v1");
    nc.set_kind("NodeClaim");
    nc.mutable_metadata()->set_name(name + "-claim");
    nc.mutable_metadata()->set_creation_timestamp(o.created);
    auto& labels = *nc.mutable_metadata()->mutable_labels();
    labels["karpenter.sh/nodepool"] = pool;
    labels["node.kubernetes.io/instance-type"] = o.type;
    labels["topology.kubernetes.io/zone"] = o.zone;
    labels["karpenter.sh/capacity-type"] = o.capacity_type;
    labels["kubernetes.io/arch"] = "amd64";
    labels["kubernetes.io/os"] = "linux";
    nc.mutable_spec()->mutable_node_class_ref()->set_name("default");
    nc.mutable_status()->set_provider_id("test://" + name);
    nc.mutable_status()->set_node_name(name);
    for (const char* c : {"Launched", "Registered", "Initialized"}) {
      if (std::string(c) == "Initialized" && !o.initialized) continue;
      v1::Condition* cond = nc.mutable_status()->add_conditions();
      cond->set_type(c);
      cond->set_status("True");
      cond->set_last_transition_time(o.created);
    }
    const int cpu = std::stoi(o.type.substr(5));
    (*nc.mutable_status()->mutable_capacity())["cpu"] = absl::StrCat(cpu);
    (*nc.mutable_status()->mutable_allocatable())["cpu"] = absl::StrCat(cpu);
    v1::Node& n = *req_.add_nodes();
    n.set_api_version("v1");
    n.set_kind("Node");
    n.mutable_metadata()->set_name(name);
    n.mutable_metadata()->set_creation_timestamp(o.created);
    *n.mutable_metadata()->mutable_labels() = labels;
    (*n.mutable_metadata()->mutable_labels())["kubernetes.io/hostname"] = name;
    (*n.mutable_metadata()->mutable_labels())["karpenter.sh/registered"] =
        "true";
    if (o.initialized) {
      (*n.mutable_metadata()->mutable_labels())["karpenter.sh/initialized"] =
          "true";
    }
    n.mutable_spec()->set_provider_id("test://" + name);
    auto& cap = *n.mutable_status()->mutable_capacity();
    cap["cpu"] = absl::StrCat(cpu);
    cap["memory"] = absl::StrCat(2 * cpu, "Gi");
    cap["pods"] = absl::StrCat(10 * cpu);
    *n.mutable_status()->mutable_allocatable() = cap;
    v1::NodeCondition* ready = n.mutable_status()->add_conditions();
    ready->set_type("Ready");
    ready->set_status(o.ready ? "True" : "False");
    return n;
  }
  v1::Node& Node(const std::string& name, const std::string& pool) {
    return Node(name, pool, NodeOptions{});
  }
  v1::NodeClaim& ClaimOf(const std::string& node) {
    for (v1::NodeClaim& nc : *req_.mutable_node_claims()) {
      if (nc.metadata().name() == node + "-claim") return nc;
    }
    ADD_FAILURE() << "no NodeClaim for " << node;
    return *req_.add_node_claims();
  }

  // A running pod of a ReplicaSet bound to `node` ("" = pending and
  // unschedulable).
  v1::Pod& Pod(const std::string& name, const std::string& node,
               const std::string& cpu = "1",
               const std::string& memory = "512Mi") {
    v1::Pod& p = *req_.add_pods();
    p.set_api_version("v1");
    p.set_kind("Pod");
    p.mutable_metadata()->set_name(name);
    p.mutable_metadata()->set_namespace_("default");
    p.mutable_metadata()->set_uid("uid-" + name);
    (*p.mutable_metadata()->mutable_labels())["app"] = "test";
    v1::OwnerReference* o = p.mutable_metadata()->add_owner_references();
    o->set_api_version("apps/v1");
    o->set_kind("ReplicaSet");
    o->set_name("rs");
    o->set_controller(true);
    v1::Container* c = p.mutable_spec()->add_containers();
    c->set_name("app");
    (*c->mutable_resources()->mutable_requests())["cpu"] = cpu;
    (*c->mutable_resources()->mutable_requests())["memory"] = memory;
    p.mutable_spec()->set_node_name(node);
    if (node.empty()) {
      p.mutable_status()->set_phase("Pending");
      v1::PodCondition* s = p.mutable_status()->add_conditions();
      s->set_type("PodScheduled");
      s->set_status("False");
      s->set_reason("Unschedulable");
    } else {
      p.mutable_status()->set_phase("Running");
      p.mutable_status()->set_start_time(kHourAgo);
    }
    return p;
  }

  v1::PodDisruptionBudget& Pdb(const std::string& name, const std::string& app,
                               int allowed) {
    v1::PodDisruptionBudget& b = *req_.add_pod_disruption_budgets();
    b.mutable_metadata()->set_name(name);
    b.mutable_metadata()->set_namespace_("default");
    (*b.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
        app;
    b.mutable_spec()->set_max_unavailable("1");
    b.mutable_status()->set_disruptions_allowed(allowed);
    return b;
  }

  v1::DisruptResponse Disrupt() {
    absl::StatusOr<v1::DisruptResponse> r = nodeplan::Disrupt(req_);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::DisruptResponse();
  }

 private:
  v1::DisruptRequest req_;
};

// Narrows the NodePool's capacity types (the fixture's first requirement) to
// on-demand: the fixture's spot offerings are cheaper than on-demand, which
// Karpenter's fake provider's are not.
inline v1::NodePool& OnDemandOnly(v1::NodePool& np) {
  v1::NodeSelectorRequirement* ct = np.mutable_spec()
                                        ->mutable_template_()
                                        ->mutable_spec()
                                        ->mutable_requirements(0);
  ct->clear_values();
  ct->add_values("on-demand");
  return np;
}

// Adds "reserved" to the NodePool's capacity types (the fixture's first
// requirement).
inline v1::NodePool& AllowReserved(v1::NodePool& np) {
  np.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->mutable_requirements(0)
      ->add_values("reserved");
  return np;
}

// The cloud provider reports `node`'s NodeClaim drifted.
inline void ProviderDrift(Cluster& c, const std::string& node,
                          const std::string& reason = "AMIDrifted") {
  (*c.request().mutable_provider_drifted())[node + "-claim"] = reason;
}

// Runs passes until one produces no command, marking every command's nodes
// for deletion (pods still bound) before the next, as Karpenter's queue
// leaves the cluster; returns the commands in order.
inline std::vector<v1::DisruptionCommand> PassesUntilQuiet(
    Cluster& c, int max_passes = 40) {
  std::vector<v1::DisruptionCommand> out;
  for (int i = 0; i < max_passes; ++i) {
    v1::DisruptResponse r = c.Disrupt();
    if (r.commands_size() == 0) return out;
    for (const v1::DisruptionCommand& cmd : r.commands()) {
      out.push_back(cmd);
      for (const v1::CommandCandidate& x : cmd.candidates()) {
        c.request().add_marked_for_deletion(x.node());
      }
    }
  }
  ADD_FAILURE() << "still disrupting after " << max_passes << " passes";
  return out;
}

// The command's candidate node names, in order.
inline std::vector<std::string> CandidateNodes(const v1::DisruptionCommand& c) {
  std::vector<std::string> out;
  for (const v1::CommandCandidate& x : c.candidates()) out.push_back(x.node());
  return out;
}

inline const v1::NodeCandidacy* Candidacy(const v1::DisruptResponse& r,
                                          const std::string& node) {
  for (const v1::NodeCandidacy& c : r.candidates()) {
    if (c.node() == node) return &c;
  }
  return nullptr;
}

}  // namespace nodeplan::testing

#endif  // NODEPLAN_TESTS_DISRUPTION_FIXTURE_H_
