#ifndef NODEPLAN_LIB_MANIFEST_READERS_H_
#define NODEPLAN_LIB_MANIFEST_READERS_H_

// Readers turn text into one tape per document and hand each to a sink.
// Errors come back as "document N: <what> (line L, column C)"; the caller
// prefixes the source name.

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "manifest/tape.h"

namespace nodeplan::manifest {

// Called once per document with its 1-based index. The tape is reused for the
// next document, so the sink must copy what it keeps.
using DocumentSink = absl::FunctionRef<absl::Status(const Tape&, int)>;

// Multi-document YAML (and JSON, which is YAML flow syntax) through libyaml's
// event parser. Aliases are rejected.
absl::Status ReadYaml(absl::string_view text, DocumentSink sink);

// A fast path for JSON: one or more JSON values separated by whitespace, each
// a document. Strings are never plain; numbers, true, false and null are. On
// malformed JSON sets *syntax_error and returns an error without having
// called the sink for anything after the fault (the caller then retries with
// ReadYaml, whose flow syntax is a superset); errors from the sink are passed
// through with *syntax_error false.
absl::Status ReadJson(absl::string_view text, DocumentSink sink,
                      bool* syntax_error);

}  // namespace nodeplan::manifest

#endif  // NODEPLAN_LIB_MANIFEST_READERS_H_
