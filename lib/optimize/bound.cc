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
//
// Before the solver sees it, a column is left out when a fraction of
// another column of its NodePool holds as much for no more money (scaled
// dominance, ScaledDominance): the optimum is the same, and a catalog of
// one family at many sizes (Karpenter's fake provider: 400 types whose
// price grows with their size) becomes a program of one column, ~20x
// faster to solve.

#include "optimize/bound.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace nodeplan::optimize {
namespace {

// Column `a` dominates column `b` (same NodePool) when a fraction
// lambda <= 1 of an `a` node holds what a `b` node holds in every requested
// dimension, for no more than b's price and within b's capacity in every
// limited dimension. Any feasible point using y nodes of b then stays
// feasible at no more cost with lambda * y nodes of a carrying the same
// pods, provided `a` admits every class `b` admits (checked by the caller:
// admission is the program's, not only "fits"), so dropping b leaves the
// optimum unchanged. Returns lambda, or a negative value when `a` does not
// dominate `b` in resources, price and capacity. The relative
// 1e-12 lets exactly proportional types (one family at twice the size and
// twice the price) meet despite rounding; it moves the optimum by far less
// than the 1e-7 SolveBound shaves off. Dominance is transitive, so the
// columns kept dominate every column dropped.
double ScaledDominance(const BoundColumn& a, const BoundColumn& b,
                       const std::vector<int>& requested,
                       const std::vector<int>& limited) {
  double lambda = 0;
  for (int r : requested) {
    if (b.allocatable[r] <= 0) continue;
    if (a.allocatable[r] < b.allocatable[r]) return -1;
    lambda = std::max(lambda, b.allocatable[r] / a.allocatable[r]);
  }
  if (lambda * a.price > b.price * (1 + 1e-12)) return -1;
  for (int r : limited)
    if (lambda * a.capacity[r] > b.capacity[r] * (1 + 1e-12)) return -1;
  return lambda;
}

}  // namespace

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

  // Columns some class may use, less the scaled-dominated ones.
  std::vector<bool> column_used(p.columns.size(), false);
  for (const auto& c : p.classes)
    if (c.count > 0)
      for (int k : c.columns) column_used[k] = true;
  std::vector<std::vector<int>> limited(p.columns.size());
  for (const auto& l : p.limits)
    for (size_t k = 0; k < p.columns.size(); ++k)
      if (l.dim >= 0 && p.columns[k].pool == l.pool)
        limited[k].push_back(l.dim);
  // The classes admitted to each column: a dominating column must admit
  // every class the dominated one admits (the program's admission is the
  // caller's, not only "fits").
  std::vector<std::vector<bool>> admits(p.columns.size(),
                                        std::vector<bool>(p.classes.size()));
  for (size_t c = 0; c < p.classes.size(); ++c)
    if (p.classes[c].count > 0)
      for (int k : p.classes[c].columns) admits[k][c] = true;
  auto admits_all_of = [&](size_t j, size_t k) {
    for (size_t c = 0; c < p.classes.size(); ++c)
      if (admits[k][c] && !admits[j][c]) return false;
    return true;
  };
  auto dominates = [&](size_t j, size_t k) {
    if (j == k || !column_used[j] || p.columns[j].pool != p.columns[k].pool)
      return -1.0;
    const double lambda =
        ScaledDominance(p.columns[j], p.columns[k], used, limited[k]);
    return lambda >= 0 && admits_all_of(j, k) ? lambda : -1.0;
  };
  // Dropped: dominated by another column, which does not dominate it back
  // or comes first (equal columns up to scale: the earlier stays).
  std::vector<bool> dropped(p.columns.size(), false);
  for (size_t k = 0; k < p.columns.size(); ++k)
    for (size_t j = 0; j < p.columns.size() && column_used[k] && !dropped[k];
         ++j)
      dropped[k] = dominates(j, k) >= 0 && (j < k || dominates(k, j) < 0);
  // dominator[k]: a kept column dominating dropped column k, by `fraction`
  // of it; -1 for kept columns. Transitivity guarantees one, but should
  // rounding break it, k is kept (more columns never change the optimum).
  std::vector<int> dominator(p.columns.size(), -1);
  std::vector<double> fraction(p.columns.size(), 0);
  for (size_t k = 0; k < p.columns.size(); ++k)
    for (size_t j = 0; j < p.columns.size() && dropped[k] && dominator[k] < 0;
         ++j)
      if (const double lambda = dropped[j] ? -1 : dominates(j, k);
          lambda >= 0) {
        dominator[k] = static_cast<int>(j);
        fraction[k] = lambda;
      }

  LinearProgram lp;
  std::vector<int> ycol(p.columns.size(), -1);
  for (size_t k = 0; k < p.columns.size(); ++k)
    if (dominator[k] < 0) ycol[k] = lp.AddColumn(p.columns[k].price);
  // Capacity rows per column and used dimension: row index cap_row[k][u].
  std::vector<std::vector<int>> cap_row(p.columns.size());
  for (size_t k = 0; k < p.columns.size(); ++k) {
    if (!column_used[k] || dominator[k] >= 0) continue;
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
      if (dominator[k] >= 0) continue;
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
      if (p.columns[k].pool != l.pool || ycol[k] < 0) continue;
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
    if (ycol[k] >= 0) {
      out.nodes.push_back(r.x[ycol[k]]);
      out.reduced.push_back(r.reduced[ycol[k]]);
      continue;
    }
    // A dropped column is unused. Its reduced cost is at least its price
    // less what `fraction` of its dominator is worth at the optimum's duals
    // (a node of it holds no more than that fraction does); that bound
    // stands in for it.
    out.nodes.push_back(0);
    const int j = dominator[k];
    out.reduced.push_back(std::max(
        0.0, p.columns[k].price -
                 fraction[k] * (p.columns[j].price - r.reduced[ycol[j]])));
  }
  return out;
}

}  // namespace nodeplan::optimize
