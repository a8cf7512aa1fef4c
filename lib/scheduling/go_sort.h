#ifndef NODEPLAN_LIB_SCHEDULING_GO_SORT_H_
#define NODEPLAN_LIB_SCHEDULING_GO_SORT_H_

// The exact permutation Go's sort.Slice produces (Go 1.19 and later, the
// release Karpenter v1.14.1 is built with included): pattern-defeating
// quicksort over Less(i, j) and Swap(i, j), insertion sort for up to 12
// elements, heapsort after too many unbalanced partitions, and a pattern
// breaker seeded by the length only. sort.Slice is not stable, but it is
// deterministic: the same input order gives the same output order. Karpenter
// re-sorts its in-flight NodeClaims by pod count with it before every
// in-flight attempt, so the order in which ties are tried, and therefore
// which NodeClaim a pod joins, is this algorithm's. Written from the
// algorithm's description (Go's sort package documentation and the pdqsort
// paper, arXiv:2106.05123); verified against sort.Slice by
// tests/scheduling/go_sort_test.cc on recorded permutations.

#include <cstdint>
#include <utility>
#include <vector>

namespace nodeplan::scheduling {

// Sorts `v` in place with `less(a, b)` on elements, exactly as Go's
// sort.Slice(v, func(i, j int) bool { return less(v[i], v[j]) }) would.
// `on_swap(i, j)` runs after every swap of v[i] and v[j] (to keep an index
// of positions current without a rescan).
template <typename T, typename LessFn, typename SwapFn>
void GoSortSlice(std::vector<T>& v, LessFn less, SwapFn on_swap);
template <typename T, typename LessFn>
void GoSortSlice(std::vector<T>& v, LessFn less) {
  GoSortSlice(v, less, [](int, int) {});
}

namespace go_sort_internal {

template <typename T, typename LessFn, typename SwapFn>
class Sorter {
 public:
  Sorter(std::vector<T>& v, LessFn& less, SwapFn& on_swap)
      : v_(v), less_(less), on_swap_(on_swap) {}

  bool Less(int i, int j) const { return less_(v_[i], v_[j]); }
  void Swap(int i, int j) {
    std::swap(v_[i], v_[j]);
    on_swap_(i, j);
  }

  void InsertionSort(int a, int b) {
    for (int i = a + 1; i < b; ++i)
      for (int j = i; j > a && Less(j, j - 1); --j) Swap(j, j - 1);
  }

  void SiftDown(int lo, int hi, int first) {
    int root = lo;
    for (;;) {
      int child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && Less(first + child, first + child + 1)) ++child;
      if (!Less(first + root, first + child)) return;
      Swap(first + root, first + child);
      root = child;
    }
  }

  void HeapSort(int a, int b) {
    const int first = a, hi = b - a;
    for (int i = (hi - 1) / 2; i >= 0; --i) SiftDown(i, hi, first);
    for (int i = hi - 1; i >= 0; --i) {
      Swap(first, first + i);
      SiftDown(0, i, first);
    }
  }

  static int BitLen(uint64_t x) {
    int n = 0;
    while (x != 0) {
      ++n;
      x >>= 1;
    }
    return n;
  }

  void BreakPatterns(int a, int b) {
    const int length = b - a;
    if (length < 8) return;
    uint64_t random = static_cast<uint64_t>(length);
    const uint64_t modulus = uint64_t{1} << BitLen(length);
    for (int idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1;
         ++idx) {
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      int other = static_cast<int>(random & (modulus - 1));
      if (other >= length) other -= length;
      Swap(idx, a + other);
    }
  }

  // Orders a pair, counting a swap of roles.
  void Order2(int& a, int& b, int& swaps) const {
    if (Less(b, a)) {
      ++swaps;
      std::swap(a, b);
    }
  }
  int Median(int a, int b, int c, int& swaps) const {
    Order2(a, b, swaps);
    Order2(b, c, swaps);
    Order2(a, b, swaps);
    return b;
  }

  enum Hint { kUnknown, kIncreasing, kDecreasing };

