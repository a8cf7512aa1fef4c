#ifndef NODEPLAN_TESTS_CLI_TEST_FILES_H_
#define NODEPLAN_TESTS_CLI_TEST_FILES_H_

// Files of the CLI tests: reading one whole, and temporary paths that are
// unique per process and test (ctest runs the tests of a file in parallel).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace nodeplan::testing_files {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Paths handed out by TempPath, removed when the test program exits, so
// that runs leave nothing behind in the shared temporary directory.
class TempPaths {
 public:
  ~TempPaths() {
    std::error_code ignored;
    for (const std::string& path : paths_)
      std::filesystem::remove_all(path, ignored);
  }
  void Add(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    paths_.push_back(path);
  }

 private:
  std::mutex mu_;
  std::vector<std::string> paths_;
};

inline TempPaths& TempPathsOfThisProgram() {
  static TempPaths paths;
  return paths;
}

// <TempDir>/nodeplan_<prefix>_<pid>_<test>_<name>, removed at exit.
inline std::string TempPath(const std::string& prefix,
                            const std::string& name) {
  const ::testing::TestInfo* test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path =
      absl::StrCat(::testing::TempDir(), "/nodeplan_", prefix, "_", getpid(),
                   "_", test == nullptr ? "" : test->name(), "_", name);
  TempPathsOfThisProgram().Add(path);
  return path;
}

}  // namespace nodeplan::testing_files

#endif  // NODEPLAN_TESTS_CLI_TEST_FILES_H_
