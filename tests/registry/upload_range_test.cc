#include "registry/internal/upload_range.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::registry::internal {
namespace {

TEST(UploadRangeTest, ContentRangeIsInclusive) {
  EXPECT_EQ(ContentRange(0, 1024), "0-1023");
  EXPECT_EQ(ContentRange(1024, 1), "1024-1024");
}

TEST(UploadRangeTest, UploadedBytesReadsTheLastByte) {
  EXPECT_EQ(*UploadedBytes(std::string("0-1023")), 1024u);
  EXPECT_EQ(*UploadedBytes(std::string("bytes=0-9")), 10u);
  EXPECT_EQ(*UploadedBytes(std::string("0-0")), 0u) << "distribution's empty session";
  EXPECT_EQ(*UploadedBytes(std::nullopt), 0u);
}

TEST(UploadRangeTest, MalformedRangesNameTheHeader) {
  for (const char* bad : {"", "5-9", "0-", "-9", "0-x", "garbage"}) {
    auto held = UploadedBytes(std::string(bad));
    ASSERT_FALSE(held.ok()) << bad;
    EXPECT_THAT(std::string(held.status().message()),
                ::testing::HasSubstr(std::string("\"") + bad + "\""));
  }
}

}  // namespace
}  // namespace trainpkg::registry::internal
