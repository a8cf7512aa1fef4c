#ifndef NODEPLAN_TESTS_REQUIREMENTS_TEST_UTIL_H_
#define NODEPLAN_TESTS_REQUIREMENTS_TEST_UTIL_H_

// Shorthands for building requirements in tests.

#include <initializer_list>
#include <string>
#include <vector>

#include "nodeplan/interner.h"
#include "nodeplan/requirements.h"

namespace nodeplan::testing {

class Vocab {
 public:
  Interner& names() { return names_; }
  LabelKeyId K(absl::string_view key) { return names_.InternKey(key); }
  LabelValue V(absl::string_view v) { return names_.InternValue(v); }
  std::vector<LabelValue> Vs(std::initializer_list<absl::string_view> vs) {
    std::vector<LabelValue> out;
    for (absl::string_view v : vs) out.push_back(V(v));
    return out;
  }
  Requirement Make(absl::string_view key, SelectorOperator op,
                   std::initializer_list<absl::string_view> values = {},
                   std::optional<int32_t> min_values = std::nullopt) {
    return Requirement::Make(K(key), op, Vs(values), min_values);
  }
  Requirement Make(absl::string_view key, absl::string_view op,
                   std::initializer_list<absl::string_view> values = {}) {
    return Make(key, *ParseSelectorOperator(op), values);
  }
  Requirements Reqs(std::initializer_list<Requirement> rs) {
    Requirements out;
    for (const Requirement& r : rs) out.Add(r);
    return out;
  }
  std::string Str(const Requirement& r) { return r.String(names_); }
  std::string Str(const Requirements& r) { return r.String(names_); }

 private:
  Interner names_;
};

}  // namespace nodeplan::testing

#endif  // NODEPLAN_TESTS_REQUIREMENTS_TEST_UTIL_H_
