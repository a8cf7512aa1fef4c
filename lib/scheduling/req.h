#ifndef NODEPLAN_LIB_SCHEDULING_REQ_H_
#define NODEPLAN_LIB_SCHEDULING_REQ_H_

// Karpenter's requirement algebra (pkg/scheduling/requirement(s).go) over
// interned labels. Private to the scheduler: the requirements branch owns the
// public version; this one is tuned for the scheduler's inner loop (sorted
// small vectors of ids, no allocation when nothing changes).
//
// Why this copy (and scheduling/intern.h) still exists beside
// nodeplan/requirements.h and nodeplan/interner.h. Quantities and the
// catalog compile were unified (scheduling/compile.cc feeds the scheduler
// from CompileCatalog); this part was deliberately not half-migrated:
//  * One id space. Here a key and a value are the same `Id` from one
//    Interner: topology domains are interned node names and zone values used
//    as keys of maps (topology.cc), Keys/v_* are compared with both, and
//    Interner::Int caches the integer of any id. The shared interner has
//    separate LabelKeyId / LabelValue spaces (a LabelValue carries is_int /
//    int_value flags). Switching means retyping every Id in model.h, pods.h,
//    topology.h and about 140 call sites in round_*.cc and topology.cc.
//  * Those two files are being restructured for speed on another branch
//    (schedperf); rewriting their requirement calls now would conflict with
//    it wholesale. The migration belongs after that branch merges.
//  * Error text. Intersects/Compatible here append Karpenter's messages to a
//    std::string the solver assembles into reasons, byte for byte as the
//    current goldens expect; the shared one returns absl::Status
//    (IntersectsStatus). The reason strings would need a golden-by-golden
//    comparison.
//  * Speed is unmeasured for the shared algebra inside the solver's loops
//    (Reqs::Add copies into a sorted vector without allocating when nothing
//    changes; the solver relies on that for per-class Reqs copies). The rule
//    is that benchmarks/scheduling_bench.cc must not get slower.
// What the migration needs: (1) the model built on nodeplan::Interner with a
// per-call overlay (Interner(&base)) for pod/node strings, so a compiled
// Snapshot stays immutable; (2) Req -> nodeplan::Requirement, Reqs ->
// nodeplan::Requirements, WellKnown -> WellKnownLabels in model.h, pods.h,
// topology.h, round.h, round_*.cc, topology.cc; (3) a string-appending variant
// of Requirements::Intersects/Compatible, or reasons built from the Status
// messages, checked against tests/scheduling goldens; (4) CPU-time figures
// of scheduling_bench (release preset) before and after, no regression.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "scheduling/intern.h"

namespace nodeplan::scheduling {

struct Req {
  Id key = kNoId;
  bool complement = true;             // Exists
  absl::InlinedVector<Id, 2> values;  // sorted ascending by id
  bool has_gte = false, has_lte = false;
  int64_t gte = 0, lte = 0;
  int32_t min_values = 0;  // 0: none

  bool operator==(const Req& o) const {
    return key == o.key && complement == o.complement && values == o.values &&
           has_gte == o.has_gte && has_lte == o.has_lte &&
           (!has_gte || gte == o.gte) && (!has_lte || lte == o.lte) &&
           min_values == o.min_values;
  }
};

enum class Op { kIn, kNotIn, kExists, kDoesNotExist };

// Builds a requirement from a Kubernetes/Karpenter operator. Unknown
// operators yield DoesNotExist (callers validate first).
Req MakeReq(Id key, absl::string_view op, const std::vector<Id>& values,
            const Interner& in);
inline Req InReq(Id key, Id value) {
  Req r;
  r.key = key;
  r.complement = false;
  r.values.push_back(value);
  return r;
}

Op OperatorOf(const Req& r);
bool Has(const Req& r, Id value, const Interner& in);
Req Intersect(const Req& a, const Req& b, const Interner& in);
bool HasIntersection(const Req& a, const Req& b, const Interner& in);
std::string ReqString(const Req& r, const Interner& in);
// Number of allowed values, "infinite" for complements.
int64_t ReqLen(const Req& r);

// A map key -> requirement, kept sorted by key id.
class Reqs {
 public:
  const Req* Get(Id key) const;
  Req* GetMutable(Id key);
  // Intersects with any existing requirement on the key. Returns true when
  // the stored requirement changed.
  bool Add(const Req& r, const Interner& in);
  void AddAll(const Reqs& o, const Interner& in) {
    for (const Req& r : o.items_) Add(r, in);
  }
  void Remove(Id key);
  const std::vector<Req>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  bool operator==(const Reqs& o) const { return items_ == o.items_; }
  bool HasMinValues() const;

 private:
  std::vector<Req> items_;
};

// The well-known label keys that a NodePool may leave undefined.
struct WellKnown {
  std::vector<bool> is_well_known;  // indexed by key id
  bool Contains(Id key) const {
    return key < is_well_known.size() && is_well_known[key];
  }
};

// Karpenter's Requirements.Intersects: keys defined on both sides only.
// Appends "key k, <incoming> not in <existing>" messages (sorted by key) to
// *err when err is not null. Returns true when compatible.
bool Intersects(const Reqs& existing, const Reqs& incoming, const Interner& in,
                std::string* err);
// Karpenter's Requirements.Compatible. allow is null for "no allowance".
bool Compatible(const Reqs& existing, const Reqs& incoming,
                const WellKnown* allow, const Interner& in, std::string* err);
// Requirements.String(): sorted by key text, hostname skipped.
std::string ReqsString(const Reqs& r, const Interner& in, Id hostname_key);

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_REQ_H_
