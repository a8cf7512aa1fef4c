// Requirements: Add, Intersects, Compatible (with messages), String,
// conversions, labels, minValues.

#include "nodeplan/requirements.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"

namespace nodeplan {
namespace {

using ::nodeplan::testing::Vocab;
using Op = SelectorOperator;

v1::NodeSelectorRequirement Nsr(const std::string& key, const std::string& op,
                                std::vector<std::string> values = {},
                                std::optional<int32_t> min_values = {}) {
  v1::NodeSelectorRequirement r;
  r.set_key(key);
  r.set_operator_(op);
  for (auto& v : values) r.add_values(v);
  if (min_values.has_value()) r.set_min_values(*min_values);
  return r;
}

TEST(RequirementsTest, AddIntersectsSameKeyAndKeepsSorted) {
  Vocab v;
  Requirements r;
  r.Add(v.Make("zone", "In", {"a", "b"}));
  r.Add(v.Make("arch", "In", {"amd64"}));
  r.Add(v.Make("zone", "NotIn", {"a"}));
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(v.Str(r), "arch In [amd64], zone In [b]");
  EXPECT_LT(r.entries()[0].key(), r.entries()[1].key());
  EXPECT_EQ(v.Str(r.Get(v.K("other"))), "other Exists");
  EXPECT_FALSE(r.Has(v.K("other")));
  r.Remove(v.K("zone"));
  EXPECT_EQ(v.Str(r), "arch In [amd64]");
}

TEST(RequirementsTest, StringSkipsHostnameAndSorts) {
  Vocab v;
  Requirements r = v.Reqs({v.Make("kubernetes.io/hostname", "In", {"n1"}),
                           v.Make("b", "Exists"), v.Make("a", "DoesNotExist")});
  EXPECT_EQ(v.Str(r), "a DoesNotExist, b Exists");
}

TEST(RequirementsTest, IntersectsOnlyCommonKeys) {
  Vocab v;
  Requirements existing =
      v.Reqs({v.Make("zone", "In", {"a"}), v.Make("arch", "In", {"amd64"})});
  EXPECT_TRUE(existing.Intersects(v.Reqs({v.Make("other", "In", {"x"})})));
  EXPECT_TRUE(existing.Intersects(v.Reqs({v.Make("zone", "In", {"a", "b"})})));
  Requirements bad =
      v.Reqs({v.Make("zone", "In", {"b"}), v.Make("arch", "In", {"arm64"})});
  EXPECT_FALSE(existing.Intersects(bad));
  EXPECT_EQ(existing.IntersectsStatus(bad, v.names()).message(),
            "key arch, arch In [arm64] not in arch In [amd64]; "
            "key zone, zone In [b] not in zone In [a]");
  EXPECT_TRUE(existing.IntersectsStatus(v.Reqs({}), v.names()).ok());
  // NotIn/DoesNotExist on both sides are accepted even without overlap.
  Requirements dne = v.Reqs({v.Make("k", "DoesNotExist")});
  EXPECT_TRUE(dne.Intersects(dne));
  EXPECT_TRUE(dne.Intersects(v.Reqs({v.Make("k", "NotIn", {"x"})})));
  EXPECT_FALSE(dne.Intersects(v.Reqs({v.Make("k", "Exists")})));
}

// Reference section 1.6 truth table: pod operator on custom key K against a
// NodePool that leaves K undefined / defines K In [v].
TEST(RequirementsTest, CompatibleTruthTable) {
  Vocab v;
  WellKnownLabels wk(v.names());
  CompatibilityOptions allow{&wk};
  Requirements undefined =
      v.Reqs({v.Make("karpenter.sh/nodepool", "In", {"default"})});
  Requirements defined = v.Reqs({v.Make("K", "In", {"v"})});
  struct Case {
    Requirement pod;
    bool with_undefined;
    bool with_defined;
  };
  const Case cases[] = {
      {v.Make("K", "In", {"v"}), false, true},
      {v.Make("K", "In", {"w"}), false, false},
      {v.Make("K", "NotIn", {"v"}), true, false},
      {v.Make("K", "NotIn", {"w"}), true, true},
      {v.Make("K", "Exists"), false, true},
      {v.Make("K", "DoesNotExist"), true, false},
      {v.Make("K", "Gt", {"1"}), false, false},
  };
  for (const Case& c : cases) {
    Requirements pod = v.Reqs({c.pod});
    EXPECT_EQ(undefined.IsCompatible(pod, allow), c.with_undefined)
        << v.Str(pod);
    EXPECT_EQ(undefined.Compatible(pod, allow, v.names()).ok(),
              c.with_undefined);
    EXPECT_EQ(defined.IsCompatible(pod, allow), c.with_defined) << v.Str(pod);
    EXPECT_EQ(defined.Compatible(pod, allow, v.names()).ok(), c.with_defined);
  }
  // Well-known keys may be undefined with the allowance, not without it.
  Requirements zone_pod =
      v.Reqs({v.Make("topology.kubernetes.io/zone", "In", {"a"})});
  EXPECT_TRUE(undefined.IsCompatible(zone_pod, allow));
  EXPECT_FALSE(undefined.IsCompatible(zone_pod, {}));
}

TEST(RequirementsTest, CompatibleMessages) {
  Vocab v;
  WellKnownLabels wk(v.names(), {"karpenter.k8s.aws/instance-family"});
  CompatibilityOptions allow{&wk};
  Requirements pool = v.Reqs({v.Make("team", "In", {"a"}),
                              v.Make("example.com/gpu-kind", "In", {"x"})});
  struct Case {
    Requirement pod;
    const char* message;
  };
  const Case cases[] = {
      // Substring of a well-known key.
      {v.Make("zone", "In", {"a"}),
       "label \"zone\" does not have known values (typo of "
       "\"topology.kubernetes.io/zone\"?)"},
      // Suffix after the domain.
      {v.Make("example.org/instance-family", "In", {"c5"}),
       "label \"example.org/instance-family\" does not have known values "
       "(typo of \"karpenter.k8s.aws/instance-family\"?)"},
      // Matches an existing NodePool key.
      {v.Make("other.io/gpu-kind", "In", {"x"}),
       "label \"other.io/gpu-kind\" does not have known values (typo of "
       "\"example.com/gpu-kind\"?)"},
      {v.Make("unrelated", "Exists"),
       "label \"unrelated\" does not have known values"},
      {v.Make("team", "In", {"b"}), "key team, team In [b] not in team In [a]"},
  };
  for (const Case& c : cases) {
    absl::Status st = pool.Compatible(v.Reqs({c.pod}), allow, v.names());
    EXPECT_EQ(st.message(), c.message) << v.Str(c.pod);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  }
  // Only the first undefined key (smallest text) is reported.
  absl::Status st =
      pool.Compatible(v.Reqs({v.Make("zz", "Exists"), v.Make("yy", "Exists")}),
                      allow, v.names());
  EXPECT_EQ(st.message(), "label \"yy\" does not have known values");
}

TEST(RequirementsTest, FromNodeSelectorNormalizesAndIntersects) {
  Vocab v;
  google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement> in;
  *in.Add() = Nsr("failure-domain.beta.kubernetes.io/zone", "In", {"a", "b"});
  *in.Add() = Nsr("topology.kubernetes.io/zone", "NotIn", {"a"});
  *in.Add() = Nsr("size", "Gt", {"2"}, 2);
  *in.Add() = Nsr("size", "Lt", {"10"});
  absl::StatusOr<Requirements> r = RequirementsFromNodeSelector(in, v.names());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(v.Str(*r),
            "size Exists >=3 <=9 minValues 2, "
            "topology.kubernetes.io/zone In [b]");
  absl::StatusOr<Requirements> no_min =
      RequirementsFromNodeSelector(in, v.names(), /*use_min_values=*/false);
  EXPECT_EQ(v.Str(*no_min),
            "size Exists >=3 <=9, topology.kubernetes.io/zone In [b]");

  google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement> bad;
  *bad.Add() = Nsr("k", "In", {"a"});
  *bad.Add() = Nsr("k", "Like", {"a"});
  EXPECT_EQ(RequirementsFromNodeSelector(bad, v.names(), true,
                                         "spec.template.spec.requirements")
                .status()
                .message(),
            "spec.template.spec.requirements[1].operator: unsupported operator "
            "\"Like\" for key \"k\"");
  bad.Mutable(1)->set_operator_("Gt");
  bad.Mutable(1)->clear_values();
  EXPECT_FALSE(RequirementsFromNodeSelector(bad, v.names()).ok());
}

TEST(RequirementsTest, ToNodeSelectorRequirementsCanonicalForm) {
  Vocab v;
  Requirements r = v.Reqs({
      v.Make("z", "In", {"b", "a"}),
      v.Make("size", Op::kGt, {"2"}, 2),
      v.Make("size", "Lt", {"10"}),
      v.Make("cpu", "Gt", {"4"}),
      v.Make("mem", "Lt", {"4"}),
      v.Make("gone", "DoesNotExist"),
      v.Make("any", "Exists"),
      v.Make("not", "NotIn", {"y", "x"}),
  });
  std::vector<v1::NodeSelectorRequirement> out =
      ToNodeSelectorRequirements(r, v.names());
  std::vector<std::string> texts;
  for (const auto& n : out) {
    std::string s = n.key() + " " + n.operator_();
    for (const auto& val : n.values()) s += " " + val;
    if (n.has_min_values()) s += " min=" + std::to_string(n.min_values());
    texts.push_back(s);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "any Exists", "cpu Gte 5", "gone DoesNotExist",
                       "mem Lte 3", "not NotIn x y", "size Gte 3 min=2",
                       "size Lte 9 min=2", "z In a b"}));
}

