#include "nodeplan/explain.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/library_version.h"
#include "nodeplan/quantity.h"
#include "nodeplan/requirements.h"
#include "nodeplan/resources.h"
#include "nodeplan/schedule.h"
#include "nodeplan/taints.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

// Karpenter tries NodePools by weight, heaviest first, ties by name
// descending (its OrderByWeight, as the scheduler here sorts them).
std::vector<const v1::NodePool*> InSchedulerOrder(
    const v1::ScheduleRequest& request) {
  std::vector<const v1::NodePool*> out;
  for (const v1::NodePool& np : request.node_pools()) out.push_back(&np);
  std::stable_sort(out.begin(), out.end(),
                   [](const v1::NodePool* a, const v1::NodePool* b) {
                     if (a->spec().weight() != b->spec().weight()) {
                       return a->spec().weight() > b->spec().weight();
                     }
                     return a->metadata().name() > b->metadata().name();
                   });
  return out;
}

std::string Cpu(int64_t milli) {
  return milli % 1000 == 0 ? absl::StrCat(milli / 1000)
                           : absl::StrCat(milli, "m");
}

// The quantities a person compares: cpu, memory, pods (others by name).
void PutResources(const ResourceVector& r,
                  google::protobuf::Map<std::string, std::string>* out) {
  if (r.Present(Resource::kCpu)) (*out)["cpu"] = Cpu(r.cpu_milli());
  if (r.Present(Resource::kMemory)) (*out)["memory"] = FormatBytes(r.memory());
  if (r.Present(Resource::kPods)) (*out)["pods"] = absl::StrCat(r.pods());
  if (r.Present(Resource::kEphemeralStorage)) {
    (*out)["ephemeral-storage"] = FormatBytes(r.ephemeral_storage());
  }
}

std::string Amount(Resource r, int64_t v) {
  switch (r) {
    case Resource::kCpu:
      return absl::StrCat(Cpu(v), " CPU");
    case Resource::kMemory:
      return absl::StrCat(FormatBytes(v), " memory");
    case Resource::kPods:
      return absl::StrCat(v, " pods");
    case Resource::kEphemeralStorage:
      return absl::StrCat(FormatBytes(v), " ephemeral storage");
  }
  return "";
}

constexpr Resource kResources[] = {Resource::kCpu, Resource::kMemory,
                                   Resource::kPods,
                                   Resource::kEphemeralStorage};

// The cluster's pods and Deployment replicas, looked up by "ns/name".
std::optional<v1::Pod> FindPod(const v1::ScheduleRequest& request,
                               const std::string& key) {
  for (const v1::Pod& pod : request.pods()) {
    if (workload::PodKey(pod) == key) return pod;
  }
  for (const v1::Deployment& d : request.deployments()) {
    const std::string ns = d.metadata().namespace_().empty()
                               ? "default"
                               : d.metadata().namespace_();
    absl::string_view rest = key;
    if (!absl::ConsumePrefix(&rest,
                             absl::StrCat(ns, "/", d.metadata().name(), "-"))) {
      continue;
    }
    int index = 0;
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    if (absl::SimpleAtoi(rest, &index) && index >= 0 && index < replicas &&
        absl::StrCat(index) == rest) {
      return workload::DeploymentReplica(d, index);
    }
  }
  return std::nullopt;
}

// Every pending pod of the request (pods without a node, and replicas).
std::vector<v1::Pod> PendingPods(const v1::ScheduleRequest& request) {
  std::vector<v1::Pod> out;
  for (const v1::Pod& pod : request.pods()) {
    if (!pod.spec().node_name().empty()) continue;
    if (pod.status().phase() == "Succeeded" ||
        pod.status().phase() == "Failed") {
      continue;
    }
    out.push_back(pod);
  }
  for (const v1::Deployment& d : request.deployments()) {
    const int replicas = d.spec().has_replicas() ? d.spec().replicas() : 1;
    for (int i = 0; i < replicas; ++i) {
      out.push_back(workload::DeploymentReplica(d, i));
    }
  }
  return out;
}

