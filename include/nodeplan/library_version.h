#ifndef NODEPLAN_LIBRARY_VERSION_H_
#define NODEPLAN_LIBRARY_VERSION_H_

#include <string>

namespace nodeplan {

// "nodeplan/<major>.<minor>.<patch>": written into every response so a plan
// names the library that decided it.
const std::string& LibraryVersion();

}  // namespace nodeplan

#endif  // NODEPLAN_LIBRARY_VERSION_H_
