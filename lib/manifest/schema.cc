#include "manifest/schema.h"

#include <vector>

#include "google/protobuf/descriptor.pb.h"
#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan::manifest {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Constructs that change where a pod can go but that nodeplan does not model.
// They are reported as findings, never dropped in silence. `key` is the
// Kubernetes (JSON) key; it may or may not be a proto field.
struct Unmodelled {
  const char* message;
  const char* key;
  const char* text;
};
constexpr Unmodelled kUnmodelled[] = {
    {"nodeplan.v1.NodeSelectorTerm", "matchFields",
     "node affinity matchFields is not modelled: the term is evaluated "
     "without it"},
    {"nodeplan.v1.PodSpec", "resourceClaims",
     "dynamic resource allocation (resourceClaims) is not modelled: the "
     "claimed devices are not considered"},
    {"nodeplan.v1.ResourceRequirements", "claims",
     "dynamic resource allocation (resources.claims) is not modelled: the "
     "claimed devices are not considered"},
};

// Where Karpenter tells an empty map or list from an absent one: the NodePool
// hash ("labels: {}" hashes differently from no labels), the budgets'
// defaulting (an empty list is kept, so no budget limits disruption) and a
// budget's reasons (an empty list applies to no reason; absent, to all).
const std::vector<PresentEmptyPath>* PresentEmptyPathsOf(const Descriptor* d) {
  static const auto* const kTemplate =
      new std::vector<PresentEmptyPath>{{"metadata", true},
                                        {"metadata.labels", true},
                                        {"metadata.annotations", true},
                                        {"spec.taints", false},
                                        {"spec.startupTaints", false},
                                        {"spec.requirements", false}};
  static const auto* const kDisruption =
      new std::vector<PresentEmptyPath>{{"budgets", false}};
  static const auto* const kBudget =
      new std::vector<PresentEmptyPath>{{"reasons", false}};
  if (d == v1::NodeClaimTemplate::descriptor()) return kTemplate;
  if (d == v1::Disruption::descriptor()) return kDisruption;
  if (d == v1::Budget::descriptor()) return kBudget;
  return nullptr;
}

FieldKind KindOf(const FieldDescriptor* f) {
  if (f->is_map()) return FieldKind::kMap;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return f->type() == FieldDescriptor::TYPE_BYTES ? FieldKind::kBytes
                                                      : FieldKind::kString;
    case FieldDescriptor::CPPTYPE_INT32:
      return FieldKind::kInt32;
    case FieldDescriptor::CPPTYPE_INT64:
      return FieldKind::kInt64;
    case FieldDescriptor::CPPTYPE_UINT32:
      return FieldKind::kUInt32;
    case FieldDescriptor::CPPTYPE_UINT64:
      return FieldKind::kUInt64;
    case FieldDescriptor::CPPTYPE_BOOL:
      return FieldKind::kBool;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return FieldKind::kDouble;
    case FieldDescriptor::CPPTYPE_FLOAT:
      return FieldKind::kFloat;
    case FieldDescriptor::CPPTYPE_ENUM:
      return FieldKind::kEnum;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return FieldKind::kMessage;
  }
  return FieldKind::kString;
}

class Registry {
 public:
  Registry() {
    Build(v1::ManifestSet::descriptor());
    for (const Unmodelled& u : kUnmodelled) {
      const Descriptor* d = google::protobuf::DescriptorPool::generated_pool()
                                ->FindMessageTypeByName(u.message);
      auto it = d == nullptr ? schemas_.end() : schemas_.find(d);
      if (it == schemas_.end()) continue;
      MessageSchema& s = *it->second;
      auto field = s.fields.find(u.key);
      if (field != s.fields.end()) {
        // A proto field: flag it under both of its names.
        const FieldDescriptor* fd = field->second.field;
        s.fields[fd->json_name()].unmodelled = u.text;
        s.fields[fd->name()].unmodelled = u.text;
      } else {
        s.unmodelled_keys[u.key] = u.text;
      }
    }
  }

  const MessageSchema* Find(const Descriptor* d) const {
    auto it = schemas_.find(d);
    return it == schemas_.end() ? nullptr : it->second.get();
  }

 private:
  MessageSchema* Build(const Descriptor* d) {
    auto it = schemas_.find(d);
    if (it != schemas_.end()) return it->second.get();
    auto owned = std::make_unique<MessageSchema>();
    MessageSchema* s = owned.get();
    schemas_.emplace(d, std::move(owned));
    s->descriptor = d;
    s->present_empty = PresentEmptyPathsOf(d);
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      FieldInfo info;
      info.field = f;
      info.kind = KindOf(f);
      info.repeated = f->is_repeated() && !f->is_map();
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        info.message = Build(f->message_type());
      }
      s->fields[f->json_name()] = info;
      s->fields[f->name()] = info;
    }
    if (d->options().map_entry()) {
      s->map_key = s->Find("key");
      s->map_value = s->Find("value");
    }
    return s;
  }

  absl::flat_hash_map<const Descriptor*, std::unique_ptr<MessageSchema>>
      schemas_;
};

}  // namespace

const MessageSchema* SchemaFor(const Descriptor* descriptor) {
  static const Registry* const registry = new Registry();
  return registry->Find(descriptor);
}

}  // namespace nodeplan::manifest
