#ifndef NODEPLAN_LIB_VERIFY_AMOUNT_H_
#define NODEPLAN_LIB_VERIFY_AMOUNT_H_

// The verifier's own quantity arithmetic, written apart from the library's
// quantity parser on purpose: an independent checker should not share the
// code it checks. Every resource is held in thousandths of a unit (milli) in
// a 128-bit integer, so "10000000Gi" in milli-bytes cannot overflow.

#include <map>
#include <optional>
#include <string>

#include "google/protobuf/map.h"

namespace nodeplan::verify_internal {

using Amount = __int128;
using Resources = std::map<std::string, Amount>;

// "100m" -> 100, "1Gi" -> 1073741824000, "1.5" -> 1500, "2e3" -> 2000000,
// rounded up to a whole milli as Kubernetes' MilliValue() does. nullopt when
// the text is not a Kubernetes quantity or is absurdly large.
std::optional<Amount> ParseMilli(const std::string& text);

// Parses every entry; the first malformed one is named in *error.
bool ParseResources(const google::protobuf::Map<std::string, std::string>& in,
                    Resources& out, std::string* error);

void AddInto(Resources& total, const Resources& more);
// Per-resource max.
void MaxInto(Resources& total, const Resources& other);

// "cpu=1500m memory=2Gi" style text for messages.
std::string FormatResources(const Resources& r);
std::string FormatAmount(const std::string& resource, Amount milli);

}  // namespace nodeplan::verify_internal

#endif  // NODEPLAN_LIB_VERIFY_AMOUNT_H_
