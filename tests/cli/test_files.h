#ifndef NODEPLAN_TESTS_CLI_TEST_FILES_H_
#define NODEPLAN_TESTS_CLI_TEST_FILES_H_

// Files of the CLI tests: reading one whole, and temporary paths that are
// unique per process and test (ctest runs the tests of a file in parallel).

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace nodeplan::testing_files {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// <TempDir>/nodeplan_<prefix>_<pid>_<test>_<name>.
inline std::string TempPath(const std::string& prefix,
                            const std::string& name) {
  const ::testing::TestInfo* test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  return absl::StrCat(::testing::TempDir(), "/nodeplan_", prefix, "_", getpid(),
                      "_", test == nullptr ? "" : test->name(), "_", name);
}

}  // namespace nodeplan::testing_files

#endif  // NODEPLAN_TESTS_CLI_TEST_FILES_H_