  std::pair<int, Hint> ChoosePivot(int a, int b) const {
    const int l = b - a;
    int swaps = 0;
    int i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
    if (l >= 8) {
      if (l >= 50) {  // Tukey's ninther
        i = Median(i - 1, i, i + 1, swaps);
        j = Median(j - 1, j, j + 1, swaps);
        k = Median(k - 1, k, k + 1, swaps);
      }
      j = Median(i, j, k, swaps);
    }
    if (swaps == 0) return {j, kIncreasing};
    if (swaps == 12) return {j, kDecreasing};
    return {j, kUnknown};
  }

  void ReverseRange(int a, int b) {
    for (int i = a, j = b - 1; i < j; ++i, --j) Swap(i, j);
  }

  // True when [a, b) ends up sorted; shifts at most five out-of-order pairs,
  // and none on short ranges. The shifts run down to index 1 and up to b,
  // not just within [a, b), as Go's do.
  bool PartialInsertionSort(int a, int b) {
    int i = a + 1;
    for (int step = 0; step < 5; ++step) {
      while (i < b && !Less(i, i - 1)) ++i;
      if (i == b) return true;
      if (b - a < 50) return false;
      Swap(i, i - 1);
      if (i - a >= 2)
        for (int j = i - 1; j >= 1; --j) {
          if (!Less(j, j - 1)) break;
          Swap(j, j - 1);
        }
      if (b - i >= 2)
        for (int j = i + 1; j < b; ++j) {
          if (!Less(j, j - 1)) break;
          Swap(j, j - 1);
        }
    }
    return false;
  }

  int PartitionEqual(int a, int b, int pivot) {
    Swap(a, pivot);
    int i = a + 1, j = b - 1;
    for (;;) {
      while (i <= j && !Less(a, i)) ++i;
      while (i <= j && Less(a, j)) --j;
      if (i > j) break;
      Swap(i, j);
      ++i;
      --j;
    }
    return i;
  }

  std::pair<int, bool> Partition(int a, int b, int pivot) {
    Swap(a, pivot);
    int i = a + 1, j = b - 1;
    while (i <= j && Less(i, a)) ++i;
    while (i <= j && !Less(j, a)) --j;
    if (i > j) {
      Swap(j, a);
      return {j, true};
    }
    Swap(i, j);
    ++i;
    --j;
    for (;;) {
      while (i <= j && Less(i, a)) ++i;
      while (i <= j && !Less(j, a)) --j;
      if (i > j) break;
      Swap(i, j);
      ++i;
      --j;
    }
    Swap(j, a);
    return {j, false};
  }

  void PdqSort(int a, int b, int limit) {
    bool was_balanced = true, was_partitioned = true;
    for (;;) {
      const int length = b - a;
      if (length <= 12) {
        InsertionSort(a, b);
        return;
      }
      if (limit == 0) {
        HeapSort(a, b);
        return;
      }
      if (!was_balanced) {
        BreakPatterns(a, b);
        --limit;
      }
      auto [pivot, hint] = ChoosePivot(a, b);
      if (hint == kDecreasing) {
        ReverseRange(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = kIncreasing;
      }
      if (was_balanced && was_partitioned && hint == kIncreasing &&
          PartialInsertionSort(a, b))
        return;
      if (a > 0 && !Less(a - 1, pivot)) {
        a = PartitionEqual(a, b, pivot);
        continue;
      }
      auto [mid, already] = Partition(a, b, pivot);
      was_partitioned = already;
      const int left = mid - a, right = b - mid, threshold = length / 8;
      if (left < right) {
        was_balanced = left >= threshold;
        PdqSort(a, mid, limit);
        a = mid + 1;
      } else {
        was_balanced = right >= threshold;
        PdqSort(mid + 1, b, limit);
        b = mid;
      }
    }
  }

 private:
  std::vector<T>& v_;
  LessFn& less_;
  SwapFn& on_swap_;
};

}  // namespace go_sort_internal

template <typename T, typename LessFn, typename SwapFn>
void GoSortSlice(std::vector<T>& v, LessFn less, SwapFn on_swap) {
  using S = go_sort_internal::Sorter<T, LessFn, SwapFn>;
  const int n = static_cast<int>(v.size());
  S s(v, less, on_swap);
  s.PdqSort(0, n, S::BitLen(n));
}

}  // namespace nodeplan::scheduling

#endif  // NODEPLAN_LIB_SCHEDULING_GO_SORT_H_
