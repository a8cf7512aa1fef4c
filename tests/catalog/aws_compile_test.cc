// CompileAwsCatalog (the embedded catalog compiled straight from the CSV
// rows) equals CompileCatalog(AwsCatalog(...)) byte for byte: every id and
// the interner's contents, requirements, capacity, overhead, allocatable,
// offerings, index answers, well-known set and skipped overlays
// (catalog_digest.h), for every NodeClass variant, with overlays and
// unavailable offerings, into fresh, pre-filled and overlay interners, and
// for errors.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catalog_digest.h"
#include "catalog_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan::testing_util {
namespace {

v1::NodeClass NodeClass(const char* api_version, const char* name) {
  v1::NodeClass nc;
  nc.set_api_version(api_version);
  nc.mutable_metadata()->set_name(name);
  return nc;
}

v1::NodeClass Eks(const char* name) {
  return NodeClass("eks.amazonaws.com/v1", name);
}

void AddZones(v1::NodeClass& nc, std::initializer_list<const char*> zones) {
  for (const char* zone : zones)
    nc.mutable_status()->add_subnets()->set_zone(zone);
}

// The NodeClass variants the catalog depends on (flavour, zones, ephemeral
// storage size), by name.
std::vector<std::pair<std::string, v1::NodeClass>> Variants() {
  std::vector<std::pair<std::string, v1::NodeClass>> out;
  out.emplace_back("eks", Eks("default"));
  out.emplace_back("open-source", NodeClass("karpenter.k8s.aws/v1", "oss"));
  out.emplace_back("no-api-version", NodeClass("", "bare"));
  v1::NodeClass zoned = Eks("zoned");
  // Unsorted, a duplicate and an empty zone.
  AddZones(zoned, {"eu-west-1b", "eu-west-1a", "", "eu-west-1b"});
  out.emplace_back("eks-zones", zoned);
  v1::NodeClass storage = Eks("storage");
  storage.mutable_spec()->mutable_ephemeral_storage()->set_size("200Gi");
  out.emplace_back("eks-storage", storage);
  v1::NodeClass custom = NodeClass("karpenter.k8s.aws/v1", "custom");
  custom.mutable_spec()->mutable_ephemeral_storage()->set_size("1.5Ti");
  AddZones(custom, {"us-west-2b", "us-west-2a"});
  out.emplace_back("oss-zones-storage", custom);
  v1::NodeClass decimal = NodeClass("karpenter.k8s.aws/v1", "decimal");
  decimal.mutable_spec()->mutable_ephemeral_storage()->set_size("512G");
  AddZones(decimal, {"ap-south-1a"});
  out.emplace_back("oss-one-zone-decimal-storage", decimal);
  v1::NodeClass defaults = Eks("default-zones");
  AddZones(defaults, {"us-east-1c", "us-east-1a", "us-east-1b"});
  out.emplace_back("eks-explicit-default-zones", defaults);
  return out;
}

// Equal dumps; on a difference, the first line that differs (a diff of two
// multi-megabyte strings is slow and unreadable).
void ExpectSameDump(const std::string& got, const std::string& want) {
  if (got == want) return;
  size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  const size_t line = want.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t from = line == std::string::npos ? 0 : line + 1;
  ADD_FAILURE() << "dumps differ at byte " << at << ": got \""
                << got.substr(from, got.find('\n', at) - from) << "\", want \""
                << want.substr(from, want.find('\n', at) - from) << "\"";
}

using Seed = std::function<void(Interner&)>;

// Compiles `node_class`'s catalog both ways into interners prepared by
// `seed` and expects the same dump, stats and status.
void ExpectSame(const v1::NodeClass* node_class,
                const CatalogCompileOptions& options = {},
                const Seed& seed = nullptr) {
  Interner via_proto, direct;
  if (seed) {
    seed(via_proto);
    seed(direct);
  }
  AwsCatalogStats proto_stats, direct_stats;
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(node_class, &proto_stats);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  auto expected = CompileCatalog(*catalog, options, via_proto);
  auto got = CompileAwsCatalog(node_class, options, direct, &direct_stats);
  ASSERT_EQ(got.status(), expected.status());
  if (!expected.ok()) return;
  ExpectSameDump(CompiledCatalogFullDump(**got, direct),
                 CompiledCatalogFullDump(**expected, via_proto));
  ExpectSameStats(direct_stats, proto_stats);
}

TEST(CompileAwsCatalogTest, EqualsTheProtoPathForEveryVariant) {
  ExpectSame(nullptr);
  for (const auto& [name, node_class] : Variants()) {
    SCOPED_TRACE(name);
    ExpectSame(&node_class);
  }
}

// The pinned digests of catalog_digest_test.cc hold for the direct path too.
TEST(CompileAwsCatalogTest, MatchesThePinnedDigests) {
  v1::NodeClass eks = Eks("default");
  v1::NodeClass custom = NodeClass("karpenter.k8s.aws/v1", "custom");
  custom.mutable_spec()->mutable_ephemeral_storage()->set_size("100Gi");
  AddZones(custom, {"us-west-2b", "us-west-2a"});
  struct Case {
    const v1::NodeClass* node_class;
    uint64_t digest;
  } cases[] = {{&eks, 0x09f5252d5934a053ull},
               {nullptr, 0xf38188d5fdb3a61full},
               {&custom, 0x5d776e65d1a66b8eull}};
  for (const Case& c : cases) {
    Interner interner;
    auto compiled = CompileAwsCatalog(c.node_class, {}, interner);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_EQ(Fnv1a64(CompiledCatalogDump(**compiled, interner)), c.digest);
  }
}

v1::NodeOverlay Overlay(const std::string& json) {
  v1::NodeOverlay overlay;
  auto status = google::protobuf::util::JsonStringToMessage(json, &overlay);
  EXPECT_TRUE(status.ok()) << status.message() << " in " << json;
  return overlay;
}

// Price, priceAdjustment (percent and absolute), capacity (extended
// resources, hugepages), weights, price and capacity conflicts, invalid
// overlays and keys the catalog does not define.
std::vector<v1::NodeOverlay> Overlays() {
  return {
      Overlay(R"({"metadata": {"name": "od-markup"},
        "spec": {"requirements": [
          {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
          {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["m", "c"]}],
          "priceAdjustment": "+10%"}})"),
      Overlay(R"({"metadata": {"name": "discount"},
        "spec": {"weight": 3, "requirements": [
          {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["c6a", "m5"]}],
          "priceAdjustment": "-0.02"}})"),
      Overlay(R"({"metadata": {"name": "real-spot"},
        "spec": {"weight": 7, "requirements": [
          {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]},
          {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
          {"key": "topology.kubernetes.io/zone", "operator": "In",
           "values": ["us-east-1b", "eu-west-1a", "us-west-2a"]}],
          "price": "0.0321"}})"),
      Overlay(R"({"metadata": {"name": "conflicts-with-od-markup"},
        "spec": {"requirements": [
          {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.xlarge"]}],
          "priceAdjustment": "+2"}})"),
      Overlay(R"({"metadata": {"name": "fuse"},
        "spec": {"requirements": [
          {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["5"]}],
          "capacity": {"example.com/fuse": "1", "example.com/dev": "2"}}})"),
      Overlay(R"({"metadata": {"name": "fuse-big"},
        "spec": {"weight": 5, "requirements": [
          {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["31"]}],
          "capacity": {"example.com/fuse": "4", "hugepages-2Mi": "1Gi"}}})"),
      Overlay(R"({"metadata": {"name": "fuse-conflict"},
        "spec": {"requirements": [
          {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}],
          "capacity": {"example.com/fuse": "3"}}})"),
      Overlay(R"({"metadata": {"name": "gpu"},
        "spec": {"requirements": [
          {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "Exists"}],
          "capacity": {"nvidia.com/gpu": "9"}, "price": "5"}})"),
      Overlay(R"({"metadata": {"name": "both"},
        "spec": {"price": "1", "priceAdjustment": "+1"}})"),
      Overlay(R"({"metadata": {"name": "team"},
        "spec": {"requirements": [
          {"key": "example.com/team", "operator": "In", "values": ["a"]}],
          "priceAdjustment": "+1"}})"),
      Overlay(R"({"metadata": {"name": "not-team"},
        "spec": {"weight": 1, "requirements": [
          {"key": "example.com/team", "operator": "NotIn", "values": ["a"]},
          {"key": "karpenter.k8s.aws/instance-local-nvme", "operator": "DoesNotExist"}],
          "priceAdjustment": "-5%"}})"),
  };
}