TEST(RequirementsTest, RoundTripThroughNodeSelectorRequirements) {
  Vocab v;
  std::mt19937 rng(7);
  const char* keys[] = {"a", "b", "c", "d"};
  const char* values[] = {"x", "y", "1", "5", "12", "-2"};
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  for (int iter = 0; iter < 2000; ++iter) {
    Requirements r;
    const int n = pick(6);
    for (int i = 0; i < n; ++i) {
      Op op = static_cast<Op>(pick(8));
      std::vector<LabelValue> vals;
      const int count = op >= Op::kGt ? 1 : pick(3);
      for (int j = 0; j < count; ++j) {
        vals.push_back(op >= Op::kGt ? v.V(std::to_string(pick(20) - 5))
                                     : v.V(values[pick(6)]));
      }
      std::optional<int32_t> mv;
      if (pick(3) == 0) mv = pick(3) + 1;
      r.Add(Requirement::Make(v.K(keys[pick(4)]), op, vals, mv));
    }
    // Karpenter drops a NotIn list on a bounded requirement; skip those.
    bool lossy = false;
    for (const Requirement& e : r) {
      lossy |= (e.gte() || e.lte()) && !e.values().empty();
    }
    if (lossy) continue;
    google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement> wire;
    for (auto& n : ToNodeSelectorRequirements(r, v.names())) *wire.Add() = n;
    absl::StatusOr<Requirements> back =
        RequirementsFromNodeSelector(wire, v.names());
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(*back, r) << v.Str(r) << " vs " << v.Str(*back);
  }
}

