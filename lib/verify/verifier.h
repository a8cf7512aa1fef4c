#ifndef NODEPLAN_LIB_VERIFY_VERIFIER_H_
#define NODEPLAN_LIB_VERIFY_VERIFIER_H_

// The plan verifier's state, shared by the files that check one rule each
// (see include/nodeplan/verify.h for the rules): verify_catalog.cc (what an
// instance-type option launches with), verify_sites.cc (pods, existing and
// new NodeClaims), verify_placement.cc (coverage, labels, taints, resources,
// host ports, limits), verify_topology.cc (spread, affinity, anti-affinity).

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "nodeplan/taints.h"
#include "nodeplan/v1/catalog.pb.h"
#include "nodeplan/v1/schedule.pb.h"
#include "nodeplan/verify.h"
#include "verify/amount.h"
#include "verify/label_domain.h"
#include "verify/pod_facts.h"

namespace nodeplan::verify_internal {

enum class SiteKind { kNode, kNodeClaim, kNew };

// The labels an instance-type option launches with, without its hostname:
// `base` per (NodePool, instance type) and `overlay` per requirements on
// top (the keys the NodeClaim's requirements narrow, zone and capacity
// type). Null overlay: the option is impossible.
struct OptionLabelSet {
  std::shared_ptr<const LabelSpace> base, overlay;
  // Well-known keys (Karpenter's and the catalog's) that neither the
  // NodePool's template nor the instance type defines; null when none.
  std::shared_ptr<const std::vector<std::string>> undefined_well_known;
  explicit operator bool() const { return overlay != nullptr; }
};

// One instance-type option of a new NodeClaim, as it would be launched.
struct OptionView {
  const v1::InstanceType* type = nullptr;
  // An existing node's or in-flight NodeClaim's own labels; for a new
  // NodeClaim's option, `shared` (the option cache's spaces for its
  // NodePool, type and requirements) with `hostname` fixed on top, so that
  // options are not copied per NodeClaim.
  LabelSpace labels;
  OptionLabelSet shared;
  // The NodeClaim's hostname, one domain shared by its options (null: none).
  std::shared_ptr<const Domain> hostname;
  // A new NodeClaim's option: the type's allocatable, the verifier's cached
  // figure (Verifier::Allocatable), not a copy per option.
  const Resources* allocatable = nullptr;

  verify_internal::LabelLookup Labels() const {
    return shared ? verify_internal::LabelLookup(
                        *shared.base, shared.overlay.get(), hostname.get())
                  : verify_internal::LabelLookup(labels);
  }
};

// A place pods can be: an existing Node, an in-flight NodeClaim, or a new
// NodeClaim of the plan.
struct Site {
  SiteKind kind = SiteKind::kNode;
  std::string name;
  std::string subject;
  // Existing nodes and in-flight NodeClaims have one view; new NodeClaims
  // one per valid instance-type option.
  std::vector<OptionView> views;
  std::vector<v1::Taint> hard_taints;
  std::optional<Resources> allocatable;  // existing nodes
  std::vector<int> bound;                // indices into Verifier::pods_
  std::vector<int> placed;
  std::string node_pool;
  Resources capacity;  // for limits: existing capacity or launch capacity
  // Existing capacity Karpenter's state takes as being deleted (a Node
  // whose NodeClaim is deleting or terminating, an unmanaged Node being
  // deleted, a NodeClaim deleting or terminating): no destination, and not
  // charged to limits (Karpenter's nodes.Active()).
  bool deleting = false;
  // A NodeClaim whose Node is in the request: the Node's site stands for
  // both in the limits.
  bool has_node = false;
  // A Node without a kubernetes.io/hostname label: its hostname domain is
  // its name (Karpenter's StateNode.HostName), except for the required
  // anti-affinity of the pods bound to it, which Karpenter records from the
  // node's labels alone.
  bool hostname_from_name = false;
};

struct PodEntry {
  PodFacts facts;
  bool pending = false;
  // Bound and being deleted: still holds its node's resources and its own
  // required anti-affinity, but no longer counts for topology (Karpenter's
  // IgnoredForTopology).
  bool terminating = false;
  int site = -1;
};

bool IsTerminal(const v1::Pod& pod);
bool OwnedByDaemonSetOrNode(const v1::Pod& pod);
// A pod bound to a node being deleted that the provisioner schedules again:
// active (or a terminating StatefulSet pod), not a DaemonSet's or mirror
// pod, and, if active, without a karpenter.sh/do-not-disrupt of "true" or a
// positive duration (no clock in a ScheduleRequest).
bool LeavesDeletingNode(const v1::Pod& pod);
// A NodeClaim being deleted: a deletionTimestamp or InstanceTerminating.
bool ClaimDeleting(const v1::NodeClaim& claim);
// An offering the catalog says can launch: not marked unavailable, and, for
// a capacity reservation, with instances left in it (reservationCapacity).
bool OfferingAvailable(const v1::Offering& o);
Expr ToExpr(const v1::NodeSelectorRequirement& r);
// The node lifecycle taints Karpenter expects to go away: the library's
// nodeplan::IsKnownEphemeralTaint (nodeplan/taints.h).
using ::nodeplan::IsKnownEphemeralTaint;

class Verifier {
 public:
  // The process's base label spaces of the embedded AWS catalog under
  // NodePools that define them alike (verify_catalog.cc).
  struct SharedBases;

