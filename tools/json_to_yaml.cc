#include "json_to_yaml.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nodeplan::cli {
namespace {

// An order-preserving JSON value.
struct JsonField;

struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  std::string text;  // number text, string value, or "true"/"false"
  std::vector<Json> items;
  // Not std::pair<std::string, Json>: a pair of an incomplete type, which
  // clang's standard-library checks refuse (the fuzz build uses clang).
  std::vector<JsonField> fields;
};

struct JsonField {
  std::string key;
  Json value;
};

class Parser {
 public:
  explicit Parser(absl::string_view s) : s_(s) {}

  absl::StatusOr<Json> ParseDocument() {
    absl::StatusOr<Json> v = Parse(0);
    if (!v.ok()) return v;
    SkipSpace();
    if (pos_ != s_.size()) return Error("trailing characters");
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON: ", what, " at offset ", pos_));
  }

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' ||
                                s_[pos_] == '\t' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(absl::string_view word) {
    if (absl::StartsWith(s_.substr(pos_), word)) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  absl::StatusOr<Json> Parse(int depth) {
    if (depth > 200) return Error("nesting too deep");
    SkipSpace();
    if (pos_ >= s_.size()) return Error("unexpected end");
    Json v;
    const char c = s_[pos_];
    if (c == '{') {
      v.kind = Json::kObject;
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return v;
      }
      while (true) {
        SkipSpace();
        absl::StatusOr<std::string> key = ParseString();
        if (!key.ok()) return key.status();
        SkipSpace();
        if (!Consume(":")) return Error("expected ':'");
        absl::StatusOr<Json> value = Parse(depth + 1);
        if (!value.ok()) return value;
        v.fields.push_back(JsonField{*std::move(key), *std::move(value)});
        SkipSpace();
        if (Consume(",")) continue;
        if (Consume("}")) return v;
        return Error("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::kArray;
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return v;
      }
      while (true) {
        absl::StatusOr<Json> item = Parse(depth + 1);
        if (!item.ok()) return item;
        v.items.push_back(*std::move(item));
        SkipSpace();
        if (Consume(",")) continue;
        if (Consume("]")) return v;
        return Error("expected ',' or ']'");
      }
    }
    if (c == '"') {
      absl::StatusOr<std::string> str = ParseString();
      if (!str.ok()) return str.status();
      v.kind = Json::kString;
      v.text = *std::move(str);
      return v;
    }
    if (Consume("true") || Consume("false")) {
      v.kind = Json::kBool;
      v.text = s_[pos_ - 1] == 'e' && s_[pos_ - 2] == 'u' ? "true" : "false";
      return v;
    }
    if (Consume("null")) return v;
    const size_t start = pos_;
    while (pos_ < s_.size() &&
           (absl::ascii_isdigit(static_cast<unsigned char>(s_[pos_])) ||
            s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '.' ||
            s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
    }
    if (pos_ == start) return Error("unexpected character");
    v.kind = Json::kNumber;
    v.text = std::string(s_.substr(start, pos_ - start));
    return v;
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  absl::StatusOr<uint32_t> Hex4() {
    if (pos_ + 4 > s_.size()) return Error("short \\u escape");
    uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') {
        cp |= static_cast<uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        cp |= static_cast<uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        cp |= static_cast<uint32_t>(h - 'A' + 10);
      } else {
        return Error("bad \\u escape");
      }
    }
    return cp;
  }

  absl::StatusOr<std::string> ParseString() {
    if (!Consume("\"")) return Error("expected '\"'");
    std::string out;
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          absl::StatusOr<uint32_t> cp = Hex4();
          if (!cp.ok()) return cp.status();
          uint32_t code = *cp;
          if (code >= 0xD800 && code < 0xDC00 && Consume("\\u")) {
            absl::StatusOr<uint32_t> low = Hex4();
            if (!low.ok()) return low.status();
            code = 0x10000 + ((code - 0xD800) << 10) + (*low - 0xDC00);
          }
          AppendUtf8(code, &out);
          break;
        }
        default:
          out.push_back(e);
          break;  // \" \\ \/
      }
    }
    return Error("unterminated string");
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u == 0x7F) {
          absl::StrAppendFormat(&out, "\\x%02x", u);
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

std::string Scalar(const Json& v) {
  switch (v.kind) {
    case Json::kNull:
      return "null";
    case Json::kBool:
      return v.text;
    case Json::kNumber: {
      // YAML 1.1 readers need a '.' in a float with an exponent: 1e-05 ->
      // 1.0e-05.
      const size_t e = v.text.find_first_of("eE");
      if (e != std::string::npos && v.text.find('.') == std::string::npos) {
        return absl::StrCat(v.text.substr(0, e), ".0", v.text.substr(e));
      }
      return v.text;
    }
    case Json::kString:
      return YamlNeedsQuotes(v.text) ? Quote(v.text) : v.text;
    default:
      return "";
  }
}

bool IsEmptyCollection(const Json& v) {
  return (v.kind == Json::kObject && v.fields.empty()) ||
         (v.kind == Json::kArray && v.items.empty());
}

void Emit(const Json& v, int indent, std::string* out);

// A mapping; its first line is prefixed by `first_prefix` (which is "- " for
// a mapping inside a sequence) instead of the indent.
void EmitObject(const Json& v, int indent, absl::string_view first_prefix,
                std::string* out) {
  bool first = true;
  for (const auto& [key, value] : v.fields) {
    if (first && !first_prefix.empty()) {
      absl::StrAppend(out, std::string(indent - first_prefix.size(), ' '),
                      first_prefix);
    } else {
      absl::StrAppend(out, std::string(indent, ' '));
    }
    first = false;
    absl::StrAppend(out, YamlNeedsQuotes(key) ? Quote(key) : key, ":");
    if (value.kind == Json::kObject && !value.fields.empty()) {
      out->push_back('\n');
      EmitObject(value, indent + 2, "", out);
    } else if (value.kind == Json::kArray && !value.items.empty()) {
      // kubectl style: the sequence's dashes at the key's indent.
      out->push_back('\n');
      Emit(value, indent, out);
    } else if (IsEmptyCollection(value)) {
      absl::StrAppend(out, value.kind == Json::kObject ? " {}\n" : " []\n");
    } else {
      absl::StrAppend(out, " ", Scalar(value), "\n");
    }
  }
}

void Emit(const Json& v, int indent, std::string* out) {
  if (v.kind == Json::kObject) {
    if (v.fields.empty()) {
      absl::StrAppend(out, std::string(indent, ' '), "{}\n");
    } else {
      EmitObject(v, indent, "", out);
    }
    return;
  }
  if (v.kind == Json::kArray) {
    if (v.items.empty()) {
      absl::StrAppend(out, std::string(indent, ' '), "[]\n");
      return;
    }
    for (const Json& item : v.items) {
      if (item.kind == Json::kObject && !item.fields.empty()) {
        EmitObject(item, indent + 2, "- ", out);
      } else if (item.kind == Json::kArray && !item.items.empty()) {
        absl::StrAppend(out, std::string(indent, ' '), "-\n");
        Emit(item, indent + 2, out);
      } else if (IsEmptyCollection(item)) {
        absl::StrAppend(out, std::string(indent, ' '), "- ",
                        item.kind == Json::kObject ? "{}" : "[]", "\n");
      } else {
        absl::StrAppend(out, std::string(indent, ' '), "- ", Scalar(item),
                        "\n");
      }
    }
    return;
  }
  absl::StrAppend(out, std::string(indent, ' '), Scalar(v), "\n");
}

}  // namespace