// One NodePool compiled against its catalog, with what every pod check
// needs.
struct Pool {
  const v1::NodePool* np = nullptr;
  Interner base;
  std::shared_ptr<const CompiledCatalog> catalog;
  std::unique_ptr<Interner> names;  // overlay over `base`
  NodePoolInstanceTypes types;
  ResourceVector daemon_overhead;  // requests of DaemonSets that land here
  int daemons = 0;
  ResourceVector limit;  // spec.limits (present keys only)
  ResourceVector used;   // capacity of its NodeClaims
  int nodes = 0;
};

absl::StatusOr<std::unique_ptr<Pool>> CompilePool(
    const v1::ScheduleRequest& request, const v1::NodePool& np) {
  auto pool = std::make_unique<Pool>();
  pool->np = &np;
  const std::vector<v1::NodeOverlay> overlays(request.node_overlays().begin(),
                                              request.node_overlays().end());
  const std::vector<v1::UnavailableOffering> unavailable(
      request.unavailable_offerings().begin(),
      request.unavailable_offerings().end());
  CatalogCompileOptions options;
  options.overlays = overlays;
  options.unavailable = unavailable;
  absl::StatusOr<std::shared_ptr<const CompiledCatalog>> compiled;
  if (request.has_catalog()) {
    compiled = CompileCatalog(request.catalog(), options, pool->base);
  } else {
    const v1::NodeClass* node_class = nullptr;
    for (const v1::NodeClass& nc : request.node_classes()) {
      if (nc.metadata().name() ==
          np.spec().template_().spec().node_class_ref().name()) {
        node_class = &nc;
      }
    }
    compiled = CompileAwsCatalog(node_class, options, pool->base);
  }
  if (!compiled.ok()) return compiled.status();
  pool->catalog = *std::move(compiled);
  pool->names = std::make_unique<Interner>(&pool->base);
  absl::StatusOr<NodePoolInstanceTypes> types =
      InstanceTypesForNodePool(*pool->catalog, np, *pool->names);
  if (!types.ok()) return types.status();
  pool->types = *std::move(types);

  const auto& taints = np.spec().template_().spec().taints();
  const CompatibilityOptions compat{&pool->catalog->well_known()};
  for (const v1::DaemonSet& ds : request.daemon_sets()) {
    const v1::PodSpec& spec = ds.spec().template_().spec();
    if (!Tolerates(taints, spec.tolerations())) continue;
    absl::StatusOr<Requirements> reqs =
        PodRequirements(spec, *pool->names, PodRequirementsMode::kStrict);
    if (!reqs.ok() || !pool->types.combined.IsCompatible(*reqs, compat)) {
      continue;
    }
    absl::StatusOr<ResourceVector> r = RequestsForPod(spec, *pool->names);
    if (!r.ok()) return r.status();
    pool->daemon_overhead.Add(*r);
    ++pool->daemons;
  }
  absl::StatusOr<ResourceVector> limit = ParseResourceList(
      np.spec().limits(), *pool->names,
      absl::StrCat("NodePool ", np.metadata().name(), ": spec.limits"));
  if (!limit.ok()) return limit.status();
  pool->limit = *limit;
  for (const v1::NodeClaim& nc : request.node_claims()) {
    auto it = nc.metadata().labels().find(labels::kNodePool);
    if (it == nc.metadata().labels().end() ||
        it->second != np.metadata().name()) {
      continue;
    }
    ++pool->nodes;
    absl::StatusOr<ResourceVector> cap =
        ParseResourceList(nc.status().capacity(), *pool->names);
    if (cap.ok()) pool->used.Add(*cap);
  }
  return pool;
}

// The first limited resource `capacity` would push past the limit, if any.
std::optional<Resource> ExceedsLimits(const Pool& pool,
                                      const ResourceVector& capacity) {
  for (Resource r : kResources) {
    if (!pool.limit.Present(r)) continue;
    if (pool.used.Get(r) + capacity.Get(r) > pool.limit.Get(r)) return r;
  }
  return std::nullopt;
}

