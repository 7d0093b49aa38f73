#include "sdk/internal/python_package.h"

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"

namespace trainpkg::sdk::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kField[] = "jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[1]";

class PythonPackageTest : public ::testing::Test {
 protected:
  fs::path Write(const std::string& name, const std::string& content) {
    fs::path path = dir_.path() / name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
  absl::Status ErrorOf(const std::string& uri) {
    return LocalPackagePath(uri, kField, dir_.path()).status();
  }
  trainpkg::testing::TempDir dir_;
};

TEST_F(PythonPackageTest, PathsAndFileUrisOfSdistsAndWheels) {
  fs::path sdist = Write("trainer-0.1.tar.gz", std::string("\x1f\x8b\x08\x00", 4));
  fs::path wheel = Write("trainer-0.1-py3-none-any.whl", std::string("PK\x03\x04rest", 8));
  EXPECT_EQ(*LocalPackagePath("trainer-0.1.tar.gz", kField, dir_.path()), sdist);
  EXPECT_EQ(*LocalPackagePath(sdist.string(), kField, "/elsewhere"), sdist);
  EXPECT_EQ(*LocalPackagePath("file://" + wheel.string(), kField, "/elsewhere"), wheel);
}

TEST_F(PythonPackageTest, MissingFilesAndOtherFilesNameTheFieldAndWhy) {
  absl::Status missing = ErrorOf("nothere-0.1.tar.gz");
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr(kField));
  EXPECT_THAT(missing.message(), HasSubstr("nothere-0.1.tar.gz does not exist"));

  fs::create_directories(dir_.path() / "trainer");
  absl::Status directory = ErrorOf("trainer");
  EXPECT_EQ(directory.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(directory.message(), HasSubstr("is not a regular file"));

  Write("requirements.txt", "numpy\n");
  absl::Status text = ErrorOf("requirements.txt");
  EXPECT_THAT(text.message(), HasSubstr(kField));
  EXPECT_THAT(text.message(),
              HasSubstr("is not a Python package: pip installs an sdist (*.tar.gz) or a wheel"));

  Write("fake-0.1-py3-none-any.whl", "not a zip");
  EXPECT_THAT(ErrorOf("fake-0.1-py3-none-any.whl").message(),
              HasSubstr("a wheel (*.whl) must be a zip archive"));
  Write("fake-0.1.tar.gz", "plain text");
  EXPECT_THAT(ErrorOf("fake-0.1.tar.gz").message(),
              HasSubstr("an sdist (*.tar.gz) must be a gzip stream"));
}

TEST_F(PythonPackageTest, OtherSchemesAndAbsentGcsMountsAreRefused) {
  absl::Status gcs = ErrorOf("gs://no-such-bucket-trainpkg/trainer-0.1.tar.gz");
  EXPECT_EQ(gcs.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(gcs.message(), HasSubstr(kField));
  EXPECT_THAT(gcs.message(), HasSubstr("/gcs/no-such-bucket-trainpkg/trainer-0.1.tar.gz"));
  EXPECT_THAT(gcs.message(), HasSubstr("does not exist"));

  absl::Status https = ErrorOf("https://example.com/trainer-0.1.tar.gz");
  EXPECT_EQ(https.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(https.message(), HasSubstr("paths, file:// and gs://"));

  EXPECT_THAT(ErrorOf("file://relative/trainer.whl").message(),
              HasSubstr("not a file URI with an absolute path"));
}

}  // namespace
}  // namespace trainpkg::sdk::internal
