// LoadManifests: read documents (JSON or block-YAML fast paths, or libyaml),
// dispatch each object on apiVersion/kind, fill it through the schema-directed
// builder and report unmodelled constructs as findings.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "manifest/builder.h"
#include "manifest/limits.h"
#include "manifest/readers.h"
#include "manifest/schema.h"
#include "manifest/tape.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

using google::protobuf::FieldDescriptor;
using manifest::Builder;
using manifest::FindKey;
using manifest::IsNull;
using manifest::MessageSchema;
using manifest::NodeType;
using manifest::PathTo;
using manifest::Problem;
using manifest::ScalarAt;
using manifest::Tape;

constexpr char kCatalogApiVersion[] = "nodeplan.dev/v1";

struct KindEntry {
  const char* api_version;
  const char* kind;
  const char* set_field;  // the ManifestSet field that collects it
};
constexpr KindEntry kKinds[] = {
    {"v1", "Pod", "pods"},
    {"v1", "Node", "nodes"},
    {"v1", "Namespace", "namespaces"},
    {"v1", "PersistentVolumeClaim", "persistent_volume_claims"},
    {"v1", "PersistentVolume", "persistent_volumes"},
    {"apps/v1", "DaemonSet", "daemon_sets"},
    {"apps/v1", "Deployment", "deployments"},
    {"policy/v1", "PodDisruptionBudget", "pod_disruption_budgets"},
    {"storage.k8s.io/v1", "StorageClass", "storage_classes"},
    {"storage.k8s.io/v1", "CSINode", "csi_nodes"},
    {"karpenter.sh/v1", "NodePool", "node_pools"},
    {"karpenter.sh/v1", "NodeClaim", "node_claims"},
    {"karpenter.sh/v1alpha1", "NodeOverlay", "node_overlays"},
    {"eks.amazonaws.com/v1", "NodeClass", "node_classes"},
    {kCatalogApiVersion, "Catalog", "catalogs"},
};

struct Target {
  const FieldDescriptor* set_field = nullptr;
  const MessageSchema* schema = nullptr;
};

// Resolved once: kKinds[i] -> the ManifestSet field and the object schema.
const std::vector<Target>& Targets() {
  static const std::vector<Target>* const targets = [] {
    auto* out = new std::vector<Target>();
    const auto* set = v1::ManifestSet::descriptor();
    for (const KindEntry& k : kKinds) {
      Target t;
      t.set_field = set->FindFieldByName(k.set_field);
      t.schema = manifest::SchemaFor(t.set_field->message_type());
      out->push_back(t);
    }
    return out;
  }();
  return *targets;
}

const Target* FindTarget(absl::string_view api_version,
                         absl::string_view kind) {
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    if (api_version == kKinds[i].api_version && kind == kKinds[i].kind) {
      return &Targets()[i];
    }
  }
  return nullptr;
}

class Loader {
 public:
  Loader(const v1::LoadOptions& options, v1::ManifestSet* set)
      : options_(options), set_(set) {}

  absl::Status Document(const Tape& tape, int document) {
    if (tape.nodes.empty()) return absl::OkStatus();
    const manifest::Node& root = tape.nodes[0];
    if (IsNull(root)) return absl::OkStatus();  // an empty document
    if (root.type != NodeType::kMapStart) {
      return Error(tape, 0, 0, document, -1,
                   "a document must be a mapping (an object)");
    }
    absl::string_view kind = ScalarAt(tape, 0, "kind");
    const int64_t items = FindKey(tape, 0, "items");
    if (items >= 0 && (kind == "List" || absl::EndsWith(kind, "List"))) {
      const manifest::Node& list = tape.nodes[items];
      if (IsNull(list)) return absl::OkStatus();
      if (list.type != NodeType::kSeqStart) {
        return Error(tape, 0, static_cast<uint32_t>(items), document, -1,
                     "expected a sequence of objects");
      }
      // The API server's typed lists (PodList) leave apiVersion and kind off
      // their items: they are the list's own, without "List".
      const absl::string_view item_api = ScalarAt(tape, 0, "apiVersion");
      const absl::string_view item_kind = kind == "List"
                                              ? absl::string_view()
                                              : kind.substr(0, kind.size() - 4);
      item_kind_ = item_kind;
      int index = 0;
      for (uint32_t e = static_cast<uint32_t>(items) + 1; e < list.end;
           e = tape.Skip(e), ++index) {
        if (IsNull(tape.nodes[e])) continue;
        absl::Status st = Object(tape, e, document, index, item_api, item_kind);
        if (!st.ok()) return st;
      }
      return absl::OkStatus();
    }
    return Object(tape, 0, document, -1, "", "");
  }

