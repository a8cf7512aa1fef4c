// The cluster handle: updates, deletes, answers equal to the one-shot calls
// on the same objects, independence from update order, concurrent readers.

#include "nodeplan/cluster.h"

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/manifest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

std::string Bytes(const google::protobuf::Message& m) {
  return DeterministicBytes(m);
}

// The one-shot call's answer and the cluster's: both errors, or the same
// bytes (then counted in *compared).
template <typename Response>
void ExpectSameAnswer(const absl::StatusOr<Response>& one_shot,
                      const absl::StatusOr<Response>& on_cluster,
                      const std::string& where, int* compared) {
  ASSERT_EQ(one_shot.ok(), on_cluster.ok()) << where;
  if (!one_shot.ok()) return;
  EXPECT_EQ(Bytes(*one_shot), Bytes(*on_cluster)) << where;
  ++*compared;
}

// The workshop's scale-in: NodePools, NodeClass and the running cluster.
v1::ManifestSet ScaleIn() {
  const std::string dir =
      std::string(NODEPLAN_SOURCE_DIR) + "/examples/workshop/";
  absl::StatusOr<v1::ManifestSet> m = LoadManifestFiles(
      {dir + "nodepool-default.yaml", dir + "nodepool-general-purpose.yaml",
       dir + "nodeclass-default.yaml", dir + "scale-in"},
      v1::LoadOptions());
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : v1::ManifestSet();
}

std::unique_ptr<Cluster> MakeCluster(const v1::ManifestSet& m) {
  v1::ClusterUpdate u;
  *u.mutable_upserts() = m;
  u.set_catalog_ref("aws");
  absl::StatusOr<std::unique_ptr<Cluster>> c = Cluster::Create(u);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

v1::DisruptRequest At(const char* now) {
  v1::DisruptRequest r;
  r.set_now(now);
  return r;
}

TEST(ClusterTest, DisruptEqualsTheOneShotCallOnItsContents) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  absl::StatusOr<v1::DisruptResponse> on_cluster =
      c->Disrupt(At("2026-12-02T12:00:00Z"));
  ASSERT_TRUE(on_cluster.ok()) << on_cluster.status();
  v1::DisruptRequest full = c->Contents();
  full.set_now("2026-12-02T12:00:00Z");
  absl::StatusOr<v1::DisruptResponse> one_shot = Disrupt(full);
  ASSERT_TRUE(one_shot.ok());
  EXPECT_EQ(Bytes(*on_cluster), Bytes(*one_shot));
  EXPECT_EQ(on_cluster->method(), "single-node-consolidation");
}

// Schedule on the cluster runs as a simulation on its compiled state when it
// can (no Deployments, Karpenter packing, no cost bound): over random
// clusters (spread, affinity, anti-affinity, host ports, DaemonSets, limits,
// existing nodes with bound pods), with some pending pods stored and the
// rest given as what-if pods, the answer equals the one-shot Schedule.
TEST(ClusterTest, ScheduleOnTheCompiledStateEqualsTheOneShotCall) {
  workload::RandomClusterOptions options;
  options.max_existing_nodes = 6;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    v1::ScheduleRequest req = workload::RandomCluster(seed, options);
    req.clear_deployments();
    v1::ClusterUpdate u;
    v1::ManifestSet& m = *u.mutable_upserts();
    *m.mutable_node_pools() = req.node_pools();
    *m.mutable_node_classes() = req.node_classes();
    *m.mutable_node_overlays() = req.node_overlays();
    *m.mutable_nodes() = req.nodes();
    *m.mutable_node_claims() = req.node_claims();
    *m.mutable_daemon_sets() = req.daemon_sets();
    *m.mutable_persistent_volume_claims() = req.persistent_volume_claims();
    *m.mutable_persistent_volumes() = req.persistent_volumes();
    *m.mutable_storage_classes() = req.storage_classes();
    *m.mutable_namespaces() = req.namespaces();
    if (req.has_catalog()) *u.mutable_catalog() = req.catalog();
    u.set_catalog_ref(req.catalog_ref());
    v1::ScheduleRequest what_if;
    *what_if.mutable_options() = req.options();
    int i = 0;
    for (const v1::Pod& p : req.pods()) {
      const bool stored = !p.spec().node_name().empty() || (i++ % 2) == 0;
      *(stored ? m.add_pods() : what_if.add_pods()) = p;
    }
    absl::StatusOr<std::unique_ptr<Cluster>> c = Cluster::Create(u);
    ASSERT_TRUE(c.ok()) << "seed " << seed << ": " << c.status();
    absl::StatusOr<v1::ScheduleResponse> one_shot = Schedule(req);
    absl::StatusOr<v1::ScheduleResponse> on_cluster = (*c)->Schedule(what_if);
    ASSERT_EQ(one_shot.ok(), on_cluster.ok()) << "seed " << seed;
    if (!one_shot.ok()) {
      EXPECT_EQ(one_shot.status(), on_cluster.status()) << "seed " << seed;
      continue;
    }
    EXPECT_EQ(Bytes(*one_shot), Bytes(*on_cluster)) << "seed " << seed;
    // A second call reuses the compiled state.
    absl::StatusOr<v1::ScheduleResponse> again = (*c)->Schedule(what_if);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(Bytes(*one_shot), Bytes(*again)) << "seed " << seed;
  }
}