  Verifier(const v1::ScheduleRequest& request,
           const v1::ScheduleResponse& response)
      : request_(request), response_(response) {}

  std::vector<Violation> Run() {
    IndexCatalog();
    CollectPods();
    IndexExistingSites();
    CheckCoverage();
    BuildNewSites();
    CheckPlacements();
    CheckHostPorts();
    CheckVolumeLimits();
    CheckLimits();
    CheckSpread();
    CheckAffinity();
    CheckAntiAffinity();
    return std::move(violations_);
  }

 private:
  void Add(const std::string& rule, const std::string& subject,
           const std::string& message);

  // --- catalog ---

  void IndexCatalog();

  // --- CSI volume limits (verify_placement.cc) ---

  void CheckVolumeLimits();

  // The catalog a NodePool launches from: the request's explicit catalog,
  // else the embedded AWS catalog for the NodePool's NodeClass (built by
  // the catalog library; the verifier only reads its figures).
  const v1::Catalog* PoolCatalog(const v1::NodePool& pool);

  const v1::InstanceType* FindType(const v1::NodePool& pool,
                                   const std::string& name);

  bool OfferingUsable(const v1::InstanceType& type, const v1::Offering& o);

  // Cached per type: the reference lives as long as the verifier.
  const std::optional<Resources>& Allocatable(const v1::InstanceType& type,
                                              const std::string& subject);

  std::optional<Resources> ComputeAllocatable(const v1::InstanceType& type,
                                              const std::string& subject);

  // The labels an option would carry: NodePool template labels, the
  // NodePool name, the instance type's labels and requirements, then the
  // NodePool's and the NodeClaim's requirements, zone and capacity type
  // from the offerings those allow. Empty (with *why) if nothing is left.
  // Without the hostname label, which is the NodeClaim's own
  // (OptionView::hostname). The part of the NodePool and the type is
  // computed once per pair, the NodeClaim's narrowing once per pair and
  // distinct requirements (their text interned); the instance-type
  // requirement (often hundreds of names) is checked apart so that it stays
  // out of the cache key.
  OptionLabelSet OptionLabels(const v1::NodePool& pool,
                              const v1::InstanceType& type,
                              const std::vector<Expr>& claim_requirements,
                              std::string* why);

