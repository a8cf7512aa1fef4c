#ifndef NODEPLAN_LIB_DISRUPTION_ARENA_VIEW_H_
#define NODEPLAN_LIB_DISRUPTION_ARENA_VIEW_H_

// Requests that point at the caller's messages instead of copying them.

#include "google/protobuf/repeated_ptr_field.h"

namespace nodeplan::disruption {

// Adds `m` to an arena-owned repeated field without copying it. The field
// never deletes it (arena fields do not own their elements' destruction),
// and the scheduler only reads it; `m` must outlive the field.
template <typename T>
void Point(const T& m, google::protobuf::RepeatedPtrField<T>* field) {
  field->UnsafeArenaAddAllocated(const_cast<T*>(&m));
}

template <typename T>
void PointAll(const google::protobuf::RepeatedPtrField<T>& from,
              google::protobuf::RepeatedPtrField<T>* field) {
  field->Reserve(from.size());
  for (const T& m : from) Point(m, field);
}

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_ARENA_VIEW_H_
