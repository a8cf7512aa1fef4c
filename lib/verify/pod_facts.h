#ifndef NODEPLAN_LIB_VERIFY_POD_FACTS_H_
#define NODEPLAN_LIB_VERIFY_POD_FACTS_H_

// What the verifier needs to know about one pod (pending, bound, or a
// DaemonSet's template), extracted once from the proto.

#include <map>
#include <string>
#include <vector>

#include "nodeplan/v1/k8s.pb.h"
#include "verify/amount.h"
#include "verify/label_domain.h"

namespace nodeplan::verify_internal {

struct HostPort {
  std::string ip;  // "0.0.0.0" when unspecified
  int port = 0;
  std::string protocol;  // "TCP" when unspecified
};

struct PodFacts {
  std::string key;  // namespace/name
  std::string ns;
  std::map<std::string, std::string> labels;
  Resources requests;  // including pods: 1
  std::vector<Expr> node_selector;
  std::vector<std::vector<Expr>> required_terms;  // ORed; empty = none
  std::vector<v1::Toleration> tolerations;
  std::vector<HostPort> host_ports;
  const v1::PodSpec* spec = nullptr;
};

// Fills `facts` from `pod`. `merge_limits` copies limits into missing
// requests (what the API server does for pods and Karpenter for DaemonSet
// templates). false with *error set for a malformed quantity.
bool ExtractPodFacts(const v1::ObjectMeta& meta, const v1::PodSpec& spec,
                     PodFacts& facts, std::string* error);

// The pod's node requirements hold for certain on `space`.
bool PodFitsDefinitely(const PodFacts& pod, const LabelLookup& space);
// They may hold (used for DaemonSets: would it run there?).
bool PodFitsPossibly(const PodFacts& pod, const LabelLookup& space);
// The pod with its node-selector and required-term expressions on `keys`
// left out; false (and `out` untouched) when it has none.
bool WithoutKeys(const PodFacts& pod, const std::vector<std::string>& keys,
                 PodFacts* out);

// Kubernetes' toleration matching (with Karpenter's Lt/Gt operators).
bool Tolerates(const std::vector<v1::Toleration>& tolerations,
               const v1::Taint& taint);

// Label-selector matching; a missing selector matches nothing.
bool SelectorMatches(const v1::LabelSelector& selector,
                     const std::map<std::string, std::string>& labels);

bool HostPortsConflict(const HostPort& a, const HostPort& b);

std::string ExprsToString(const std::vector<Expr>& exprs);

}  // namespace nodeplan::verify_internal

#endif  // NODEPLAN_LIB_VERIFY_POD_FACTS_H_
