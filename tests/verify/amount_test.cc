#include "verify/amount.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "verify/label_domain.h"

namespace nodeplan::verify_internal {
namespace {

TEST(ParseMilliTest, Table) {
  struct Case {
    const char* text;
    int64_t milli;
  };
  const Case cases[] = {
      {"100m", 100},
      {"1", 1000},
      {"1.5", 1500},
      {"0.1", 100},
      {"2e3", 2000000},
      {"1k", 1000000},
      {"1Ki", 1024000},
      {"1Gi", int64_t{1073741824} * 1000},
      {"100Mi", int64_t{104857600} * 1000},
      {"0.5m", 1},  // rounded up like MilliValue()
      {"+3", 3000},
      {"-1", -1000},
      {"1.", 1000},
      {".5", 500},
  };
  for (const Case& c : cases) {
    auto v = ParseMilli(c.text);
    ASSERT_TRUE(v.has_value()) << c.text;
    EXPECT_EQ(static_cast<int64_t>(*v), c.milli) << c.text;
  }
  for (const char* bad : {"", "m", "1x", "1Gii", "abc", "1e", ".", "--1"}) {
    EXPECT_FALSE(ParseMilli(bad).has_value()) << bad;
  }
  // Larger than int64 in milli-bytes still works.
  auto huge = ParseMilli("10000000Gi");
  ASSERT_TRUE(huge.has_value());
  EXPECT_EQ(*huge, static_cast<Amount>(10000000) * 1073741824 * 1000);
}

TEST(DomainTest, DefinitelyAndPossibly) {
  const Domain fixed = Domain::Fixed("5");
  EXPECT_TRUE(fixed.Definitely({"k", "In", {"5", "6"}}));
  EXPECT_TRUE(fixed.Definitely({"k", "Gt", {"4"}}));
  EXPECT_FALSE(fixed.Definitely({"k", "Gt", {"5"}}));
  EXPECT_TRUE(fixed.Definitely({"k", "NotIn", {"6"}}));
  EXPECT_FALSE(fixed.Definitely({"k", "DoesNotExist", {}}));
  const Domain absent = Domain::Absent();
  EXPECT_TRUE(absent.Definitely({"k", "DoesNotExist", {}}));
  EXPECT_TRUE(absent.Definitely({"k", "NotIn", {"x"}}));
  EXPECT_FALSE(absent.Definitely({"k", "Exists", {}}));
  Domain unknown = Domain::Unknown();
  EXPECT_FALSE(unknown.Definitely({"k", "Exists", {}}));
  EXPECT_TRUE(unknown.Possibly({"k", "In", {"x"}}));
  unknown.Narrow({"k", "Gte", {"3"}});
  EXPECT_TRUE(unknown.Definitely({"k", "Gt", {"2"}}));
  EXPECT_FALSE(unknown.Definitely({"k", "Gt", {"3"}}));
  unknown.Narrow({"k", "Lt", {"3"}});
  EXPECT_TRUE(unknown.Empty());
  Domain set = Domain::Fixed("a");
  set.values = {"a", "b"};
  EXPECT_FALSE(set.Definitely({"k", "In", {"a"}}));
  EXPECT_TRUE(set.Possibly({"k", "In", {"a"}}));
  set.Narrow({"k", "NotIn", {"b"}});
  EXPECT_TRUE(set.Definitely({"k", "In", {"a"}}));
  set.Narrow({"k", "In", {"b"}});
  EXPECT_TRUE(set.Empty());
}

// PossiblyIn(v) is Possibly(In {v}) for every kind of domain.
TEST(DomainTest, PossiblyInIsPossiblyOfIn) {
  std::vector<Domain> domains = {Domain::Fixed("a"), Domain::Absent(),
                                 Domain::Unknown()};
  Domain set = Domain::Fixed("a");
  set.values = {"a", "b", "3"};
  domains.push_back(set);
  Domain bounded = Domain::Unknown();
  bounded.Narrow({"k", "Gte", {"2"}});
  bounded.Narrow({"k", "NotIn", {"4"}});
  domains.push_back(bounded);
  Domain present = Domain::Unknown();
  present.Narrow({"k", "Exists", {}});
  present.Narrow({"k", "NotIn", {"a"}});
  domains.push_back(present);
  Domain empty = Domain::Fixed("a");
  empty.Narrow({"k", "In", {"b"}});
  domains.push_back(empty);
  for (size_t i = 0; i < domains.size(); ++i)
    for (const std::string v : {"a", "b", "c", "1", "2", "3", "4", "x9"})
      EXPECT_EQ(domains[i].PossiblyIn(v), domains[i].Possibly({"k", "In", {v}}))
          << i << " " << v << " " << domains[i].ToString();
}

// A new NodeClaim's options read one shared space with their own hostname
// on top; every other key, present or absent, reads through unchanged.
TEST(LabelLookupTest, HostnameOverShared) {
  LabelSpace shared;
  shared["topology.kubernetes.io/zone"] = Domain::Fixed("us-east-1a");
  shared["kubernetes.io/hostname"] = Domain::Fixed("ignored");
  const Domain host = Domain::Fixed("default-abcde");
  const LabelLookup over(shared, nullptr, &host);
  const Expr on_host{"kubernetes.io/hostname", "In", {"default-abcde"}};
  const Expr in_zone{"topology.kubernetes.io/zone", "In", {"us-east-1a"}};
  const Expr gpu{"example.com/gpu", "Exists", {}};
  EXPECT_TRUE(Lookup(over, on_host.key).Definitely(on_host));
  EXPECT_TRUE(Lookup(over, in_zone.key).Definitely(in_zone));
  EXPECT_FALSE(Lookup(over, gpu.key).Possibly(gpu));  // absent
  EXPECT_TRUE(AllDefinitely(over, {on_host, in_zone}));
  // Without an override the space's own hostname is what it says.
  const LabelLookup plain(shared);
  EXPECT_FALSE(Lookup(plain, on_host.key).Possibly(on_host));
  EXPECT_FALSE(AllPossibly(plain, {on_host}));
}

// An overlay (a NodeClaim's narrowing of the shared space) replaces the
// space's keys it holds; the hostname stays on top of both.
TEST(LabelLookupTest, OverlayOverShared) {
  LabelSpace shared;
  shared["topology.kubernetes.io/zone"] = Domain::Fixed("us-east-1a");
  shared["karpenter.sh/capacity-type"] = Domain::Fixed("spot");
  LabelSpace overlay;
  overlay["topology.kubernetes.io/zone"] = Domain::Fixed("us-east-1b");
  overlay["kubernetes.io/hostname"] = Domain::Fixed("ignored");
  const Domain host = Domain::Fixed("default-abcde");
  const LabelLookup over(shared, &overlay, &host);
  const Expr in_b{"topology.kubernetes.io/zone", "In", {"us-east-1b"}};
  const Expr spot{"karpenter.sh/capacity-type", "In", {"spot"}};
  const Expr on_host{"kubernetes.io/hostname", "In", {"default-abcde"}};
  EXPECT_TRUE(AllDefinitely(over, {in_b, spot, on_host}));
  const LabelLookup no_host(shared, &overlay, nullptr);
  EXPECT_FALSE(Lookup(no_host, on_host.key).Possibly(on_host));
}

}  // namespace
}  // namespace nodeplan::verify_internal