// The cluster's contents and `what_if`'s pods and options as one request.
v1::ScheduleRequest OneShot(const Cluster& c,
                            const v1::ScheduleRequest& what_if) {
  const v1::DisruptRequest all = c.Contents();
  v1::ScheduleRequest r;
  *r.mutable_node_pools() = all.node_pools();
  *r.mutable_node_classes() = all.node_classes();
  *r.mutable_node_overlays() = all.node_overlays();
  *r.mutable_nodes() = all.nodes();
  *r.mutable_node_claims() = all.node_claims();
  *r.mutable_pods() = all.pods();
  *r.mutable_daemon_sets() = all.daemon_sets();
  *r.mutable_persistent_volume_claims() = all.persistent_volume_claims();
  *r.mutable_persistent_volumes() = all.persistent_volumes();
  *r.mutable_storage_classes() = all.storage_classes();
  *r.mutable_csi_nodes() = all.csi_nodes();
  *r.mutable_namespaces() = all.namespaces();
  if (all.has_catalog()) *r.mutable_catalog() = all.catalog();
  r.set_catalog_ref(all.catalog_ref());
  for (const v1::Pod& p : what_if.pods()) *r.add_pods() = p;
  *r.mutable_options() = what_if.options();
  return r;
}

// Pending pods come and go (kept without rebuilding the compiled state),
// then one binds and one bound pod goes (the state is rebuilt): after each
// update the handle answers as the one-shot call on its contents.
TEST(ClusterTest, ChurnOfPendingAndBoundPodsKeepsTheOneShotAnswer) {
  workload::RandomClusterOptions options;
  options.max_existing_nodes = 6;
  int compared = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    v1::ScheduleRequest req = workload::RandomCluster(seed, options);
    req.clear_deployments();
    v1::ClusterUpdate u;
    v1::ManifestSet& m = *u.mutable_upserts();
    *m.mutable_node_pools() = req.node_pools();
    *m.mutable_node_classes() = req.node_classes();
    *m.mutable_nodes() = req.nodes();
    *m.mutable_node_claims() = req.node_claims();
    *m.mutable_daemon_sets() = req.daemon_sets();
    *m.mutable_persistent_volume_claims() = req.persistent_volume_claims();
    *m.mutable_persistent_volumes() = req.persistent_volumes();
    *m.mutable_storage_classes() = req.storage_classes();
    *m.mutable_namespaces() = req.namespaces();
    if (req.has_catalog()) *u.mutable_catalog() = req.catalog();
    u.set_catalog_ref(req.catalog_ref());
    std::vector<v1::Pod> pending, bound;
    for (const v1::Pod& p : req.pods())
      (p.spec().node_name().empty() ? pending : bound).push_back(p);
    for (const v1::Pod& p : bound) *m.add_pods() = p;
    absl::StatusOr<std::unique_ptr<Cluster>> c = Cluster::Create(u);
    ASSERT_TRUE(c.ok()) << "seed " << seed << ": " << c.status();
    v1::ScheduleRequest what_if;
    *what_if.mutable_options() = req.options();
    auto check = [&](const char* step) {
      ExpectSameAnswer(Schedule(OneShot(**c, what_if)), (*c)->Schedule(what_if),
                       absl::StrCat("seed ", seed, " ", step), &compared);
    };
    check("bound only");
    // Pending pods arrive one update at a time.
    for (const v1::Pod& p : pending) {
      v1::ClusterUpdate add;
      *add.mutable_upserts()->add_pods() = p;
      ASSERT_TRUE((*c)->Update(add).ok());
      check("pending added");
    }
    if (!pending.empty()) {
      // One goes away, one changes its requests.
      v1::ClusterUpdate change;
      v1::ObjectRef* ref = change.add_deletes();
      ref->set_kind("Pod");
      ref->set_namespace_(pending[0].metadata().namespace_());
      ref->set_name(pending[0].metadata().name());
      if (pending.size() > 1) {
        v1::Pod bigger = pending.back();
        (*bigger.mutable_spec()
              ->mutable_containers(0)
              ->mutable_resources()
              ->mutable_requests())["cpu"] = "1500m";
        *change.mutable_upserts()->add_pods() = bigger;
      }
      ASSERT_TRUE((*c)->Update(change).ok());
      check("pending changed");
    }
    if (pending.size() > 1 && req.nodes_size() > 0) {
      // A pending pod binds to a node: the compiled state is rebuilt.
      v1::Pod binds = pending[1];
      binds.mutable_spec()->set_node_name(req.nodes(0).metadata().name());
      v1::ClusterUpdate bind;
      *bind.mutable_upserts()->add_pods() = binds;
      ASSERT_TRUE((*c)->Update(bind).ok());
      check("pod bound");
    }
    if (!bound.empty()) {
      v1::ClusterUpdate gone;
      v1::ObjectRef* ref = gone.add_deletes();
      ref->set_kind("Pod");
      ref->set_namespace_(bound[0].metadata().namespace_());
      ref->set_name(bound[0].metadata().name());
      ASSERT_TRUE((*c)->Update(gone).ok());
      check("bound pod deleted");
    }
  }
  EXPECT_GT(compared, 200);
}