bool YamlNeedsQuotes(absl::string_view s) {
  if (s.empty()) return true;
  // Words YAML 1.1 or 1.2 reads as booleans or null.
  const std::string lower = absl::AsciiStrToLower(s);
  for (absl::string_view w :
       {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}) {
    if (lower == w) return true;
  }
  // Numbers, dates, times, .inf/.nan and signed values all start like this.
  const char first = s.front();
  if (absl::ascii_isdigit(static_cast<unsigned char>(first)) || first == '.' ||
      first == '+' || first == '-') {
    return true;
  }
  if (!absl::ascii_isalpha(static_cast<unsigned char>(first)) && first != '_' &&
      first != '/') {
    return true;  // indicators: ! & * ? | > ' " % @ ` # , [ ] { } : and more
  }
  if (s.back() == ' ' || s.back() == ':') return true;
  if (absl::StrContains(s, ": ") || absl::StrContains(s, " #")) return true;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return true;
    if (c == '"' || c == '\'' || c == '\\' || c == '`' || c == '{' ||
        c == '}' || c == '[' || c == ']' || c == ',' || c == '&' || c == '*' ||
        c == '!' || c == '|' || c == '>' || c == '#') {
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::string> JsonToYaml(absl::string_view json) {
  absl::StatusOr<Json> v = Parser(json).ParseDocument();
  if (!v.ok()) return v.status();
  std::string out;
  Emit(*v, 0, &out);
  return out;
}

}  // namespace nodeplan::cli
