// A plain driver for the fuzz targets, so that the normal (gcc) build and CI
// replay every corpus and crash input without clang: each argument is a file
// or a directory of files, each file is one call of LLVMFuzzerTestOneInput.
// A crash, sanitizer report or assertion fails the ctest that runs it; a
// file slower than the budget fails it too.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
    __attribute__((weak));

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.is_regular_file() && e.path().filename() != "README.md") {
          files.push_back(e.path());
        }
      }
    } else if (std::filesystem::exists(p)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  // One second per megabyte (and at least one second): the promise of
  // tests/fuzz/README.md, for an optimized build. An unoptimized or
  // sanitized build (the CI's ASan+UBSan leg at -O0) runs the same code
  // 10-20 times slower, so its budget is 20 times larger; the promise is
  // checked by the release build.
  double scale = 1.0;
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
  scale = 20.0;
#endif
  int slow = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const double budget = scale * std::max(1.0, bytes.size() / 1e6);
    if (seconds > budget) {
      std::fprintf(stderr, "%s: %.2f s, more than %.2f s\n", f.c_str(), seconds,
                   budget);
      ++slow;
    }
  }
  std::printf("replayed %zu inputs\n", files.size());
  return slow == 0 ? 0 : 1;
}
