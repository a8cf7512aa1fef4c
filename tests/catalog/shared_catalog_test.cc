// SharedAwsCatalog (the cached / arena-built catalog) equals AwsCatalog (the
// heap-built one, itself pinned by catalog_digest_test.cc) byte for byte, and
// so do their compiled forms.

#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catalog_digest.h"
#include "catalog_test_util.h"
#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan::testing_util {
namespace {

v1::NodeClass Eks(const char* name) {
  v1::NodeClass nc;
  nc.set_api_version("eks.amazonaws.com/v1");
  nc.mutable_metadata()->set_name(name);
  return nc;
}

void ExpectSame(const v1::NodeClass* node_class) {
  AwsCatalogStats heap_stats, shared_stats;
  absl::StatusOr<v1::Catalog> heap = AwsCatalog(node_class, &heap_stats);
  ASSERT_TRUE(heap.ok()) << heap.status();
  absl::StatusOr<std::shared_ptr<const v1::Catalog>> shared =
      SharedAwsCatalog(node_class, &shared_stats);
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(DeterministicBytes(**shared), DeterministicBytes(*heap));
  ExpectSameStats(shared_stats, heap_stats);
  Interner a, b;
  auto from_heap = CompileCatalog(*heap, {}, a);
  auto from_shared = CompileCatalog(**shared, {}, b);
  ASSERT_TRUE(from_heap.ok() && from_shared.ok());
  EXPECT_EQ(CompiledCatalogDump(**from_shared, b),
            CompiledCatalogDump(**from_heap, a));
}

TEST(SharedAwsCatalogTest, EqualsAwsCatalogForEveryVariant) {
  const v1::NodeClass eks = Eks("default");
  v1::NodeClass open_source;
  open_source.set_api_version("karpenter.k8s.aws/v1");
  open_source.mutable_metadata()->set_name("oss");
  v1::NodeClass zoned = Eks("zoned");
  zoned.mutable_status()->add_subnets()->set_zone("eu-west-1b");
  zoned.mutable_status()->add_subnets()->set_zone("eu-west-1a");
  v1::NodeClass storage = Eks("storage");
  storage.mutable_spec()->mutable_ephemeral_storage()->set_size("200Gi");
  // Explicitly the default zones: the cached variant.
  v1::NodeClass default_zones = Eks("default-zones");
  for (const char* z : {"us-east-1c", "us-east-1a", "us-east-1b"}) {
    default_zones.mutable_status()->add_subnets()->set_zone(z);
  }
  const v1::NodeClass* classes[] = {&eks,   nullptr,  &open_source,
                                    &zoned, &storage, &default_zones};
  for (const v1::NodeClass* nc : classes) {
    SCOPED_TRACE(nc == nullptr ? "none" : nc->metadata().name());
    ExpectSame(nc);
  }
}

TEST(SharedAwsCatalogTest, DefaultVariantsAreBuiltOnce) {
  const v1::NodeClass a = Eks("a");
  const v1::NodeClass b = Eks("b");
  auto first = *SharedAwsCatalog(&a);
  auto second = *SharedAwsCatalog(&b);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(SharedAwsCatalog(nullptr)->get(), SharedAwsCatalog(nullptr)->get());
  EXPECT_NE(first.get(), SharedAwsCatalog(nullptr)->get());
  // A NodeClass with its own zones gets a catalog of its own.
  v1::NodeClass zoned = Eks("zoned");
  zoned.mutable_status()->add_subnets()->set_zone("us-west-2a");
  auto own = *SharedAwsCatalog(&zoned);
  EXPECT_NE(own.get(), first.get());
  EXPECT_EQ(own->region(), "us-west-2");
}

TEST(SharedAwsCatalogTest, ErrorsAsAwsCatalog) {
  v1::NodeClass bad = Eks("bad");
  bad.mutable_spec()->mutable_ephemeral_storage()->set_size("-1Gi");
  absl::StatusOr<std::shared_ptr<const v1::Catalog>> shared =
      SharedAwsCatalog(&bad);
  ASSERT_FALSE(shared.ok());
  EXPECT_EQ(shared.status(), AwsCatalog(&bad).status());
}

// Concurrent first use from several threads sees one catalog.
TEST(SharedAwsCatalogTest, ConcurrentCallsShareOneCatalog) {
  const v1::NodeClass eks = Eks("default");
  std::vector<const v1::Catalog*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto catalog = SharedAwsCatalog(&eks);
      if (catalog.ok()) seen[t] = catalog->get();
    });
  }
  for (std::thread& t : threads) t.join();
  for (const v1::Catalog* c : seen) {
    EXPECT_NE(c, nullptr);
    EXPECT_EQ(c, seen[0]);
  }
}

// Compiled into an interner that already holds many strings (as when it is
// shared with a big cluster), the catalog's ids are large and the index
// build takes its hash-map path; its answers still equal a type-by-type
// evaluation.
TEST(SharedAwsCatalogTest, IndexAnswersWithLargeIds) {
  Interner interner;
  for (int i = 0; i < 30000; ++i) {
    interner.InternValue(absl::StrCat("cluster-value-", i));
    if (i % 2 == 0) interner.InternKey(absl::StrCat("cluster/key-", i));
  }
  auto compiled = CompileCatalog(**SharedAwsCatalog(nullptr), {}, interner);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const CompiledCatalog& c = **compiled;
  const CompatibilityOptions options{&c.well_known()};
  TypeSet set;
  for (int q = 0; q < c.size(); q += 37) {
    const Requirements& query = c.instance_type(q).requirements;
    c.index().Intersecting(query, &set);
    for (int t = 0; t < c.size(); ++t) {
      ASSERT_EQ(set.Test(t), c.instance_type(t).requirements.Intersects(query))
          << q << " vs " << t;
    }
    c.index().Compatible(query, options, &set);
    for (int t = 0; t < c.size(); ++t) {
      ASSERT_EQ(set.Test(t),
                c.instance_type(t).requirements.IsCompatible(query, options))
          << q << " vs " << t;
    }
  }
}

}  // namespace
}  // namespace nodeplan::testing_util