 private:
  // "document 3" or "document 3, items[7]".
  static std::string Where(int document, int item) {
    if (item < 0) return absl::StrCat("document ", document);
    return absl::StrCat("document ", document, ", items[", item, "]");
  }

  // "Pod default/web-0", "NodePool general-purpose", or just the kind.
  // "Pod default/web-0", "NodePool general-purpose", "object x" (no kind),
  // or just the kind.
  static std::string ObjectName(const Tape& tape, uint32_t root,
                                absl::string_view kind) {
    std::string out = kind.empty() ? "object" : std::string(kind);
    const int64_t md = FindKey(tape, root, "metadata");
    absl::string_view name =
        md < 0 ? absl::string_view() : ScalarAt(tape, md, "name");
    absl::string_view ns =
        md < 0 ? absl::string_view() : ScalarAt(tape, md, "namespace");
    if (name.empty()) return kind.empty() ? "" : out;
    out += ' ';
    if (!ns.empty()) absl::StrAppend(&out, ns, "/");
    absl::StrAppend(&out, name);
    return out;
  }

  std::string Prefix(const Tape& tape, uint32_t root, int document,
                     int item) const {
    std::string out = Where(document, item);
    absl::string_view kind = ScalarAt(tape, root, "kind");
    if (kind.empty() && item >= 0) kind = item_kind_;
    std::string name = ObjectName(tape, root, kind);
    if (!name.empty()) absl::StrAppend(&out, ": ", name);
    return out;
  }

  absl::Status Error(const Tape& tape, uint32_t root, uint32_t node,
                     int document, int item, absl::string_view what) const {
    std::string path = PathTo(tape, root, node);
    const manifest::Node& n = tape.nodes[node];
    return absl::InvalidArgumentError(
        absl::StrCat(Prefix(tape, root, document, item), ": ", path,
                     path.empty() ? "" : ": ", what, " (line ", n.line,
                     ", column ", n.column, ")"));
  }