// Disrupt on the cluster keeps its compiled state across passes while the
// objects stand (only unbound pods changing): over random disruption
// clusters, passes repeated at other times, with other nodes marked for
// deletion and other options, and after pending and bound pods change, each
// answer equals the one-shot Disrupt on the cluster's contents.
TEST(ClusterTest, RepeatedDisruptPassesKeepTheOneShotAnswer) {
  int compared = 0;
  for (uint64_t seed = 0; seed < 42; ++seed) {
    // Two scale clusters (the benchmark's shape: PDBs, DaemonSets, a fifth
    // of the nodes underutilized) after the random ones.
    v1::DisruptRequest req = seed < 40 ? workload::RandomDisruptionCluster(seed)
                                       : workload::ScaleDisruptionCluster(
                                             seed == 40 ? 12 : 40, 30, 20);
    if (req.deployments_size() > 0) continue;
    v1::ClusterUpdate u;
    v1::ManifestSet& m = *u.mutable_upserts();
    *m.mutable_node_pools() = req.node_pools();
    *m.mutable_node_classes() = req.node_classes();
    *m.mutable_node_overlays() = req.node_overlays();
    *m.mutable_nodes() = req.nodes();
    *m.mutable_node_claims() = req.node_claims();
    *m.mutable_pods() = req.pods();
    *m.mutable_daemon_sets() = req.daemon_sets();
    *m.mutable_pod_disruption_budgets() = req.pod_disruption_budgets();
    *m.mutable_namespaces() = req.namespaces();
    if (req.has_catalog()) *u.mutable_catalog() = req.catalog();
    u.set_catalog_ref(req.catalog_ref());
    absl::StatusOr<std::unique_ptr<Cluster>> c = Cluster::Create(u);
    ASSERT_TRUE(c.ok()) << "seed " << seed << ": " << c.status();
    auto check = [&](const v1::DisruptRequest& at, const std::string& step) {
      v1::DisruptRequest full = (*c)->Contents();
      full.set_now(at.now());
      *full.mutable_options() = at.options();
      *full.mutable_marked_for_deletion() = at.marked_for_deletion();
      *full.mutable_provider_drifted() = at.provider_drifted();
      ExpectSameAnswer(Disrupt(full), (*c)->Disrupt(at),
                       absl::StrCat("seed ", seed, " ", step), &compared);
    };
    v1::DisruptRequest at = At(req.now().c_str());
    *at.mutable_options() = req.options();
    *at.mutable_marked_for_deletion() = req.marked_for_deletion();
    *at.mutable_provider_drifted() = req.provider_drifted();
    check(at, "first pass");
    check(at, "same pass again");
    v1::DisruptRequest later = at;
    later.set_now("2030-01-01T00:00:00Z");
    check(later, "later");
    if (req.nodes_size() > 0) {
      v1::DisruptRequest marked = at;
      marked.add_marked_for_deletion(req.nodes(0).metadata().name());
      check(marked, "a node marked for deletion");
    }
    v1::DisruptRequest spot = at;
    spot.mutable_options()->set_spot_to_spot_consolidation(true);
    spot.mutable_options()->set_min_values_policy("BestEffort");
    check(spot, "other options");
    check(at, "first pass again");
    // A pending pod comes (the compiled state stands), then a bound pod
    // goes (it is rebuilt).
    v1::ClusterUpdate add;
    v1::Pod pending;
    pending.mutable_metadata()->set_name("what-if");
    pending.mutable_metadata()->set_namespace_("default");
    v1::Container* container = pending.mutable_spec()->add_containers();
    container->set_name("app");
    (*container->mutable_resources()->mutable_requests())["cpu"] = "100m";
    pending.mutable_status()->set_phase("Pending");
    *add.mutable_upserts()->add_pods() = pending;
    ASSERT_TRUE((*c)->Update(add).ok());
    check(at, "pending pod added");
    for (const v1::Pod& p : req.pods()) {
      if (p.spec().node_name().empty()) continue;
      v1::ClusterUpdate gone;
      v1::ObjectRef* ref = gone.add_deletes();
      ref->set_kind("Pod");
      ref->set_namespace_(p.metadata().namespace_());
      ref->set_name(p.metadata().name());
      ASSERT_TRUE((*c)->Update(gone).ok());
      check(at, "bound pod deleted");
      break;
    }
  }
  EXPECT_GT(compared, 150);
}

