// The embedded AWS catalog and its compiled form are byte-identical to what
// the code produced before the catalog performance work (catperf): the
// digests below were computed from the pre-optimization library (commit
// 59a7479) and re-expressed once with true FNV-1a 64 (nodeplan/digest.h;
// the earlier helper used a wrong offset basis) over the same bytes. A
// deliberate change of catalog content or interning order must update them,
// with the reason.

#include "catalog_digest.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan::testing_util {
namespace {

v1::NodeClass EksNodeClass() {
  v1::NodeClass nc;
  nc.set_api_version("eks.amazonaws.com/v1");
  nc.mutable_metadata()->set_name("default");
  return nc;
}

v1::NodeClass CustomNodeClass() {
  v1::NodeClass nc;
  nc.set_api_version("karpenter.k8s.aws/v1");
  nc.mutable_metadata()->set_name("custom");
  nc.mutable_spec()->mutable_ephemeral_storage()->set_size("100Gi");
  nc.mutable_status()->add_subnets()->set_zone("us-west-2b");
  nc.mutable_status()->add_subnets()->set_zone("us-west-2a");
  return nc;
}

struct Case {
  const char* name;
  uint64_t catalog_digest;
  uint64_t compiled_digest;
};

constexpr Case kCases[] = {
    {"eks", 0xb4ca33a222fd590full, 0x09f5252d5934a053ull},
    {"open-source", 0x8ccdc403830ffbbfull, 0xf38188d5fdb3a61full},
    {"custom", 0xf7360f73cf8ca967ull, 0x5d776e65d1a66b8eull},
};

TEST(CatalogDigestTest, MatchesPreOptimizationOutput) {
  const v1::NodeClass eks = EksNodeClass();
  const v1::NodeClass custom = CustomNodeClass();
  const v1::NodeClass* classes[] = {&eks, nullptr, &custom};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(kCases[i].name);
    absl::StatusOr<v1::Catalog> catalog = AwsCatalog(classes[i]);
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    EXPECT_EQ(Fnv1a64(DeterministicBytes(*catalog)), kCases[i].catalog_digest);
    Interner interner;
    auto compiled = CompileCatalog(*catalog, {}, interner);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_EQ(Fnv1a64(CompiledCatalogDump(**compiled, interner)),
              kCases[i].compiled_digest);
  }
}

// Building twice (the parsed CSV is cached after the first call) gives the
// same catalog, and compiling twice the same compiled catalog.
TEST(CatalogDigestTest, RepeatedCallsAgree) {
  const v1::NodeClass eks = EksNodeClass();
  const v1::Catalog first = *AwsCatalog(&eks);
  const v1::Catalog second = *AwsCatalog(&eks);
  EXPECT_EQ(DeterministicBytes(first), DeterministicBytes(second));
  Interner a, b;
  auto ca = *CompileCatalog(first, {}, a);
  auto cb = *CompileCatalog(second, {}, b);
  EXPECT_EQ(CompiledCatalogDump(*ca, a), CompiledCatalogDump(*cb, b));
}

}  // namespace
}  // namespace nodeplan::testing_util