bool OfferingSuits(const Pool& pool, const CompiledInstanceType& t,
                   const Requirements& pod) {
  for (const CompiledOffering& o : t.offerings) {
    if (o.available && pod.Intersects(*o.requirements) &&
        pool.types.combined.Intersects(*o.requirements)) {
      return true;
    }
  }
  return false;
}

// The part of the scheduler's unschedulable reason about `node_pool` (it
// lists every NodePool as `incompatible with nodepool "NAME", ...`, joined
// with "; "), or the whole reason when it has no such part.
std::string ReasonFor(const std::string& reason, const std::string& node_pool) {
  constexpr absl::string_view kPrefix = "incompatible with nodepool \"";
  const std::string start = absl::StrCat(kPrefix, node_pool, "\", ");
  const size_t at = reason.find(start);
  if (at == std::string::npos) return reason;
  const size_t from = at + start.size();
  const size_t next = reason.find(absl::StrCat("; ", kPrefix), from);
  return reason.substr(
      from, next == std::string::npos ? std::string::npos : next - from);
}

// The checks for one pod on one NodePool.
v1::NodePoolCheck Check(const Pool& pool, const v1::Pod& pod,
                        const ResourceVector& requests,
                        const std::string& scheduled_pool,
                        const std::string& unschedulable_reason) {
  v1::NodePoolCheck c;
  const v1::NodePool& np = *pool.np;
  c.set_node_pool(np.metadata().name());
  c.set_weight(np.spec().weight());
  c.set_admitted_types(static_cast<int>(pool.types.admitted.size()));
  auto fail = [&](const std::string& check, std::string message) {
    c.set_failed_check(check);
    c.set_message(std::move(message));
    return c;
  };
  const auto& taints = np.spec().template_().spec().taints();
  if (std::vector<int> bad =
          UntoleratedTaints(taints, pod.spec().tolerations());
      !bad.empty()) {
    return fail("taints",
                absl::StrCat("the pod does not tolerate the NodePool's taint ",
                             TaintText(taints[bad[0]])));
  }
  Interner call(pool.names.get());
  absl::StatusOr<Requirements> pod_reqs =
      PodRequirements(pod.spec(), call, PodRequirementsMode::kStrict);
  if (!pod_reqs.ok()) {
    return fail("requirements", std::string(pod_reqs.status().message()));
  }
  const CompatibilityOptions compat{&pool.catalog->well_known()};
  if (absl::Status st = pool.types.combined.Compatible(*pod_reqs, compat, call);
      !st.ok()) {
    return fail("requirements",
                absl::StrCat("the pod's node selector or affinity conflicts "
                             "with the NodePool: ",
                             st.message()));
  }
  if (pool.types.admitted.empty()) {
    return fail("instance-types",
                "the NodePool admits no instance type of the catalog");
  }
  ResourceVector needs = requests;
  needs.Add(pool.daemon_overhead);
  PutResources(needs, c.mutable_needs());
  std::vector<const AdmittedInstanceType*> suiting;
  for (const AdmittedInstanceType& a : pool.types.admitted) {
    const CompiledInstanceType& t = pool.catalog->instance_type(a.type);
    if (t.requirements.Intersects(*pod_reqs) &&
        OfferingSuits(pool, t, *pod_reqs)) {
      suiting.push_back(&a);
    }
  }
  if (suiting.empty()) {
    return fail("instance-types",
                absl::StrCat("none of the ", pool.types.admitted.size(),
                             " admitted instance types has labels and an "
                             "available offering the pod's requirements (",
                             pod_reqs->String(call), ") allow"));
  }
  std::vector<const AdmittedInstanceType*> fitting;
  for (const AdmittedInstanceType* a : suiting) {
    if (Fits(needs, pool.catalog->instance_type(a->type).allocatable)) {
      fitting.push_back(a);
    }
  }
  c.set_fitting_types(static_cast<int>(fitting.size()));
  if (fitting.empty()) {
    // The resource most often short, then the type with the most of it.
    Resource short_of = Resource::kCpu;
    for (Resource r : kResources) {
      if (!needs.Present(r)) continue;
      bool all_short = true;
      for (const AdmittedInstanceType* a : suiting) {
        if (pool.catalog->instance_type(a->type).allocatable.Get(r) >=
            needs.Get(r)) {
          all_short = false;
        }
      }
      if (all_short) {
        short_of = r;
        break;
      }
    }
    const AdmittedInstanceType* best = suiting[0];
    for (const AdmittedInstanceType* a : suiting) {
      if (pool.catalog->instance_type(a->type).allocatable.Get(short_of) >
          pool.catalog->instance_type(best->type).allocatable.Get(short_of)) {
        best = a;
      }
    }
    const CompiledInstanceType& t = pool.catalog->instance_type(best->type);
    c.set_instance_type(t.name);
    PutResources(t.allocatable, c.mutable_allocatable());
    std::string daemons;
    if (pool.daemons > 0 && pool.daemon_overhead.Get(short_of) > 0) {
      daemons = absl::StrCat(
          " (", Amount(short_of, requests.Get(short_of)), " for the pod, ",
          Amount(short_of, pool.daemon_overhead.Get(short_of)), " for ",
          pool.daemons, pool.daemons == 1 ? " DaemonSet" : " DaemonSets", ")");
    }
    return fail(
        "resources",
        absl::StrCat("needs ", Amount(short_of, needs.Get(short_of)), daemons,
                     "; the largest admitted type, ", t.name, ", has ",
                     short_of == Resource::kCpu
                         ? absl::StrCat(t.allocatable.cpu_milli(), "m")
                         : Amount(short_of, t.allocatable.Get(short_of)),
                     " allocatable"));
  }
  const AdmittedInstanceType* within = nullptr;
  std::optional<Resource> over;
  for (const AdmittedInstanceType* a : fitting) {
    std::optional<Resource> r =
        ExceedsLimits(pool, pool.catalog->instance_type(a->type).capacity);
    if (!r) {
      within = a;
      break;
    }
    if (!over) over = r;
  }
  if (within == nullptr) {
    const Resource r = *over;
    const CompiledInstanceType& t =
        pool.catalog->instance_type(fitting[0]->type);
    return fail("limits",
                absl::StrCat("limits exhausted: ", ResourceName(r), " limit ",
                             Amount(r, pool.limit.Get(r)), ", ",
                             Amount(r, pool.used.Get(r)),
                             " used by its NodeClaims; the cheapest fitting "
                             "type, ",
                             t.name, ", adds ", Amount(r, t.capacity.Get(r))));
  }
  if (!pool.types.unmet_min_values.empty()) {
    return fail("min-values",
                MinValuesText(*pool.catalog, pool.types,
                              pool.types.unmet_min_values[0], *pool.names));
  }
  const CompiledInstanceType& cheapest =
      pool.catalog->instance_type(within->type);
  c.set_instance_type(cheapest.name);
  PutResources(cheapest.allocatable, c.mutable_allocatable());
  if (!unschedulable_reason.empty()) {
    return fail(
        "scheduler",
        absl::StrCat("passes the taint, requirement, instance-type, "
                     "resource and limit checks, but the scheduler "
                     "answers: ",
                     ReasonFor(unschedulable_reason, np.metadata().name())));
  }
  std::string where = absl::StrFormat(
      "fits: %d of %d admitted types hold it%s, the cheapest %s at "
      "$%.4f/hour",
      fitting.size(), pool.types.admitted.size(),
      pool.daemons == 0
          ? ""
          : absl::StrCat(" with ", pool.daemons,
                         pool.daemons == 1 ? " DaemonSet" : " DaemonSets"),
      cheapest.name, within->price);
  if (!scheduled_pool.empty() && scheduled_pool != np.metadata().name()) {
    absl::StrAppend(&where, "; the plan places the pod elsewhere (",
                    scheduled_pool, ")");
  }
  c.set_message(where);
  return c;
}

