#ifndef NODEPLAN_TESTS_CATALOG_CATALOG_TEST_UTIL_H_
#define NODEPLAN_TESTS_CATALOG_CATALOG_TEST_UTIL_H_

#include <cstdint>
#include <memory>

#include "gtest/gtest.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"

namespace nodeplan::testing_util {

// Allocatable cpu / memory / pods printed on the AWS provider's generated
// page website/content/en/preview/reference/instance-types.md (AL2023, no
// blockDeviceMappings) at aws/karpenter-provider-aws 1d927085, the commit the
// CSV was taken from. The first three are aws-instance-model.md §3.5's worked
// examples.
struct Golden {
  const char* name;
  int64_t cpu_milli;
  int64_t memory_mib;
  int64_t pods;
};
inline constexpr Golden kGolden[] = {
    {"m5.large", 1930, 6903, 29},
    {"a1.medium", 940, 1392, 8},
    {"p5.48xlarge", 191450, 1938410, 100},
    {"a1.4xlarge", 15890, 27322, 234},
    {"c1.medium", 1930, 1122, 12},
    {"c3.8xlarge", 31850, 53903, 234},
    {"c4.8xlarge", 35840, 53903, 234},
    {"c5.large", 1930, 3114, 29},
    {"c5.9xlarge", 35840, 65269, 234},
    {"c6a.large", 1930, 3114, 29},
    {"c6a.48xlarge", 191450, 355262, 737},
    {"c6g.medium", 940, 1392, 8},
    {"c7g.16xlarge", 63770, 112720, 737},
    {"c7i-flex.large", 1930, 3114, 29},
    {"m6i.xlarge", 3920, 14162, 58},
    {"m6g.metal", 63770, 233962, 737},
    {"m7a.medium", 940, 3345, 8},
    {"m7g.medium", 940, 3286, 8},
    {"m7i.48xlarge", 191450, 718987, 737},
    {"m8g.24xlarge", 95690, 355203, 737},
    {"r5.2xlarge", 7910, 59627, 58},
    {"r6a.metal", 191450, 1446437, 737},
    {"r7g.large", 1930, 14422, 29},
    {"r8g.48xlarge", 191450, 1446378, 737},
    {"t3.nano", 1930, 74, 4},
    {"t3.micro", 1930, 548, 4},
    {"t3.2xlarge", 7910, 29317, 58},
    {"t4g.small", 1930, 1359, 11},
    {"g4dn.xlarge", 3920, 14481, 29},
    {"g5.xlarge", 3920, 14162, 58},
    {"g6.48xlarge", 191450, 718987, 737},
    {"g5g.xlarge", 3920, 6525, 58},
    {"p4d.24xlarge", 95690, 1082712, 737},
    {"inf2.48xlarge", 191450, 718987, 737},
    {"trn1.32xlarge", 127610, 481894, 247},
    {"x2iedn.32xlarge", 127610, 3871269, 737},
    {"u-6tb1.112xlarge", 446810, 5811134, 737},
    {"i4i.32xlarge", 127610, 961470, 737},
    {"d3.8xlarge", 31850, 241479, 59},
    {"z1d.12xlarge", 47810, 355262, 737},
    {"hpc7g.16xlarge", 63770, 118649, 198},
    {"x8g.metal-48xl", 191450, 2901277, 737},
};

// The same counts.
inline void ExpectSameStats(const AwsCatalogStats& got,
                            const AwsCatalogStats& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.instance_types, want.instance_types);
  EXPECT_EQ(got.skipped_without_capacity, want.skipped_without_capacity);
  EXPECT_EQ(got.skipped_by_eks_auto_mode, want.skipped_by_eks_auto_mode);
  EXPECT_EQ(got.without_price, want.without_price);
}

// Compiles the embedded AWS catalog for `node_class`; fails the test on
// error.
inline std::shared_ptr<const CompiledCatalog> CompileAws(
    const v1::NodeClass* node_class, Interner& interner,
    const CatalogCompileOptions& options = {}) {
  absl::StatusOr<v1::Catalog> catalog = AwsCatalog(node_class);
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  if (!catalog.ok()) return nullptr;
  auto compiled = CompileCatalog(*catalog, options, interner);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? *compiled : nullptr;
}

}  // namespace nodeplan::testing_util

#endif  // NODEPLAN_TESTS_CATALOG_CATALOG_TEST_UTIL_H_
