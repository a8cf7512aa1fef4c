#ifndef NODEPLAN_LIB_VERIFY_LABEL_DOMAIN_H_
#define NODEPLAN_LIB_VERIFY_LABEL_DOMAIN_H_

// What a node's label for one key may turn out to be once the node exists:
// possibly absent, possibly present with a value from a set (or from the
// complement of a set, within optional integer bounds). Existing nodes have
// exact labels; a new NodeClaim narrows labels through its NodePool, its
// requirements and its instance type, and what is left is what the cloud
// provider and Karpenter may still choose.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nodeplan::verify_internal {

// One node-selector expression, with its key already normalized.
struct Expr {
  std::string key;
  std::string op;  // In NotIn Exists DoesNotExist Gt Lt Gte Lte
  std::vector<std::string> values;
};

struct Domain {
  bool may_be_present = true;
  bool may_be_absent = false;
  bool complement = false;  // values are excluded, not allowed
  std::set<std::string> values;
  std::optional<int64_t> gte, lte;  // only with complement

  static Domain Fixed(const std::string& value);
  static Domain Absent();
  // Nothing known: any value, or no label at all.
  static Domain Unknown();

  bool Empty() const { return !may_be_present && !may_be_absent; }
  // The node's label satisfies `e` whatever the remaining choices are.
  bool Definitely(const Expr& e) const;
  // Some remaining choice satisfies `e`.
  bool Possibly(const Expr& e) const;
  // Possibly(In {value}) without building the expression or a narrowed
  // copy (a new NodeClaim's offerings are checked one zone at a time).
  bool PossiblyIn(const std::string& value) const;
  // Narrow to the choices that satisfy `e`.
  void Narrow(const Expr& e);
  // The finite set of values the label may take when present; nullopt when
  // infinite (a complement domain).
  std::optional<std::set<std::string>> PresentValues() const;
  std::string ToString() const;
};

using LabelSpace = std::map<std::string, Domain>;

// Read access to a label space with, optionally, an overlay of keys that
// replace the space's and the hostname label fixed on top: the options of a
// new NodeClaim share one space per (NodePool, instance type), an overlay
// per requirements (the keys those narrow, zone and capacity type) and
// differ only in their hostname, so they are read through this instead of
// being copied. Holds pointers: it lives no longer than the space, the
// overlay and the hostname domain it was made from.
class LabelLookup {
 public:
  // NOLINTNEXTLINE(google-explicit-constructor): a space reads as itself.
  LabelLookup(const LabelSpace& space) : space_(&space) {}
  LabelLookup(const LabelSpace& space, const LabelSpace* overlay,
              const Domain* hostname)
      : space_(&space), overlay_(overlay), hostname_(hostname) {}
  // The key's domain (hostname, then overlay, then space); a missing key
  // means the label is absent.
  const Domain& Get(const std::string& key) const;

 private:
  const LabelSpace* space_;
  const LabelSpace* overlay_ = nullptr;
  const Domain* hostname_ = nullptr;
};

// A missing key means the label is absent.
const Domain& Lookup(const LabelLookup& space, const std::string& key);
// Narrows `space[e.key]`, starting from Unknown() for a missing key.
void NarrowSpace(LabelSpace& space, const Expr& e);

// Karpenter's key aliases (beta labels) mapped to their current names.
std::string NormalizeKey(const std::string& key);

// A Go int on 64 bits (strconv.Atoi, strconv.ParseInt base 10), as
// Karpenter reads label values, bounds and toleration values: an optional
// sign, then decimal digits, within int64; nullopt otherwise.
std::optional<int64_t> ParseGoInt64(const std::string& s);

// Every expression definitely (or possibly) holds.
bool AllDefinitely(const LabelLookup& space, const std::vector<Expr>& exprs);
bool AllPossibly(const LabelLookup& space, const std::vector<Expr>& exprs);

}  // namespace nodeplan::verify_internal

#endif  // NODEPLAN_LIB_VERIFY_LABEL_DOMAIN_H_