absl::StatusOr<v1::PodExplanation> ExplainPod(
    const v1::ScheduleRequest& request, const v1::ScheduleResponse& plan,
    const std::vector<std::unique_ptr<Pool>>& pools, const std::string& key) {
  std::optional<v1::Pod> pod = FindPod(request, key);
  if (!pod) {
    return absl::NotFoundError(absl::StrCat(
        "pod ", key,
        ": not among the input's pods or Deployment replicas "
        "(name them namespace/name, a replica <deployment>-<index>)"));
  }
  v1::PodExplanation e;
  e.set_pod(key);
  Interner names;
  absl::StatusOr<ResourceVector> requests = RequestsForPod(pod->spec(), names);
  if (!requests.ok()) return requests.status();
  ResourceVector own = *requests;
  PutResources(own, e.mutable_requests());
  e.mutable_requests()->erase("pods");

  std::string scheduled_pool;
  for (const v1::NewNodeClaim& nc : plan.new_node_claims()) {
    if (std::find(nc.pods().begin(), nc.pods().end(), key) != nc.pods().end()) {
      e.set_outcome("NodeClaim");
      e.set_target(nc.name());
      e.set_node_pool(nc.node_pool());
      *e.mutable_launch() = nc.launch();
      scheduled_pool = nc.node_pool();
    }
  }
  for (const v1::ExistingNodePlacement& p : plan.existing_nodes()) {
    if (std::find(p.pods().begin(), p.pods().end(), key) != p.pods().end()) {
      e.set_outcome(p.kind().empty() ? "Node" : p.kind());
      e.set_target(p.name());
      scheduled_pool = "existing capacity";
    }
  }
  for (const v1::UnschedulablePod& u : plan.unschedulable()) {
    if (u.pod() == key) {
      e.set_outcome("unschedulable");
      e.set_reason(u.reason());
    }
  }
  if (e.outcome().empty() && !pod->spec().node_name().empty()) {
    e.set_outcome("bound");
    e.set_target(pod->spec().node_name());
  }
  if (e.outcome().empty() && !pod->spec().scheduling_gates().empty()) {
    e.set_outcome("gated");
    e.set_reason(absl::StrCat(
        "scheduling gate ", pod->spec().scheduling_gates(0).name(),
        ": kube-scheduler does not try the pod until its gates are removed, "
        "so Karpenter does not provision for it"));
  }
  if (e.outcome().empty() && !pod->status().nominated_node_name().empty()) {
    e.set_outcome("preempting");
    e.set_target(pod->status().nominated_node_name());
    e.set_reason(
        "nominated: kube-scheduler preempts pods on the node for it, so "
        "Karpenter does not provision for it");
  }
  for (const auto& pool : pools) {
    *e.add_node_pools() = Check(*pool, *pod, own, scheduled_pool, e.reason());
  }
  return e;
}

