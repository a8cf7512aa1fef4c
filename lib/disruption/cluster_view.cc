#include "disruption/cluster_view.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "disruption/clock.h"
#include "nodeplan/catalog.h"
#include "nodeplan/hash.h"
#include "nodeplan/labels.h"
#include "nodeplan/object_meta.h"
#include "nodeplan/quantity.h"
#include "scheduling/deleting_nodes.h"
#include "scheduling/pods.h"
#include "validation/workload_checks.h"

namespace nodeplan::disruption {
namespace {

const StringMap& EmptyMap() {
  static const StringMap* m = new StringMap();
  return *m;
}

const std::string* Find(const StringMap& m, absl::string_view key) {
  // Protobuf maps look up by std::string_view without a copy.
  auto it = m.find(std::string_view(key.data(), key.size()));
  return it == m.end() ? nullptr : &it->second;
}

bool NodeReady(const v1::Node& node) {
  for (const v1::NodeCondition& c : node.status().conditions()) {
    if (c.type() == "Ready") return c.status() == "True";
  }
  return false;
}

absl::StatusOr<std::optional<absl::Duration>> NillableDuration(
    const std::string& text, absl::Duration absent, const std::string& path) {
  if (text.empty()) return std::optional<absl::Duration>(absent);
  absl::StatusOr<int64_t> nanos = ParseDuration(text);
  if (!nanos.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", nanos.status().message()));
  }
  if (*nanos == kNeverDuration) return std::optional<absl::Duration>();
  return std::optional<absl::Duration>(absl::Nanoseconds(*nanos));
}

}  // namespace

const v1::Condition* FindCondition(const v1::NodeClaim& claim,
                                   absl::string_view type) {
  for (const v1::Condition& c : claim.status().conditions()) {
    if (c.type() == type) return &c;
  }
  return nullptr;
}

bool ConditionTrue(const v1::NodeClaim& claim, absl::string_view type) {
  const v1::Condition* c = FindCondition(claim, type);
  return c != nullptr && c->status() == "True";
}

int ClusterView::PoolIndex(absl::string_view name) const {
  auto it = pool_index_.find(name);
  return it == pool_index_.end() ? -1 : it->second;
}

int ClusterView::NodeIndex(absl::string_view name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? -1 : it->second;
}

namespace {

bool HasHostPorts(const v1::Pod& pod) {
  return !scheduling::CompileHostPorts(pod.spec()).empty();
}

bool HasDaemonSetOwner(const v1::Pod& pod) {
  return absl::c_any_of(
      pod.metadata().owner_references(),
      [](const v1::OwnerReference& o) { return o.kind() == "DaemonSet"; });
}

}  // namespace

PrecompiledPod PrecompilePod(const v1::Pod& pod, Interner& names) {
  PrecompiledPod out;
  out.key =
      absl::StrCat(NamespaceOf(pod.metadata()), "/", pod.metadata().name());
  out.node_name = pod.spec().node_name();
  out.facts = PodFacts::Of(pod);
  absl::StatusOr<ResourceVector> r = PodRequests(pod.spec(), names);
  if (r.ok()) out.requests = *std::move(r);
  out.host_ports = HasHostPorts(pod);
  out.daemon_set_owner = HasDaemonSetOwner(pod);
  out.topology_terms = scheduling::HasPodTopologyTerms(pod.spec());
  return out;
}

absl::StatusOr<std::unique_ptr<ClusterView>> ClusterView::Build(
    const v1::DisruptRequest& request, const PrecompiledPods* precompiled,
    bool* pods_failed_checks) {
  std::unique_ptr<ClusterView> v(new ClusterView());
  v->request_ = &request;
  v->precompiled_ = precompiled;
  if (precompiled == nullptr) v->pods_failed_checks_ = pods_failed_checks;
  if (request.now().empty()) {
    return absl::InvalidArgumentError(
        "now: Required value (the decision time, RFC 3339)");
  }
  absl::StatusOr<absl::Time> now = ParseTimestamp(request.now(), "now");
  if (!now.ok()) return now.status();
  v->now_ = *now;
  if (absl::Status s = v->BuildPools(); !s.ok()) return s;
  if (absl::Status s = v->BuildNodes(); !s.ok()) return s;
  if (absl::Status s = v->BuildPods(); !s.ok()) return s;
  absl::StatusOr<PdbLimits> pdbs =
      PdbLimits::Build(request.pod_disruption_budgets(), v->interner_);
  if (!pdbs.ok()) return pdbs.status();
  v->pdbs_ = *std::move(pdbs);
  return v;
}

absl::Status ClusterView::BuildPools() {
  const v1::DisruptRequest& req = *request_;
  CatalogCompileOptions options;
  std::vector<v1::NodeOverlay> overlays(req.node_overlays().begin(),
                                        req.node_overlays().end());
  std::vector<v1::UnavailableOffering> unavailable(
      req.unavailable_offerings().begin(), req.unavailable_offerings().end());
  options.overlays = overlays;
  options.unavailable = unavailable;
  const bool explicit_catalog = req.catalog().instance_types_size() > 0;
  if (!explicit_catalog && !req.catalog_ref().empty() &&
      req.catalog_ref() != "aws") {
    return absl::InvalidArgumentError(
        absl::StrCat("catalogRef: \"", req.catalog_ref(),
                     "\" is not a known catalog (aws)"));
  }
  // NodeClasses by name (the last of a name wins, as in scheduling).
  absl::flat_hash_map<std::string, const v1::NodeClass*> classes;
  for (const v1::NodeClass& nc : req.node_classes()) {
    classes[nc.metadata().name()] = &nc;
  }
  std::vector<std::pair<const v1::NodeClass*, int>> by_class;
  auto catalog_for = [&](const std::string& class_name)
      -> absl::StatusOr<const CompiledCatalog*> {
    if (explicit_catalog) {
      if (catalogs_.empty()) {
        absl::StatusOr<std::shared_ptr<const CompiledCatalog>> c =
            CompileCatalog(req.catalog(), options, interner_);
        if (!c.ok()) return c.status();
        catalogs_.push_back(*std::move(c));
      }
      return catalogs_.front().get();
    }
    const v1::NodeClass* node_class = nullptr;
    if (auto it = classes.find(class_name); it != classes.end()) {
      node_class = it->second;
    }
    for (const auto& [nc, index] : by_class) {
      if (nc == node_class) return catalogs_[index].get();
    }
    absl::StatusOr<std::shared_ptr<const CompiledCatalog>> c =
        CompileAwsCatalogCached(node_class, options, interner_);
    if (!c.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("catalogRef \"aws\" for NodeClass \"", class_name,
                       "\": ", c.status().message()));
    }
    by_class.emplace_back(node_class, static_cast<int>(catalogs_.size()));
    catalogs_.push_back(*std::move(c));
    return catalogs_.back().get();
  };

