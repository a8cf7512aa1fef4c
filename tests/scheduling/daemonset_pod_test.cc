// PodsByDaemonSet (one pass over the pods) gives, per DaemonSet, exactly the
// pods ControlledBy accepts, in request order; NewestPod picks the newest of
// them, the first of equally new ones (scheduling/daemonset_pod.h).

#include "scheduling/daemonset_pod.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace nodeplan::scheduling {
namespace {

// Small alphabets so that namespaces, names and uids collide often,
// including DaemonSets sharing a uid (hostile input the API server would
// never produce) and references that are not controllers.
v1::ScheduleRequest RandomCluster(std::mt19937& rng) {
  auto pick = [&](std::vector<std::string> from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  const std::vector<std::string> ns = {"", "default", "kube-system"};
  const std::vector<std::string> names = {"a", "b", "c"};
  const std::vector<std::string> uids = {"", "u1", "u2", "u3"};
  const std::vector<std::string> kinds = {"DaemonSet", "ReplicaSet", ""};
  const std::vector<std::string> times = {"2026-01-01T00:00:00Z",
                                          "2026-01-02T00:00:00Z", ""};
  v1::ScheduleRequest r;
  const int ds = std::uniform_int_distribution<int>(0, 4)(rng);
  for (int i = 0; i < ds; ++i) {
    v1::ObjectMeta* m = r.add_daemon_sets()->mutable_metadata();
    m->set_namespace_(pick(ns));
    m->set_name(pick(names));
    m->set_uid(pick(uids));
  }
  const int pods = std::uniform_int_distribution<int>(0, 12)(rng);
  for (int i = 0; i < pods; ++i) {
    v1::ObjectMeta* m = r.add_pods()->mutable_metadata();
    m->set_namespace_(pick(ns));
    m->set_name("p" + std::to_string(i));
    m->set_creation_timestamp(pick(times));
    const int refs = std::uniform_int_distribution<int>(0, 2)(rng);
    for (int j = 0; j < refs; ++j) {
      v1::OwnerReference* o = m->add_owner_references();
      o->set_kind(pick(kinds));
      o->set_name(pick(names));
      o->set_uid(pick(uids));
      o->set_controller(std::bernoulli_distribution(0.7)(rng));
    }
  }
  return r;
}

TEST(PodsByDaemonSet, EqualsControlledByOnRandomClusters) {
  std::mt19937 rng(7);
  int matched = 0;
  for (int round = 0; round < 3000; ++round) {
    const v1::ScheduleRequest r = RandomCluster(rng);
    const std::vector<std::vector<int>> got =
        PodsByDaemonSet(r.daemon_sets(), r.pods());
    ASSERT_EQ(got.size(), static_cast<size_t>(r.daemon_sets_size()));
    for (int d = 0; d < r.daemon_sets_size(); ++d) {
      std::vector<int> want;
      const v1::Pod* newest = nullptr;
      for (int i = 0; i < r.pods_size(); ++i) {
        if (!ControlledBy(r.daemon_sets(d), r.pods(i))) continue;
        want.push_back(i);
        if (newest == nullptr || r.pods(i).metadata().creation_timestamp() >
                                     newest->metadata().creation_timestamp())
          newest = &r.pods(i);
      }
      matched += static_cast<int>(want.size());
      EXPECT_EQ(got[d], want) << "round " << round << " DaemonSet " << d;
      EXPECT_EQ(NewestPod(r.pods(), got[d]), newest)
          << "round " << round << " DaemonSet " << d;
    }
  }
  EXPECT_GT(matched, 500);  // the generator does exercise matches
}

}  // namespace
}  // namespace nodeplan::scheduling
