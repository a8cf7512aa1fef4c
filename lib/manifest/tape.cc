#include "manifest/tape.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "manifest/limits.h"

namespace nodeplan::manifest {

const char* TextArena::Copy(absl::string_view text) {
  if (text.empty()) return "";
  if (capacity_ - used_ < text.size()) {
    size_t block = std::max<size_t>(64 * 1024, text.size());
    blocks_.push_back(std::make_unique<char[]>(block));
    used_ = 0;
    capacity_ = block;
  }
  char* out = blocks_.back().get() + used_;
  std::memcpy(out, text.data(), text.size());
  used_ += text.size();
  return out;
}

void TextArena::Clear() {
  // Keep the most recent block for the next document.
  if (blocks_.size() > 1) {
    std::unique_ptr<char[]> last = std::move(blocks_.back());
    blocks_.clear();
    blocks_.push_back(std::move(last));
  }
  used_ = 0;
}

bool IsNull(const Node& n) {
  if (n.type != NodeType::kScalar || !n.plain) return false;
  absl::string_view t = n.text();
  return t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL";
}

int64_t FindKey(const Tape& tape, uint32_t map, absl::string_view key) {
  const Node& m = tape.nodes[map];
  if (m.type != NodeType::kMapStart) return -1;
  uint32_t i = map + 1;
  while (i < m.end) {
    const Node& k = tape.nodes[i];
    uint32_t value = tape.Skip(i);
    if (k.type == NodeType::kScalar && k.text() == key) return value;
    i = tape.Skip(value);
  }
  return -1;
}

absl::string_view ScalarAt(const Tape& tape, uint32_t map,
                           absl::string_view key) {
  int64_t v = FindKey(tape, map, key);
  if (v < 0) return "";
  const Node& n = tape.nodes[v];
  if (n.type != NodeType::kScalar || IsNull(n)) return "";
  return n.text();
}

std::string PathTo(const Tape& tape, uint32_t root, uint32_t target) {
  std::string path;
  uint32_t i = root;
  while (i != target) {
    const Node& n = tape.nodes[i];
    if (n.type == NodeType::kMapStart) {
      uint32_t k = i + 1;
      bool found = false;
      while (k < n.end) {
        uint32_t value = tape.Skip(k);
        uint32_t next = tape.Skip(value);
        if (target >= k && target < next) {
          const Node& key = tape.nodes[k];
          if (!path.empty()) path += '.';
          if (key.type == NodeType::kScalar) {
            path.append(key.data, key.size);
          } else {
            path += "<key>";
          }
          if (target < value) return path;  // the key itself
          i = value;
          found = true;
          break;
        }
        k = next;
      }
      if (!found) return path;
    } else if (n.type == NodeType::kSeqStart) {
      uint32_t e = i + 1;
      size_t index = 0;
      bool found = false;
      while (e < n.end) {
        uint32_t next = tape.Skip(e);
        if (target >= e && target < next) {
          absl::StrAppend(&path, "[", index, "]");
          i = e;
          found = true;
          break;
        }
        e = next;
        ++index;
      }
      if (!found) return path;
    } else {
      return path;
    }
  }
  return path;
}

}  // namespace nodeplan::manifest

namespace nodeplan::manifest {

absl::Status RootNotMapping(int document, uint32_t line, uint32_t column) {
  return absl::InvalidArgumentError(
      absl::StrCat("document ", document,
                   ": a document must be a mapping (an object) (line ", line,
                   ", column ", column, ")"));
}

absl::Status TooManyNodes(int document, uint32_t line, uint32_t column) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "document ", document, ": more than ", kMaxDocumentNodes,
      " YAML/JSON nodes in one document (nodeplan::limits::kMaxDocumentNodes; "
      "line ",
      line, ", column ", column, "); split the input into documents"));
}

}  // namespace nodeplan::manifest