  for (const v1::NodePool& np : req.node_pools()) {
    PoolView p;
    p.proto = &np;
    p.name = np.metadata().name();
    const std::string path = absl::StrCat("nodePools[", p.name, "]");
    if (pool_index_.contains(p.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": metadata.name: Duplicate value: \"", p.name, "\""));
    }
    p.is_static = np.spec().has_replicas();
    p.replicas = np.spec().replicas();
    const v1::Disruption& d = np.spec().disruption();
    const std::string& policy = d.consolidation_policy();
    if (policy.empty() || policy == "WhenEmptyOrUnderutilized") {
      p.policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
    } else if (policy == "WhenEmpty") {
      p.policy = ConsolidationPolicy::kWhenEmpty;
    } else if (policy == "Balanced") {
      p.policy = ConsolidationPolicy::kBalanced;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".spec.disruption.consolidationPolicy: Unsupported value: \"",
          policy,
          "\": supported values: \"WhenEmpty\", \"WhenEmptyOrUnderutilized\", "
          "\"Balanced\""));
    }
    absl::StatusOr<std::optional<absl::Duration>> after =
        NillableDuration(d.consolidate_after(), absl::ZeroDuration(),
                         path + ".spec.disruption.consolidateAfter");
    if (!after.ok()) return after.status();
    p.consolidate_after = *after;
    // The CRD defaults an absent list to one 10% budget; "budgets: []" stays
    // empty, and then nothing limits disruption.
    const bool budgets_present_empty =
        std::find(d.present_empty_fields().begin(),
                  d.present_empty_fields().end(),
                  "budgets") != d.present_empty_fields().end();
    if (d.budgets_size() == 0 && !budgets_present_empty) {
      v1::Budget b;
      b.set_nodes("10%");
      p.budgets.push_back(b);
    } else {
      p.budgets.assign(d.budgets().begin(), d.budgets().end());
    }
    absl::StatusOr<std::string> hash = NodePoolHash(np);
    if (!hash.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", hash.status().message()));
    }
    p.hash = *hash;
    if (const std::string* ver = Find(np.metadata().annotations(),
                                      labels::kNodePoolHashVersionAnnotation)) {
      p.has_hash_version_annotation = true;
      p.hash_version_annotation = *ver;
    }
    absl::StatusOr<Requirements> reqs = RequirementsFromNodeSelector(
        np.spec().template_().spec().requirements(), interner_, true,
        path + ".spec.template.spec.requirements");
    if (!reqs.ok()) return reqs.status();
    p.requirements = *std::move(reqs);
    absl::StatusOr<const CompiledCatalog*> catalog =
        catalog_for(np.spec().template_().spec().node_class_ref().name());
    if (!catalog.ok()) return catalog.status();
    p.catalog = *catalog;
    if (const std::string* n = Find(np.spec().limits(), "nodes")) {
      absl::StatusOr<int64_t> v = ParseQuantityValue(*n);
      if (!v.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ".spec.limits[nodes]: ", v.status().message()));
      }
      p.node_limit = *v;
    }
    pool_index_[p.name] = static_cast<int>(pools_.size());
    pools_.push_back(std::move(p));
  }
  if (well_known_ == nullptr) {
    std::vector<std::string> extra;
    if (explicit_catalog) {
      extra.assign(req.catalog().well_known_labels().begin(),
                   req.catalog().well_known_labels().end());
    }
    well_known_ = std::make_unique<WellKnownLabels>(interner_, extra);
  }
  return absl::OkStatus();
}

