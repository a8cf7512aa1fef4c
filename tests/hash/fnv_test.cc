#include "hash/fnv.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace nodeplan::hash_internal {
namespace {

TEST(Fnv1, CheckValueIsFnv1NotFnv1a) {
  EXPECT_EQ(Fnv1("a"), 0xaf63bd4c8601b7beULL);
  EXPECT_EQ(Fnv1(""), 14695981039346656037ULL);
}

TEST(Fnv1, ReferenceIntermediates) {
  EXPECT_EQ(Fnv1("NodeClaimTemplate"), 17307646073972311821ULL);
  EXPECT_EQ(Fnv1("NodeClass"), 7599395911698778907ULL);
  EXPECT_EQ(FnvU64(86400000000000ULL), 7636792937216329387ULL);
  EXPECT_EQ(FnvU64(1209600000000000ULL), 2960526908904753800ULL);
}

TEST(Fnv1, OrderedIsFnvOfBothLittleEndianWords) {
  std::string bytes;
  for (uint64_t v : {0x0102030405060708ULL, 42ULL}) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<char>(v >> (8 * i)));
  }
  EXPECT_EQ(Ordered(0x0102030405060708ULL, 42), Fnv1(bytes));
  EXPECT_EQ(Finish(42), Fnv1(bytes.substr(8)));
}

}  // namespace
}  // namespace nodeplan::hash_internal
