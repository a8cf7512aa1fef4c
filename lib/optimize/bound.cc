// The linear relaxation of instance selection (optimize/bound.h).
//
// Variables: y_k >= 0 nodes of column k; x_ck >= 0 pods of class c on
// column k; e_c >= 0 pods of class c on existing capacity.
//   min  sum_k price_k y_k
//   s.t. sum_k x_ck + e_c = count_c                         (each class)
//        sum_c req_cr x_ck <= alloc_kr y_k                  (column k, dim r)
//        sum_c req_cr e_c  <= free_r                        (existing, dim r)
//        sum_{k in pool p} cap_kr y_k <= limit_pr           (limits)
// Any integer plan gives a feasible point of the same cost (y_k = its nodes
// of column k, x_ck = its pods of class c on them), so the optimum is a
// lower bound. Rows are scaled per dimension so that CPU millicores and
// memory bytes meet the solver with coefficients near 1.

#include "optimize/bound.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace nodeplan::optimize {

absl::StatusOr<BoundSolution> SolveBound(const BoundProblem& p,
                                         const LpSolver& solver) {
  const int dims = p.dims;
  // Dimensions some class requests, and their scale.
  std::vector<double> scale(dims, 0);
  for (const auto& c : p.classes)
    for (int r = 0; r < dims; ++r) scale[r] = std::max(scale[r], c.requests[r]);
  std::vector<int> used;
  for (int r = 0; r < dims; ++r)
    if (scale[r] > 0) used.push_back(r);

  LinearProgram lp;
  std::vector<int> ycol(p.columns.size());
  for (size_t k = 0; k < p.columns.size(); ++k)
    ycol[k] = lp.AddColumn(p.columns[k].price);
  // Capacity rows per column and used dimension: row index cap_row[k][u].
  std::vector<std::vector<int>> cap_row(p.columns.size());
  std::vector<bool> column_used(p.columns.size(), false);
  for (const auto& c : p.classes)
    for (int k : c.columns) column_used[k] = true;
  for (size_t k = 0; k < p.columns.size(); ++k) {
    if (!column_used[k]) continue;
    for (size_t u = 0; u < used.size(); ++u) {
      int r = used[u];
      int row = lp.AddRow(-kInf, 0);
      cap_row[k].push_back(row);
      lp.Set(row, ycol[k], -p.columns[k].allocatable[r] / scale[r]);
    }
  }
  std::vector<int> existing_row;
  if (!p.existing_free.empty())
    for (int r : used)
      existing_row.push_back(lp.AddRow(-kInf, p.existing_free[r] / scale[r]));
  for (const auto& c : p.classes) {
    if (c.count <= 0) continue;
    int demand =
        lp.AddRow(static_cast<double>(c.count), static_cast<double>(c.count));
    for (int k : c.columns) {
      int x = lp.AddColumn(0);
      lp.Set(demand, x, 1);
      for (size_t u = 0; u < used.size(); ++u)
        if (c.requests[used[u]] > 0)
          lp.Set(cap_row[k][u], x, c.requests[used[u]] / scale[used[u]]);
    }
    if (c.existing && !p.existing_free.empty()) {
      int e = lp.AddColumn(0);
      lp.Set(demand, e, 1);
      for (size_t u = 0; u < used.size(); ++u)
        if (c.requests[used[u]] > 0)
          lp.Set(existing_row[u], e, c.requests[used[u]] / scale[used[u]]);
    }
  }
  for (const auto& l : p.limits) {
    double s = 1;
    if (l.dim >= 0) {
      for (const auto& col : p.columns)
        if (col.pool == l.pool) s = std::max(s, col.capacity[l.dim]);
    }
    int row = lp.AddRow(-kInf, l.limit / s);
    for (size_t k = 0; k < p.columns.size(); ++k) {
      if (p.columns[k].pool != l.pool) continue;
      double v = l.dim < 0 ? 1.0 : p.columns[k].capacity[l.dim] / s;
      if (v != 0) lp.Set(row, ycol[k], v);
    }
  }

  LpResult r = solver.Solve(lp);
  if (r.status == LpResult::kInfeasible)
    return absl::NotFoundError(
        "the relaxation is infeasible: some pods fit no column");
  if (r.status != LpResult::kOptimal)
    return absl::InternalError(absl::StrCat(solver.Name(), ": ", r.message));
  BoundSolution out;
  // Shaved, then floored to 1e-9 USD so that last-bit differences of the
  // floating-point solve cannot show in the response bytes.
  out.lower_bound =
      std::max(0.0, std::floor((r.objective * (1 - 1e-7) - 1e-9) * 1e9) / 1e9);
  for (size_t k = 0; k < p.columns.size(); ++k) {
    out.nodes.push_back(r.x[ycol[k]]);
    out.reduced.push_back(r.reduced[ycol[k]]);
  }
  return out;
}

}  // namespace nodeplan::optimize
