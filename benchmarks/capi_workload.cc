// Writes workload::KarpenterBenchmark(pods) as a serialized ScheduleRequest,
// so the Python and Go micro-benchmarks time the same call as capi_bench.
//   capi_workload <pods> <output file>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "nodeplan/workload.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <pods> <output file>\n", argv[0]);
    return 2;
  }
  const auto request =
      nodeplan::workload::KarpenterBenchmark(std::atoi(argv[1]));
  std::ofstream out(argv[2], std::ios::binary);
  if (!request.SerializeToOstream(&out)) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
