// Catalog files that crashed nodeplan, were silently misread, or planned on
// impossible figures (issue 17, items 1, 3, 4 and 6).

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inputs.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/schedule.h"

namespace nodeplan::hardening {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPodYaml[] = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
)";

absl::StatusOr<v1::ScheduleResponse> ScheduleWithCatalog(
    const std::string& catalog, const std::string& extra = kPodYaml) {
  absl::StatusOr<v1::ManifestSet> set =
      LoadManifests(absl::StrCat(kPoolYaml, "---\n", catalog, "---\n", extra),
                    v1::LoadOptions());
  if (!set.ok()) return set.status();
  return Schedule(RequestFrom(*set));
}

// Item 1: a reserved offering without reservationID died with SIGSEGV in
// Round::Finalize.
TEST(CatalogInputsTest, ReservedOfferingWithoutReservationIdIsRefused) {
  constexpr char kCatalog[] = R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: reserved, price: 0.05, reservationCapacity: 3}
)";
  absl::StatusOr<v1::ScheduleResponse> resp = ScheduleWithCatalog(kCatalog);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(resp.status().message(),
              HasSubstr("instanceTypes[0] (two.cpu): offerings[0]: "
                        "reservationID: Required value"));
}

// Item 3: a misspelt field was ignored; in a catalog (nodeplan's own
// format) every unknown field is an error naming the nearest known one.
TEST(CatalogInputsTest, UnknownCatalogFieldNamesTheNearestKnownField) {
  constexpr char kCatalog[] = R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: reserved, price: 0.05, reservationId: cr-1}
)";
  absl::StatusOr<v1::ManifestSet> set =
      LoadManifests(kCatalog, v1::LoadOptions());
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              HasSubstr("instanceTypes[0].offerings[0].reservationId: unknown "
                        "field \"reservationId\"; did you mean "
                        "\"reservationID\"?"));
  absl::StatusOr<v1::ManifestSet> top = LoadManifests(
      "apiVersion: nodeplan.dev/v1\nkind: Catalog\nregoin: x\n"
      "instanceTypes: []\n",
      v1::LoadOptions());
  ASSERT_FALSE(top.ok());
  EXPECT_THAT(top.status().message(),
              HasSubstr("regoin: unknown field \"regoin\"; did you mean "
                        "\"region\"?"));
  absl::StatusOr<v1::ManifestSet> far = LoadManifests(
      "apiVersion: nodeplan.dev/v1\nkind: Catalog\nzzzzzzzzzzzz: x\n",
      v1::LoadOptions());
  ASSERT_FALSE(far.ok());
  EXPECT_THAT(far.status().message(), HasSubstr("known fields: apiVersion"));
}

// Kubernetes objects keep their leniency: unmodelled fields are skipped.
TEST(CatalogInputsTest, KubernetesObjectsStillSkipUnknownFields) {
  EXPECT_TRUE(LoadManifests(absl::StrCat(kPodYaml, "  someFutureField: 1\n"),
                            v1::LoadOptions())
                  .ok());
}

// Item 4: a catalog names its own reservation-id label, as a Karpenter
// cloud provider does.
TEST(CatalogInputsTest, CatalogNamesItsReservationIdLabel) {
  constexpr char kCatalog[] = R"(apiVersion: nodeplan.dev/v1
kind: Catalog
reservationIDLabel: example.com/reservation
instanceTypes:
- name: two.cpu
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: reserved, price: 0.01, reservationID: r-1,
     reservationCapacity: 2}
)";
  constexpr char kPool[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [reserved]}
)";
  absl::StatusOr<v1::ManifestSet> set =
      LoadManifests(absl::StrCat(kPool, "---\n", kCatalog, "---\n", kPodYaml),
                    v1::LoadOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->catalogs(0).reservation_id_label(), "example.com/reservation");
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(RequestFrom(*set));
  ASSERT_TRUE(resp.ok()) << resp.status();
  ASSERT_EQ(resp->new_node_claims_size(), 1) << resp->DebugString();
  const std::string text = resp->new_node_claims(0).DebugString();
  EXPECT_THAT(text, HasSubstr("example.com/reservation"));
  EXPECT_THAT(text,
              Not(HasSubstr("karpenter.k8s.aws/capacity-reservation-id")));

  Interner interner;
  auto compiled = CompileCatalog(set->catalogs(0), {}, interner);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ((*compiled)->reservation_id_key(),
            interner.FindKey("example.com/reservation"));
}

// Item 6: a negative overhead raised allocatable above capacity and ten
// 1-CPU pods went onto one 2-CPU node.
TEST(CatalogInputsTest, NegativeOverheadIsRefusedWithItsPath) {
  constexpr char kCatalog[] = R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  overhead:
    kubeReserved: {cpu: "-100"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.1}
)";
  std::string pods;
  for (int i = 0; i < 10; ++i) {
    absl::StrAppend(&pods, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p",
                    i, "}\nspec: {containers: [{name: c, resources: ",
                    "{requests: {cpu: '1'}}}]}\n");
  }
  absl::StatusOr<v1::ScheduleResponse> resp =
      ScheduleWithCatalog(kCatalog, pods);
  ASSERT_FALSE(resp.ok());
  EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      resp.status().message(),
      HasSubstr("instanceTypes[0] (two.cpu): overhead.kubeReserved[cpu]: "
                "Invalid value: \"-100\": must be greater than or "
                "equal to 0"));
}

TEST(CatalogInputsTest, NegativeCapacityIsRefused) {
  absl::StatusOr<v1::ScheduleResponse> resp =
      ScheduleWithCatalog(R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: {cpu: "2", memory: -8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.1}
)");
  ASSERT_FALSE(resp.ok());
  EXPECT_THAT(resp.status().message(),
              HasSubstr("capacity[memory]: Invalid value: \"-8Gi\""));
}