absl::StatusOr<v1::NodePoolExplanation> ExplainNodePool(
    const v1::ScheduleRequest& request, const v1::ScheduleResponse& plan,
    const std::vector<std::unique_ptr<Pool>>& pools, const std::string& name) {
  const Pool* pool = nullptr;
  for (const auto& p : pools) {
    if (p->np->metadata().name() == name) pool = p.get();
  }
  if (pool == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("NodePool ", name, ": not in the input"));
  }
  v1::NodePoolExplanation e;
  e.set_node_pool(name);
  e.set_weight(pool->np->spec().weight());
  for (const AdmittedInstanceType& a : pool->types.admitted) {
    const CompiledInstanceType& t = pool->catalog->instance_type(a.type);
    v1::AdmittedType* out = e.add_admitted();
    out->set_name(t.name);
    out->set_price(a.price);
    out->set_zone(
        std::string(pool->names->ValueText(t.offerings[a.offering].zone.id)));
    out->set_capacity_type(std::string(
        pool->names->ValueText(t.offerings[a.offering].capacity_type.id)));
    PutResources(t.allocatable, out->mutable_allocatable());
  }
  e.set_rejected_types(static_cast<int>(pool->types.rejected.size()));
  for (Resource r : kResources) {
    if (!pool->limit.Present(r)) continue;
    v1::LimitUse* l = e.add_limits();
    l->set_resource(std::string(ResourceName(r)));
    auto text = [r](int64_t v) {
      return r == Resource::kCpu    ? Cpu(v)
             : r == Resource::kPods ? absl::StrCat(v)
                                    : FormatBytes(v);
    };
    l->set_limit(text(pool->limit.Get(r)));
    l->set_used(text(pool->used.Get(r)));
    l->set_left(
        text(std::max<int64_t>(0, pool->limit.Get(r) - pool->used.Get(r))));
  }
  e.set_nodes(pool->nodes);
  for (const v1::Budget& b : pool->np->spec().disruption().budgets()) {
    v1::BudgetUse* u = e.add_budgets();
    u->set_nodes(b.nodes());
    *u->mutable_reasons() = b.reasons();
    u->set_schedule(b.schedule());
    u->set_duration(b.duration());
    absl::string_view n = b.nodes();
    int value = 0;
    if (absl::ConsumeSuffix(&n, "%")) {
      if (absl::SimpleAtoi(n, &value)) {
        // A percentage of the NodePool's nodes, rounded up.
        u->set_allowed(static_cast<int>(
            std::ceil(static_cast<double>(value) * pool->nodes / 100.0)));
      }
    } else if (absl::SimpleAtoi(n, &value)) {
      u->set_allowed(value);
    }
  }
  const v1::Disruption& disruption = pool->np->spec().disruption();
  const bool explicitly_none =
      std::find(disruption.present_empty_fields().begin(),
                disruption.present_empty_fields().end(),
                "budgets") != disruption.present_empty_fields().end();
  // An absent list is the CRD's default of one 10% budget; `budgets: []`
  // limits nothing.
  if (disruption.budgets().empty() && !explicitly_none) {
    v1::BudgetUse* u = e.add_budgets();
    u->set_nodes("10%");  // Karpenter's default budget
    u->set_allowed(static_cast<int>(std::ceil(pool->nodes * 0.1)));
  }
  for (const v1::Pod& pod : PendingPods(request)) {
    const v1::NodePoolCheck c = Check(*pool, pod, ResourceVector(), "", "");
    if (c.failed_check().empty() || c.failed_check() == "resources" ||
        c.failed_check() == "limits") {
      e.add_targeting_pods(workload::PodKey(pod));
    }
  }
  for (const v1::NewNodeClaim& nc : plan.new_node_claims()) {
    if (nc.node_pool() != name) continue;
    for (const std::string& p : nc.pods()) e.add_planned_pods(p);
  }
  for (const UnmetMinValues& m : pool->types.unmet_min_values) {
    e.add_min_values(
        MinValuesText(*pool->catalog, pool->types, m, *pool->names));
  }
  return e;
}

}  // namespace