std::vector<v1::UnavailableOffering> Unavailable() {
  std::vector<v1::UnavailableOffering> out;
  auto add = [&](const char* type, const char* zone, const char* capacity) {
    v1::UnavailableOffering& u = out.emplace_back();
    u.set_instance_type(type);
    u.set_zone(zone);
    u.set_capacity_type(capacity);
  };
  add("m5.large", "us-east-1a", "spot");  // one offering
  add("c6a.large", "", "");               // the whole type
  add("r5.large", "", "on-demand");       // a capacity type
  add("m6g.large", "eu-west-1b", "");     // a zone of the zoned variant
  add("no-such-type", "", "");            // ignored
  add("m5.xlarge", "mars-1a", "spot");    // unknown zone: ignored
  return out;
}

TEST(CompileAwsCatalogTest, EqualsTheProtoPathWithOverlaysAndUnavailable) {
  const std::vector<v1::NodeOverlay> overlays = Overlays();
  const std::vector<v1::UnavailableOffering> unavailable = Unavailable();
  CatalogCompileOptions options;
  options.overlays = overlays;
  options.unavailable = unavailable;
  ExpectSame(nullptr, options);
  for (const auto& [name, node_class] : Variants()) {
    SCOPED_TRACE(name);
    ExpectSame(&node_class, options);
  }
  // And the overlays did something: some skipped, some applied.
  Interner interner;
  auto compiled = CompileAwsCatalog(nullptr, options, interner);
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ((*compiled)->skipped_overlays().size(), 3u);
  const CompiledInstanceType& m5 =
      (*compiled)->instance_type((*compiled)->Find("m5.large"));
  EXPECT_TRUE(m5.offerings[3].price_overlaid);
  EXPECT_FALSE(m5.offerings[1].available);
}

