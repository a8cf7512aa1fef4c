// Scenarios translated from Karpenter's scheduling suite, Describe "Reserved
// Instance Types" (sigs.k8s.io/karpenter v1.14.1,
// pkg/controllers/provisioning/scheduling/suite_test.go). The suite gives
// the medium and small types a reserved offering in test-zone-1 (one
// instance, at 1/100,000 of the price) beside the fake provider's spot and
// on-demand ones. Karpenter's later rounds see the reservation consumed by
// the cloud provider; here the next round's catalog carries the capacity
// left and the launched node with its pod.

#include <string>
#include <vector>

#include "fixtures.h"
#include "gmock/gmock.h"
#include "karpenter_fixture.h"

namespace nodeplan::testing {
namespace {

constexpr char kReservationLabel[] =
    "karpenter.k8s.aws/capacity-reservation-id";

// The suite's types; `left` is each reservation's remaining capacity (small,
// medium), `second` adds a second reservation of the small type.
v1::Catalog ReservedCatalog(int small_left, int medium_left,
                            int second_left = -1) {
  v1::Catalog c = KCatalog({KType("large-instance-type", 6, 6, 5),
                            KType("medium-instance-type", 3, 3, 5),
                            KType("small-instance-type", 2, 2, 5)});
  c.set_reservation_id_label(kReservationLabel);
  auto reserve = [&](int type, const std::string& id, int left) {
    v1::InstanceType* t = c.mutable_instance_types(type);
    auto* o = t->add_offerings();
    o->set_zone("test-zone-1");
    o->set_capacity_type("reserved");
    o->set_price(t->offerings(0).price() / 100000.0);
    o->set_reservation_id(id);
    o->set_reservation_capacity(left);
  };
  reserve(1, "r-medium-instance-type", medium_left);
  reserve(2, "r-small-instance-type", small_left);
  if (second_left >= 0) reserve(2, "r-small-instance-type-2", second_left);
  return c;
}

v1::ScheduleRequest ReservedRequest(v1::Catalog catalog) {
  v1::ScheduleRequest r = KRequest(Req("karpenter.sh/capacity-type", "In",
                                       {"spot", "on-demand", "reserved"}),
                                   std::move(catalog));
  return r;
}

// The reservation the launch draws on (the node's reservation-id label
// once the cloud provider has launched it).
std::string ClaimReservation(const v1::NewNodeClaim& c) {
  return c.launch().reservation_id();
}

// A node an earlier round launched, holding `pod`.
void AddRound(v1::ScheduleRequest& r, const std::string& node,
              const std::string& type, const std::string& cpu, v1::Pod pod) {
  v1::Node n = KNode(node, type, "test-zone-1", cpu, "2038Mi", "5", true);
  *r.add_node_claims() = LinkedClaim(n);
  *r.add_nodes() = n;
  *r.add_pods() = BoundTo(std::move(pod), node);
}

// "shouldn't fallback to on-demand or spot when compatible reserved
// offerings are available": three pods of 1800m fit one per small or medium
// node. A NodeClaim that could become either reserves both offerings, so
// one pod launches per round: small reserved, then medium reserved, then
// (both reservations used) small on spot or on-demand.
TEST(KarpenterReserved, OnePodPerRoundWhileReservationsLast) {
  struct Round {
    int small_left, medium_left, bound;
    const char* type;
    const char* reservation;  // "" when not reserved
  } rounds[] = {
      {1, 1, 0, "small-instance-type", "r-small-instance-type"},
      {0, 1, 1, "medium-instance-type", "r-medium-instance-type"},
      {0, 0, 2, "small-instance-type", ""},
  };
  const char* kLaunched[] = {"small-instance-type", "medium-instance-type"};
  const char* kCpu[] = {"1900m", "2900m"};
  for (const Round& round : rounds) {
    auto r =
        ReservedRequest(ReservedCatalog(round.small_left, round.medium_left));
    for (int i = 0; i < round.bound; ++i)
      AddRound(r, absl::StrCat("n", i), kLaunched[i], kCpu[i],
               Pod(absl::StrCat("p", i), "1800m", "0"));
    for (int i = round.bound; i < 3; ++i)
      *r.add_pods() = Pod(absl::StrCat("p", i), "1800m", "0");
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.new_node_claims_size(), 1) << round.bound;
    const auto& c = resp.new_node_claims(0);
    EXPECT_EQ(c.pods_size(), 1) << round.bound;
    EXPECT_EQ(c.launch().instance_type(), round.type) << round.bound;
    EXPECT_EQ(ClaimReservation(c), round.reservation) << round.bound;
    if (*round.reservation) {
      EXPECT_EQ(c.launch().capacity_type(), "reserved") << round.bound;
    } else {
      EXPECT_NE(c.launch().capacity_type(), "reserved") << round.bound;
    }
    EXPECT_EQ(resp.unschedulable_size(), 2 - round.bound) << round.bound;
  }
}

// Two pods anti-affine on the hostname that must use the small type.
void AddSmallPods(v1::ScheduleRequest& r, int n,
                  std::vector<std::string> pools = {}) {
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> exprs = {Expr("node.kubernetes.io/instance-type",
                                           "In", {"small-instance-type"})};
    if (!pools.empty())
      exprs.push_back(Expr("karpenter.sh/nodepool", "In", {pools[i]}));
    v1::Pod p = Bare(absl::StrCat("p", i),
                     R"pb(metadata { labels { key: "app" value: "test" } }
             spec { affinity { pod_anti_affinity { required_during_scheduling_ignored_during_execution {
               topology_key: "kubernetes.io/hostname"
               label_selector { match_labels { key: "app" value: "test" } } } } } })pb");
    p.MergeFrom(Parse<v1::Pod>(Required(exprs)));
    *r.add_pods() = p;
  }
}