TEST(ClusterTest, ScheduleSeesWhatIfPodsOnTheClustersNodes) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  v1::ScheduleRequest what_if;
  v1::Pod* p = what_if.add_pods();
  p->mutable_metadata()->set_name("extra");
  p->mutable_metadata()->set_namespace_("default");
  (*p->mutable_spec()->mutable_node_selector())["type"] = "karpenter";
  v1::Container* ct = p->mutable_spec()->add_containers();
  (*ct->mutable_resources()->mutable_requests())["cpu"] = "500m";
  absl::StatusOr<v1::ScheduleResponse> r = c->Schedule(what_if);
  ASSERT_TRUE(r.ok()) << r.status();
  // It fits on an existing node: nothing new to launch.
  EXPECT_EQ(r->new_node_claims_size(), 0);
  ASSERT_EQ(r->existing_nodes_size(), 1);
  EXPECT_EQ(r->existing_nodes(0).pods(0), "default/extra");
}

// A CSINode upserted for the node a what-if pod lands on closes it to the
// pod's claim (a limit of zero for its class's driver); deleting it opens the
// node again. Each answer equals the one-shot call on the contents.
TEST(ClusterTest, CsiNodesLimitVolumesOnTheClustersNodes) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  v1::ClusterUpdate u;
  v1::StorageClass* sc = u.mutable_upserts()->add_storage_classes();
  sc->mutable_metadata()->set_name("gp3");
  sc->set_provisioner("ebs.csi.aws.com");
  sc->set_volume_binding_mode("WaitForFirstConsumer");
  v1::PersistentVolumeClaim* pvc =
      u.mutable_upserts()->add_persistent_volume_claims();
  pvc->mutable_metadata()->set_name("data");
  pvc->mutable_metadata()->set_namespace_("default");
  pvc->mutable_spec()->set_storage_class_name("gp3");
  ASSERT_TRUE(c->Update(u).ok());
  v1::ScheduleRequest what_if;
  v1::Pod* p = what_if.add_pods();
  p->mutable_metadata()->set_name("extra");
  p->mutable_metadata()->set_namespace_("default");
  (*p->mutable_spec()->mutable_node_selector())["type"] = "karpenter";
  (*p->mutable_spec()
        ->add_containers()
        ->mutable_resources()
        ->mutable_requests())["cpu"] = "500m";
  v1::Volume* vol = p->mutable_spec()->add_volumes();
  vol->set_name("data");
  vol->mutable_persistent_volume_claim()->set_claim_name("data");
  auto where = [&](const std::string& step) -> std::string {
    absl::StatusOr<v1::ScheduleResponse> r = c->Schedule(what_if);
    EXPECT_TRUE(r.ok()) << step << ": " << r.status();
    if (!r.ok()) return "";
    absl::StatusOr<v1::ScheduleResponse> one_shot =
        Schedule(OneShot(*c, what_if));
    EXPECT_TRUE(one_shot.ok()) << step;
    if (one_shot.ok()) {
      EXPECT_EQ(Bytes(*one_shot), Bytes(*r)) << step;
    }
    for (const auto& e : r->existing_nodes())
      for (const auto& pod : e.pods())
        if (pod == "default/extra") return e.name();
    return "new";
  };
  const std::string first = where("no CSINode");
  ASSERT_NE(first, "new");
  ASSERT_NE(first, "");
  v1::ClusterUpdate limit;
  v1::CSINode* csi = limit.mutable_upserts()->add_csi_nodes();
  csi->mutable_metadata()->set_name(first);
  v1::CSINodeDriver* d = csi->mutable_spec()->add_drivers();
  d->set_name("ebs.csi.aws.com");
  d->mutable_allocatable()->set_count(0);
  ASSERT_TRUE(c->Update(limit).ok());
  EXPECT_NE(where("limit 0"), first);
  v1::ClusterUpdate remove;
  v1::ObjectRef* ref = remove.add_deletes();
  ref->set_kind("CSINode");
  ref->set_name(first);
  absl::StatusOr<v1::ClusterUpdateResponse> ur = c->Update(remove);
  ASSERT_TRUE(ur.ok()) << ur.status();
  EXPECT_EQ(ur->deleted(), 1);
  EXPECT_EQ(where("CSINode deleted"), first);
}