TEST(CompileAwsCatalogTest, EqualsTheProtoPathWithOtherReservationLabels) {
  const v1::NodeClass eks = Eks("default");
  for (const char* label :
       {"", "example.com/reservation", "karpenter.k8s.aws/instance-family"}) {
    SCOPED_TRACE(label);
    CatalogCompileOptions options;
    options.reservation_id_label = label;
    ExpectSame(&eks, options);
    ExpectSame(nullptr, options);
  }
}

// An interner that already holds strings, some of them the catalog's own
// (label values, names, zones, resource names), so that lookups rather than
// interning answer for them and the catalog's ids are large.
void FillLikeACluster(Interner& interner) {
  for (int i = 0; i < 20000; ++i) {
    interner.InternValue(absl::StrCat("cluster-value-", i));
    if (i % 2 == 0) interner.InternKey(absl::StrCat("cluster/key-", i));
    if (i == 7000) {
      for (const char* v : {"m5.large", "linux", "us-east-1b", "4", "8192",
                            "nitro", "false", "spot", "eu-west-1a"}) {
        interner.InternValue(v);
      }
      for (const char* k : {"nvidia.com/gpu", "kubernetes.io/arch",
                            "eks.amazonaws.com/instance-size"}) {
        interner.InternKey(k);
      }
    }
  }
}

TEST(CompileAwsCatalogTest, EqualsTheProtoPathInAFilledInterner) {
  const std::vector<v1::NodeOverlay> overlays = Overlays();
  CatalogCompileOptions with_overlays;
  with_overlays.overlays = overlays;
  for (const auto& [name, node_class] : Variants()) {
    SCOPED_TRACE(name);
    ExpectSame(&node_class, {}, FillLikeACluster);
  }
  ExpectSame(nullptr, with_overlays, FillLikeACluster);
}

// Compiled twice into one interner (the second compile finds every string),
// and into overlays over a shared base.
TEST(CompileAwsCatalogTest, EqualsTheProtoPathInAUsedOrOverlayInterner) {
  const v1::NodeClass eks = Eks("default");
  v1::NodeClass zoned = Eks("zoned");
  AddZones(zoned, {"eu-west-1b", "eu-west-1a"});
  const Seed compiled_before = [&](Interner& interner) {
    ASSERT_TRUE(CompileAwsCatalog(&zoned, {}, interner).ok());
  };
  ExpectSame(&eks, {}, compiled_before);
  ExpectSame(nullptr, {}, compiled_before);

  Interner base;
  FillLikeACluster(base);
  ASSERT_TRUE(CompileAwsCatalog(&eks, {}, base).ok());
  Interner via_proto(&base), direct(&base);
  auto expected = CompileCatalog(**SharedAwsCatalog(nullptr), {}, via_proto);
  auto got = CompileAwsCatalog(nullptr, {}, direct);
  ASSERT_TRUE(expected.ok() && got.ok());
  ExpectSameDump(CompiledCatalogFullDump(**got, direct),
                 CompiledCatalogFullDump(**expected, via_proto));
}

TEST(CompileAwsCatalogTest, ErrorsAsTheProtoPath) {
  for (const char* size : {"-1Gi", "0", "lots", "1e400"}) {
    SCOPED_TRACE(size);
    v1::NodeClass bad = Eks("bad");
    bad.mutable_spec()->mutable_ephemeral_storage()->set_size(size);
    Interner interner;
    absl::StatusOr<std::shared_ptr<const CompiledCatalog>> got =
        CompileAwsCatalog(&bad, {}, interner);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status(), AwsCatalog(&bad).status());
  }
}

