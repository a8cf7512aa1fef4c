// Bytes as manifest text (YAML or JSON, whichever the loader takes them for):
// LoadManifests answers a ManifestSet or an error, never crashes, and
// answers the same twice (the readers are deterministic). A loaded set is
// then validated, as `nodeplan validate` does.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_util.h"
#include "nodeplan/manifest.h"
#include "nodeplan/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nodeplan::v1::LoadOptions options;
  options.set_skip_unknown_kinds((size & 1) != 0);
  options.set_record_origins(true);
  absl::StatusOr<nodeplan::v1::ManifestSet> set =
      nodeplan::LoadManifests(text, options);
  absl::StatusOr<nodeplan::v1::ManifestSet> again =
      nodeplan::LoadManifests(text, options);
  if (set.ok() != again.ok()) std::abort();
  if (!set.ok()) {
    if (set.status().message() != again.status().message()) std::abort();
    return 0;
  }
  if (nodeplan::fuzz::Bytes(*set) != nodeplan::fuzz::Bytes(*again)) {
    std::abort();
  }
  (void)nodeplan::Validate(*set);
  return 0;
}
