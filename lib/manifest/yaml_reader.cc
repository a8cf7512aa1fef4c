// libyaml's event parser feeding tapes.

#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "manifest/limits.h"
#include "manifest/readers.h"

namespace nodeplan::manifest {
namespace {

constexpr char kStrTag[] = "tag:yaml.org,2002:str";

// Owns a parser and the event in flight, so every exit frees both.
class Parser {
 public:
  explicit Parser(absl::string_view text) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) {
      yaml_parser_set_input_string(
          &parser_, reinterpret_cast<const unsigned char*>(text.data()),
          text.size());
    }
  }
  ~Parser() {
    if (has_event_) yaml_event_delete(&event_);
    if (ok_) yaml_parser_delete(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  bool initialized() const { return ok_; }

  // The next event, or nullptr on a syntax error.
  const yaml_event_t* Next() {
    if (has_event_) {
      yaml_event_delete(&event_);
      has_event_ = false;
    }
    if (!yaml_parser_parse(&parser_, &event_)) return nullptr;
    has_event_ = true;
    return &event_;
  }

  std::string ErrorText() const {
    std::string out = "YAML syntax error: ";
    if (parser_.context != nullptr) {
      absl::StrAppend(&out, parser_.context, ": ");
    }
    absl::StrAppend(&out,
                    parser_.problem != nullptr ? parser_.problem : "unknown",
                    " (line ", parser_.problem_mark.line + 1, ", column ",
                    parser_.problem_mark.column + 1, ")");
    return out;
  }

 private:
  yaml_parser_t parser_;
  yaml_event_t event_;
  bool ok_ = false;
  bool has_event_ = false;
};

// Tags that only restate what the plain text already says (the core
// schema's) are accepted; any other (!!binary, !!set, !custom...) would
// need a decoding nodeplan does not do, so it is refused rather than passed
// through undecoded.
absl::Status CheckTag(const yaml_char_t* raw, const yaml_event_t& e) {
  if (raw == nullptr) return absl::OkStatus();
  static constexpr absl::string_view kAccepted[] = {
      "tag:yaml.org,2002:str",   "tag:yaml.org,2002:int",
      "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
      "tag:yaml.org,2002:null",  "tag:yaml.org,2002:map",
      "tag:yaml.org,2002:seq",   "!"};
  const absl::string_view tag(reinterpret_cast<const char*>(raw));
  for (absl::string_view a : kAccepted) {
    if (tag == a) return absl::OkStatus();
  }
  std::string shown(tag);
  if (absl::StartsWith(tag, "tag:yaml.org,2002:")) {
    shown = absl::StrCat("!!", tag.substr(18));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "YAML tag ", shown, " is not supported (line ", e.start_mark.line + 1,
      ", column ", e.start_mark.column + 1, "); write the value untagged"));
}

Node StartNode(const yaml_event_t& e, NodeType type) {
  Node n;
  n.type = type;
  n.line = static_cast<uint32_t>(e.start_mark.line + 1);
  n.column = static_cast<uint32_t>(e.start_mark.column + 1);
  return n;
}

}  // namespace

absl::Status ReadYaml(absl::string_view text, DocumentSink sink) {
  Parser parser(text);
  if (!parser.initialized()) {
    return absl::ResourceExhaustedError("cannot initialise the YAML parser");
  }
  Tape tape;
  // About one node per 12 bytes of kubectl YAML: reserving once avoids
  // copying a large tape as it grows (pages not touched cost nothing).
  tape.nodes.reserve(std::min<size_t>(text.size() / 12 + 16, 1 << 24));
  std::vector<uint32_t> open;  // indices of unclosed collections
  int document = 0;
  auto error_at = [&](const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat("document ", std::max(document, 1), ": ", what));
  };
  while (true) {
    const yaml_event_t* e = parser.Next();
    if (e == nullptr) return error_at(parser.ErrorText());
    switch (e->type) {
      case YAML_STREAM_START_EVENT:
      case YAML_NO_EVENT:
        break;
      case YAML_STREAM_END_EVENT:
        return absl::OkStatus();
      case YAML_DOCUMENT_START_EVENT:
        ++document;
        tape.Clear();
        open.clear();
        break;
      case YAML_DOCUMENT_END_EVENT: {
        absl::Status st = sink(tape, document);
        if (!st.ok()) return st;
        break;
      }
      case YAML_ALIAS_EVENT:
        return error_at(absl::StrCat(
            "YAML aliases are not supported (*",
            reinterpret_cast<const char*>(e->data.alias.anchor), " at line ",
            e->start_mark.line + 1, ", column ", e->start_mark.column + 1,
            "); write the value out in full"));
      case YAML_SCALAR_EVENT: {
        if (tape.nodes.size() >= kMaxDocumentNodes) {
          return TooManyNodes(std::max(document, 1),
                              static_cast<uint32_t>(e->start_mark.line + 1),
                              static_cast<uint32_t>(e->start_mark.column + 1));
        }
        if (absl::Status st = CheckTag(e->data.scalar.tag, *e); !st.ok()) {
          return error_at(std::string(st.message()));
        }
        Node n = StartNode(*e, NodeType::kScalar);
        const char* tag = reinterpret_cast<const char*>(e->data.scalar.tag);
        n.plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                  (tag == nullptr || std::strcmp(tag, kStrTag) != 0);
        n.data = tape.arena.Copy(absl::string_view(
            reinterpret_cast<const char*>(e->data.scalar.value),
            e->data.scalar.length));
        n.size = static_cast<uint32_t>(e->data.scalar.length);
        tape.nodes.push_back(n);
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        // Only a mapping can be an object: refuse anything else before
        // building its tape (a root list can be most of the input).
        if (open.empty() && e->type == YAML_SEQUENCE_START_EVENT) {
          return RootNotMapping(
              std::max(document, 1),
              static_cast<uint32_t>(e->start_mark.line + 1),
              static_cast<uint32_t>(e->start_mark.column + 1));
        }
        if (tape.nodes.size() >= kMaxDocumentNodes) {
          return TooManyNodes(std::max(document, 1),
                              static_cast<uint32_t>(e->start_mark.line + 1),
                              static_cast<uint32_t>(e->start_mark.column + 1));
        }
        const yaml_char_t* tag = e->type == YAML_MAPPING_START_EVENT
                                     ? e->data.mapping_start.tag
                                     : e->data.sequence_start.tag;
        if (absl::Status st = CheckTag(tag, *e); !st.ok()) {
          return error_at(std::string(st.message()));
        }
        if (open.size() >= static_cast<size_t>(kMaxDepth)) {
          return error_at(absl::StrCat("nesting deeper than ", kMaxDepth,
                                       " levels (line ", e->start_mark.line + 1,
                                       ", column ", e->start_mark.column + 1,
                                       ")"));
        }
        open.push_back(static_cast<uint32_t>(tape.nodes.size()));
        tape.nodes.push_back(StartNode(*e, e->type == YAML_MAPPING_START_EVENT
                                               ? NodeType::kMapStart
                                               : NodeType::kSeqStart));
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        // libyaml guarantees balance; guard anyway.
        if (open.empty()) return error_at("unbalanced YAML collection end");
        uint32_t start = open.back();
        open.pop_back();
        tape.nodes[start].end = static_cast<uint32_t>(tape.nodes.size());
        Node n = StartNode(*e, e->type == YAML_MAPPING_END_EVENT
                                   ? NodeType::kMapEnd
                                   : NodeType::kSeqEnd);
        tape.nodes.push_back(n);
        break;
      }
    }
  }
}

}  // namespace nodeplan::manifest
