#include "jobspec/image_uri.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::jobspec {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::trainpkg::testing::IsOk;

using Kind = ImageUri::Kind;

// Every error names the forms that are valid (the local: one its own).
constexpr std::string_view kFormsHint = "oci:DIR[:TAG]";

absl::Status ParseError(std::string_view text) { return ImageUri::Parse(text).status(); }

TEST(ImageUriTest, LocalExecutable) {
  absl::StatusOr<ImageUri> uri = ImageUri::Parse("local:/opt/trainer/bin/train");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->kind(), Kind::kLocalExecutable);
  EXPECT_FALSE(uri->is_image());
  EXPECT_EQ(uri->local_path(), "/opt/trainer/bin/train");
  EXPECT_EQ(uri->ToString(), "local:/opt/trainer/bin/train");

  uri = ImageUri::Parse("local:build/bin/train");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->local_path(), "build/bin/train");
}

TEST(ImageUriTest, OciLayoutWithAndWithoutTag) {
  absl::StatusOr<ImageUri> uri = ImageUri::Parse("oci:/tmp/layout");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->kind(), Kind::kOciLayout);
  EXPECT_TRUE(uri->is_image());
  EXPECT_EQ(uri->layout_dir(), "/tmp/layout");
  EXPECT_EQ(uri->layout_tag(), "");
  EXPECT_EQ(uri->ToString(), "oci:/tmp/layout");

  // The directory ends at the first ':'; the rest is the tag (skopeo's rule).
  uri = ImageUri::Parse("oci:images/trainer:v1.0:extra");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->layout_dir(), "images/trainer");
  EXPECT_EQ(uri->layout_tag(), "v1.0:extra");
  EXPECT_EQ(uri->ToString(), "oci:images/trainer:v1.0:extra");
}

TEST(ImageUriTest, RegistryReferenceIsKeptAsWritten) {
  for (std::string_view text :
       {"ubuntu", "trainer:v1", "us-docker.pkg.dev/p/repo/trainer:1",
        "127.0.0.1:5000/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "localhost:5000/a/b:tag@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "[::1]:5000/app:1"}) {
    absl::StatusOr<ImageUri> uri = ImageUri::Parse(text);
    ASSERT_THAT(uri.status(), IsOk()) << text;
    EXPECT_EQ(uri->kind(), Kind::kRegistry) << text;
    EXPECT_TRUE(uri->is_image());
    EXPECT_EQ(uri->reference(), text);
    EXPECT_EQ(uri->ToString(), text);
  }
}

TEST(ImageUriTest, ToStringRoundTrips) {
  for (std::string_view text : {"local:./t", "oci:d", "oci:d:t", "gcr.io/p/a:1", "a@sha256:00"}) {
    absl::StatusOr<ImageUri> uri = ImageUri::Parse(text);
    ASSERT_THAT(uri.status(), IsOk()) << text;
    absl::StatusOr<ImageUri> again = ImageUri::Parse(uri->ToString());
    ASSERT_THAT(again.status(), IsOk()) << text;
    EXPECT_EQ(*again, *uri) << text;
  }
}

TEST(ImageUriTest, EmptyFormsSayWhatIsMissing) {
  absl::Status status = ParseError("");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("empty"), HasSubstr(kFormsHint)));

  EXPECT_THAT(ParseError("local:").message(),
              AllOf(HasSubstr("'local:' names no executable"), HasSubstr("local:build/bin/train")));
  EXPECT_THAT(ParseError("oci:").message(),
              AllOf(HasSubstr("no oci-layout directory"), HasSubstr("oci:DIR:TAG")));
  EXPECT_THAT(ParseError("oci::v1").message(), HasSubstr("no oci-layout directory"));
  EXPECT_THAT(ParseError("oci:dir:").message(), HasSubstr("empty TAG"));
}

TEST(ImageUriTest, SpacesAreRefusedInReferencesAndAtEitherEnd) {
  absl::Status status = ParseError("gcr.io/p/my trainer:1");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("' ' at offset 11 is not allowed in a registry reference"),
                    HasSubstr(kFormsHint)));
  EXPECT_THAT(ParseError(" gcr.io/p/t:1").message(), HasSubstr("starts or ends with white space"));
  EXPECT_THAT(ParseError("local:/bin/t ").message(), HasSubstr("starts or ends with white space"));
  // A path may hold spaces, as POSIX allows.
  absl::StatusOr<ImageUri> uri = ImageUri::Parse("local:/opt/my trainer/train");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->local_path(), "/opt/my trainer/train");
  EXPECT_THAT(ImageUri::Parse("oci:/tmp/my layout:v1").status(), IsOk());
}

TEST(ImageUriTest, ControlBytesAreRefusedAndShownEscaped) {
  for (std::string text : {std::string("gcr.io/p/t:1\n"), std::string("local:/bin/\x1b[2Jt"),
                           std::string("oci:/tmp/l\0x", 12), std::string("a\x7f")}) {
    absl::Status status = ParseError(text);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(status.message(), HasSubstr("control byte")) << text;
    for (char c : status.message()) {
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << status.message();
    }
  }
  EXPECT_THAT(ParseError(std::string("oci:/tmp/l\0x", 12)).message(),
              HasSubstr("control byte 0x00 at offset 10"));
}

TEST(ImageUriTest, DotDotIsAPathInLocalAndOciButNotAReferenceComponent) {
  absl::StatusOr<ImageUri> uri = ImageUri::Parse("local:../bin/train");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->local_path(), "../bin/train");
  uri = ImageUri::Parse("oci:../layouts/trainer:v1");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_EQ(uri->layout_dir(), "../layouts/trainer");

  for (std::string_view text : {"gcr.io/p/../../v2/other:1", "gcr.io/./t", "../t:1"}) {
    absl::Status status = ParseError(text);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(status.message(), HasSubstr("is not a repository path component")) << text;
  }
  // A tag may hold dots.
  EXPECT_THAT(ImageUri::Parse("gcr.io/p/t:1..2").status(), IsOk());
}

TEST(ImageUriTest, SchemesOtherThanLocalAndOciAreNamed) {
  for (std::string_view text : {"docker://ubuntu:22.04", "https://gcr.io/p/t:1"}) {
    absl::Status status = ParseError(text);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(status.message(), AllOf(HasSubstr("is not a form trainpkg reads"),
                                        HasSubstr(kFormsHint)))
        << text;
  }
}

TEST(ImageUriTest, VeryLongTextIsRefusedAndNotEchoedWhole) {
  const std::string path(kMaxImageUriBytes - 6, 'a');
  EXPECT_THAT(ImageUri::Parse("local:" + path).status(), IsOk());

  const std::string long_text = "local:" + path + "a";
  absl::Status status = ParseError(long_text);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is 4097 bytes long; at most 4096 are allowed"));
  EXPECT_LT(status.message().size(), 300u);

  status = ParseError(std::string(1 << 20, 'x'));
  EXPECT_THAT(status.message(), AllOf(HasSubstr("1048576 bytes"), Not(HasSubstr(std::string(100, 'x')))));
  EXPECT_LT(status.message().size(), 300u);
}

TEST(ImageUriTest, AccessorsOfAnotherKindAbort) {
  absl::StatusOr<ImageUri> uri = ImageUri::Parse("gcr.io/p/t:1");
  ASSERT_THAT(uri.status(), IsOk());
  EXPECT_DEATH((void)uri->local_path(), "local_path\\(\\) of gcr.io/p/t:1");
  EXPECT_DEATH((void)uri->layout_dir(), "layout_dir");
}

}  // namespace
}  // namespace trainpkg::jobspec
