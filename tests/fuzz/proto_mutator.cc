#include "proto_mutator.h"

#include <cmath>
#include <limits>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace nodeplan::fuzz {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Words Kubernetes objects are made of: where a string is replaced, it is
// most often by one of these, so mutants keep meaning something.
constexpr const char* kWords[] = {
    "",
    "default",
    "p",
    "np",
    "In",
    "NotIn",
    "Exists",
    "DoesNotExist",
    "Gt",
    "Lt",
    "Gte",
    "Lte",
    "DoNotSchedule",
    "ScheduleAnyway",
    "Honor",
    "Ignore",
    "Equal",
    "NoSchedule",
    "PreferNoSchedule",
    "NoExecute",
    "Always",
    "Pending",
    "Running",
    "Succeeded",
    "on-demand",
    "spot",
    "reserved",
    "amd64",
    "arm64",
    "linux",
    "windows",
    "test-zone-1",
    "test-zone-2",
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "karpenter.sh/capacity-type",
    "karpenter.sh/nodepool",
    "karpenter.sh/do-not-disrupt",
    "karpenter.k8s.aws/capacity-reservation-id",
    "example.com/custom",
    "cpu",
    "memory",
    "pods",
    "ephemeral-storage",
    "nvidia.com/gpu",
    "hugepages-2Mi",
    "0",
    "1",
    "-1",
    "100m",
    "0.5",
    "1Gi",
    "512Mi",
    "1e3",
    "1E-3",
    "9223372036854775807",
    "1Ei",
    "+1",
    ".5",
    "10%",
    "100%",
    "30s",
    "5m",
    "720h",
    "Never",
    "24h0m0s",
    "-1s",
    "@daily",
    "0 9 * * 1-5",
    "WhenEmpty",
    "WhenEmptyOrUnderutilized",
    "Names",
    "Indexed",
    "Respect",
    "Strict",
    "BestEffort",
    "Optimized",
    "Karpenter",
    "Compute",
    "aws",
    "2026-12-02T10:00:00Z",
    "1970-01-01T00:00:00Z",
    "DaemonSet",
    "Node",
    "apps/v1",
    "v1",
};

constexpr int64_t kInts[] = {0,
                             1,
                             -1,
                             2,
                             3,
                             10,
                             100,
                             101,
                             1000,
                             std::numeric_limits<int32_t>::max(),
                             std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min()};

}  // namespace

void ProtoMutator::Collect(Message* message, int depth,
                           std::vector<Site>* sites) {
  const auto* d = message->GetDescriptor();
  const Reflection* r = message->GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    sites->push_back({message, f});
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || depth > 12) {
      continue;
    }
    if (f->is_repeated()) {
      for (int j = 0; j < r->FieldSize(*message, f); ++j) {
        Collect(r->MutableRepeatedMessage(message, f, j), depth + 1, sites);
      }
    } else if (r->HasField(*message, f)) {
      Collect(r->MutableMessage(message, f), depth + 1, sites);
    }
  }
}

void ProtoMutator::CollectStrings(const Message& message,
                                  std::vector<std::string>* out) {
  const auto* d = message.GetDescriptor();
  const Reflection* r = message.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (f->is_repeated()) {
        for (int j = 0; j < r->FieldSize(message, f); ++j) {
          out->push_back(r->GetRepeatedString(message, f, j));
        }
      } else {
        out->push_back(r->GetString(message, f));
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int j = 0; j < r->FieldSize(message, f); ++j) {
          CollectStrings(r->GetRepeatedMessage(message, f, j), out);
        }
      } else if (r->HasField(message, f)) {
        CollectStrings(r->GetMessage(message, f), out);
      }
    }
  }
}

std::string ProtoMutator::MutateString(const std::string& in, Message* root) {
  switch (Below(5)) {
    case 0:
    case 1:
      return kWords[Below(std::size(kWords))];
    case 2: {
      // Another string of the request: names, labels and keys then meet.
      std::vector<std::string> all;
      CollectStrings(*root, &all);
      if (!all.empty()) return all[Below(all.size())];
      return in;
    }
    case 3: {
      std::string out = in;
      const size_t edits = 1 + Below(3);
      for (size_t e = 0; e < edits; ++e) {
        const size_t at = Below(out.size() + 1);
        switch (Below(3)) {
          case 0:
            out.insert(out.begin() + at, static_cast<char>(rng_()));
            break;
          case 1:
            if (!out.empty()) out.erase(Below(out.size()), 1);
            break;
          default:
            if (!out.empty())
              out[Below(out.size())] = static_cast<char>(rng_());
        }
      }
      return out;
    }
    default:
      // Quantities and numbers written out with a suffix.
      return std::to_string(
                 static_cast<int64_t>(kInts[Below(std::size(kInts))])) +
             std::string(kWords[Below(std::size(kWords))]).substr(0, 2);
  }
}