TEST(ClusterTest, UpdatesAndDeletesChangeTheAnswer) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  // Scale inflate down to nothing: both nodes become empty.
  v1::ClusterUpdate u;
  const v1::DisruptRequest contents = c->Contents();
  for (const v1::Pod& p : contents.pods()) {
    v1::ObjectRef* ref = u.add_deletes();
    ref->set_kind("Pod");
    ref->set_namespace_(p.metadata().namespace_());
    ref->set_name(p.metadata().name());
  }
  v1::ObjectRef* missing = u.add_deletes();
  missing->set_kind("Pod");
  missing->set_name("never-seen");
  absl::StatusOr<v1::ClusterUpdateResponse> ur = c->Update(u);
  ASSERT_TRUE(ur.ok()) << ur.status();
  EXPECT_EQ(ur->deleted(), 5);
  EXPECT_EQ(ur->not_found(), 1);
  EXPECT_EQ(ur->generation(), 2);
  absl::StatusOr<v1::DisruptResponse> r =
      c->Disrupt(At("2026-12-02T12:00:00Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->method(), "emptiness");
}

TEST(ClusterTest, AnswersDoNotDependOnUpdateOrder) {
  v1::DisruptRequest req = workload::RandomDisruptionCluster(42);
  v1::ManifestSet m;
  *m.mutable_node_pools() = req.node_pools();
  *m.mutable_nodes() = req.nodes();
  *m.mutable_node_claims() = req.node_claims();
  *m.mutable_pods() = req.pods();
  *m.mutable_pod_disruption_budgets() = req.pod_disruption_budgets();
  v1::ManifestSet reversed = m;
  std::reverse(reversed.mutable_nodes()->begin(),
               reversed.mutable_nodes()->end());
  std::reverse(reversed.mutable_pods()->begin(),
               reversed.mutable_pods()->end());
  std::string answers[2];
  for (int i = 0; i < 2; ++i) {
    v1::ClusterUpdate u;
    *u.mutable_upserts() = i == 0 ? m : reversed;
    *u.mutable_catalog() = req.catalog();
    absl::StatusOr<std::unique_ptr<Cluster>> c = Cluster::Create(u);
    ASSERT_TRUE(c.ok()) << c.status();
    v1::DisruptRequest at = At(req.now().c_str());
    *at.mutable_options() = req.options();
    *at.mutable_marked_for_deletion() = req.marked_for_deletion();
    absl::StatusOr<v1::DisruptResponse> r = (*c)->Disrupt(at);
    ASSERT_TRUE(r.ok()) << r.status();
    answers[i] = Bytes(*r);
  }
  EXPECT_EQ(answers[0], answers[1]);
}

// Stored pods are validated once, when upserted: a pod the API server would
// refuse, bound or pending, makes Schedule refuse as the one-shot call does
// (naming it), until it is replaced or deleted.
TEST(ClusterTest, AStoredPodTheApiServerRefusesIsReportedUntilFixed) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  const v1::ScheduleRequest what_if;
  ASSERT_TRUE(c->Schedule(what_if).ok());
  v1::Pod bad = c->Contents().pods(0);
  (*bad.mutable_spec()
        ->mutable_containers(0)
        ->mutable_resources()
        ->mutable_requests())["cpu"] = "lots";
  for (bool bound : {true, false}) {
    SCOPED_TRACE(bound ? "bound" : "pending");
    if (!bound) bad.mutable_spec()->clear_node_name();
    v1::ClusterUpdate u;
    *u.mutable_upserts()->add_pods() = bad;
    ASSERT_TRUE(c->Update(u).ok());
    absl::StatusOr<v1::ScheduleResponse> r = c->Schedule(what_if);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()),
                ::testing::HasSubstr(bad.metadata().name()));
    EXPECT_EQ(r.status(), Schedule(OneShot(*c, what_if)).status());
    // Disrupt trusts the stored pods only while none is refused.
    absl::StatusOr<v1::DisruptResponse> d =
        c->Disrupt(At("2026-12-02T12:00:00Z"));
    ASSERT_FALSE(d.ok());
    v1::DisruptRequest full = c->Contents();
    full.set_now("2026-12-02T12:00:00Z");
    EXPECT_EQ(d.status(), Disrupt(full).status());
  }
  v1::ClusterUpdate fix;
  v1::ObjectRef* ref = fix.add_deletes();
  ref->set_kind("Pod");
  ref->set_namespace_(bad.metadata().namespace_());
  ref->set_name(bad.metadata().name());
  ASSERT_TRUE(c->Update(fix).ok());
  EXPECT_TRUE(c->Schedule(what_if).ok());
  EXPECT_TRUE(c->Disrupt(At("2026-12-02T12:00:00Z")).ok());
}

