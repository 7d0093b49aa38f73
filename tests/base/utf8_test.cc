#include "base/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace trainpkg::base {
namespace {

TEST(Utf8Test, ValidTextHasNoInvalidByte) {
  EXPECT_EQ(FirstInvalidUtf8(""), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("résumé 東京 🚀"), std::nullopt);
  EXPECT_EQ(Utf8SequenceLength("🚀"), 4u);
  EXPECT_EQ(Utf8SequenceLength(""), 0u);
}

TEST(Utf8Test, NamesTheFirstInvalidByte) {
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u);     // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // beyond U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("é\xe6\x9d"), 2u);         // truncated at the end
}

}  // namespace
}  // namespace trainpkg::base
