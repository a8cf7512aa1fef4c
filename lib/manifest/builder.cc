#include "manifest/builder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/reflection.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan::manifest {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// "the scalar "abc"" with long text shortened.
std::string Describe(const Node& n) {
  switch (n.type) {
    case NodeType::kMapStart:
      return "a mapping";
    case NodeType::kSeqStart:
      return "a sequence";
    default:
      break;
  }
  absl::string_view t = n.text();
  if (t.size() > 60) return absl::StrCat("\"", t.substr(0, 57), "...\"");
  return absl::StrCat("\"", t, "\"");
}

const char* KindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kString:
    case FieldKind::kBytes:
      return "a string";
    case FieldKind::kInt32:
    case FieldKind::kInt64:
    case FieldKind::kUInt32:
    case FieldKind::kUInt64:
      return "an integer";
    case FieldKind::kBool:
      return "a boolean";
    case FieldKind::kDouble:
    case FieldKind::kFloat:
      return "a number";
    case FieldKind::kEnum:
      return "an enum name";
    case FieldKind::kMessage:
    case FieldKind::kMap:
      return "a mapping";
  }
  return "a value";
}

// Decimal integer text (an optional sign, digits) in [lo, hi].
template <typename T>
bool ParseInteger(absl::string_view text, T* out) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return false;
  if constexpr (std::is_unsigned_v<T>) {
    if (*b == '-') return false;
  }
  auto [ptr, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && ptr == e;
}

// An optional sign then digits: an integer, perhaps out of range.
bool LooksInteger(absl::string_view t) {
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  return !t.empty() && t.find_first_not_of("0123456789") == t.npos;
}

