#ifndef NODEPLAN_TOOLS_JSON_TO_YAML_H_
#define NODEPLAN_TOOLS_JSON_TO_YAML_H_

// YAML output of the `nodeplan` command: the proto's JSON mapping, converted
// to block-style YAML with key order kept and every string that a YAML 1.1 or
// 1.2 reader could take for something else ("10", "true", "on", "1e3",
// "-10%", ": ") double-quoted, so `-o yaml` loads back to the same JSON.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nodeplan::cli {

// `json` must be one JSON value (as protobuf's MessageToJsonString prints).
// Objects and arrays become block mappings and sequences; empty ones print
// as {} and []. No trailing document marker.
absl::StatusOr<std::string> JsonToYaml(absl::string_view json);

// Whether `s` must be quoted to stay a string in YAML.
bool YamlNeedsQuotes(absl::string_view s);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_JSON_TO_YAML_H_
