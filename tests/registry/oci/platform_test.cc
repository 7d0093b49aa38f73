#include "registry/oci/platform.h"

#include <sys/utsname.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/host_platform.h"
#include "registry/oci/image_index.h"
#include "registry/oci/media_types.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::oci {
namespace {

using ::testing::HasSubstr;

Platform P(std::string_view text) {
  auto platform = ParsePlatform(text);
  EXPECT_THAT(platform, IsOk());
  return platform.ok() ? *platform : Platform{};
}

TEST(PlatformTest, ParseAndFormat) {
  EXPECT_EQ(P("linux/amd64"), (Platform{.architecture = "amd64", .os = "linux"}));
  EXPECT_EQ(P("linux/arm64/v8"),
            (Platform{.architecture = "arm64", .os = "linux", .variant = "v8"}));
  EXPECT_EQ(P("linux/x86_64").architecture, "amd64");
  EXPECT_EQ(P("linux/aarch64").architecture, "arm64");
  EXPECT_EQ(FormatPlatform(P("linux/arm/v7")), "linux/arm/v7");
  EXPECT_EQ(FormatPlatform(P("windows/amd64")), "windows/amd64");
  for (std::string_view bad : {"", "linux", "linux/", "/amd64", "linux/arm64/v8/x", "linux//v8"}) {
    auto platform = ParsePlatform(bad);
    EXPECT_EQ(platform.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(PlatformTest, Matching) {
  EXPECT_TRUE(PlatformMatches(P("linux/amd64"), P("linux/amd64")));
  EXPECT_FALSE(PlatformMatches(P("linux/amd64"), P("linux/arm64")));
  EXPECT_FALSE(PlatformMatches(P("windows/amd64"), P("linux/amd64")));
  // arm64's implied variant is v8; an unset wanted variant accepts any.
  EXPECT_TRUE(PlatformMatches(P("linux/arm64"), P("linux/arm64/v8")));
  EXPECT_TRUE(PlatformMatches(P("linux/arm64/v8"), P("linux/arm64")));
  EXPECT_TRUE(PlatformMatches(P("linux/arm/v6"), P("linux/arm")));
  EXPECT_FALSE(PlatformMatches(P("linux/arm/v6"), P("linux/arm/v7")));
  EXPECT_TRUE(PlatformMatches(P("linux/arm"), P("linux/arm/v7")));
  EXPECT_TRUE(PlatformMatches(P("linux/amd64/v1"), P("linux/amd64")));

  Platform windows{.architecture = "amd64",
                   .os = "windows",
                   .os_version = "10.0.17763.1",
                   .os_features = {"win32k"}};
  Platform wanted{.architecture = "amd64", .os = "windows", .os_version = "10.0.17763.1"};
  EXPECT_TRUE(PlatformMatches(windows, wanted));
  wanted.os_features = {"win32k"};
  EXPECT_TRUE(PlatformMatches(windows, wanted));
  wanted.os_features = {"other"};
  EXPECT_FALSE(PlatformMatches(windows, wanted));
  wanted.os_features.clear();
  wanted.os_version = "10.0.20348.1";
  EXPECT_FALSE(PlatformMatches(windows, wanted));
}

TEST(PlatformTest, SelectManifestTakesTheFirstMatch) {
  ImageIndex index;
  Descriptor no_platform = DescribeContent("attestation", media_types::kOciImageManifest);
  Descriptor amd64 = DescribeContent("amd64", media_types::kOciImageManifest);
  amd64.platform = P("linux/amd64");
  Descriptor arm_v7 = DescribeContent("armv7", media_types::kOciImageManifest);
  arm_v7.platform = P("linux/arm/v7");
  Descriptor arm64_a = DescribeContent("arm64a", media_types::kOciImageManifest);
  arm64_a.platform = P("linux/arm64");
  Descriptor arm64_b = DescribeContent("arm64b", media_types::kOciImageManifest);
  arm64_b.platform = P("linux/arm64/v8");
  index.manifests = {no_platform, amd64, arm_v7, arm64_a, arm64_b};

  auto selected = SelectManifest(index, P("linux/arm64/v8"));
  ASSERT_THAT(selected, IsOk());
  EXPECT_EQ(selected->digest, arm64_a.digest);
  selected = SelectManifest(index, P("linux/amd64"));
  ASSERT_THAT(selected, IsOk());
  EXPECT_EQ(selected->digest, amd64.digest);

  auto none = SelectManifest(index, P("linux/s390x"));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("no manifest for platform linux/s390x in the index (it has: linux/amd64, "
                        "linux/arm/v7, linux/arm64, linux/arm64/v8)"));
}

// Issue 18 item 8: the default --platform of build and pull is the host's.
TEST(HostPlatformTest, MachineNamesBecomeOciPlatforms) {
  EXPECT_EQ(FormatPlatform(PlatformOfMachine("x86_64")), "linux/amd64");
  EXPECT_EQ(FormatPlatform(PlatformOfMachine("aarch64")), "linux/arm64");
  EXPECT_EQ(FormatPlatform(PlatformOfMachine("armv7l")), "linux/arm/v7");
  EXPECT_EQ(FormatPlatform(PlatformOfMachine("i686")), "linux/386");
  EXPECT_EQ(FormatPlatform(PlatformOfMachine("ppc64le")), "linux/ppc64le");
  EXPECT_EQ(FormatPlatform(PlatformOfMachine("s390x")), "linux/s390x");
}

TEST(HostPlatformTest, IsThisMachines) {
  struct utsname name;
  ASSERT_EQ(::uname(&name), 0);
  EXPECT_EQ(HostPlatform(), FormatPlatform(PlatformOfMachine(name.machine)));
  // Parses back to itself: a valid --platform value.
  absl::StatusOr<Platform> parsed = ParsePlatform(HostPlatform());
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(FormatPlatform(*parsed), HostPlatform());
}

}  // namespace
}  // namespace trainpkg::oci