absl::Status ClusterView::BuildNodes() {
  const v1::DisruptRequest& req = *request_;
  absl::flat_hash_map<std::string, int> node_by_name, node_by_provider;
  for (int i = 0; i < req.nodes_size(); ++i) {
    const v1::Node& n = req.nodes(i);
    const std::string& name = n.metadata().name();
    if (node_by_name.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "nodes[", name, "]: metadata.name: Duplicate value: \"", name, "\""));
    }
    node_by_name[name] = i;
    if (!n.spec().provider_id().empty()) {
      node_by_provider.emplace(n.spec().provider_id(), i);
    }
  }
  std::vector<int> claim_of_node(req.nodes_size(), -1);
  std::vector<int> node_of_claim(req.node_claims_size(), -1);
  absl::flat_hash_map<std::string, int> claim_names;
  for (int c = 0; c < req.node_claims_size(); ++c) {
    const v1::NodeClaim& nc = req.node_claims(c);
    const std::string& name = nc.metadata().name();
    if (claim_names.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodeClaims[", name,
                       "]: metadata.name: Duplicate value: \"", name, "\""));
    }
    claim_names[name] = c;
    int n = -1;
    if (!nc.status().provider_id().empty()) {
      if (auto it = node_by_provider.find(nc.status().provider_id());
          it != node_by_provider.end()) {
        n = it->second;
      }
    } else if (!nc.status().node_name().empty()) {
      if (auto it = node_by_name.find(nc.status().node_name());
          it != node_by_name.end() &&
          req.nodes(it->second).spec().provider_id().empty()) {
        n = it->second;
      }
    }
    if (n >= 0 && claim_of_node[n] < 0) {
      claim_of_node[n] = c;
      node_of_claim[c] = n;
    }
  }
  absl::flat_hash_map<std::string, bool> marked;
  for (const std::string& m : req.marked_for_deletion()) marked[m] = true;
  absl::flat_hash_map<std::string, bool> nominated;
  for (const std::string& m : req.nominated()) nominated[m] = true;

  auto add = [&](const v1::Node* node, const v1::NodeClaim* claim) {
    NodeView v;
    v.node = node;
    v.claim = claim;
    v.name =
        node != nullptr ? node->metadata().name() : claim->metadata().name();
    v.managed = claim != nullptr;
    const StringMap* node_labels =
        node != nullptr ? &node->metadata().labels() : nullptr;
    auto node_label = [&](absl::string_view key) {
      return node_labels == nullptr ? nullptr : Find(*node_labels, key);
    };
    const std::string* init = node_label(labels::kInitialized);
    const std::string* reg = node_label(labels::kRegistered);
    v.initialized = !v.managed || (init != nullptr && *init == "true");
    v.registered = !v.managed || (reg != nullptr && *reg == "true");
    if (node == nullptr) {
      v.labels = &claim->metadata().labels();
      v.annotations = &claim->metadata().annotations();
    } else if (claim == nullptr || v.registered) {
      v.labels = &node->metadata().labels();
      v.annotations = &node->metadata().annotations();
    } else {
      v.labels = &claim->metadata().labels();
      v.annotations = &claim->metadata().annotations();
    }
    v.ready = node != nullptr && NodeReady(*node);
    v.instance_terminating =
        claim != nullptr && ConditionTrue(*claim, "InstanceTerminating");
    // Karpenter's StateNode.Deleted, the rule the provisioner applies too.
    v.deleted = node != nullptr ? scheduling::NodeDeleting(*node, claim)
                                : scheduling::NodeClaimDeleting(*claim);
    v.marked_for_deletion = v.deleted || marked.contains(v.name);
    v.nominated = nominated.contains(v.name);
    if (const std::string* pool = Find(*v.labels, labels::kNodePool)) {
      v.has_pool_label = true;
      v.pool_label = *pool;
      v.pool = PoolIndex(*pool);
    }
    if (const std::string* t = Find(*v.labels, labels::kInstanceType)) {
      v.instance_type_name = *t;
    }
    if (const std::string* z = Find(*v.labels, labels::kZone)) {
      v.has_zone = true;
      v.zone = *z;
    }
    if (const std::string* ct = Find(*v.labels, labels::kCapacityType)) {
      v.has_capacity_type = true;
      v.capacity_type = *ct;
    }
    if (v.pool >= 0) {
      const CompiledCatalog& cat = *pools_[v.pool].catalog;
      v.instance_type = cat.Find(v.instance_type_name);
      if (v.instance_type >= 0) {
        for (const CompiledOffering& o :
             cat.instance_type(v.instance_type).offerings) {
          if (interner_.ValueText(o.zone.id) == v.zone &&
              interner_.ValueText(o.capacity_type.id) == v.capacity_type) {
            v.price = o.price;
            break;
          }
        }
      }
    }
    node_index_.emplace(v.name, static_cast<int>(nodes_.size()));
    nodes_.push_back(std::move(v));
  };
  for (int i = 0; i < req.nodes_size(); ++i) {
    add(&req.nodes(i),
        claim_of_node[i] >= 0 ? &req.node_claims(claim_of_node[i]) : nullptr);
  }
  for (int c = 0; c < req.node_claims_size(); ++c) {
    if (node_of_claim[c] < 0) add(nullptr, &req.node_claims(c));
  }
  (void)EmptyMap;
  return absl::OkStatus();
}