void ProtoMutator::SetScalar(const Site& site, int index) {
  Message* m = site.message;
  const FieldDescriptor* f = site.field;
  const Reflection* r = m->GetReflection();
  const bool rep = index >= 0;
  const int64_t pick = kInts[Below(std::size(kInts))];
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const int32_t v = static_cast<int32_t>(Below(2) ? pick : Below(20));
      rep ? r->SetRepeatedInt32(m, f, index, v) : r->SetInt32(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      const int64_t v = Below(2) ? pick : static_cast<int64_t>(Below(20));
      rep ? r->SetRepeatedInt64(m, f, index, v) : r->SetInt64(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      const uint32_t v = static_cast<uint32_t>(pick);
      rep ? r->SetRepeatedUInt32(m, f, index, v) : r->SetUInt32(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      const uint64_t v = static_cast<uint64_t>(pick);
      rep ? r->SetRepeatedUInt64(m, f, index, v) : r->SetUInt64(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      constexpr double kDoubles[] = {0,
                                     -1,
                                     0.01,
                                     1,
                                     1e308,
                                     std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     5e-324};
      const double v = kDoubles[Below(std::size(kDoubles))];
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
        rep ? r->SetRepeatedFloat(m, f, index, static_cast<float>(v))
            : r->SetFloat(m, f, static_cast<float>(v));
      } else {
        rep ? r->SetRepeatedDouble(m, f, index, v) : r->SetDouble(m, f, v);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const bool v = Below(2) != 0;
      rep ? r->SetRepeatedBool(m, f, index, v) : r->SetBool(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const auto* e = f->enum_type();
      const auto* v = e->value(static_cast<int>(Below(e->value_count())));
      rep ? r->SetRepeatedEnum(m, f, index, v) : r->SetEnum(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING:
    case FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
}

void ProtoMutator::MutateRepeated(const Site& site) {
  Message* m = site.message;
  const FieldDescriptor* f = site.field;
  const Reflection* r = m->GetReflection();
  const int n = r->FieldSize(*m, f);
  switch (n == 0 ? 0 : Below(4)) {
    case 0: {  // add: a copy of an element, or a fresh one
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        Message* added = r->AddMessage(m, f);
        if (n > 0) added->CopyFrom(r->GetRepeatedMessage(*m, f, Below(n)));
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
        r->AddString(m, f, kWords[Below(std::size(kWords))]);
      } else {
        switch (f->cpp_type()) {
          case FieldDescriptor::CPPTYPE_INT32:
            r->AddInt32(m, f, 0);
            break;
          case FieldDescriptor::CPPTYPE_INT64:
            r->AddInt64(m, f, 0);
            break;
          case FieldDescriptor::CPPTYPE_UINT32:
            r->AddUInt32(m, f, 0);
            break;
          case FieldDescriptor::CPPTYPE_UINT64:
            r->AddUInt64(m, f, 0);
            break;
          case FieldDescriptor::CPPTYPE_DOUBLE:
            r->AddDouble(m, f, 0);
            break;
          case FieldDescriptor::CPPTYPE_FLOAT:
            r->AddFloat(m, f, 0);
            break;
          case FieldDescriptor::CPPTYPE_BOOL:
            r->AddBool(m, f, false);
            break;
          case FieldDescriptor::CPPTYPE_ENUM:
            r->AddEnum(m, f, f->enum_type()->value(0));
            break;
          default:
            break;
        }
        SetScalar(site, r->FieldSize(*m, f) - 1);
      }
      break;
    }
    case 1:  // remove one
      r->SwapElements(m, f, static_cast<int>(Below(n)), n - 1);
      r->RemoveLast(m, f);
      break;
    case 2:  // swap two
      r->SwapElements(m, f, static_cast<int>(Below(n)),
                      static_cast<int>(Below(n)));
      break;
    default: {  // change one element in place
      const int i = static_cast<int>(Below(n));
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
        r->SetRepeatedString(m, f, i,
                             MutateString(r->GetRepeatedString(*m, f, i), m));
      } else if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        SetScalar(site, i);
      } else {
        r->MutableRepeatedMessage(m, f, i)->Clear();
      }
    }
  }
}

void ProtoMutator::MutateSite(const Site& site, Message* root) {
  Message* m = site.message;
  const FieldDescriptor* f = site.field;
  const Reflection* r = m->GetReflection();
  if (f->is_repeated()) {
    MutateRepeated(site);
    return;
  }
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(m, f, MutateString(r->GetString(*m, f), root));
      return;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (r->HasField(*m, f) && Below(2)) {
        r->ClearField(m, f);
      } else {
        r->MutableMessage(m, f);
      }
      return;
    default:
      if (Below(8) == 0) {
        r->ClearField(m, f);
      } else {
        SetScalar(site, -1);
      }
  }
}

void ProtoMutator::Mutate(Message* message) {
  const size_t rounds = 1 + Below(4);
  for (size_t i = 0; i < rounds; ++i) {
    std::vector<Site> sites;
    Collect(message, 0, &sites);
    if (sites.empty()) return;
    MutateSite(sites[Below(sites.size())], message);
  }
}

}  // namespace nodeplan::fuzz
