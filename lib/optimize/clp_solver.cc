// The COIN-OR CLP backend of optimize::LpSolver (Debian coinor-libclp-dev).

#include <memory>

#include "ClpSimplex.hpp"
#include "CoinPackedMatrix.hpp"
#include "optimize/lp.h"

namespace nodeplan::optimize {
namespace {

class ClpSolver : public LpSolver {
 public:
  LpResult Solve(const LinearProgram& lp) const override {
    LpResult r;
    const int cols = static_cast<int>(lp.cost.size());
    const int rows = static_cast<int>(lp.row_lo.size());
    CoinPackedMatrix matrix(
        /*colordered=*/true, lp.entry_row.data(), lp.entry_col.data(),
        lp.entry_value.data(),
        static_cast<CoinBigIndex>(lp.entry_value.size()));
    matrix.setDimensions(rows, cols);
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(matrix, lp.col_lo.data(), lp.col_hi.data(),
                      lp.cost.data(), lp.row_lo.data(), lp.row_hi.data());
    // CLP's default tolerances (1e-7); the caller shaves a relative margin
    // off the objective so that they cannot lift it above the optimum.
    // Primal simplex: on the 400-type fake catalog dual was ~15x slower
    // (benchmarks/README.md).
    model.primal();
    if (model.isProvenPrimalInfeasible()) {
      r.status = LpResult::kInfeasible;
      r.message = "infeasible";
      return r;
    }
    if (!model.isProvenOptimal()) {
      r.status = LpResult::kFailed;
      r.message = "CLP stopped without an optimum (status " +
                  std::to_string(model.status()) + ")";
      return r;
    }
    r.status = LpResult::kOptimal;
    r.objective = model.objectiveValue();
    const double* x = model.primalColumnSolution();
    const double* d = model.dualColumnSolution();
    r.x.assign(x, x + cols);
    r.reduced.assign(d, d + cols);
    return r;
  }
  const char* Name() const override { return "COIN-OR CLP"; }
};

}  // namespace

std::unique_ptr<LpSolver> NewLpSolver() {
  return std::make_unique<ClpSolver>();
}

}  // namespace nodeplan::optimize