TEST(ClusterTest, BadUpdatesAreRefusedWhole) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  v1::ClusterUpdate u;
  u.mutable_upserts()->add_pods()->mutable_metadata()->set_name("ok");
  u.mutable_upserts()->add_pods();  // no name
  absl::StatusOr<v1::ClusterUpdateResponse> r = c->Update(u);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Pod[1]: metadata.name"),
            std::string::npos)
      << r.status();
  EXPECT_EQ(c->Contents().pods_size(), 5);  // nothing applied
  v1::ClusterUpdate bad_kind;
  bad_kind.add_deletes()->set_kind("Secret");
  EXPECT_FALSE(c->Update(bad_kind).ok());
  v1::DisruptRequest with_nodes = At("2026-12-02T12:00:00Z");
  with_nodes.add_nodes();
  EXPECT_FALSE(c->Disrupt(with_nodes).ok());
}

TEST(ClusterTest, ReadersRunWhileAWriterUpdates) {
  std::unique_ptr<Cluster> c = MakeCluster(ScaleIn());
  ASSERT_NE(c, nullptr);
  std::vector<std::thread> readers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        if (!c->Disrupt(At("2026-12-02T12:00:00Z")).ok()) ++failures;
      }
    });
  }
  for (int i = 0; i < 10; ++i) {
    v1::ClusterUpdate u;
    v1::Pod* p = u.mutable_upserts()->add_pods();
    p->mutable_metadata()->set_name(absl::StrCat("churn-", i));
    p->mutable_metadata()->set_namespace_("default");
    ASSERT_TRUE(c->Update(u).ok());
  }
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(c->Contents().pods_size(), 15);
}

}  // namespace
}  // namespace nodeplan