absl::StatusOr<v1::ExplainResponse> Explain(const v1::ExplainRequest& request) {
  if (request.pod().empty() == request.node_pool().empty()) {
    return absl::InvalidArgumentError(
        "ExplainRequest: set exactly one of pod and nodePool");
  }
  const v1::ScheduleRequest& schedule = request.request();
  absl::StatusOr<v1::ScheduleResponse> plan = Schedule(schedule);
  if (!plan.ok()) return plan.status();
  std::vector<std::unique_ptr<Pool>> pools;
  for (const v1::NodePool* np : InSchedulerOrder(schedule)) {
    absl::StatusOr<std::unique_ptr<Pool>> pool = CompilePool(schedule, *np);
    if (!pool.ok()) return pool.status();
    pools.push_back(*std::move(pool));
  }
  v1::ExplainResponse response;
  response.set_library_version(LibraryVersion());
  if (!request.pod().empty()) {
    absl::StatusOr<v1::PodExplanation> pod =
        ExplainPod(schedule, *plan, pools, request.pod());
    if (!pod.ok()) return pod.status();
    *response.mutable_pod() = *std::move(pod);
  } else {
    absl::StatusOr<v1::NodePoolExplanation> np =
        ExplainNodePool(schedule, *plan, pools, request.node_pool());
    if (!np.ok()) return np.status();
    *response.mutable_node_pool() = *std::move(np);
  }
  return response;
}

}  // namespace nodeplan