TEST(RequirementsTest, PodRequirements) {
  Vocab v;
  v1::PodSpec spec;
  (*spec.mutable_node_selector())["beta.kubernetes.io/arch"] = "amd64";
  auto* na = spec.mutable_affinity()->mutable_node_affinity();
  auto* p1 = na->add_preferred_during_scheduling_ignored_during_execution();
  p1->set_weight(1);
  *p1->mutable_preference()->add_match_expressions() =
      Nsr("light", "In", {"x"});
  auto* p2 = na->add_preferred_during_scheduling_ignored_during_execution();
  p2->set_weight(10);
  *p2->mutable_preference()->add_match_expressions() =
      Nsr("heavy", "In", {"y"});
  auto* p3 = na->add_preferred_during_scheduling_ignored_during_execution();
  p3->set_weight(10);
  *p3->mutable_preference()->add_match_expressions() =
      Nsr("heavy2", "In", {"z"});
  auto* req = na->mutable_required_during_scheduling_ignored_during_execution();
  *req->add_node_selector_terms()->add_match_expressions() =
      Nsr("zone", "In", {"a"}, 3);
  *req->add_node_selector_terms()->add_match_expressions() =
      Nsr("zone", "In", {"b"});
  absl::StatusOr<Requirements> all =
      PodRequirements(spec, v.names(), PodRequirementsMode::kAll);
  ASSERT_TRUE(all.ok());
  // minValues is ignored on pod terms.
  EXPECT_EQ(v.Str(*all),
            "heavy In [y], kubernetes.io/arch In [amd64], zone In [a]");
  absl::StatusOr<Requirements> strict =
      PodRequirements(spec, v.names(), PodRequirementsMode::kStrict);
  EXPECT_EQ(v.Str(*strict), "kubernetes.io/arch In [amd64], zone In [a]");
}