// The cached compile equals the uncached one (catalog, stats, and the
// strings interned into the caller's interner), on the miss that fills the
// cache and on the hits after it, for NodeClass variants, with options, into
// fresh, filled and overlay interners; a catalog handed out stays valid while
// the caller's interner grows.
TEST(CompileAwsCatalogCachedTest, EqualsTheUncachedCompileOnMissAndHit) {
  const std::vector<v1::NodeOverlay> overlays = Overlays();
  const std::vector<v1::UnavailableOffering> unavailable = Unavailable();
  CatalogCompileOptions with_options;
  with_options.overlays = overlays;
  with_options.unavailable = unavailable;
  Interner base;
  FillLikeACluster(base);
  const std::vector<std::pair<std::string, Seed>> seeds = {
      {"fresh", nullptr},
      {"filled", FillLikeACluster},
      {"a few strings", [](Interner& in) {
         in.InternKey("example.com/team");
         in.InternValue("m5.large");
         in.InternValue("a");
       }}};
  std::vector<std::pair<std::string, const v1::NodeClass*>> classes = {
      {"none", nullptr}};
  const auto variants = Variants();
  for (const auto& [name, node_class] : variants)
    if (name == "eks" || name == "oss-zones-storage")
      classes.emplace_back(name, &node_class);
  for (const auto& [class_name, node_class] : classes) {
    for (bool options : {true, false}) {
      const CatalogCompileOptions opts =
          options ? with_options : CatalogCompileOptions{};
      for (const auto& [seed_name, seed] : seeds) {
        SCOPED_TRACE(absl::StrCat(class_name, ", ", seed_name,
                                  options ? ", options" : ""));
        Interner uncached;
        if (seed) seed(uncached);
        AwsCatalogStats want_stats;
        auto want = CompileAwsCatalog(node_class, opts, uncached, &want_stats);
        ASSERT_TRUE(want.ok()) << want.status();
        const std::string want_dump = CompiledCatalogFullDump(**want, uncached);
        for (int round = 0; round < 2; ++round) {
          Interner cached;
          if (seed) seed(cached);
          AwsCatalogStats got_stats;
          auto got =
              CompileAwsCatalogCached(node_class, opts, cached, &got_stats);
          ASSERT_TRUE(got.ok()) << got.status();
          ExpectSameDump(CompiledCatalogFullDump(**got, cached), want_dump);
          ExpectSameStats(got_stats, want_stats);
          // The caller's interner grows; the catalog still finds its types.
          cached.InternValue("grown-after-the-compile");
          EXPECT_EQ((*got)->Find("grown-after-the-compile"), -1);
          EXPECT_EQ((*got)->Find("m5.large"), (*want)->Find("m5.large"));
        }
      }
    }
  }
  // Into an overlay over a filled base.
  Interner uncached(&base), cached(&base);
  auto want = CompileAwsCatalog(nullptr, with_options, uncached);
  auto got = CompileAwsCatalogCached(nullptr, with_options, cached);
  ASSERT_TRUE(want.ok() && got.ok());
  ExpectSameDump(CompiledCatalogFullDump(**got, cached),
                 CompiledCatalogFullDump(**want, uncached));
  EXPECT_EQ(cached.base(), &base);
}

TEST(CompileAwsCatalogCachedTest, ErrorsAsTheUncachedCompile) {
  v1::NodeClass bad = Eks("bad");
  bad.mutable_spec()->mutable_ephemeral_storage()->set_size("lots");
  for (int round = 0; round < 2; ++round) {
    Interner interner;
    auto got = CompileAwsCatalogCached(&bad, {}, interner);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status(), AwsCatalog(&bad).status());
  }
}

// Offerings with the same zone and capacity type share one label set.
TEST(CompileAwsCatalogTest, OfferingLabelSetsAreShared) {
  Interner interner;
  auto compiled = CompileAwsCatalog(nullptr, {}, interner);
  ASSERT_TRUE(compiled.ok());
  const CompiledCatalog& c = **compiled;
  ASSERT_GT(c.size(), 1);
  const CompiledInstanceType& first = c.instance_type(0);
  for (const CompiledInstanceType& t : c.instance_types()) {
    ASSERT_EQ(t.offerings.size(), first.offerings.size());
    for (size_t j = 0; j < t.offerings.size(); ++j) {
      EXPECT_EQ(t.offerings[j].requirements, first.offerings[j].requirements);
    }
  }
  EXPECT_EQ(first.offerings[0].requirements->String(interner),
            "karpenter.sh/capacity-type In [on-demand], "
            "topology.kubernetes.io/zone In [us-east-1a]");
}

}  // namespace
}  // namespace nodeplan::testing_util
