// A fixture for container-mode tests: a job home whose image store receives
// images built with the packager's Builder from a context holding
// /bin/busybox (busybox-static), jobs running them, and runc inspection.
// Skips unless running as root with runc able to start containers.
#ifndef TRAINPKG_TESTS_SDK_CONTAINER_TEST_UTIL_H_
#define TRAINPKG_TESTS_SDK_CONTAINER_TEST_UTIL_H_

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job.h"
#include "sdk/custom_job.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/file.h"

namespace trainpkg::sdk::testing {

using trainpkg::testing::Slurp;
void WriteContextFile(const std::filesystem::path& path, const std::string& content);

class ContainerTestBase : public ::testing::Test {
 protected:
  void SetUp() override;

  std::filesystem::path home() const { return dir_.path() / "home"; }
  std::filesystem::path context() const { return dir_.path() / "context"; }
  std::filesystem::path output_dir() const { return dir_.path() / "output"; }

  // Builds context() with `dockerfile` and tags it `tag` in home()'s image
  // store; returns `tag`, the imageUri that runs it.
  std::string BuildImage(const std::string& tag, const std::string& dockerfile);
  // Bundles `binary` and its shared libraries (packager/bundle) into an
  // image tagged `tag` in home()'s image store; returns `tag`.
  std::string BundleImage(const std::string& tag, const std::filesystem::path& binary);
  // The digits sample (an image made by BundleImage of it) as 1 chief and
  // `workers` workers training `epochs` epochs on the digits data, which is
  // copied into output_dir() (mounted into every replica).
  jobspec::CustomJob MakeDigitsJob(const std::string& image, int workers, int epochs);
  // Pools of `counts` replicas (0: placeholder) running `image` with `args`.
  jobspec::CustomJob MakeContainerJob(const std::string& image, const std::vector<int>& counts,
                                      std::vector<std::string> args);
  CustomJobOptions Options();
  // Creates and runs `spec`; sets job_dir_ and job_id_.
  absl::StatusOr<jobspec::CustomJob> RunJob(const jobspec::CustomJob& spec);

  // Ids of runc's containers starting with `prefix`.
  std::vector<std::string> RuncContainers(const std::string& prefix) const;
  // Host pids of the init processes of those containers.
  std::vector<int> ContainerPids(const std::string& prefix) const;
  // Names in /run/netns starting with `prefix`.
  std::vector<std::string> NetworkNamespaces(const std::string& prefix) const;
  // Names in /run/trainpkg/etc (the jobs' /etc/hosts and /etc/resolv.conf)
  // starting with `prefix`.
  std::vector<std::string> JobEtcFiles(const std::string& prefix) const;
  // No container of the last job in runc, no network namespace, no
  // /etc/hosts or /etc/resolv.conf file, no bundle directory left.
  void ExpectNothingLeft() const;

  TempDir dir_;
  std::ostringstream log_;
  std::filesystem::path job_dir_;
  std::string job_id_;
};

}  // namespace trainpkg::sdk::testing

#endif  // TRAINPKG_TESTS_SDK_CONTAINER_TEST_UTIL_H_
