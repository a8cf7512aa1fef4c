// A moved pod's class signature drops the spec's priority, priority class
// and nodeName without copying the spec (scheduling/round.h): it must be
// byte for byte the signature of a copy with those fields cleared.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeplan/digest.h"
#include "nodeplan/workload.h"
#include "scheduling/round.h"

namespace nodeplan::scheduling {
namespace {

std::string ByCopy(const v1::Pod& p, absl::string_view ns) {
  std::string sig = absl::StrCat(ns.size(), ":", ns, "|");
  std::vector<std::pair<std::string, std::string>> labels(
      p.metadata().labels().begin(), p.metadata().labels().end());
  std::sort(labels.begin(), labels.end());
  for (const auto& [k, v] : labels)
    absl::StrAppend(&sig, k.size(), ":", k, v.size(), ":", v);
  sig.push_back('|');
  v1::PodSpec spec = p.spec();
  spec.clear_priority();
  spec.clear_priority_class_name();
  spec.clear_node_name();
  return sig + DeterministicBytes(spec);
}

TEST(ClassSignature, MovedPodDropsTheFieldsAsACopyWould) {
  int pods = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    v1::ScheduleRequest r = workload::RandomCluster(seed);
    for (int i = 0; i < r.pods_size(); ++i) {
      v1::Pod p = r.pods(i);
      // Every combination of the three fields, set or not.
      if (i % 2 == 0) p.mutable_spec()->set_priority(1000 + i);
      if (i % 3 == 0) p.mutable_spec()->set_priority_class_name("high");
      if (i % 5 != 0)
        p.mutable_spec()->set_node_name("node-" + std::to_string(i));
      EXPECT_EQ(ClassSignature(p, "default", true), ByCopy(p, "default"))
          << "seed " << seed << " pod " << i;
      ++pods;
    }
  }
  EXPECT_GT(pods, 1000);
}

}  // namespace
}  // namespace nodeplan::scheduling
