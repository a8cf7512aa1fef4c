// Catalog files: bytes as manifest text, every Catalog document compiled (as
// `--catalog FILE` does); and the same bytes as a binary Catalog message (as
// a ScheduleRequest carries it). Either a compiled catalog or an error,
// never a crash; a compiled catalog's prices are finite and its allocatable
// never exceeds capacity.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "nodeplan/compiled_catalog.h"
#include "nodeplan/manifest.h"

namespace {

void Compile(const nodeplan::v1::Catalog& catalog) {
  nodeplan::Interner interner;
  auto compiled = nodeplan::CompileCatalog(catalog, {}, interner);
  if (!compiled.ok()) return;
  const nodeplan::CompiledCatalog& c = **compiled;
  for (int i = 0; i < c.size(); ++i) {
    const nodeplan::CompiledInstanceType& t = c.instance_type(i);
    for (const auto& o : t.offerings) {
      if (!std::isfinite(o.price) || o.price < 0) std::abort();
    }
    if (t.allocatable.cpu_milli() > t.capacity.cpu_milli() ||
        t.allocatable.memory() > t.capacity.memory()) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<nodeplan::v1::ManifestSet> set =
      nodeplan::LoadManifests(text, nodeplan::v1::LoadOptions());
  if (set.ok()) {
    for (const nodeplan::v1::Catalog& catalog : set->catalogs()) {
      Compile(catalog);
    }
  }
  nodeplan::v1::Catalog binary;
  if (binary.ParseFromString(text)) Compile(binary);
  return 0;
}
