#ifndef NODEPLAN_MANIFEST_H_
#define NODEPLAN_MANIFEST_H_

// Loading Kubernetes manifests (multi-document YAML or JSON as kubectl prints
// it, `kind: List` included) into a ManifestSet.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan {

// Parses `text` (YAML or JSON). On error nothing partial is returned; the
// message names the source, the document index, the object's kind/name and
// the field path, e.g.
//   workshop.yaml: document 2: NodePool general-purpose:
//   spec.template.spec.requirements[2].operator: ...
absl::StatusOr<v1::ManifestSet> LoadManifests(absl::string_view text,
                                              const v1::LoadOptions& options);

// Reads files ("-" is standard input; a directory reads its *.yaml, *.yml and
// *.json files in name order) and merges them into one set.
absl::StatusOr<v1::ManifestSet> LoadManifestFiles(
    const std::vector<std::string>& paths, const v1::LoadOptions& options);

}  // namespace nodeplan

#endif  // NODEPLAN_MANIFEST_H_