// How many pods ahead BuildPods prefetches.
constexpr int kPrefetchAhead = 4;

absl::string_view ClusterView::StoreKey(absl::string_view ns,
                                        absl::string_view name) {
  const size_t n = ns.size() + 1 + name.size();
  if (key_free_ < n) {
    const size_t size = std::max<size_t>(n, size_t{64} << 10);
    key_blocks_.emplace_back(new char[size]);
    key_next_ = key_blocks_.back().get();
    key_free_ = size;
  }
  char* out = key_next_;
  std::memcpy(out, ns.data(), ns.size());
  out[ns.size()] = '/';
  std::memcpy(out + ns.size() + 1, name.data(), name.size());
  key_next_ += n;
  key_free_ -= n;
  return absl::string_view(out, n);
}

absl::Status ClusterView::BuildPods() {
  const v1::DisruptRequest& req = *request_;
  // A pod's labels are read only by the PodDisruptionBudgets of its own
  // namespace: pods elsewhere are not interned.
  absl::flat_hash_set<absl::string_view> budget_namespaces;
  for (const v1::PodDisruptionBudget& b : req.pod_disruption_budgets()) {
    budget_namespaces.insert(NamespaceOf(b.metadata()));
  }
  pods_.reserve(req.pods_size());
  if (precompiled_ == nullptr) parsed_requests_.reserve(req.pods_size());
  // The keys seen, when the view checks pods (views of stored keys).
  absl::flat_hash_set<absl::string_view> seen;
  if (pods_failed_checks_ != nullptr) seen.reserve(req.pods_size());
  const int count = req.pods_size();
  for (int i = 0; i < count; ++i) {
    // The pods are separately allocated messages, each a chain of cache
    // misses (Pod, then its metadata, spec and status); fetch the next
    // ones' ahead of use, in two stages since a submessage's address is
    // read from its pod.
    if (i + 2 * kPrefetchAhead < count) {
      __builtin_prefetch(&req.pods(i + 2 * kPrefetchAhead));
    }
    if (i + kPrefetchAhead < count) {
      const v1::Pod& next = req.pods(i + kPrefetchAhead);
      __builtin_prefetch(&next.metadata());
      __builtin_prefetch(&next.spec());
      __builtin_prefetch(&next.status());
    }
    const v1::Pod& p = req.pods(i);
    if (pods_failed_checks_ != nullptr && !validation::PodPassesChecks(p)) {
      *pods_failed_checks_ = true;
      return absl::InvalidArgumentError(
          absl::StrCat("pods[", i, "]: fails validation"));
    }
    const PrecompiledPod* pre = nullptr;
    if (precompiled_ != nullptr) {
      auto it = precompiled_->pods.find(&p);
      if (it == precompiled_->pods.end()) {
        return absl::InternalError(absl::StrCat(
            "pods[", i, "]: not among the pods precompiled for this pass"));
      }
      pre = &it->second;
    }
    PodView& v = pods_.emplace_back();
    v.pod = &p;
    absl::string_view node_name;
    if (pre != nullptr) {
      v.key = pre->key;
      v.facts = pre->facts;
      node_name = pre->node_name;
      v.host_ports = pre->host_ports;
      v.daemon_set_owner = pre->daemon_set_owner;
      v.topology_terms = pre->topology_terms;
    } else {
      v.key = StoreKey(NamespaceOf(p.metadata()), p.metadata().name());
      v.facts = PodFacts::Of(p);
      node_name = p.spec().node_name();
      v.host_ports = HasHostPorts(p);
      v.daemon_set_owner = HasDaemonSetOwner(p);
      v.topology_terms = scheduling::HasPodTopologyTerms(p.spec());
    }
    // Validated pods have unique keys; only a view that checks pods itself
    // must find duplicates.
    if (pods_failed_checks_ != nullptr && !seen.insert(v.key).second) {
      *pods_failed_checks_ = true;
      return absl::InvalidArgumentError(
          absl::StrCat("pods[", v.key, "]: metadata.name: Duplicate value: \"",
                       p.metadata().name(), "\""));
    }
    if (!budget_namespaces.empty() &&
        budget_namespaces.contains(NamespaceOf(p.metadata()))) {
      v.labels = LabelSet::FromMap(p.metadata().labels(), interner_);
    }
    v.bound = !node_name.empty();
    if (!v.bound) {
      ++unbound_pods_;
    } else {
      // Pods bind to Nodes by name; only a state node with a Node holds pods.
      auto it = node_index_.find(node_name);
      if (it != node_index_.end() && nodes_[it->second].node != nullptr) {
        v.node = it->second;
        NodeView& n = nodes_[it->second];
        n.pods.push_back(static_cast<int>(pods_.size() - 1));
        if (!v.facts.terminal && (n.managed || n.has_pool_label)) {
          if (pre != nullptr) {
            if (pre->requests.has_value()) v.requests = &*pre->requests;
          } else {
            absl::StatusOr<ResourceVector> r =
                PodRequests(p.spec(), pod_resource_names_);
            if (r.ok())
              v.requests = &parsed_requests_.emplace_back(*std::move(r));
          }
          if (v.requests != nullptr) n.requests.Add(*v.requests);
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace nodeplan::disruption
