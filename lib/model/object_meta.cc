#include "nodeplan/object_meta.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "nodeplan/quantity.h"

namespace nodeplan {

absl::string_view NamespaceOf(const v1::ObjectMeta& meta) {
  if (meta.namespace_().empty()) return "default";
  return meta.namespace_();
}

std::string NamespacedName(const v1::ObjectMeta& meta) {
  absl::string_view ns = NamespaceOf(meta);
  std::string out;
  out.reserve(ns.size() + 1 + meta.name().size());
  out.append(ns.data(), ns.size()).append("/").append(meta.name());
  return out;
}

absl::StatusOr<absl::Duration> DoNotDisruptDuration(absl::string_view value) {
  absl::StatusOr<int64_t> nanos = ParseDuration(value);
  if (!nanos.ok() || *nanos == kNeverDuration) {
    return absl::InvalidArgumentError(absl::StrCat(
        "failed to parse \"", value, "\" as a duration: ",
        nanos.ok() ? absl::StrCat("time: invalid duration \"", value, "\"")
                   : std::string(nanos.status().message())));
  }
  if (*nanos <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("duration \"", value, "\" must be positive"));
  }
  return absl::Nanoseconds(*nanos);
}

bool IsOwnedBy(const v1::ObjectMeta& meta, absl::string_view api_version,
               absl::string_view kind) {
  for (const v1::OwnerReference& o : meta.owner_references()) {
    if (o.api_version() == api_version && o.kind() == kind) return true;
  }
  return false;
}

}  // namespace nodeplan
