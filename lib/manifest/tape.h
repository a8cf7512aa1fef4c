#ifndef NODEPLAN_LIB_MANIFEST_TAPE_H_
#define NODEPLAN_LIB_MANIFEST_TAPE_H_

// One YAML/JSON document as a flat list of nodes ("tape"), the common form
// that both readers (libyaml events, the JSON fast path) produce and the
// schema-directed builder consumes. A tape is cheap to skip over (every
// collection knows where it ends), to look ahead into (apiVersion and kind may
// come last) and to walk again for error paths, so the hot path tracks
// nothing that only errors need.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nodeplan/limits.h"

namespace nodeplan::manifest {

enum class NodeType : uint8_t {
  kScalar,
  kMapStart,
  kMapEnd,
  kSeqStart,
  kSeqEnd
};

struct Node {
  const char* data = nullptr;  // scalar text (stable for the tape's life)
  uint32_t size = 0;
  // For kMapStart/kSeqStart: index of the matching end node.
  uint32_t end = 0;
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based
  NodeType type = NodeType::kScalar;
  // A plain (unquoted, untagged) scalar: only plain scalars can be null,
  // booleans or numbers.
  bool plain = false;

  absl::string_view text() const { return absl::string_view(data, size); }
};

// Stable storage for scalar text copied out of a parser.
class TextArena {
 public:
  const char* Copy(absl::string_view text);
  void Clear();

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
};

struct Tape {
  std::vector<Node> nodes;
  TextArena arena;

  void Clear() {
    nodes.clear();
    arena.Clear();
  }
  // Index of the node after the subtree rooted at `i`.
  uint32_t Skip(uint32_t i) const {
    const Node& n = nodes[i];
    return (n.type == NodeType::kScalar ? i : n.end) + 1;
  }
};

// Deepest nesting the readers accept (Kubernetes objects need about 20).
inline constexpr int kMaxDepth = limits::kMaxNestingDepth;

// True for a plain scalar that YAML reads as null: "", "~", "null", "Null",
// "NULL".
bool IsNull(const Node& n);

// The value node of `key` in the mapping that starts at `map`, or -1.
int64_t FindKey(const Tape& tape, uint32_t map, absl::string_view key);

// The scalar text of `key` in mapping `map`, or "" when absent or not a
// non-null scalar.
absl::string_view ScalarAt(const Tape& tape, uint32_t map,
                           absl::string_view key);

// The field path from `root` down to node `target`, e.g.
// "spec.template.spec.requirements[2].values[0]". A key node names its own
// entry. "" when target is root.
std::string PathTo(const Tape& tape, uint32_t root, uint32_t target);

}  // namespace nodeplan::manifest

#endif  // NODEPLAN_LIB_MANIFEST_TAPE_H_
