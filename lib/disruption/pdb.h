#ifndef NODEPLAN_LIB_DISRUPTION_PDB_H_
#define NODEPLAN_LIB_DISRUPTION_PDB_H_

// PodDisruptionBudgets as Karpenter's disruption reads them
// (pkg/utils/pdb/pdb.go): status.disruptionsAllowed is taken as given, and a
// budget is "fully blocking" when spec.maxUnavailable is 0 or "0%" or
// spec.minAvailable is "100%".

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeplan/interner.h"
#include "nodeplan/label_selector.h"
#include "nodeplan/labels.h"
#include "nodeplan/v1/k8s.pb.h"

namespace nodeplan::disruption {

class PdbLimits {
 public:
  struct Budget {
    std::string key;  // "namespace/name"
    std::string ns;
    CompiledLabelSelector selector;  // nil spec.selector matches nothing
    int32_t disruptions_allowed = 0;
    bool fully_blocking = false;
    bool always_allow_unhealthy = false;
  };

  // Errors: a selector LabelSelectorAsSelector rejects, named by
  // podDisruptionBudgets[ns/name].spec.selector.
  static absl::StatusOr<PdbLimits> Build(
      const google::protobuf::RepeatedPtrField<v1::PodDisruptionBudget>& pdbs,
      Interner& interner);

  // The budgets selecting `pod` (same namespace, selector matches), in
  // input order. `labels` are the pod's labels interned in the same interner.
  std::vector<const Budget*> Matching(const v1::Pod& pod,
                                      const LabelSet& labels) const;

  // Karpenter's CanEvictPods for one pod: the blocking budget keys (sorted)
  // when the pod is evictable and more than one budget selects it, or the
  // single one has disruptionsAllowed 0 (unless it always allows evicting
  // unhealthy pods and the pod is Ready=False); empty when not blocked.
  std::vector<std::string> BlockingForCandidacy(const v1::Pod& pod,
                                                const LabelSet& labels,
                                                absl::Time now) const;
  // isFullyBlocked: the same with "fully blocking" in place of zero
  // disruptions (several budgets still block).
  bool FullyBlocked(const v1::Pod& pod, const LabelSet& labels,
                    absl::Time now) const;

  const std::vector<Budget>& budgets() const { return budgets_; }

 private:
  enum class Blocker { kZeroDisruptions, kFullyBlocking };
  std::vector<std::string> Blocking(const v1::Pod& pod, const LabelSet& labels,
                                    absl::Time now, Blocker blocker) const;
  std::vector<Budget> budgets_;
};

// PDB-respecting evictions: for pods evicted in order, whether the eviction
// API admits each (a budget's disruptionsAllowed is consumed by each admitted
// eviction of a pod it selects).
class EvictionBudget {
 public:
  explicit EvictionBudget(const PdbLimits& limits);
  // The key of the budget that refuses, or "" when admitted (and consumed).
  std::string Admit(const v1::Pod& pod, const LabelSet& labels);

 private:
  const PdbLimits& limits_;
  std::vector<int32_t> remaining_;
};

}  // namespace nodeplan::disruption

#endif  // NODEPLAN_LIB_DISRUPTION_PDB_H_
