// Helpers for builder tests: scratch dirs, files, an oci: base image made with
// our Layout, and a Builder over a fresh store.
#ifndef TRAINPKG_TESTS_PACKAGER_BUILDER_BUILDER_TEST_UTIL_H_
#define TRAINPKG_TESTS_PACKAGER_BUILDER_BUILDER_TEST_UTIL_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/builder.h"
#include "tests/test_util/shell.h"

namespace trainpkg::packager::builder::testing {

// A fresh directory under the test's temp dir, removed by the destructor.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Writes `content` to `path` (parents created), mtime one hour ago.
void WriteFile(const std::filesystem::path& path, const std::string& content,
               bool executable = false);

// An oci layout at `dir` tagged `tag`: one layer holding /etc/base.txt, a
// config with Env PATH=/bin and Cmd ["/bin/sh"].
oci::Descriptor MakeBaseLayout(const std::filesystem::path& dir, const std::string& tag);

// The exit code and output (stdout and stderr merged) of a /bin/sh command.
using ShellResult = trainpkg::testing::ShellResult;
using trainpkg::testing::Sh;

struct BuildRun {
  absl::StatusOr<BuiltImage> image;
  std::vector<BuildStep> steps;
};

// Builds `context` with a store and cache under `home`.
BuildRun Build(const std::filesystem::path& home, BuildRequest request);

}  // namespace trainpkg::packager::builder::testing

#endif  // TRAINPKG_TESTS_PACKAGER_BUILDER_BUILDER_TEST_UTIL_H_
