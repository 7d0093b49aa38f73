#include "packager/layer/internal/image_path.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trainpkg::packager::layer_internal {
namespace {

TEST(NormalizeRelativePathTest, CleansAndDropsLeadingSlash) {
  EXPECT_EQ(*NormalizeRelativePath("/usr//lib/./x/../y/", "d", "r"), "usr/lib/y");
  EXPECT_EQ(*NormalizeRelativePath("/", "d", "r"), "");
  EXPECT_EQ(*NormalizeRelativePath(".", "d", "r"), "");
  EXPECT_EQ(*NormalizeRelativePath("a/..", "d", "r"), "");
}

TEST(NormalizeRelativePathTest, RefusesClimbingAboveTheRoot) {
  absl::StatusOr<std::string> p = NormalizeRelativePath("../x", "source", "the build context");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(p.status().message()), "source \"../x\" escapes the build context");
  EXPECT_FALSE(NormalizeRelativePath("/a/../../etc", "d", "r").ok());
}

TEST(ImagePathLessTest, ParentsFirstWhiteoutsBeforeSiblingsBytewise) {
  std::vector<std::string> paths = {"b",   "a/z",        "a-b", "a", "a/.wh.x", "a/.wh..wh..opq",
                                    "a/B", "a/\xc3\xa9", "a/!"};
  std::sort(paths.begin(), paths.end(), ImagePathOrder());
  EXPECT_EQ(paths, (std::vector<std::string>{"a", "a/.wh..wh..opq", "a/.wh.x", "a/!", "a/B", "a/z",
                                             "a/\xc3\xa9", "a-b", "b"}));
}

TEST(ImagePathTest, BaseAndParent) {
  EXPECT_EQ(BaseName("a/b/c"), "c");
  EXPECT_EQ(ParentPath("a/b/c"), "a/b");
  EXPECT_EQ(ParentPath("c"), "");
}

}  // namespace
}  // namespace trainpkg::packager::layer_internal