bool ParseBool(absl::string_view t, bool* out) {
  // YAML 1.1 booleans, as kubectl's YAML reader resolves them.
  static constexpr absl::string_view kTrue[] = {
      "true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON"};
  static constexpr absl::string_view kFalse[] = {
      "false", "False", "FALSE", "n",   "N",  "no",
      "No",    "NO",    "off",   "Off", "OFF"};
  for (absl::string_view w : kTrue) {
    if (t == w) {
      *out = true;
      return true;
    }
  }
  for (absl::string_view w : kFalse) {
    if (t == w) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool ParseDouble(absl::string_view text, double* out) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return false;
  auto [ptr, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && ptr == e && std::isfinite(*out);
}

// YAML 1.1's merge key: kubectl's reader would merge the mapping it names;
// nodeplan does not, and must not take "<<" for a field or a resource name.
bool IsMergeKey(const Node& key) { return key.plain && key.text() == "<<"; }
constexpr char kMergeKeyError[] =
    "YAML merge keys (<<) are not supported; write the keys out in full";

// Levenshtein distance, ASCII case folded (reservationId vs reservationID
// is 0 here, so a case slip always finds its field).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same =
          absl::ascii_tolower(static_cast<unsigned char>(a[i - 1])) ==
          absl::ascii_tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// "unknown field "reservationId"; did you mean "reservationID"?" The
// nearest of the message's JSON names; keys longer than any field name are
// not compared (bounded work for hostile keys).
std::string UnknownFieldMessage(absl::string_view key,
                                const MessageSchema& schema) {
  std::string shown(key.substr(0, 60));
  if (key.size() > 60) shown += "...";
  std::string message = absl::StrCat("unknown field \"", shown, "\"");
  const auto* d = schema.descriptor;
  if (d == nullptr || key.size() > 64) return message;
  std::string best;
  size_t best_distance = 0;
  for (int f = 0; f < d->field_count(); ++f) {
    const std::string& name = d->field(f)->json_name();
    const size_t distance = EditDistance(key, name);
    if (best.empty() || distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  if (!best.empty() && best_distance <= std::max<size_t>(2, key.size() / 3)) {
    absl::StrAppend(&message, "; did you mean \"", best, "\"?");
  } else {
    std::vector<std::string> names;
    for (int f = 0; f < d->field_count(); ++f) {
      names.push_back(d->field(f)->json_name());
    }
    std::sort(names.begin(), names.end());
    absl::StrAppend(&message, "; known fields: ", absl::StrJoin(names, ", "));
  }
  return message;
}

}  // namespace

bool Builder::Fail(uint32_t node, std::string message) {
  error_.node = node;
  error_.message = std::move(message);
  return false;
}

bool Builder::IsEmpty(uint32_t node) const {
  const Node& n = tape_.nodes[node];
  if (n.type == NodeType::kScalar) return IsNull(n) || n.size == 0;
  return n.end == node + 1;
}

bool Builder::Fill(uint32_t node, const MessageSchema& schema,
                   Message* message) {
  const Node& map = tape_.nodes[node];
  if (map.type != NodeType::kMapStart) {
    return Fail(node, absl::StrCat("expected a mapping, got ", Describe(map)));
  }
  // Fields already set from this mapping, by field index.
  uint64_t seen[4] = {0, 0, 0, 0};
  uint32_t i = node + 1;
  while (i < map.end) {
    const Node& key = tape_.nodes[i];
    const uint32_t value = tape_.Skip(i);
    const uint32_t next = tape_.Skip(value);
    if (key.type != NodeType::kScalar) {
      return Fail(i, "mapping keys must be scalars");
    }
    if (IsMergeKey(key)) return Fail(i, kMergeKeyError);
    const FieldInfo* field = schema.Find(key.text());
    if (field == nullptr && strict_) {
      return Fail(i, UnknownFieldMessage(key.text(), schema));
    }
    if (field == nullptr) {
      if (!schema.unmodelled_keys.empty() && !IsEmpty(value)) {
        auto it = schema.unmodelled_keys.find(key.text());
        if (it != schema.unmodelled_keys.end()) {
          findings_.push_back({i, it->second});
        }
      }
      i = next;
      continue;
    }
    const int index = field->field->index();
    if (index < 256) {
      uint64_t bit = uint64_t{1} << (index % 64);
      if (seen[index / 64] & bit) {
        return Fail(i, absl::StrCat("duplicate key \"", key.text(), "\""));
      }
      seen[index / 64] |= bit;
    }
    if (field->unmodelled != nullptr && !IsEmpty(value)) {
      findings_.push_back({i, field->unmodelled});
    }
    if (!FillField(value, *field, message)) return false;
    i = next;
  }
  if (schema.present_empty != nullptr) {
    RecordPresentEmpty(node, *schema.present_empty, message);
  }
  return true;
}

bool Builder::FillField(uint32_t value, const FieldInfo& field,
                        Message* message) {
  const Node& v = tape_.nodes[value];
  if (IsNull(v)) return true;  // null means the default
  const Reflection* r = message->GetReflection();
  const FieldDescriptor* fd = field.field;
  if (field.kind == FieldKind::kMap) return FillMap(value, field, message);
  if (field.repeated) {
    if (v.type != NodeType::kSeqStart) {
      return Fail(value,
                  absl::StrCat("expected a sequence, got ", Describe(v)));
    }
    for (uint32_t e = value + 1; e < v.end; e = tape_.Skip(e)) {
      if (field.kind == FieldKind::kMessage) {
        Message* item = r->AddMessage(message, fd);
        if (IsNull(tape_.nodes[e])) continue;
        if (!Fill(e, *field.message, item)) return false;
      } else if (!SetScalar(e, field, /*add=*/true, message)) {
        return false;
      }
    }
    return true;
  }
  if (field.kind == FieldKind::kMessage) {
    return Fill(value, *field.message, r->MutableMessage(message, fd));
  }
  return SetScalar(value, field, /*add=*/false, message);
}

bool Builder::FillMap(uint32_t value, const FieldInfo& field,
                      Message* message) {
  const Node& v = tape_.nodes[value];
  if (v.type != NodeType::kMapStart) {
    return Fail(value, absl::StrCat("expected a mapping, got ", Describe(v)));
  }
  const MessageSchema& entry_schema = *field.message;
  const Reflection* r = message->GetReflection();
  // Duplicate keys are an error, as in kubectl's YAML reader. Small maps
  // (labels, requests) scan linearly; large ones use a set.
  absl::InlinedVector<absl::string_view, 16> small;
  absl::flat_hash_set<absl::string_view> large;
  for (uint32_t k = value + 1; k < v.end;) {
    const Node& key = tape_.nodes[k];
    const uint32_t val = tape_.Skip(k);
    if (key.type != NodeType::kScalar) {
      return Fail(k, "mapping keys must be scalars");
    }
    if (IsMergeKey(key)) return Fail(k, kMergeKeyError);
    bool duplicate = false;
    if (large.empty() && small.size() < 16) {
      for (absl::string_view s : small)
        duplicate = duplicate || s == key.text();
      small.push_back(key.text());
    } else {
      if (large.empty()) large.insert(small.begin(), small.end());
      duplicate = !large.insert(key.text()).second;
    }
    if (duplicate) {
      return Fail(k, absl::StrCat("duplicate key \"", key.text(), "\""));
    }
    Message* entry = r->AddMessage(message, field.field);
    if (!SetScalar(k, *entry_schema.map_key, false, entry)) return false;
    const FieldInfo& vf = *entry_schema.map_value;
    if (vf.kind == FieldKind::kMessage) {
      if (!IsNull(tape_.nodes[val]) &&
          !Fill(val, *vf.message,
                entry->GetReflection()->MutableMessage(entry, vf.field))) {
        return false;
      }
    } else if (!IsNull(tape_.nodes[val]) && !SetScalar(val, vf, false, entry)) {
      return false;
    }
    k = tape_.Skip(val);
  }
  return true;
}

bool Builder::SetScalar(uint32_t value, const FieldInfo& field, bool add,
                        Message* message) {
  const Node& n = tape_.nodes[value];
  if (n.type != NodeType::kScalar) {
    return Fail(value, absl::StrCat("expected ", KindName(field.kind), ", got ",
                                    Describe(n)));
  }
  const Reflection* r = message->GetReflection();
  const FieldDescriptor* fd = field.field;
  const bool null = IsNull(n);
  const absl::string_view text = null ? absl::string_view() : n.text();
  auto bad = [&]() {
    return Fail(value, absl::StrCat("expected ", KindName(field.kind), ", got ",
                                    Describe(n)));
  };
  auto out_of_range = [&](const char* type) {
    return Fail(value,
                absl::StrCat("value ", Describe(n), " is not a valid ", type));
  };
  switch (field.kind) {
    case FieldKind::kString:
    case FieldKind::kBytes:
      if (add) {
        r->AddString(message, fd, std::string(text));
      } else {
        r->SetString(message, fd, std::string(text));
      }
      return true;
    case FieldKind::kInt32: {
      int32_t v = 0;
      if (!null && !ParseInteger(text, &v)) {
        return LooksInteger(text) ? out_of_range("int32") : bad();
      }
      add ? r->AddInt32(message, fd, v) : r->SetInt32(message, fd, v);
      return true;
    }
    case FieldKind::kInt64: {
      int64_t v = 0;
      if (!null && !ParseInteger(text, &v)) {
        return LooksInteger(text) ? out_of_range("int64") : bad();
      }
      add ? r->AddInt64(message, fd, v) : r->SetInt64(message, fd, v);
      return true;
    }
    case FieldKind::kUInt32: {
      uint32_t v = 0;
      if (!null && !ParseInteger(text, &v)) {
        return LooksInteger(text) ? out_of_range("uint32") : bad();
      }
      add ? r->AddUInt32(message, fd, v) : r->SetUInt32(message, fd, v);
      return true;
    }
    case FieldKind::kUInt64: {
      uint64_t v = 0;
      if (!null && !ParseInteger(text, &v)) {
        return LooksInteger(text) ? out_of_range("uint64") : bad();
      }
      add ? r->AddUInt64(message, fd, v) : r->SetUInt64(message, fd, v);
      return true;
    }
    case FieldKind::kBool: {
      bool v = false;
      if (!null && !ParseBool(text, &v)) return bad();
      add ? r->AddBool(message, fd, v) : r->SetBool(message, fd, v);
      return true;
    }
    case FieldKind::kDouble:
    case FieldKind::kFloat: {
      double v = 0;
      if (!null && !ParseDouble(text, &v)) return bad();
      if (field.kind == FieldKind::kFloat) {
        add ? r->AddFloat(message, fd, static_cast<float>(v))
            : r->SetFloat(message, fd, static_cast<float>(v));
      } else {
        add ? r->AddDouble(message, fd, v) : r->SetDouble(message, fd, v);
      }
      return true;
    }
    case FieldKind::kEnum: {
      const auto* ev =
          null ? fd->enum_type()->value(0)
               : fd->enum_type()->FindValueByName(std::string(text));
      if (ev == nullptr) return bad();
      add ? r->AddEnum(message, fd, ev) : r->SetEnum(message, fd, ev);
      return true;
    }
    case FieldKind::kMessage:
    case FieldKind::kMap:
      return bad();
  }
  return bad();
}

void Builder::RecordPresentEmpty(uint32_t node,
                                 const std::vector<PresentEmptyPath>& paths,
                                 Message* message) {
  auto is_empty = [&](int64_t n, bool map) {
    if (n < 0) return false;
    const NodeType start = map ? NodeType::kMapStart : NodeType::kSeqStart;
    return tape_.nodes[n].type == start && tape_.nodes[n].end == n + 1;
  };
  const google::protobuf::FieldDescriptor* out =
      message->GetDescriptor()->FindFieldByName("present_empty_fields");
  const google::protobuf::Reflection* r = message->GetReflection();
  // What the input already recorded (a round trip through JSON) is kept;
  // the field is rewritten in the table's order, without duplicates.
  std::vector<std::string> found;
  for (int k = 0; k < r->FieldSize(*message, out); ++k) {
    found.push_back(r->GetRepeatedString(*message, out, k));
  }
  for (const PresentEmptyPath& p : paths) {
    int64_t at = node;
    for (absl::string_view key : absl::StrSplit(p.path, '.')) {
      if (at < 0 || tape_.nodes[at].type != NodeType::kMapStart) {
        at = -1;
        break;
      }
      at = FindKey(tape_, static_cast<uint32_t>(at), key);
    }
    if (is_empty(at, p.map)) found.emplace_back(p.path);
  }
  r->ClearField(message, out);
  for (const PresentEmptyPath& p : paths) {
    if (absl::c_linear_search(found, p.path)) {
      r->AddString(message, out, std::string(p.path));
    }
  }
}

}  // namespace nodeplan::manifest
