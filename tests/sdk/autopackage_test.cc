// sdk::Autopackage's checks of the package directory: each bad input names
// its --worker-pool-spec key and the path, before any image is resolved or
// built (the executor named here does not exist anywhere).
#include "sdk/autopackage.h"

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using sdk::testing::TempDir;
using ::testing::HasSubstr;

class AutopackageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "pkg/trainer");
    fs::create_directories(dir_.path() / "pkg/data");
    std::ofstream(dir_.path() / "pkg/trainer/task.py") << "print('hi')\n";
    std::ofstream(dir_.path() / "pkg/notes.txt") << "not a package\n";
    spec_.executor_image_uri = "oci:" + (dir_.path() / "no-such-layout").string();
    spec_.local_package_path = "pkg";
    spec_.python_module = "trainer.task";
  }

  absl::Status Run() {
    return Autopackage(spec_, AutopackageOptions{.home = dir_.path() / "home",
                                                 .cwd = dir_.path(),
                                                 .environment = {},
                                                 .log = {},
                                                 .registry = nullptr})
        .status();
  }

  void ExpectError(absl::StatusCode code, const std::string& what, const std::string& path) {
    absl::Status status = Run();
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_THAT(status.message(), HasSubstr("--worker-pool-spec #1: " + what));
    EXPECT_THAT(status.message(), HasSubstr(path));
    EXPECT_FALSE(fs::exists(dir_.path() / "home/images")) << "the store was touched";
  }

  TempDir dir_;
  jobspec::Autopackaging spec_;
};

TEST_F(AutopackageTest, MissingPackageDirectory) {
  spec_.local_package_path = "gone";
  ExpectError(absl::StatusCode::kNotFound, "local-package-path=gone",
              (dir_.path() / "gone").string() + " does not exist");
}

TEST_F(AutopackageTest, PackagePathIsAFile) {
  spec_.local_package_path = "pkg/notes.txt";
  ExpectError(absl::StatusCode::kNotFound, "local-package-path=pkg/notes.txt",
              "is not a directory");
}

TEST_F(AutopackageTest, ModuleWithoutItsFile) {
  spec_.python_module = "trainer.train";
  ExpectError(absl::StatusCode::kNotFound, "python-module=trainer.train",
              (dir_.path() / "pkg/trainer/train.py").string() + " is not a file in the package");
}

TEST_F(AutopackageTest, MissingScript) {
  spec_.python_module.clear();
  spec_.script = "run.sh";
  ExpectError(absl::StatusCode::kNotFound, "script=run.sh", (dir_.path() / "pkg/run.sh").string());
}

TEST_F(AutopackageTest, MissingExtraPackage) {
  spec_.extra_packages = {"deps/greet-0.1-py3-none-any.whl"};
  ExpectError(absl::StatusCode::kNotFound, "extra-packages=deps/greet-0.1-py3-none-any.whl",
              "greet-0.1-py3-none-any.whl");
}

TEST_F(AutopackageTest, ExtraPackageThatIsNoPythonPackage) {
  spec_.extra_packages = {"notes.txt"};
  ExpectError(absl::StatusCode::kInvalidArgument, "extra-packages=notes.txt",
              "is not a Python package");
}

TEST_F(AutopackageTest, MissingExtraDir) {
  spec_.extra_dirs = {"data", "conf"};
  ExpectError(absl::StatusCode::kNotFound, "extra-dirs=conf",
              (dir_.path() / "pkg/conf").string() + " is not a directory in the package");
}

TEST_F(AutopackageTest, BadOutputImageUri) {
  spec_.output_image_uri = "Not A Reference";
  ExpectError(absl::StatusCode::kInvalidArgument, "output-image-uri=Not A Reference", "");
}

TEST_F(AutopackageTest, ExecutorThatCannotBeResolvedNamesItsKey) {
  ExpectError(absl::StatusCode::kNotFound, "executor-image-uri=oci:", "no-such-layout");
}

}  // namespace
}  // namespace trainpkg::sdk