// "should correctly track reservations shared across nodepools": two
// NodePools draw on one reservation of a single instance; one pod launches
// reserved, the other waits (no fallback while it was compatible); next
// round, the reservation used, it falls back.
TEST(KarpenterReserved, ReservationSharedAcrossNodePools) {
  for (int round = 0; round < 2; ++round) {
    auto r = ReservedRequest(ReservedCatalog(round == 0 ? 1 : 0, 1));
    r.mutable_node_pools(0)->mutable_metadata()->set_name("np-1");
    v1::NodePool np2 = r.node_pools(0);
    np2.mutable_metadata()->set_name("np-2");
    *r.add_node_pools() = np2;
    AddSmallPods(r, 2, {"np-1", "np-2"});
    if (round == 1) {
      v1::Pod first = r.pods(0);
      r.mutable_pods()->DeleteSubrange(0, 1);
      v1::Node n = KNode("n0", "small-instance-type", "test-zone-1", "1900m",
                         "2038Mi", "5", true);
      (*n.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
          "np-1";
      v1::NodeClaim claim = LinkedClaim(n);
      (*claim.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
          "np-1";
      *r.add_node_claims() = claim;
      *r.add_nodes() = n;
      *r.add_pods() = BoundTo(first, "n0");
    }
    auto resp = MustSchedule(r);
    ASSERT_EQ(resp.new_node_claims_size(), 1) << round;
    const auto& c = resp.new_node_claims(0);
    EXPECT_EQ(c.launch().instance_type(), "small-instance-type") << round;
    EXPECT_EQ(ClaimReservation(c), round == 0 ? "r-small-instance-type" : "")
        << round;
    EXPECT_EQ(resp.unschedulable_size(), round == 0 ? 1 : 0) << round;
  }
}

// "should correctly track multiple reservations for the same instance
// pool": the small type has a second reservation of two instances; four
// anti-affine pods: two launch reserved, then one (one instance left in
// total, deferred pessimistically), then the last on spot or on-demand.
TEST(KarpenterReserved, TwoReservationsOfOneType) {
  struct Round {
    int first_left, second_left, bound, reserved;
  } rounds[] = {{1, 2, 0, 2}, {0, 1, 2, 1}, {0, 0, 3, 0}};
  for (const Round& round : rounds) {
    auto r = ReservedRequest(
        ReservedCatalog(round.first_left, 1, round.second_left));
    AddSmallPods(r, 4);
    for (int i = 0; i < round.bound; ++i) {
      v1::Pod p = r.pods(0);
      r.mutable_pods()->DeleteSubrange(0, 1);
      AddRound(r, absl::StrCat("n", i), "small-instance-type", "1900m", p);
    }
    auto resp = MustSchedule(r);
    int reserved = 0, launched = 0;
    for (const auto& c : resp.new_node_claims()) {
      EXPECT_EQ(c.launch().instance_type(), "small-instance-type");
      launched += c.pods_size();
      if (!ClaimReservation(c).empty()) ++reserved;
    }
    const int expected = round.reserved > 0 ? round.reserved : 1;
    EXPECT_EQ(launched, expected) << round.bound;
    EXPECT_EQ(reserved, round.reserved) << round.bound;
  }
}

}  // namespace
}  // namespace nodeplan::testing
