#ifndef NODEPLAN_LIB_OPTIMIZE_LP_H_
#define NODEPLAN_LIB_OPTIMIZE_LP_H_

// A minimal linear-program interface, so that the cost bound does not depend
// on one solver: min c'x subject to row_lo <= Ax <= row_hi, col_lo <= x <=
// col_hi. The COIN-OR CLP backend (clp_solver.cc) is built when CMake finds
// CLP (NODEPLAN_WITH_CLP); without it NewLpSolver() returns null and callers
// report the bound as unavailable.

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace nodeplan::optimize {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

struct LinearProgram {
  std::vector<double> cost, col_lo, col_hi;  // per column
  std::vector<double> row_lo, row_hi;        // per row
  // The constraint matrix as (row, column, value) triples.
  std::vector<int> entry_row, entry_col;
  std::vector<double> entry_value;

  int AddColumn(double c, double lo = 0, double hi = kInf) {
    cost.push_back(c);
    col_lo.push_back(lo);
    col_hi.push_back(hi);
    return static_cast<int>(cost.size()) - 1;
  }
  int AddRow(double lo, double hi) {
    row_lo.push_back(lo);
    row_hi.push_back(hi);
    return static_cast<int>(row_lo.size()) - 1;
  }
  void Set(int row, int col, double v) {
    entry_row.push_back(row);
    entry_col.push_back(col);
    entry_value.push_back(v);
  }
};

struct LpResult {
  enum Status { kOptimal, kInfeasible, kFailed } status = kFailed;
  double objective = 0;
  std::vector<double> x;        // column values
  std::vector<double> reduced;  // reduced costs per column
  std::string message;          // for kFailed / kInfeasible
};

class LpSolver {
 public:
  virtual ~LpSolver() = default;
  // Deterministic: the same program gives the same result.
  virtual LpResult Solve(const LinearProgram& lp) const = 0;
  virtual const char* Name() const = 0;
};

// The built-in solver, or null when the library was built without one.
std::unique_ptr<LpSolver> NewLpSolver();

}  // namespace nodeplan::optimize

#endif  // NODEPLAN_LIB_OPTIMIZE_LP_H_
