#ifndef NODEPLAN_LIB_MANIFEST_SCHEMA_H_
#define NODEPLAN_LIB_MANIFEST_SCHEMA_H_

// Per-message lookup tables for the schema-directed builder, derived from the
// proto descriptors once (on first use) and immutable afterwards.

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace nodeplan::manifest {

enum class FieldKind : uint8_t {
  kString,
  kBytes,
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kBool,
  kDouble,
  kFloat,
  kEnum,
  kMessage,
  kMap,
};

struct MessageSchema;

struct FieldInfo {
  const google::protobuf::FieldDescriptor* field = nullptr;
  FieldKind kind = FieldKind::kString;
  bool repeated = false;
  // kMessage: the message's schema. kMap: the entry's schema.
  const MessageSchema* message = nullptr;
  // Set when a non-empty value changes scheduling in a way nodeplan does not
  // model: the builder reports a finding with this text.
  const char* unmodelled = nullptr;
};

// A field whose presence-but-emptiness proto3 cannot keep ("labels: {}",
// "budgets: []") and Karpenter reads: a dotted path from the message, and
// whether it is a map (else a list). Recorded in the message's own
// `present_empty_fields`.
struct PresentEmptyPath {
  absl::string_view path;
  bool map = false;
};

struct MessageSchema {
  const google::protobuf::Descriptor* descriptor = nullptr;
  // Keyed by json_name and by the proto field name.
  absl::flat_hash_map<std::string, FieldInfo> fields;
  // Keys outside the proto that change scheduling: key -> finding text.
  absl::flat_hash_map<std::string, const char*> unmodelled_keys;
  // kMap entries: the key and value fields.
  const FieldInfo* map_key = nullptr;
  const FieldInfo* map_value = nullptr;
  // The present-but-empty fields this message records, or nullptr.
  const std::vector<PresentEmptyPath>* present_empty = nullptr;

  const FieldInfo* Find(absl::string_view key) const {
    auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  }
};

// The schema of a message reachable from nodeplan.v1.ManifestSet (every
// object kind and the catalog), or nullptr. Built once, thread-safe.
const MessageSchema* SchemaFor(const google::protobuf::Descriptor* descriptor);

}  // namespace nodeplan::manifest

#endif  // NODEPLAN_LIB_MANIFEST_SCHEMA_H_
