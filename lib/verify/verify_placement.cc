// Rules coverage, labels, taints, resources, host-ports and limits.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/labels.h"
#include "verify/verifier.h"

namespace nodeplan::verify_internal {

void Verifier::Place(const std::string& key, int site,
                     const std::string& where) {
  auto it = pending_index_.find(key);
  if (it == pending_index_.end()) {
    Add("coverage", "pod " + key,
        absl::StrCat("placed on ", where, " but is not a pending pod"));
    return;
  }
  const int times = ++seen_[it->second];
  if (times > 1) {
    Add("coverage", "pod " + key,
        absl::StrCat("appears ", times, " times in the plan (again on ", where,
                     ")"));
    return;
  }
  if (site >= 0) {
    pods_[it->second].site = site;
    sites_[site].placed.push_back(it->second);
  }
}

void Verifier::CheckCoverage() {
  seen_.assign(pods_.size(), 0);
  // Placements on existing capacity first, so sites are known.
  for (const auto& placement : response_.existing_nodes()) {
    int site = -1;
    const std::string& kind = placement.kind();
    if (kind != "NodeClaim") {
      auto it = node_sites_.find(placement.name());
      if (it != node_sites_.end()) site = it->second;
    }
    if (site < 0 && kind != "Node") {
      auto it = claim_sites_.find(placement.name());
      if (it != claim_sites_.end()) site = it->second;
    }
    const std::string where =
        absl::StrCat(kind.empty() ? "node" : kind, " ", placement.name());
    if (site < 0) {
      Add("node", where, "the request holds no such Node or NodeClaim");
    }
    if (site >= 0 && sites_[site].deleting && placement.pods_size() > 0) {
      Add("destination", where,
          "is being deleted: Karpenter places pods on active nodes only");
    }
    for (const auto& pod : placement.pods()) Place(pod, site, where);
  }
  for (const auto& u : response_.unschedulable()) {
    Place(u.pod(), -1, "the unschedulable list");
    if (u.reason().empty()) {
      Add("reason", "pod " + u.pod(), "unschedulable without a reason");
    }
  }
}

void Verifier::CheckPlacements() {
  for (Site& site : sites_) {
    if (site.placed.empty()) continue;
    for (int p : site.placed) {
      const PodFacts& pod = pods_[p].facts;
      const std::string subject = "pod " + pod.key;
      for (const OptionView& view : site.views) {
        // Karpenter's AllowUndefinedWellKnownLabels: what the pod asks of
        // a well-known key the option leaves undefined is not held against
        // it (the scheduler admits such a pod the same way).
        const PodFacts* checked = &pod;
        PodFacts relaxed;
        if (view.shared.undefined_well_known != nullptr &&
            verify_internal::WithoutKeys(pod, *view.shared.undefined_well_known,
                                         &relaxed)) {
          checked = &relaxed;
        }
        if (!verify_internal::PodFitsDefinitely(*checked, view.Labels())) {
          Add("node-selector", subject,
              absl::StrCat(
                  "on ", site.subject,
                  view.type ? " (option " + view.type->name() + ")" : "",
                  ": nodeSelector/required node affinity not met (",
                  DescribePodRequirements(*checked, view.Labels()), ")"));
          break;
        }
      }
      for (const auto& taint : site.hard_taints) {
        if (!verify_internal::Tolerates(pod.tolerations, taint)) {
          Add("taints", subject,
              absl::StrCat("on ", site.subject, ": does not tolerate ",
                           taint.key(), "=", taint.value(), ":",
                           taint.effect()));
        }
      }
    }
    CheckResources(site);
  }
}

std::string Verifier::DescribePodRequirements(
    const PodFacts& pod, const verify_internal::LabelLookup& labels) {
  std::vector<std::string> parts;
  auto describe = [&](const std::vector<Expr>& exprs) {
    for (const Expr& e : exprs) {
      if (!verify_internal::Lookup(labels, e.key).Definitely(e)) {
        parts.push_back(
            absl::StrCat(verify_internal::ExprsToString({e}), " vs node ",
                         verify_internal::Lookup(labels, e.key).ToString()));
      }
    }
  };
  describe(pod.node_selector);
  for (const auto& term : pod.required_terms) describe(term);
  return absl::StrJoin(parts, "; ");
}

std::vector<const PodFacts*> Verifier::DaemonsFor(const Site& site,
                                                  const OptionView& view) {
  std::vector<const PodFacts*> out;
  for (const PodFacts& ds : daemons_) {
    bool tolerated = true;
    for (const auto& t : site.hard_taints) {
      tolerated &= verify_internal::Tolerates(ds.tolerations, t);
    }
    if (tolerated && verify_internal::PodFitsPossibly(ds, view.Labels())) {
      out.push_back(&ds);
    }
  }
  return out;
}

std::string Verifier::Exceeded(const Resources& need, const Resources& have) {
  std::vector<std::string> parts;
  for (const auto& [name, v] : need) {
    if (v <= 0) continue;
    auto it = have.find(name);
    const Amount available = it == have.end() ? 0 : it->second;
    if (v > available) {
      parts.push_back(
          absl::StrCat(name, " ", verify_internal::FormatAmount(name, v), " > ",
                       verify_internal::FormatAmount(name, available)));
    }
  }
  return absl::StrJoin(parts, ", ");
}

void Verifier::CheckResources(const Site& site) {
  Resources placed;
  for (int p : site.placed)
    verify_internal::AddInto(placed, pods_[p].facts.requests);
  if (site.kind != SiteKind::kNew) {
    if (!site.allocatable) return;
    Resources total = placed;
    for (int b : site.bound)
      verify_internal::AddInto(total, pods_[b].facts.requests);
    // Only resources the new pods ask for can be the plan's fault.
    Resources relevant;
    for (const auto& [name, v] : placed) {
      if (v > 0) relevant[name] = total[name];
    }
    const std::string over = Exceeded(relevant, *site.allocatable);
    if (!over.empty()) {
      Add("resources", site.subject,
          absl::StrCat("bound and placed pods exceed allocatable: ", over));
    }
    return;
  }
  for (const OptionView& view : site.views) {
    Resources total = placed;
    for (const PodFacts* ds : DaemonsFor(site, view)) {
      verify_internal::AddInto(total, ds->requests);
    }
    const std::string over =
        Exceeded(total, view.allocatable ? *view.allocatable : Resources{});
    if (!over.empty()) {
      Add("resources", site.subject,
          absl::StrCat("option ", view.type->name(),
                       ": pods + DaemonSets exceed allocatable: ", over));
    }
  }
}

void Verifier::CheckVolumeLimits() {
  if (request_.csi_nodes().empty()) return;
  std::map<std::string, const v1::CSINode*> csi_nodes;
  for (const auto& n : request_.csi_nodes())
    csi_nodes[n.metadata().name()] = &n;
  std::map<std::string, const v1::PersistentVolumeClaim*> claims;
  for (const auto& c : request_.persistent_volume_claims()) {
    const std::string ns = c.metadata().namespace_().empty()
                               ? "default"
                               : c.metadata().namespace_();
    claims[ns + "/" + c.metadata().name()] = &c;
  }
  std::map<std::string, const v1::PersistentVolume*> volumes;
  for (const auto& v : request_.persistent_volumes())
    volumes[v.metadata().name()] = &v;
  std::map<std::string, std::string> provisioners;
  for (const auto& s : request_.storage_classes())
    provisioners[s.metadata().name()] = s.provisioner();
  // In-tree provisioners and the CSI drivers that replaced them.
  const std::map<std::string, std::string> migrated = {
      {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
      {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
      {"kubernetes.io/azure-file", "file.csi.azure.com"},
      {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
      {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
      {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
      {"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
  };
  // driver -> claim keys of one pod.
  auto mounts = [&](const PodFacts& pod,
                    std::map<std::string, std::set<std::string>>& out) {
    if (pod.spec == nullptr) return;
    const std::string name = pod.key.substr(pod.key.find('/') + 1);
    for (const auto& vol : pod.spec->volumes()) {
      std::string key;
      if (vol.has_persistent_volume_claim()) {
        key = pod.ns + "/" + vol.persistent_volume_claim().claim_name();
      } else if (vol.has_ephemeral()) {
        key = pod.ns + "/" + name + "-" + vol.name();
      } else {
        continue;
      }
      auto c = claims.find(key);
      if (c == claims.end()) continue;
      std::string driver;
      const auto& spec = c->second->spec();
      if (!spec.volume_name().empty()) {
        auto v = volumes.find(spec.volume_name());
        if (v == volumes.end()) continue;
        if (v->second->spec().has_csi()) {
          driver = v->second->spec().csi().driver();
        } else if (v->second->spec().has_aws_elastic_block_store()) {
          driver = "ebs.csi.aws.com";
        }
      } else if (!spec.storage_class_name().empty()) {
        auto s = provisioners.find(spec.storage_class_name());
        if (s == provisioners.end()) continue;
        auto m = migrated.find(s->second);
        driver = m == migrated.end() ? s->second : m->second;
      }
      if (!driver.empty()) out[driver].insert(key);
    }
  };
  for (const Site& site : sites_) {
    if (site.placed.empty() || site.kind != SiteKind::kNode) continue;
    auto n = csi_nodes.find(site.name);
    if (n == csi_nodes.end()) continue;
    std::map<std::string, std::set<std::string>> used;
    for (int b : site.bound) mounts(pods_[b].facts, used);
    for (int p : site.placed) mounts(pods_[p].facts, used);
    for (const auto& d : n->second->spec().drivers()) {
      if (!d.has_allocatable()) continue;
      const auto it = used.find(d.name());
      const size_t count = it == used.end() ? 0 : it->second.size();
      if (count > static_cast<size_t>(std::max(0, d.allocatable().count()))) {
        Add("volume-limits", site.subject,
            absl::StrCat("would exceed volume limit (provisioner=", d.name(),
                         ", volume-count=", count,
                         ", volume-limit=", d.allocatable().count(), ")"));
      }
    }
  }
}

void Verifier::CheckHostPorts() {
  for (const Site& site : sites_) {
    if (site.placed.empty()) continue;
    struct Entry {
      std::string owner;
      verify_internal::HostPort port;
      bool is_new;
    };
    std::vector<Entry> entries;
    for (int b : site.bound) {
      for (const auto& hp : pods_[b].facts.host_ports) {
        entries.push_back({"pod " + pods_[b].facts.key, hp, false});
      }
    }
    for (int p : site.placed) {
      for (const auto& hp : pods_[p].facts.host_ports) {
        entries.push_back({"pod " + pods_[p].facts.key, hp, true});
      }
    }
    for (size_t i = 0; i < entries.size(); ++i) {
      for (size_t j = i + 1; j < entries.size(); ++j) {
        if (!entries[i].is_new && !entries[j].is_new) continue;
        if (entries[i].owner == entries[j].owner) continue;
        if (verify_internal::HostPortsConflict(entries[i].port,
                                               entries[j].port)) {
          Add("host-ports", site.subject,
              absl::StrCat(entries[i].owner, " and ", entries[j].owner,
                           " both use host port ", entries[i].port.port, "/",
                           entries[i].port.protocol));
        }
      }
    }
    if (site.kind != SiteKind::kNew) continue;
    for (const OptionView& view : site.views) {
      for (const PodFacts* ds : DaemonsFor(site, view)) {
        for (const auto& dp : ds->host_ports) {
          for (const Entry& e : entries) {
            if (verify_internal::HostPortsConflict(dp, e.port)) {
              Add("host-ports", site.subject,
                  absl::StrCat("option ", view.type->name(), ": DaemonSet ",
                               ds->key, " and ", e.owner,
                               " both use host port ", dp.port, "/",
                               dp.protocol));
            }
          }
        }
      }
    }
  }
}

void Verifier::CheckLimits() {
  for (const auto& pool : request_.node_pools()) {
    const auto& limits = pool.spec().limits();
    if (limits.empty()) continue;
    const std::string& name = pool.metadata().name();
    Resources used;
    int existing = 0, launched = 0;
    for (const Site& site : sites_) {
      if (site.node_pool != name || site.deleting || site.has_node) continue;
      if (site.kind == SiteKind::kNew) {
        ++launched;
      } else {
        ++existing;
      }
      verify_internal::AddInto(used, site.capacity);
    }
    if (launched == 0) continue;
    Resources limit;
    std::string error;
    if (!verify_internal::ParseResources(limits, limit, &error)) {
      Add("input", "nodepool " + name, "malformed limit " + error);
      continue;
    }
    for (const auto& [resource, max] : limit) {
      if (resource == "nodes") {
        if (static_cast<Amount>(existing) * 1000 >= max) {
          Add("limits", "nodepool " + name,
              absl::StrCat(launched, " launches while ", existing,
                           " existing nodes already reach the nodes limit"));
        }
        continue;
      }
      auto it = used.find(resource);
      const Amount total = it == used.end() ? 0 : it->second;
      if (total > max) {
        Add("limits", "nodepool " + name,
            absl::StrCat(resource, " ",
                         verify_internal::FormatAmount(resource, total),
                         " of existing and launched capacity exceeds limit ",
                         verify_internal::FormatAmount(resource, max)));
      }
    }
  }
}

}  // namespace nodeplan::verify_internal
