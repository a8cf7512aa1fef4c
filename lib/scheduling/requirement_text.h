#ifndef NODEPLAN_LIB_SCHEDULING_REQUIREMENT_TEXT_H_
#define NODEPLAN_LIB_SCHEDULING_REQUIREMENT_TEXT_H_

// Requirements.Compatible in the form the solver assembles its reasons
// from: a boolean, and Karpenter's message written to *err on failure when
// err is not null (the boolean test alone never allocates).

#include <string>

#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/requirements.h"

namespace nodeplan::scheduling {

// Requirements.Compatible; allow: the keys `existing` may leave undefined
// (null: none).
inline bool Compatible(const Requirements& existing,
                       const Requirements& incoming,
                       const WellKnownLabels* allow, const Interner& in,
                       std::string* err) {
  if (existing.IsCompatible(incoming, {allow})) return true;
  if (err != nullptr)
    *err = std::string(existing.Compatible(incoming, {allow}, in).message());
  return false;
}

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_REQUIREMENT_TEXT_H_
