#include "nodeplan/version.h"

#include "nodeplan/library_version.h"

namespace nodeplan {

const std::string& LibraryVersion() {
  static const std::string* const kVersion =
      new std::string("nodeplan/" NODEPLAN_VERSION_STRING);
  return *kVersion;
}

}  // namespace nodeplan
