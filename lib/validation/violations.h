#ifndef NODEPLAN_LIB_VALIDATION_VIOLATIONS_H_
#define NODEPLAN_LIB_VALIDATION_VIOLATIONS_H_

// Collects FieldViolations for one object and spells the API server's
// messages (k8s.io/apimachinery field.Error bodies and kube-openapi schema
// errors), so every check reads as one line.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "nodeplan/v1/manifest.pb.h"

namespace nodeplan::validation {

class Violations {
 public:
  Violations(std::string object, v1::ValidateResponse* out)
      : object_(std::move(object)), out_(out) {}

  void Add(absl::string_view path, absl::string_view message) {
    v1::FieldViolation* v = out_->add_violations();
    v->set_object(object_);
    v->set_field_path(std::string(path));
    v->set_message(std::string(message));
  }

  void Required(absl::string_view path) { Add(path, "Required value"); }

  // An OpenAPI `pattern` mismatch.
  void Pattern(absl::string_view path, absl::string_view value,
               absl::string_view pattern) {
    Add(path, absl::StrCat("Invalid value: \"", value, "\": ", path,
                           " in body should match '", pattern, "'"));
  }

  // An OpenAPI `enum` mismatch.
  void Unsupported(absl::string_view path, absl::string_view value,
                   const std::vector<absl::string_view>& supported) {
    std::string list;
    for (absl::string_view s : supported) {
      absl::StrAppend(&list, list.empty() ? "" : ", ", "\"", s, "\"");
    }
    Add(path, absl::StrCat("Unsupported value: \"", value,
                           "\": supported values: ", list));
  }

  void Minimum(absl::string_view path, int64_t value, int64_t min) {
    Add(path,
        absl::StrCat("Invalid value: ", value, ": ", path,
                     " in body should be greater than or equal to ", min));
  }

  void Maximum(absl::string_view path, int64_t value, int64_t max) {
    Add(path, absl::StrCat("Invalid value: ", value, ": ", path,
                           " in body should be less than or equal to ", max));
  }

  void TooMany(absl::string_view path, size_t count, size_t max) {
    Add(path, absl::StrCat("Too many: ", count, ": must have at most ", max,
                           " items"));
  }

  void TooLong(absl::string_view path, size_t max) {
    Add(path, absl::StrCat("Too long: may not be longer than ", max));
  }

  void Duplicate(absl::string_view path, absl::string_view value) {
    Add(path, absl::StrCat("Duplicate value: \"", value, "\""));
  }

 private:
  std::string object_;
  v1::ValidateResponse* out_;
};

}  // namespace nodeplan::validation

#endif  // NODEPLAN_LIB_VALIDATION_VIOLATIONS_H_
