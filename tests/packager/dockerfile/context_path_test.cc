#include "packager/dockerfile/context_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::HasSubstr;

TEST(ContextPath, NormalizesSources) {
  EXPECT_EQ(*NormalizeSourcePath("trainer"), "trainer");
  EXPECT_EQ(*NormalizeSourcePath("./a//b/./c/"), "a/b/c");
  EXPECT_EQ(*NormalizeSourcePath("/abs/x"), "abs/x");
  EXPECT_EQ(*NormalizeSourcePath("a/../b/*.py"), "b/*.py");
  EXPECT_EQ(*NormalizeSourcePath("."), ".");
  absl::StatusOr<std::string> out = NormalizeSourcePath("a/../../etc/passwd");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("outside the build context"));
}

TEST(ContextPath, ResolvesDestinations) {
  EXPECT_EQ(*ResolveDestination("/app", "trainer"), "/app/trainer");
  EXPECT_EQ(*ResolveDestination("/app", "lib/"), "/app/lib/");
  EXPECT_EQ(*ResolveDestination("/app", "."), "/app/");
  EXPECT_EQ(*ResolveDestination("/app", "/opt//x/../y"), "/opt/y");
  EXPECT_EQ(*ResolveDestination("/", "/"), "/");
  EXPECT_FALSE(ResolveDestination("/app", "../../x").ok());
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