  struct ClaimRequirements {
    std::vector<Expr> other;          // without hostname, instance type
    std::vector<Expr> instance_type;  // on node.kubernetes.io/instance-type
    // Per entry of `instance_type`: its values as a set when its operator is
    // In or NotIn (null otherwise), so that an option's name is checked
    // against a requirement listing hundreds of names in constant time.
    std::vector<std::shared_ptr<const absl::flat_hash_set<std::string>>>
        instance_type_values;
    int signature = 0;  // of `other`, interned (0: none)
  };

  // `index_values`: build instance_type_values (worth it when many options
  // are checked against the same requirements).
  ClaimRequirements SplitRequirements(const std::vector<Expr>& reqs,
                                      bool index_values = false);

  OptionLabelSet OptionLabels(const v1::NodePool& pool,
                              const v1::InstanceType& type,
                              const ClaimRequirements& reqs, std::string* why);

  // The space before the NodeClaim's requirements; null (with the reason)
  // when the NodePool and type alone leave nothing.
  struct BaseLabels {
    std::shared_ptr<const LabelSpace> space;
    std::shared_ptr<const std::vector<std::string>> undefined_well_known;
    std::string why;
  };
  const BaseLabels& PoolTypeLabels(const v1::NodePool& pool,
                                   const v1::InstanceType& type);
  BaseLabels ComputePoolTypeLabels(const v1::NodePool& pool,
                                   const v1::InstanceType& type);

  // Per NodePool of this request whose catalog is embedded, the process's
  // SharedBases of it (null: the request's own catalog).
  std::shared_ptr<SharedBases> SharedBasesFor(const v1::NodePool& pool);

  // The overlay of `claim_requirements` on `base`; nullopt (with *why) if
  // nothing is left.
  std::optional<LabelSpace> ComputeOverlay(
      const v1::InstanceType& type, const LabelSpace& base,
      const std::vector<Expr>& claim_requirements, std::string* why);

  // --- pods ---

  void CollectPods();
  // One pod of the request or a Deployment replica; false when malformed.
  bool CollectPod(const v1::Pod& pod);

  // What a DaemonSet costs a node: its newest running pod (the one it
  // controls with the latest creationTimestamp; the earliest listed on a tie)
  // keeping the template's required node affinity, else its template.
  const v1::PodSpec& DaemonSpec(const v1::DaemonSet& ds);

  void AddPod(PodEntry entry);

  // --- existing sites ---

  void IndexExistingSites();

  // --- coverage ---

  void Place(const std::string& key, int site, const std::string& where);

  void CheckCoverage();

  // --- new NodeClaims ---

  void BuildNewSites();

  void BuildNewSite(const v1::NewNodeClaim& claim, Site& site);

  void CheckLaunch(const v1::NewNodeClaim& claim, const v1::NodePool& pool,
                   const std::vector<Expr>& claim_requirements,
                   bool launch_listed, Site& site);

  // The options of a new NodeClaim reach every minValues of its own
  // requirements (and, unless the policy is BestEffort, of its NodePool's).
  void CheckMinValues(const v1::NewNodeClaim& claim, const v1::NodePool& pool,
                      const Site& site);

  // --- placements: labels, taints, resources ---

  void CheckPlacements();

  std::string DescribePodRequirements(
      const PodFacts& pod, const verify_internal::LabelLookup& labels);

  // DaemonSets that could run on the view, given the site's taints.
  std::vector<const PodFacts*> DaemonsFor(const Site& site,
                                          const OptionView& view);

  static std::string Exceeded(const Resources& need, const Resources& have);

  void CheckResources(const Site& site);

  // --- host ports ---

  void CheckHostPorts();

  // --- limits ---

  void CheckLimits();

  // --- topology ---

  // The values a site's label `key` may take; nullopt when unbounded.
  // Cached: sites do not change once the checks run.
  const std::optional<std::set<std::string>>& DomainsOf(int site,
                                                        const std::string& key);

  std::optional<std::string> PinnedDomain(int site, const std::string& key);

