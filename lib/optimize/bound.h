#ifndef NODEPLAN_LIB_OPTIMIZE_BOUND_H_
#define NODEPLAN_LIB_OPTIMIZE_BOUND_H_

// The cost lower bound as a solver-independent problem (docs/OPTIMIZE.md):
// pod classes, node columns, existing free capacity and NodePool limits, and
// the linear relaxation that bounds every integer plan from below.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "optimize/lp.h"

namespace nodeplan::optimize {

// Pods with identical requests and identical admissible columns.
struct BoundClass {
  std::vector<double> requests;  // per dimension
  int64_t count = 0;
  std::vector<int> columns;  // admissible node columns
  bool existing = false;     // may use existing free capacity
};

// One launchable (NodePool, instance type): nodes of it cost `price` each.
struct BoundColumn {
  double price = 0;
  std::vector<double> allocatable;  // for pods, per dimension
  std::vector<double> capacity;     // what NodePool limits count
  int pool = -1;
  std::string name;
};

// Sum over the pool's columns of capacity[dim] * nodes <= limit; dim -1
// counts nodes.
struct BoundLimit {
  int pool = -1;
  int dim = -1;
  double limit = 0;
};

struct BoundProblem {
  int dims = 0;
  std::vector<BoundClass> classes;
  std::vector<BoundColumn> columns;
  // Free allocatable of existing capacity, summed; empty when none.
  std::vector<double> existing_free;
  std::vector<BoundLimit> limits;
};

struct BoundSolution {
  double lower_bound = 0;
  std::vector<double> nodes;    // fractional nodes per column
  std::vector<double> reduced;  // reduced cost per column's node variable
};

// The optimum of the relaxation, shaved by a relative 1e-7 (and 1e-9
// absolute) so that solver tolerances cannot lift it above the integer
// optimum, and floored to a multiple of 1e-9 (USD/hour). NOT_FOUND when the
// program is infeasible (some class cannot be placed even fractionally),
// INTERNAL when the solver fails.
absl::StatusOr<BoundSolution> SolveBound(const BoundProblem& problem,
                                         const LpSolver& solver);

}  // namespace nodeplan::optimize

#endif  // NODEPLAN_LIB_OPTIMIZE_BOUND_H_
