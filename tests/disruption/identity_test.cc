// Byte identity of Disrupt and ValidateCommand across performance work: the
// deterministic response bytes (or the error) of a fixed set of clusters,
// recorded as digests from the code before the work began. A change that
// only makes Disrupt faster must leave every digest as it is.
//
// NODEPLAN_IDENTITY_PRINT=1 prints one line per cluster (to diff two builds
// when a combined digest moves).

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/labels.h"
#include "nodeplan/workload.h"

namespace nodeplan {
namespace {

bool Printing() { return std::getenv("NODEPLAN_IDENTITY_PRINT") != nullptr; }

// The digest of the response, or the error.
template <typename T>
std::string Outcome(const absl::StatusOr<T>& r) {
  if (!r.ok()) return absl::StrCat("error:", r.status().ToString());
  return MessageDigest(*r);
}

// Random clusters carry only running pods; this variant also gives some of
// them the pod states the disruption rules branch on (terminal, terminating,
// mirror, no start time, tolerating the disrupted taint, deletion costs,
// more do-not-disrupt values), drawn from the seed.
v1::DisruptRequest Perturbed(uint64_t seed) {
  v1::DisruptRequest req = workload::RandomDisruptionCluster(seed);
  workload::Rng rng(seed * 7919 + 1);
  for (v1::Pod& pod : *req.mutable_pods()) {
    if (rng.Chance(1, 12)) {
      pod.mutable_status()->set_phase(rng.Chance(1, 2) ? "Succeeded"
                                                       : "Failed");
    }
    if (rng.Chance(1, 12)) {
      pod.mutable_metadata()->set_deletion_timestamp("2026-12-02T09:58:00Z");
    }
    if (rng.Chance(1, 15)) {
      v1::OwnerReference* o = pod.mutable_metadata()->add_owner_references();
      o->set_api_version("v1");
      o->set_kind("Node");
      o->set_name(pod.spec().node_name());
    }
    if (rng.Chance(1, 10)) pod.mutable_status()->clear_start_time();
    if (rng.Chance(1, 10)) {
      v1::Toleration* t = pod.mutable_spec()->add_tolerations();
      t->set_key("karpenter.sh/disrupted");
      t->set_operator_("Exists");
      t->set_effect("NoSchedule");
    }
    if (rng.Chance(1, 10)) {
      static const char* kCosts[] = {"100000000", "-300000000", "x"};
      (*pod.mutable_metadata()
            ->mutable_annotations())[labels::kPodDeletionCostAnnotation] =
          kCosts[rng.Below(3)];
    }
    if (rng.Chance(1, 8)) {
      static const char* kDnd[] = {"true", "30m", "-1h", "0s", "5h", "nope"};
      (*pod.mutable_metadata()->mutable_annotations())[labels::kDoNotDisrupt] =
          kDnd[rng.Below(6)];
    }
  }
  return req;
}

// One line per cluster: its Disrupt outcome and, when it decided a command,
// ValidateCommand's outcome for that command.
std::string Line(absl::string_view name, const v1::DisruptRequest& req) {
  absl::StatusOr<v1::DisruptResponse> resp = Disrupt(req);
  std::string line = absl::StrCat(name, " ", Outcome(resp));
  if (resp.ok() && resp->commands_size() > 0) {
    v1::ValidateCommandRequest v;
    *v.mutable_request() = req;
    *v.mutable_command() = resp->commands(0);
    absl::StrAppend(&line, " validate ", Outcome(ValidateCommand(v)));
  }
  if (Printing()) std::cout << line << "\n";
  return line;
}

TEST(DisruptIdentityTest, ScaleClusters) {
  std::string all;
  for (int nodes : {3, 40, 150}) {
    absl::StrAppend(&all,
                    Line(absl::StrCat("scale-", nodes),
                         workload::ScaleDisruptionCluster(nodes, 30, 20)),
                    "\n");
  }
  EXPECT_EQ(absl::StrCat(Fnv1a64(all)), "5546414405662305348");
}

TEST(DisruptIdentityTest, RandomClusters) {
  std::string all;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    absl::StrAppend(
        &all,
        Line(absl::StrCat("random-", seed),
             workload::RandomDisruptionCluster(seed)),
        "\n", Line(absl::StrCat("perturbed-", seed), Perturbed(seed)), "\n");
  }
  EXPECT_EQ(absl::StrCat(Fnv1a64(all)), "10362201083192022112");
}

}  // namespace
}  // namespace nodeplan