TEST(RequirementsTest, RequirementLabels) {
  Vocab v;
  WellKnownLabels wk(v.names());
  Requirements r = v.Reqs({
      v.Make("team", "In", {"b", "a"}),
      v.Make("tier", "NotIn", {"0"}),
      v.Make("gen", "Gt", {"4"}),
      v.Make("gone", "DoesNotExist"),
      v.Make("kubernetes.io/arch", "In", {"amd64"}),
      v.Make("kubernetes.io/hostname", "In", {"h"}),
      v.Make("karpenter.sh/initialized", "In", {"true"}),
  });
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(RequirementLabels(r, wk, v.names()),
            (std::vector<P>{{"gen", "5"}, {"team", "a"}, {"tier", "1"}}));
}

TEST(RequirementsTest, SatisfiesMinValues) {
  Vocab v;
  Requirements reqs = v.Reqs({v.Make("family", Op::kIn, {"c5", "m5", "r5"}, 2),
                              v.Make("type", Op::kExists, {}, 3)});
  auto it = [&](const char* family, const char* type) {
    return v.Reqs(
        {v.Make("family", "In", {family}), v.Make("type", "In", {type})});
  };
  std::vector<Requirements> types = {
      it("c5", "c5.large"), it("c5", "c5.xlarge"), it("m5", "m5.large"),
      it("r5", "r5.large")};
  std::vector<const Requirements*> ptrs;
  for (auto& t : types) ptrs.push_back(&t);
  MinValuesResult ok = SatisfiesMinValues(reqs, ptrs);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.needed, 3);

  std::vector<const Requirements*> short_list = {ptrs[0], ptrs[1]};
  MinValuesResult bad = SatisfiesMinValues(reqs, short_list);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.needed, 2);
  // Both keys are short: one family, two types (floor 3).
  EXPECT_EQ(bad.unsatisfied, (std::vector<std::pair<LabelKeyId, int>>{
                                 {v.K("family"), 1}, {v.K("type"), 2}}));
  EXPECT_EQ(
      MinValuesMessage(bad, v.names()),
      "minValues requirement is not met for label(s) (label(s)=[family type])");

  // No minValues, or an empty list: satisfied with 0 (Karpenter's answer).
  EXPECT_EQ(
      SatisfiesMinValues(v.Reqs({v.Make("family", "In", {"c5"})}), ptrs).needed,
      0);
  EXPECT_TRUE(SatisfiesMinValues(reqs, {}).ok());
  // A NotIn instance-type requirement counts its listed values.
  Requirements odd = v.Reqs({v.Make("family", "NotIn", {"x", "y"})});
  std::vector<const Requirements*> odd_list = {&odd};
  EXPECT_TRUE(SatisfiesMinValues(v.Reqs({v.Make("family", Op::kExists, {}, 2)}),
                                 odd_list)
                  .ok());
}

TEST(LabelsTest, RestrictedLabelsAndNormalization) {
  Vocab v;
  WellKnownLabels wk(v.names());
  EXPECT_TRUE(IsRestrictedLabel("karpenter.sh/nodepool", wk).ok());
  EXPECT_TRUE(IsRestrictedLabel("karpenter.sh/capacity-type", wk).ok());
  EXPECT_TRUE(IsRestrictedLabel("team", wk).ok());
  EXPECT_TRUE(IsRestrictedLabel("node.kubernetes.io/custom", wk).ok());
  EXPECT_FALSE(IsRestrictedLabel("sub.karpenter.sh/x", wk).ok());
  EXPECT_FALSE(IsRestrictedLabel("karpenter.sh/initialized", wk).ok());
  EXPECT_TRUE(IsRestrictedLabel("notkarpenter.sh/x", wk).ok());
  EXPECT_EQ(
      IsRestrictedLabel("kubernetes.io/hostname", wk).message(),
      "using label kubernetes.io/hostname is not allowed as it might interfere "
      "with the internal provisioning logic; specify a well known label: "
      "[karpenter.sh/capacity-type karpenter.sh/nodepool kubernetes.io/arch "
      "kubernetes.io/os node.kubernetes.io/instance-type "
      "node.kubernetes.io/windows-build topology.kubernetes.io/region "
      "topology.kubernetes.io/zone], or a custom label that does not use a "
      "restricted domain: [karpenter.sh]");
  EXPECT_EQ(labels::NormalizeLabelKey("beta.kubernetes.io/instance-type"),
            labels::kInstanceType);
  EXPECT_EQ(
      labels::NormalizeLabelKey("failure-domain.beta.kubernetes.io/region"),
      labels::kRegion);
  EXPECT_EQ(labels::NormalizeLabelKey("beta.kubernetes.io/other"),
            "beta.kubernetes.io/other");
  EXPECT_EQ(labels::LabelDomain("a.b/c"), "a.b");
  EXPECT_EQ(labels::LabelDomain("plain"), "");
  WellKnownLabels aws(
      v.names(), {"karpenter.k8s.aws/instance-family", "kubernetes.io/arch"});
  EXPECT_EQ(aws.sorted_names().size(), 9u);
  EXPECT_TRUE(aws.Contains(v.K("karpenter.k8s.aws/instance-family")));
  EXPECT_FALSE(wk.Contains(v.K("karpenter.k8s.aws/instance-family")));
}

