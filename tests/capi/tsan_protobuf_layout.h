// Read first by every C++ file of the ThreadSanitizer build of
// libnodeplan.so (run_tsan.cmake sets NODEPLAN_FORCE_INCLUDE to it: first in
// each precompiled header, g++ -include elsewhere). Never included by the
// project.
//
// Why: protobuf 3.21's map_field.h gives MapFieldBase two extra members
// (seq1_, seq2_: a const/mutable access checker) when __SANITIZE_THREAD__ is
// defined, placed before arena_, repeated_field_, mutex_ and state_. Debian's
// libprotobuf.so.32 is built without TSan, so its out-of-line MapFieldBase
// functions (SetMapDirty, SyncRepeatedFieldWithMap, MutableRepeatedField,
// Destruct, ...) use the 72-byte layout while TSan-compiled code, including
// our generated *.pb.cc map fields, uses an 80-byte one: every access to a
// map field then reads or writes the wrong offsets. Filling a map through
// reflection (Reflection::AddMessage) turns that into a SEGV on the first,
// single-threaded call: our SyncRepeatedFieldWithMapNoLock reads
// repeated_field_ at offset 0x18, where the library keeps its locked
// pthread mutex (value 1), and faults at address 0x9.
//
// Hiding __SANITIZE_THREAD__ from map_field.h alone (and the headers it pulls
// in first) gives our code the layout of the library we link, so TSan checks
// our code against the real protobuf. What it gives up: the seq1_/seq2_
// checker, which only works when libprotobuf itself is built with TSan.
#pragma push_macro("__SANITIZE_THREAD__")
#undef __SANITIZE_THREAD__
#include <google/protobuf/map_field.h>
#pragma pop_macro("__SANITIZE_THREAD__")
