// The CLI's argument and file handling: the input's first line is the
// argument list (split on spaces; "@" stands for a file holding the rest of
// the input; so does any word that looks like a path), run in-process. Any exit
// status is fine; a crash, a hang or an escaping exception is not.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "cli.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string line = input.substr(0, newline);
  const std::string body =
      newline == std::string::npos ? "" : input.substr(newline + 1);
  // One file per process, removed when it exits.
  struct InputFile {
    std::string path =
        "/tmp/nodeplan_cli_fuzz_" + std::to_string(getpid()) + ".yaml";
    ~InputFile() { std::remove(path.c_str()); }
  };
  static const InputFile input_file;
  const std::string& file = input_file.path;
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << body;
  }
  std::vector<std::string> args = {"nodeplan"};
  for (absl::string_view a : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    if (args.size() > 16) break;
    // Only the input's own file is read: any path-like word stands for it
    // (so "-f /" cannot walk the filesystem).
    const bool path_like = a == "@" || a.find_first_of("/.~") != a.npos;
    args.push_back(path_like ? file : std::string(a));
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  nodeplan::cli::RunNodeplan(static_cast<int>(argv.size()), argv.data(), out,
                             err);
  return 0;
}