// FromSorted equals Add-ing the entries in order, sorted input or not
// (duplicates intersect), and Reserve changes nothing observable.
TEST(RequirementsTest, FromSortedEqualsAddInOrder) {
  Vocab v;
  const Requirement a = v.Make("a", "In", {"1", "2"});
  const Requirement a2 = v.Make("a", "NotIn", {"2"});
  const Requirement b = v.Make("b", "DoesNotExist");
  const Requirement c = v.Make("c", "Gt", {"4"});
  const std::vector<std::vector<Requirement>> cases = {
      {}, {a}, {a, b, c}, {c, b, a}, {a, a2, b}, {b, a, a2, c}, {a, a}};
  for (const std::vector<Requirement>& entries : cases) {
    Requirements added;
    added.Reserve(entries.size());
    for (const Requirement& r : entries) added.Add(r);
    const Requirements bulk = Requirements::FromSorted(
        Requirements::Storage(entries.begin(), entries.end()));
    EXPECT_EQ(bulk, added) << v.Str(added);
    EXPECT_EQ(v.Str(bulk), v.Str(added));
  }
}

// A viewing set answers as an owned one; copies own their entries;
// modifying it copies the entries first and leaves the viewed array as it
// was; a moved set keeps viewing; unsorted entries are copied and Add-ed.
TEST(RequirementsTest, ViewingActsAsOwnedAndNeverWritesTheView) {
  Vocab v;
  const std::vector<Requirement> block = {
      v.Make("a", "In", {"1", "2"}), v.Make("b", "DoesNotExist"),
      v.Make("c", "Gt", {"4"}), v.Make("kubernetes.io/hostname", "In", {"h"})};
  const std::vector<Requirement> before = block;
  const Requirements owned = Requirements::FromSorted(
      Requirements::Storage(block.begin(), block.end()));
  const Requirements viewing = Requirements::Viewing(block);
  EXPECT_EQ(viewing.entries().data(), block.data());
  EXPECT_EQ(viewing, owned);
  EXPECT_EQ(v.Str(viewing), v.Str(owned));
  EXPECT_EQ(viewing.size(), 4u);
  EXPECT_EQ(viewing.Find(v.K("c")), &block[2]);
  const Requirements query = v.Reqs({v.Make("a", "In", {"2"})});
  EXPECT_TRUE(viewing.Intersects(query));
  EXPECT_EQ(viewing.IsCompatible(query), owned.IsCompatible(query));

  const Requirements copy = viewing;
  EXPECT_NE(copy.entries().data(), block.data());
  EXPECT_EQ(copy, owned);
  Requirements assigned;
  assigned = viewing;
  EXPECT_NE(assigned.entries().data(), block.data());
  EXPECT_EQ(assigned, owned);

  Requirements moved = Requirements::Viewing(block);
  Requirements target = std::move(moved);
  EXPECT_EQ(target.entries().data(), block.data());

  Requirements modified = Requirements::Viewing(block);
  modified.Add(v.Make("a", "NotIn", {"1"}));
  modified.Remove(v.K("b"));
  EXPECT_NE(modified.entries().data(), block.data());
  Requirements expected = owned;
  expected.Add(v.Make("a", "NotIn", {"1"}));
  expected.Remove(v.K("b"));
  EXPECT_EQ(modified, expected);
  EXPECT_TRUE(
      std::equal(block.begin(), block.end(), before.begin(), before.end()));

  const std::vector<Requirement> unsorted = {block[2], block[0], block[0]};
  Requirements added;
  for (const Requirement& r : unsorted) added.Add(r);
  const Requirements fallback = Requirements::Viewing(unsorted);
  EXPECT_NE(fallback.entries().data(), unsorted.data());
  EXPECT_EQ(fallback, added);
  EXPECT_TRUE(Requirements::Viewing({}).empty());
}

}  // namespace
}  // namespace nodeplan
