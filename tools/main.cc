// The `nodeplan` command-line program; everything lives in cli.cc so the
// tests can run it in-process too.

#include <iostream>

#include "cli.h"

int main(int argc, char** argv) {
  try {
    return nodeplan::cli::RunNodeplan(argc, argv, std::cout, std::cerr);
  } catch (...) {
    std::cerr << "nodeplan: internal error\n";
    return 2;
  }
}