// Prices: negative, NaN, infinite (the YAML reader refuses .nan and .inf
// as numbers; binary protobuf can carry them) and huge (1e308 summed to a
// total cost of Infinity).
TEST(CatalogInputsTest, ImpossiblePricesAreRefusedWithTheirPath) {
  const double kNan = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  for (double price : {-1.0, kNan, kInf, -kInf, 1e308, 1e7}) {
    SCOPED_TRACE(price);
    v1::ScheduleRequest r = RequestFromYaml(
        absl::StrCat(kPoolYaml, "---\n", kCatalogYaml, "---\n", kPodYaml));
    r.mutable_catalog()
        ->mutable_instance_types(0)
        ->mutable_offerings(0)
        ->set_price(price);
    absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(),
                HasSubstr("instanceTypes[0] (two.cpu): offerings[0]: price: "));
  }
  absl::StatusOr<v1::ScheduleResponse> resp =
      ScheduleWithCatalog(R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 1e308}
)");
  ASSERT_FALSE(resp.ok());
  EXPECT_THAT(resp.status().message(), HasSubstr("kMaxPricePerHour"));
  absl::StatusOr<v1::ManifestSet> nan = LoadManifests(
      absl::StrCat("apiVersion: nodeplan.dev/v1\nkind: Catalog\n",
                   "instanceTypes:\n- name: x\n  offerings:\n",
                   "  - {zone: a, capacityType: spot, price: .nan}\n"),
      v1::LoadOptions());
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.status().message(), HasSubstr("price: expected a number"));
}

TEST(CatalogInputsTest, OverlayPricesPastTheLimitAreRefused) {
  constexpr char kOverlay[] = R"(apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: pricey}
spec:
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [two.cpu]}]
  price: "100000000"
)";
  v1::ScheduleRequest r = RequestFromYaml(absl::StrCat(
      kPoolYaml, "---\n", kCatalogYaml, "---\n", kPodYaml, "---\n", kOverlay));
  absl::StatusOr<v1::ScheduleResponse> resp = Schedule(r);
  // An overlay whose fields do not parse is skipped (Karpenter's
  // RuntimeValidation), never applied.
  ASSERT_TRUE(resp.ok()) << resp.status();
  for (const auto& c : resp->new_node_claims())
    EXPECT_LT(c.launch().price(), 1);
}

}  // namespace
}  // namespace nodeplan::hardening

namespace nodeplan::hardening {
namespace {

// Found by fuzz_disrupt_request: a type with "pods: 0.5" fitted a pod (the
// value was rounded up to 1, where Karpenter compares 1 > 0.5 exactly).
// Only CPU is counted in thousandths; a fractional count of anything else in
// a catalog is refused with its path.
TEST(CatalogInputsTest, FractionalNonCpuQuantitiesAreRefused) {
  struct Case {
    const char* capacity;
    const char* overhead;
    const char* message;
  } cases[] = {
      {R"({cpu: "2", memory: 8Gi, pods: "0.5"})", "{}",
       "instanceTypes[0] (two.cpu): capacity[pods]: Invalid value: \"0.5\": "
       "must be a whole number of units"},
      {R"({cpu: "2", memory: "1.1Gi", pods: "10"})", "{}",
       "capacity[memory]: Invalid value: \"1.1Gi\""},
      {R"({cpu: "2", memory: 8Gi, pods: "10", example.com/dev: "1.5"})", "{}",
       "capacity[example.com/dev]: Invalid value: \"1.5\""},
      {R"({cpu: "2", memory: 8Gi, pods: "10"})", R"({memory: "0.5"})",
       "[memory]: Invalid value: \"0.5\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    absl::StatusOr<v1::ScheduleResponse> resp =
        ScheduleWithCatalog(absl::StrCat(R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: )",
                                         c.capacity, R"(
  overhead:
    kubeReserved: )",
                                         c.overhead, R"(
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.1}
)"));
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(), HasSubstr(c.message));
  }
  // Fractional CPU and whole fractions of a unit ("1.5Gi") stay valid.
  absl::StatusOr<v1::ScheduleResponse> ok = ScheduleWithCatalog(
      R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  capacity: {cpu: "1.5", memory: "1.5Gi", pods: "10"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.1}
)");
  EXPECT_TRUE(ok.ok()) << ok.status();
}

}  // namespace
}  // namespace nodeplan::hardening

namespace nodeplan::hardening {
namespace {

// Found by fuzz_disrupt_request: a type labelled with a zone its offerings
// do not have was planned in an offering's zone while the verifier kept the
// label. Zones and capacity types come from the offerings only.
TEST(CatalogInputsTest, ZoneAndCapacityTypeLabelsAreRefused) {
  for (const char* label :
       {"topology.kubernetes.io/zone: c", "karpenter.sh/capacity-type: spot"}) {
    SCOPED_TRACE(label);
    absl::StatusOr<v1::ScheduleResponse> resp =
        ScheduleWithCatalog(absl::StrCat(R"(apiVersion: nodeplan.dev/v1
kind: Catalog
instanceTypes:
- name: two.cpu
  labels: {)",
                                         label, R"(}
  capacity: {cpu: "2", memory: 8Gi, pods: "10"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.1}
)"));
    ASSERT_FALSE(resp.ok());
    EXPECT_EQ(resp.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resp.status().message(),
                HasSubstr("instanceTypes[0] (two.cpu): labels["));
    EXPECT_THAT(resp.status().message(), HasSubstr("set by the offerings"));
  }
}

}  // namespace
}  // namespace nodeplan::hardening
