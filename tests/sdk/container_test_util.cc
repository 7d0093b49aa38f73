#include "tests/sdk/container_test_util.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "base/environment.h"
#include "nlohmann/json.hpp"
#include "packager/builder/builder.h"
#include "packager/builder/image_store.h"
#include "packager/bundle/bundle_image.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::testing {
namespace {

namespace fs = std::filesystem;

using trainpkg::testing::Sh;
using trainpkg::testing::ShellResult;

}  // namespace

void WriteContextFile(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

void ContainerTestBase::SetUp() {
  if (::geteuid() != 0) GTEST_SKIP() << "runc needs root to start containers";
  ASSERT_TRUE(fs::exists("/bin/busybox")) << "busybox-static is missing (scripts/install-deps.sh)";
  ShellResult runc = Sh("runc --version");
  ASSERT_EQ(runc.code, 0) << "runc is missing (scripts/install-deps.sh): " << runc.out;
  fs::create_directories(context() / "bin");
  fs::copy_file("/bin/busybox", context() / "bin/busybox");
}

std::string ContainerTestBase::BuildImage(const std::string& tag, const std::string& dockerfile) {
  WriteContextFile(context() / "Dockerfile", dockerfile);
  absl::StatusOr<packager::builder::ImageStore> store =
      packager::builder::ImageStore::Open(home() / "images");
  EXPECT_THAT(store, IsOk());
  if (!store.ok()) return tag;
  packager::builder::Builder builder(packager::builder::BuilderOptions{
      store->layout(), home() / "build-cache", nullptr, {}, {}, {}});
  packager::builder::BuildRequest request;
  request.context_dir = context();
  absl::StatusOr<packager::builder::BuiltImage> image = builder.Build(request);
  EXPECT_THAT(image, IsOk());
  if (!image.ok()) return tag;
  absl::StatusOr<std::string> tagged = store->Tag(image->manifest_descriptor, tag);
  EXPECT_THAT(tagged, IsOk());
  return tag;
}

std::string ContainerTestBase::BundleImage(const std::string& tag, const fs::path& binary) {
  absl::StatusOr<packager::builder::ImageStore> store =
      packager::builder::ImageStore::Open(home() / "images");
  EXPECT_THAT(store, IsOk());
  if (!store.ok()) return tag;
  packager::bundle::BundleRequest request;
  request.binary = binary;
  absl::StatusOr<packager::builder::BuiltImage> image =
      packager::bundle::BuildBundle(request, store->layout());
  EXPECT_THAT(image, IsOk());
  if (!image.ok()) return tag;
  absl::StatusOr<std::string> tagged = store->Tag(image->manifest_descriptor, tag);
  EXPECT_THAT(tagged, IsOk());
  return tag;
}

jobspec::CustomJob ContainerTestBase::MakeDigitsJob(const std::string& image, int workers,
                                                    int epochs) {
  fs::create_directories(output_dir());
  const fs::path data = output_dir() / "digits.csv.gz";
  std::error_code ec;
  fs::copy_file(DIGITS_DATA, data, fs::copy_options::overwrite_existing, ec);
  EXPECT_FALSE(ec) << DIGITS_DATA << ": " << ec.message() << " (scripts/fetch-digits.sh)";
  jobspec::CustomJob spec =
      MakeContainerJob(image, {1, workers},
                       {"--epochs=" + std::to_string(epochs), "--global_batch_size=64",
                        "--learning_rate=0.001", "--data=" + data.string()});
  for (jobspec::WorkerPoolSpec& pool : spec.job_spec.worker_pool_specs) {
    if (pool.container_spec.has_value()) {
      pool.container_spec->env = {{"OPENBLAS_NUM_THREADS", "1"}, {"TRAINPKG_LOG_LEVEL", "info"}};
    }
  }
  return spec;
}

jobspec::CustomJob ContainerTestBase::MakeContainerJob(const std::string& image,
                                                       const std::vector<int>& counts,
                                                       std::vector<std::string> args) {
  jobspec::CustomJob job;
  job.display_name = "container-test";
  job.job_spec.base_output_directory = output_dir().string() + "/";
  for (int count : counts) {
    jobspec::WorkerPoolSpec pool;
    if (count > 0) {
      pool.replica_count = count;
      pool.machine_spec.emplace().machine_type = "n1-standard-4";
      pool.container_spec.emplace();
      pool.container_spec->image_uri = image;
      pool.container_spec->args = args;
    }
    job.job_spec.worker_pool_specs.push_back(std::move(pool));
  }
  return job;
}

CustomJobOptions ContainerTestBase::Options() {
  CustomJobOptions options;
  options.home = home();
  options.log_stream = &log_;
  options.environment = base::SnapshotProcessEnvironment();
  options.environment->erase("CUDA_VISIBLE_DEVICES");
  options.cancel_grace_period = absl::Seconds(1);
  return options;
}

absl::StatusOr<jobspec::CustomJob> ContainerTestBase::RunJob(const jobspec::CustomJob& spec) {
  log_.str("");
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
  if (!job.ok()) return job.status();
  job_dir_ = job->job_dir();
  job_id_ = job->job_id();
  return job->Run();
}

std::vector<std::string> ContainerTestBase::RuncContainers(const std::string& prefix) const {
  // `runc list` fails when a container's state directory goes while it
  // reads it (a watchdog deleting containers): ask again.
  ShellResult list = Sh("runc list -q");
  for (int retry = 0; retry < 5 && list.code != 0; ++retry) list = Sh("runc list -q");
  EXPECT_EQ(list.code, 0) << list.out;
  std::vector<std::string> ids;
  std::istringstream lines(list.out);
  for (std::string id; std::getline(lines, id);) {
    if (id.rfind(prefix, 0) == 0) ids.push_back(id);
  }
  return ids;
}

std::vector<int> ContainerTestBase::ContainerPids(const std::string& prefix) const {
  std::vector<int> pids;
  for (const std::string& id : RuncContainers(prefix)) {
    ShellResult state = Sh("runc state " + id);
    if (state.code != 0) continue;
    pids.push_back(nlohmann::json::parse(state.out)["pid"].get<int>());
  }
  return pids;
}

namespace {

// Names in `dir` starting with `prefix`.
std::vector<std::string> NamesIn(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

}  // namespace

std::vector<std::string> ContainerTestBase::NetworkNamespaces(const std::string& prefix) const {
  return NamesIn("/run/netns", prefix);
}

std::vector<std::string> ContainerTestBase::JobEtcFiles(const std::string& prefix) const {
  return NamesIn("/run/trainpkg/etc", prefix);
}

void ContainerTestBase::ExpectNothingLeft() const {
  EXPECT_TRUE(RuncContainers("trainpkg-" + job_id_ + "-").empty());
  EXPECT_TRUE(NetworkNamespaces("trainpkg-" + job_id_ + "-").empty());
  EXPECT_TRUE(JobEtcFiles("trainpkg-" + job_id_ + "-").empty());
  for (const fs::directory_entry& entry : fs::directory_iterator("/dev/shm")) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("trainpkg-job-" + job_id_ + "-"))
        << "the job's shared /dev/shm was left: " << entry.path();
  }
  std::error_code ec;
  const fs::path containers = job_dir_ / "containers";
  EXPECT_TRUE(!fs::exists(containers) || fs::is_empty(containers))
      << "bundles left in " << containers;
}

}  // namespace trainpkg::sdk::testing
