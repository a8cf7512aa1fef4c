#ifndef NODEPLAN_TESTS_FUZZ_PROTO_MUTATOR_H_
#define NODEPLAN_TESTS_FUZZ_PROTO_MUTATOR_H_

// A small structure-aware mutator for protobuf messages, standing in for
// libprotobuf-mutator (not packaged in Debian 12): one mutation picks a field
// anywhere in the message tree, uniformly, and changes it the way hostile or
// careless input would: interesting numbers (0, -1, INT_MAX, NaN, 1e308),
// strings from a dictionary of Kubernetes words (label keys, operators,
// quantities, durations), copies of other strings of the message, byte
// edits, and for repeated fields duplicating, removing or swapping
// elements. The scheduler is reached because mutants stay valid requests
// most of the time.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "google/protobuf/message.h"

namespace nodeplan::fuzz {

class ProtoMutator {
 public:
  explicit ProtoMutator(unsigned seed) : rng_(seed) {}

  // Applies 1..4 mutations.
  void Mutate(google::protobuf::Message* message);

 private:
  struct Site {
    google::protobuf::Message* message;
    const google::protobuf::FieldDescriptor* field;
  };

  void Collect(google::protobuf::Message* message, int depth,
               std::vector<Site>* sites);
  void CollectStrings(const google::protobuf::Message& message,
                      std::vector<std::string>* out);
  void MutateSite(const Site& site, google::protobuf::Message* root);
  void MutateRepeated(const Site& site);
  void SetScalar(const Site& site, int index);
  std::string MutateString(const std::string& in,
                           google::protobuf::Message* root);
  size_t Below(size_t n) { return n == 0 ? 0 : rng_() % n; }

  std::mt19937 rng_;
};

}  // namespace nodeplan::fuzz

#endif  // NODEPLAN_TESTS_FUZZ_PROTO_MUTATOR_H_
