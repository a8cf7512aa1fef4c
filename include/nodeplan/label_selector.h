#ifndef NODEPLAN_LABEL_SELECTOR_H_
#define NODEPLAN_LABEL_SELECTOR_H_

// metav1.LabelSelector compiled over interned labels, matched as Kubernetes'
// LabelSelectorAsSelector + Selector.Matches do.
//
// nil vs empty: a proto3 message field has presence. A selector field that is
// absent (has_label_selector() false; pass nullptr) is Go's nil selector and
// matches NOTHING (labels.Nothing()); a present but empty selector (`{}`)
// matches EVERYTHING. The caller decides by passing nullptr or the message.
//
// matchLabels k: v is `k In [v]`; matchExpressions support In, NotIn,
// Exists, DoesNotExist: In needs the key with a listed value; NotIn matches
// when the key is absent or its value is not listed; Exists / DoesNotExist
// test presence. All requirements must match (AND). Keys are NOT normalized
// (pod labels are matched as written).

#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan {

class CompiledLabelSelector {
 public:
  enum class Op : uint8_t { kIn, kNotIn, kExists, kDoesNotExist };
  struct Term {
    LabelKeyId key = kNoId;
    Op op = Op::kExists;
    // Sorted ids.
    absl::InlinedVector<LabelValueId, 2> values;
  };

  // The nil selector: matches nothing.
  CompiledLabelSelector() = default;
  static CompiledLabelSelector Everything();

  // Compiles `selector` (nullptr = nil = matches nothing). Errors as
  // Kubernetes' LabelSelectorAsSelector reports them, prefixed by
  // `field_path`: an unknown operator (`"Foo" is not a valid label selector
  // operator`), In/NotIn with no values (`values: Invalid value: ...: for
  // 'in', 'notin' operators, values set can't be empty`), Exists/DoesNotExist
  // with values (`... values set must be empty for exists and does not
  // exist`). Label key/value syntax is validation's job, not checked here.
  static absl::StatusOr<CompiledLabelSelector> Compile(
      const v1::LabelSelector* selector, Interner& interner,
      absl::string_view field_path = "selector");

  bool matches_nothing() const { return nothing_; }
  bool matches_everything() const { return !nothing_ && terms_.empty(); }
  // Terms sorted by key id (matchLabels and matchExpressions merged; a key
  // may appear several times).
  const std::vector<Term>& terms() const { return terms_; }

  bool Matches(const LabelSet& labels) const;

  // Appends `key In [value]` (used by topology spread matchLabelKeys).
  void AddIn(LabelKeyId key, LabelValueId value);

 private:
  bool nothing_ = true;
  std::vector<Term> terms_;
};

}  // namespace nodeplan

#endif  // NODEPLAN_LABEL_SELECTOR_H_
