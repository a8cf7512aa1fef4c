#ifndef NODEPLAN_TESTS_CLI_YAML_TO_JSON_H_
#define NODEPLAN_TESTS_CLI_YAML_TO_JSON_H_

// Test helper: reads one YAML document with libyaml and writes it as JSON,
// resolving plain scalars by the YAML 1.2 core schema (null, booleans,
// numbers) and keeping quoted scalars strings — an independent reader to
// check that `nodeplan -o yaml` means what its JSON means.

#include <string>
#include <vector>

#include "yaml.h"

namespace nodeplan::testing {

inline std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

inline bool IsCoreNumber(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t digits = 0;
  while (i < s.size() && isdigit(static_cast<unsigned char>(s[i])))
    ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i])))
      ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp = 0;
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i])))
      ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size();
}

// All documents of `yaml`, each as JSON; false on a parse error.
inline bool YamlDocumentsToJson(const std::string& yaml,
                                std::vector<std::string>* docs) {
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(
      &parser, reinterpret_cast<const unsigned char*>(yaml.data()),
      yaml.size());
  // Per open collection: is it a mapping, and how many items so far.
  struct Frame {
    bool mapping;
    int items;
  };
  std::vector<Frame> stack;
  std::string out;
  bool ok = true;
  auto before_value = [&]() {
    if (stack.empty()) return;
    Frame& f = stack.back();
    if (f.mapping) {
      out += (f.items % 2 == 0) ? (f.items > 0 ? "," : "") : ":";
    } else if (f.items > 0) {
      out += ",";
    }
    ++f.items;
  };
  while (ok) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event)) {
      ok = false;
      break;
    }
    const yaml_event_type_t type = event.type;
    if (type == YAML_STREAM_END_EVENT) {
      yaml_event_delete(&event);
      break;
    }
    switch (type) {
      case YAML_DOCUMENT_START_EVENT:
        out.clear();
        break;
      case YAML_DOCUMENT_END_EVENT:
        docs->push_back(out);
        break;
      case YAML_MAPPING_START_EVENT:
        before_value();
        out += "{";
        stack.push_back({true, 0});
        break;
      case YAML_MAPPING_END_EVENT:
        out += "}";
        stack.pop_back();
        break;
      case YAML_SEQUENCE_START_EVENT:
        before_value();
        out += "[";
        stack.push_back({false, 0});
        break;
      case YAML_SEQUENCE_END_EVENT:
        out += "]";
        stack.pop_back();
        break;
      case YAML_SCALAR_EVENT: {
        const bool is_key = !stack.empty() && stack.back().mapping &&
                            stack.back().items % 2 == 0;
        before_value();
        const std::string v(reinterpret_cast<char*>(event.data.scalar.value),
                            event.data.scalar.length);
        const bool plain = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (is_key || !plain) {
          out += JsonQuote(v);
        } else if (v == "null" || v == "~" || v.empty()) {
          out += "null";
        } else if (v == "true" || v == "false") {
          out += v;
        } else if (IsCoreNumber(v)) {
          out += v;
        } else {
          out += JsonQuote(v);
        }
        break;
      }
      default:
        break;
    }
    yaml_event_delete(&event);
  }
  yaml_parser_delete(&parser);
  return ok;
}

}  // namespace nodeplan::testing

#endif  // NODEPLAN_TESTS_CLI_YAML_TO_JSON_H_