  // Every value of `key` that some NodePool x instance type can produce.
  const std::set<std::string>& CatalogDomains(const std::string& key);

  bool PodExprsAllowValue(const PodFacts& pod, const std::vector<Expr>& term,
                          const std::string& key, const std::string& value);

  bool SiteMatchesPodFilter(const PodFacts& pod, int site);

  bool SiteTolerated(const PodFacts& pod, int site);

  void CheckSpread();

  void CheckSpreadGroup(const std::vector<int>& owners,
                        const v1::TopologySpreadConstraint& c,
                        const v1::LabelSelector& selector, int example);

  // Labels of every namespace the request knows: its Namespace objects,
  // then the namespaces its pods live in, each with the
  // kubernetes.io/metadata.name label the API server always sets.
  const std::map<std::string, std::map<std::string, std::string>>&
  NamespaceLabels();

  // Pods (index) in the term's namespaces matched by its label selector.
  // Namespaces: the listed ones plus, with a namespaceSelector, every known
  // namespace it matches; neither given -> the owner's own.
  std::vector<int> MatchingPods(const v1::PodAffinityTerm& term,
                                const PodFacts& owner);

  void CheckAffinity();

  void CheckAntiAffinity();

  const v1::ScheduleRequest& request_;
  const v1::ScheduleResponse& response_;
  std::vector<Violation> violations_;
  std::set<std::string> reported_;

  // Per catalog, its types by name (views of the catalog's strings).
  std::map<const v1::Catalog*,
           absl::flat_hash_map<absl::string_view, const v1::InstanceType*>>
      types_;
  std::map<std::string, const v1::NodeClass*> node_classes_;
  // SharedAwsCatalog: the default variants are built once per process.
  std::vector<std::shared_ptr<const v1::Catalog>> aws_catalogs_;
  std::map<std::string, const v1::Catalog*> aws_by_class_;
  std::map<std::string, const v1::NodePool*> pools_;
  std::set<std::tuple<std::string, std::string, std::string>> unavailable_;
  std::map<std::string, std::set<std::string>> catalog_domains_;
  std::map<std::pair<const v1::NodePool*, const v1::InstanceType*>, BaseLabels>
      base_labels_;
  std::map<const v1::NodePool*, std::shared_ptr<SharedBases>> shared_bases_;
  // Interned requirement texts (ClaimRequirements::signature); "" is 0.
  std::map<std::string, int> signatures_{{"", 0}};
  absl::flat_hash_map<
      std::tuple<const v1::NodePool*, const v1::InstanceType*, int>,
      std::pair<std::shared_ptr<const LabelSpace>, std::string>>
      option_cache_;
  std::map<const v1::InstanceType*, std::optional<Resources>>
      allocatable_cache_;
  std::map<std::pair<int, std::string>, std::optional<std::set<std::string>>>
      domains_cache_;

  std::deque<v1::Pod> expanded_;
  std::vector<PodEntry> pods_;
  // Built on first use by NamespaceLabels().
  std::map<std::string, std::map<std::string, std::string>> namespace_labels_;
  std::vector<std::string> bound_node_;
  // Nodes Karpenter's state takes as being deleted (their pods that need a
  // new home are to be placed like pending ones).
  absl::flat_hash_set<std::string> deleting_nodes_;
  std::vector<PodFacts> daemons_;
  std::deque<v1::PodSpec> daemon_specs_;  // DaemonSpec's copies, stable
  // Pending pods by key (ordered: unplaced ones are reported in key order)
  // and how often the plan places each (by its index there).
  std::map<std::string, int> pending_index_;
  std::vector<int> seen_;

  std::vector<Site> sites_;
  absl::flat_hash_map<std::string, int> node_sites_;
  absl::flat_hash_map<std::string, int> claim_sites_;
};

}  // namespace nodeplan::verify_internal

#endif  // NODEPLAN_LIB_VERIFY_VERIFIER_H_
