// The relaxation's optimum never exceeds the integer optimum: random small
// problems against exhaustive search over set partitions of the pods.

#include "optimize/bound.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "nodeplan/workload.h"

namespace nodeplan::optimize {
namespace {

// The cheapest integer plan: every partition of the pods into blocks (as
// restricted growth strings), every block on existing capacity (at most one
// block) or on one node of an admissible column it fits, limits checked.
// Returns kInf when nothing is feasible.
double BruteForce(const BoundProblem& p) {
  std::vector<int> pod_class;
  for (size_t c = 0; c < p.classes.size(); ++c)
    for (int i = 0; i < p.classes[c].count; ++i)
      pod_class.push_back(static_cast<int>(c));
  const int n = static_cast<int>(pod_class.size());
  double best = kInf;
  std::vector<int> block(n, 0);
  std::function<void(int, int)> partitions;
  // For one partition: choose a destination per block (-1 existing).
  auto evaluate = [&](int blocks) {
    std::vector<std::vector<double>> load(blocks,
                                          std::vector<double>(p.dims, 0));
    std::vector<std::vector<bool>> ok(blocks);
    for (int b = 0; b < blocks; ++b) ok[b].assign(p.columns.size() + 1, true);
    for (int i = 0; i < n; ++i) {
      const BoundClass& c = p.classes[pod_class[i]];
      for (int r = 0; r < p.dims; ++r) load[block[i]][r] += c.requests[r];
      for (size_t k = 0; k < p.columns.size(); ++k)
        if (std::find(c.columns.begin(), c.columns.end(), k) == c.columns.end())
          ok[block[i]][k] = false;
      if (!c.existing) ok[block[i]][p.columns.size()] = false;
    }
    std::vector<int> dest(blocks, 0);
    std::function<void(int, double, bool)> choose = [&](int b, double cost,
                                                        bool used_existing) {
      if (cost >= best) return;
      if (b == blocks) {
        for (const auto& l : p.limits) {
          double sum = 0;
          for (int d = 0; d < blocks; ++d) {
            if (dest[d] < 0 || p.columns[dest[d]].pool != l.pool) continue;
            sum += l.dim < 0 ? 1 : p.columns[dest[d]].capacity[l.dim];
          }
          if (sum > l.limit) return;
        }
        best = cost;
        return;
      }
      if (!used_existing && !p.existing_free.empty() &&
          ok[b][p.columns.size()]) {
        bool fits = true;
        for (int r = 0; r < p.dims; ++r)
          fits = fits && load[b][r] <= p.existing_free[r];
        if (fits) {
          dest[b] = -1;
          choose(b + 1, cost, true);
        }
      }
      for (size_t k = 0; k < p.columns.size(); ++k) {
        if (!ok[b][k]) continue;
        bool fits = true;
        for (int r = 0; r < p.dims; ++r)
          fits = fits && load[b][r] <= p.columns[k].allocatable[r];
        if (!fits) continue;
        dest[b] = static_cast<int>(k);
        choose(b + 1, cost + p.columns[k].price, used_existing);
      }
    };
    choose(0, 0, false);
  };
  partitions = [&](int i, int blocks) {
    if (i == n) {
      evaluate(blocks);
      return;
    }
    for (int b = 0; b <= blocks; ++b) {
      block[i] = b;
      partitions(i + 1, std::max(blocks, b + 1));
    }
  };
  partitions(0, 0);
  return best;
}

BoundProblem RandomProblem(workload::Rng& rng) {
  BoundProblem p;
  p.dims = 3;  // cpu, memory, pods
  int pools = 1 + static_cast<int>(rng.Below(2));
  int columns = 1 + static_cast<int>(rng.Below(4));
  for (int k = 0; k < columns; ++k) {
    BoundColumn col;
    col.pool = static_cast<int>(rng.Below(pools));
    double cpu = 1000.0 * (1 + rng.Below(4)), mem = 1024.0 * (1 + rng.Below(8));
    col.allocatable = {cpu, mem, static_cast<double>(2 + rng.Below(4))};
    col.capacity = col.allocatable;
    col.price = 0.01 * static_cast<double>(1 + rng.Below(20));
    p.columns.push_back(col);
  }
  if (rng.Chance(1, 3))
    p.existing_free = {1000.0 * rng.Below(3), 1024.0 * rng.Below(4), 3};
  int classes = 1 + static_cast<int>(rng.Below(3));
  int pods = 0;
  for (int c = 0; c < classes && pods < 7; ++c) {
    BoundClass bc;
    bc.count = 1 + static_cast<int64_t>(rng.Below(std::min(3, 7 - pods)));
    pods += static_cast<int>(bc.count);
    bc.requests = {250.0 * (1 + rng.Below(8)), 256.0 * (1 + rng.Below(16)), 1};
    for (int k = 0; k < columns; ++k) {
      bool fits = true;
      for (int r = 0; r < p.dims; ++r)
        fits = fits && bc.requests[r] <= p.columns[k].allocatable[r];
      if (fits && !rng.Chance(1, 5)) bc.columns.push_back(k);
    }
    bc.existing = rng.Chance(2, 3);
    p.classes.push_back(bc);
  }
  if (rng.Chance(1, 3))
    p.limits.push_back(
        {0, rng.Chance(1, 2) ? -1 : 0, rng.Chance(1, 2) ? 2.0 : 4000.0});
  return p;
}

TEST(CostBound, NeverAboveTheIntegerOptimum) {
  auto solver = NewLpSolver();
  if (solver == nullptr) GTEST_SKIP() << "built without an LP solver";
  workload::Rng rng(2026);
  int feasible = 0, tight = 0;
  for (int trial = 0; trial < 400; ++trial) {
    BoundProblem p = RandomProblem(rng);
    double opt = BruteForce(p);
    auto lb = SolveBound(p, *solver);
    if (opt == kInf) continue;  // (the relaxation may still be feasible)
    ++feasible;
    ASSERT_TRUE(lb.ok()) << trial << ": " << lb.status();
    EXPECT_LE(lb->lower_bound, opt + 1e-12) << "trial " << trial;
    EXPECT_GE(lb->lower_bound, 0);
    if (lb->lower_bound >= opt * 0.75) ++tight;
  }
  EXPECT_GT(feasible, 200);
  // Not a validity property: the bound is informative on most problems.
  EXPECT_GT(tight, feasible / 3);
}

TEST(CostBound, SingleClassIsTheFractionalNodeCount) {
  auto solver = NewLpSolver();
  if (solver == nullptr) GTEST_SKIP() << "built without an LP solver";
  BoundProblem p;
  p.dims = 2;
  p.columns.push_back({0.1, {2000, 4096}, {2000, 4096}, 0, "a"});
  p.classes.push_back({{500, 512}, 10, {0}, false});
  auto lb = SolveBound(p, *solver);
  ASSERT_TRUE(lb.ok()) << lb.status();
  // 5,000m over 2,000m nodes: 2.5 nodes.
  EXPECT_NEAR(lb->lower_bound, 0.25, 1e-6);
  EXPECT_LE(lb->lower_bound, 0.25);
}

TEST(CostBound, InfeasibleIsNotFound) {
  auto solver = NewLpSolver();
  if (solver == nullptr) GTEST_SKIP() << "built without an LP solver";
  BoundProblem p;
  p.dims = 1;
  p.columns.push_back({0.1, {2000}, {2000}, 0, "a"});
  p.classes.push_back({{500}, 10, {0}, false});
  p.limits.push_back({0, -1, 1});  // one node holds 4 of the 10 pods
  auto lb = SolveBound(p, *solver);
  EXPECT_EQ(lb.status().code(), absl::StatusCode::kNotFound);
}

// SolveBound leaves out columns a fraction of another column of the same
// NodePool replaces at no more cost: the optimum must not move. With every
// column in a NodePool of its own (and no limits, which are per NodePool)
// nothing is left out and the program is otherwise the same.
TEST(CostBound, LeavingOutDominatedColumnsKeepsTheOptimum) {
  auto solver = NewLpSolver();
  if (solver == nullptr) GTEST_SKIP() << "built without an LP solver";
  workload::Rng rng(77);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    BoundProblem p = RandomProblem(rng);
    p.limits.clear();
    // Proportional families too: a column at twice another's size and
    // price (what a catalog of one family looks like).
    if (rng.Chance(1, 2) && !p.columns.empty()) {
      BoundColumn twice = p.columns[0];
      for (double& a : twice.allocatable) a *= 2;
      twice.capacity = twice.allocatable;
      twice.price *= 2;
      p.columns.push_back(twice);
      for (auto& c : p.classes)
        if (std::find(c.columns.begin(), c.columns.end(), 0) != c.columns.end())
          c.columns.push_back(static_cast<int>(p.columns.size()) - 1);
    }
    BoundProblem apart = p;
    for (size_t k = 0; k < apart.columns.size(); ++k)
      apart.columns[k].pool = static_cast<int>(k);
    auto pruned = SolveBound(p, *solver);
    auto whole = SolveBound(apart, *solver);
    ASSERT_EQ(pruned.ok(), whole.ok()) << trial;
    if (!pruned.ok()) continue;
    ++compared;
    EXPECT_NEAR(pruned->lower_bound, whole->lower_bound,
                1e-6 * std::max(1.0, whole->lower_bound))
        << "trial " << trial;
    ASSERT_EQ(pruned->nodes.size(), p.columns.size());
    ASSERT_EQ(pruned->reduced.size(), p.columns.size());
    for (double r : pruned->reduced) EXPECT_GE(r, -1e-9);
  }
  EXPECT_GT(compared, 200);
}

TEST(CostBound, ALargerColumnReplacesOnlyWhereItAdmitsTheSameClasses) {
  auto solver = NewLpSolver();
  if (solver == nullptr) GTEST_SKIP() << "built without an LP solver";
  BoundProblem p;
  p.dims = 1;
  // b is a at twice the size for less than twice the price.
  p.columns.push_back({0.10, {1000}, {1000}, 0, "a"});
  p.columns.push_back({0.15, {2000}, {2000}, 0, "b"});
  p.classes.push_back({{1000}, 3, {0, 1}, false});
  auto both = SolveBound(p, *solver);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_NEAR(both->lower_bound, 0.225, 1e-6);  // 1.5 nodes of b
  EXPECT_EQ(both->nodes[0], 0);
  EXPECT_GT(both->reduced[0], 0);  // a would cost more than it saves
  // A class b does not admit keeps a in the program.
  p.classes.push_back({{500}, 2, {0}, false});
  auto apart = SolveBound(p, *solver);
  ASSERT_TRUE(apart.ok()) << apart.status();
  EXPECT_NEAR(apart->lower_bound, 0.225 + 0.10, 1e-6);
}

}  // namespace
}  // namespace nodeplan::optimize