  // `default_api`/`default_kind` apply when the object names no kind.
  absl::Status Object(const Tape& tape, uint32_t root, int document, int item,
                      absl::string_view default_api,
                      absl::string_view default_kind) {
    if (tape.nodes[root].type != NodeType::kMapStart) {
      return Error(tape, root, root, document, item,
                   "expected an object (a mapping)");
    }
    absl::string_view api_version = ScalarAt(tape, root, "apiVersion");
    absl::string_view kind = ScalarAt(tape, root, "kind");
    const bool inferred = kind.empty() && !default_kind.empty();
    if (inferred) {
      api_version = default_api;
      kind = default_kind;
    }
    const Target* target = FindTarget(api_version, kind);
    if (target == nullptr && kind.empty() &&
        (api_version.empty() || api_version == kCatalogApiVersion) &&
        FindKey(tape, root, "instanceTypes") >= 0) {
      target = FindTarget(kCatalogApiVersion, "Catalog");
    }
    if (target == nullptr) {
      std::string what =
          kind.empty() ? std::string(
                             "no kind: expected apiVersion and kind, or a "
                             "catalog with instanceTypes")
                       : absl::StrCat("unsupported kind \"", kind,
                                      "\" of apiVersion \"", api_version, "\"");
      // A known kind under another apiVersion: say which one is expected.
      for (const KindEntry& k : kKinds) {
        if (!kind.empty() && kind == k.kind) {
          absl::StrAppend(&what, ": ", k.kind, " needs apiVersion \"",
                          k.api_version, "\"");
          break;
        }
      }
      if (!options_.skip_unknown_kinds()) {
        return Error(tape, root, root, document, item, what);
      }
      v1::Finding* f = set_->add_findings();
      f->set_object(
          absl::StrCat(Source(), ": ", Prefix(tape, root, document, item)));
      f->set_message(absl::StrCat("skipped: ", what));
      return absl::OkStatus();
    }
    google::protobuf::Message* object =
        set_->GetReflection()->AddMessage(set_, target->set_field);
    // A catalog is nodeplan's own format: a misspelt field is an error,
    // not a field silently left at its default.
    Builder builder(
        tape, /*strict=*/target == FindTarget(kCatalogApiVersion, "Catalog"));
    if (!builder.Fill(root, *target->schema, object)) {
      return Error(tape, root, builder.error().node, document, item,
                   builder.error().message);
    }
    if (inferred) {
      const auto* d = object->GetDescriptor();
      const auto* r = object->GetReflection();
      r->SetString(object, d->FindFieldByName("api_version"),
                   std::string(api_version));
      r->SetString(object, d->FindFieldByName("kind"), std::string(kind));
    }
    if (options_.record_origins()) {
      v1::ObjectOrigin* origin = set_->add_origins();
      origin->set_object(ObjectName(tape, root, kind));
      origin->set_location(absl::StrCat(Source(), ": ", Where(document, item),
                                        " (line ", tape.nodes[root].line, ")"));
    }
    for (const Problem& p : builder.findings()) {
      v1::Finding* f = set_->add_findings();
      f->set_object(
          absl::StrCat(Source(), ": ", Prefix(tape, root, document, item)));
      f->set_field_path(PathTo(tape, root, p.node));
      const manifest::Node& n = tape.nodes[p.node];
      f->set_message(absl::StrCat(p.message, " (line ", n.line, ", column ",
                                  n.column, ")"));
    }
    return absl::OkStatus();
  }

  absl::string_view Source() const {
    if (options_.source_name().empty()) return "<input>";
    return options_.source_name();
  }

  const v1::LoadOptions& options_;
  v1::ManifestSet* set_;
  // The kind items of the current typed list inherit (for names).
  absl::string_view item_kind_;
};

bool LooksLikeJson(absl::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace

absl::StatusOr<v1::ManifestSet> LoadManifests(absl::string_view text,
                                              const v1::LoadOptions& options) {
  const std::string source = options.source_name().empty()
                                 ? std::string("<input>")
                                 : options.source_name();
  if (text.size() > manifest::kMaxInputBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": input is ", text.size(), " bytes, more than the limit of ",
        manifest::kMaxInputBytes, " bytes"));
  }
  auto prefixed = [&](const absl::Status& st) {
    return absl::Status(st.code(), absl::StrCat(source, ": ", st.message()));
  };
  v1::ManifestSet set;
  if (LooksLikeJson(text)) {
    Loader loader(options, &set);
    bool syntax_error = false;
    absl::Status st = manifest::ReadJson(
        text,
        [&](const Tape& tape, int doc) { return loader.Document(tape, doc); },
        &syntax_error);
    if (!syntax_error) {
      if (!st.ok()) return prefixed(st);
      return set;
    }
    // Not strict JSON: YAML flow syntax is a superset, let libyaml decide.
    set.Clear();
  }
  {
    // The fast reader either gives exactly libyaml's tapes or falls back.
    Loader loader(options, &set);
    bool fallback = false;
    absl::Status st = manifest::ReadYamlFast(
        text,
        [&](const Tape& tape, int doc) { return loader.Document(tape, doc); },
        &fallback);
    if (!fallback) {
      if (!st.ok()) return prefixed(st);
      return set;
    }
    set.Clear();
  }
  Loader loader(options, &set);
  absl::Status st = manifest::ReadYaml(text, [&](const Tape& tape, int doc) {
    return loader.Document(tape, doc);
  });
  if (!st.ok()) return prefixed(st);
  return set;
}

}  // namespace nodeplan
