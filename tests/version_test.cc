#include "nodeplan/version.h"

#include "gtest/gtest.h"
#include "nodeplan/library_version.h"

namespace nodeplan {
namespace {

TEST(LibraryVersionTest, NamesTheProjectVersion) {
  EXPECT_EQ(LibraryVersion(),
            std::string("nodeplan/") + NODEPLAN_VERSION_STRING);
  EXPECT_GE(NODEPLAN_ABI_VERSION, 1);
}

}  // namespace
}  // namespace nodeplan
