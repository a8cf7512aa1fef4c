// Built instead of clp_solver.cc when CMake has no LP solver
// (NODEPLAN_WITH_CLP=OFF or CLP not found): the cost bound is unavailable.

#include "optimize/lp.h"

namespace nodeplan::optimize {

std::unique_ptr<LpSolver> NewLpSolver() { return nullptr; }

}  // namespace nodeplan::optimize
