#ifndef NODEPLAN_LIB_MANIFEST_BUILDER_H_
#define NODEPLAN_LIB_MANIFEST_BUILDER_H_

// Fills a protobuf message from a tape, directed by the message's schema:
// mapping keys select fields by json_name (or proto name), unknown keys and
// their subtrees are skipped, scalars convert the way Kubernetes reads them.

#include <string>
#include <vector>

#include "google/protobuf/message.h"
#include "manifest/schema.h"
#include "manifest/tape.h"

namespace nodeplan::manifest {

// Something to report at a tape node: an error or a finding.
struct Problem {
  uint32_t node = 0;
  std::string message;
};

class Builder {
 public:
  // `strict`: an unknown key is an error naming the nearest known field
  // (nodeplan's own formats, such as catalogs); otherwise it is skipped
  // (Kubernetes objects carry many fields nodeplan does not model).
  explicit Builder(const Tape& tape, bool strict = false)
      : tape_(tape), strict_(strict) {}

  // Fills `message` (whose schema is `schema`) from the mapping at `node`.
  // On false, error() says what and where; `message` may be half filled.
  bool Fill(uint32_t node, const MessageSchema& schema,
            google::protobuf::Message* message);

  const Problem& error() const { return error_; }
  // Unmodelled constructs met while filling, in input order.
  const std::vector<Problem>& findings() const { return findings_; }

 private:
  bool FillField(uint32_t value, const FieldInfo& field,
                 google::protobuf::Message* message);
  bool FillMap(uint32_t value, const FieldInfo& field,
               google::protobuf::Message* message);
  bool SetScalar(uint32_t value, const FieldInfo& field, bool add,
                 google::protobuf::Message* message);
  void RecordPresentEmpty(uint32_t node,
                          const std::vector<PresentEmptyPath>& paths,
                          google::protobuf::Message* message);
  bool Fail(uint32_t node, std::string message);
  bool IsEmpty(uint32_t node) const;

  const Tape& tape_;
  const bool strict_;
  Problem error_;
  std::vector<Problem> findings_;
};

}  // namespace nodeplan::manifest

#endif  // NODEPLAN_LIB_MANIFEST_BUILDER_H_
