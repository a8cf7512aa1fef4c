// GoSortSlice gives exactly the permutation Go's sort.Slice gives, ties
// included (scheduling/go_sort.h): Karpenter's in-flight NodeClaim order is
// that permutation.

#include "scheduling/go_sort.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace nodeplan::scheduling {
namespace {

struct Vector {
  std::vector<int> counts, order;
};

const std::vector<Vector>& Vectors() {
  static const auto* v = new std::vector<Vector>{
#include "go_sort_vectors.inc"
  };
  return *v;
}

TEST(GoSortSlice, MatchesGoSortSliceOnRecordedPermutations) {
  ASSERT_GT(Vectors().size(), 50u);
  for (const Vector& c : Vectors()) {
    std::vector<int> idx(c.counts.size());
    std::iota(idx.begin(), idx.end(), 0);
    GoSortSlice(idx, [&](int a, int b) { return c.counts[a] < c.counts[b]; });
    EXPECT_EQ(idx, c.order) << "n=" << c.counts.size();
  }
}

// Up to 12 elements it is an insertion sort, hence stable; an input already
// in order is left as it is at any length.
TEST(GoSortSlice, ShortInputsStableAndSortedInputsUntouched) {
  std::vector<int> counts = {3, 1, 2, 1, 3, 2, 1, 1, 2, 3, 1, 2};
  std::vector<int> idx(counts.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::vector<int> stable = idx;
  std::stable_sort(stable.begin(), stable.end(),
                   [&](int a, int b) { return counts[a] < counts[b]; });
  GoSortSlice(idx, [&](int a, int b) { return counts[a] < counts[b]; });
  EXPECT_EQ(idx, stable);
  std::vector<int> sorted(500);
  for (size_t i = 0; i < sorted.size(); ++i)
    sorted[i] = static_cast<int>(i / 37);
  std::vector<int> pos(sorted.size());
  std::iota(pos.begin(), pos.end(), 0);
  std::vector<int> before = pos;
  GoSortSlice(pos, [&](int a, int b) { return sorted[a] < sorted[b]; });
  EXPECT_EQ(pos, before);
}

}  // namespace
}  // namespace nodeplan::scheduling
