#ifndef NODEPLAN_TOOLS_CLI_H_
#define NODEPLAN_TOOLS_CLI_H_

// The `nodeplan` command: schedule, catalog, validate and hash subcommands
// over manifests as kubectl prints them. Exit status: 0 success, 1 `validate`
// found violations, 2 bad input or usage (message on stderr naming the file,
// document and field path; nothing on stdout).

#include <ostream>

namespace nodeplan::cli {

int RunNodeplan(int argc, const char* const* argv, std::ostream& out,
                std::ostream& err);

}  // namespace nodeplan::cli

#endif  // NODEPLAN_TOOLS_CLI_H_
