#include "sdk/cli/job_from_flags.h"

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::cli {
namespace {

using sdk::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPool[] =
    "machine-type=n1-standard-4,replica-count=1,container-image-uri=local:/bin/true";

absl::StatusOr<jobspec::CustomJob> JobOf(const RunFlags& flags) {
  absl::StatusOr<FlagJob> flag_job = JobFromFlags(flags, absl::Now());
  if (!flag_job.ok()) return flag_job.status();
  EXPECT_FALSE(flag_job->autopackaging.has_value());
  return flag_job->job;
}

TEST(JobFromFlagsTest, WorkerPoolSpecsInFlagOrderWithArgsCommandAndLabels) {
  RunFlags flags;
  flags.worker_pool_specs = {kPool, "", kPool};
  flags.args = {"--epochs=2", "--x"};
  flags.command = {"sh", "-c"};
  flags.labels = {"team=ml", "env=dev"};
  flags.display_name = "flags";
  flags.base_output_dir = "/tmp/out";
  absl::StatusOr<jobspec::CustomJob> job = JobOf(flags);
  ASSERT_THAT(job, IsOk());
  ASSERT_EQ(job->job_spec.worker_pool_specs.size(), 3u);
  EXPECT_TRUE(job->job_spec.worker_pool_specs[1].IsEmpty());
  const jobspec::ContainerSpec& container = *job->job_spec.worker_pool_specs[2].container_spec;
  EXPECT_THAT(container.args, ElementsAre("--epochs=2", "--x"));
  EXPECT_THAT(container.command, ElementsAre("sh", "-c"));
  EXPECT_EQ(job->labels.at("team"), "ml");
  EXPECT_EQ(job->display_name, "flags");
  EXPECT_EQ(job->job_spec.base_output_directory, "/tmp/out");
}

TEST(JobFromFlagsTest, FlagsOverrideTheConfigFile) {
  TempDir dir;
  std::filesystem::path config = dir.path() / "job.yaml";
  ASSERT_TRUE(base::WriteFileAtomic(config, R"(displayName: from-file
labels: {team: file}
jobSpec:
  workerPoolSpecs:
    - machineSpec: {machineType: n1-standard-4}
      replicaCount: 1
      containerSpec: {imageUri: "local:/bin/true", args: ["--from-file"]}
)")
                  .ok());
  RunFlags flags;
  flags.config = config.string();
  flags.display_name = "from-flag";
  flags.args = {"--from-flag"};
  flags.labels = {"team=flag"};
  absl::StatusOr<jobspec::CustomJob> job = JobOf(flags);
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "from-flag");
  EXPECT_EQ(job->labels.at("team"), "flag");
  EXPECT_THAT(job->job_spec.worker_pool_specs[0].container_spec->args,
              ElementsAre("--from-file", "--from-flag"));
}

// gcloud's --python-package-uris: the packages of every Python pool.
TEST(JobFromFlagsTest, PythonPackageUrisGoToEveryPythonPool) {
  RunFlags flags;
  flags.worker_pool_specs = {
      "machine-type=n1-standard-4,executor-image-uri=python:3.11,python-module=trainer.task",
      kPool};
  flags.python_package_uris = {"dist/trainer-0.1.tar.gz", "file:///opt/dep-1.0-py3-none-any.whl"};
  flags.args = {"--epochs=2"};
  absl::StatusOr<jobspec::CustomJob> job = JobOf(flags);
  ASSERT_THAT(job, IsOk());
  const jobspec::PythonPackageSpec& python =
      *job->job_spec.worker_pool_specs[0].python_package_spec;
  EXPECT_EQ(python.executor_image_uri, "python:3.11");
  EXPECT_EQ(python.python_module, "trainer.task");
  EXPECT_THAT(python.package_uris,
              ElementsAre("dist/trainer-0.1.tar.gz", "file:///opt/dep-1.0-py3-none-any.whl"));
  EXPECT_THAT(python.args, ElementsAre("--epochs=2"));

  flags.worker_pool_specs = {kPool};
  absl::Status status = JobFromFlags(flags, absl::Now()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--python-package-uris: no worker pool runs a Python"));
}

// gcloud: the package is built into an image, so packages go as
// extra-packages, not as --python-package-uris.
TEST(JobFromFlagsTest, PythonPackageUrisWithLocalPackagePathIsRefused) {
  RunFlags flags;
  flags.worker_pool_specs = {
      "machine-type=n1,executor-image-uri=e,local-package-path=pkg,python-module=trainer.task"};
  absl::StatusOr<FlagJob> job = JobFromFlags(flags, absl::Now());
  ASSERT_THAT(job, IsOk());
  ASSERT_TRUE(job->autopackaging.has_value());
  EXPECT_EQ(job->autopackaging->local_package_path, "pkg");
  flags.python_package_uris = {"dist/trainer-0.1.tar.gz"};
  absl::Status status = JobFromFlags(flags, absl::Now()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("--python-package-uris does not go with local-package-path"));
}

TEST(JobFromFlagsTest, ErrorsNameTheFlag) {
  RunFlags flags;
  EXPECT_THAT(JobFromFlags(flags, absl::Now()).status().message(), HasSubstr("--config"));
  flags.worker_pool_specs = {kPool, "replica-count=x"};
  EXPECT_THAT(JobFromFlags(flags, absl::Now()).status().message(),
              HasSubstr("--worker-pool-spec #2"));
  flags.worker_pool_specs = {kPool};
  flags.labels = {"novalue"};
  EXPECT_THAT(JobFromFlags(flags, absl::Now()).status().message(), HasSubstr("--labels"));
}

TEST(JobFromFlagsTest, ScaleTierPoolsRunTheImageWithArgs) {
  RunFlags flags;
  flags.scale_tier = "standard-1";
  flags.master_image_uri = "local:/bin/true";
  flags.parameter_server_image_uri = "local:/bin/ps";
  flags.args = {"--epochs=2"};
  absl::StatusOr<jobspec::CustomJob> job = JobOf(flags);
  ASSERT_THAT(job, IsOk());
  const std::vector<jobspec::WorkerPoolSpec>& pools = job->job_spec.worker_pool_specs;
  ASSERT_EQ(pools.size(), 3u);
  EXPECT_EQ(pools[0].replica_count, 1);
  EXPECT_EQ(pools[1].replica_count, 4);
  EXPECT_EQ(pools[2].replica_count, 3);
  EXPECT_EQ(pools[1].machine_spec->machine_type, "n1-highcpu-8");
  EXPECT_EQ(pools[0].container_spec->image_uri, "local:/bin/true");
  EXPECT_EQ(pools[1].container_spec->image_uri, "local:/bin/true");
  EXPECT_EQ(pools[2].container_spec->image_uri, "local:/bin/ps");
  for (const jobspec::WorkerPoolSpec& pool : pools) {
    EXPECT_THAT(pool.container_spec->args, ElementsAre("--epochs=2"));
  }
}

TEST(JobFromFlagsTest, ScaleTierPoolsRunAPythonPackage) {
  RunFlags flags;
  flags.scale_tier = "CUSTOM";
  flags.master_machine_type = "n1-standard-4";
  flags.worker_machine_type = "n1-standard-4";
  flags.worker_count = 2;
  flags.executor_image_uri = "localhost:5000/pytorch-cpu";
  flags.python_module = "trainer.task";
  flags.python_package_uris = {"dist/trainer-0.1.tar.gz"};
  absl::StatusOr<jobspec::CustomJob> job = JobOf(flags);
  ASSERT_THAT(job, IsOk());
  ASSERT_EQ(job->job_spec.worker_pool_specs.size(), 2u);
  for (const jobspec::WorkerPoolSpec& pool : job->job_spec.worker_pool_specs) {
    ASSERT_TRUE(pool.python_package_spec.has_value());
    EXPECT_EQ(pool.python_package_spec->executor_image_uri, "localhost:5000/pytorch-cpu");
    EXPECT_EQ(pool.python_package_spec->python_module, "trainer.task");
    EXPECT_THAT(pool.python_package_spec->package_uris, ElementsAre("dist/trainer-0.1.tar.gz"));
  }
  EXPECT_EQ(job->job_spec.worker_pool_specs[1].replica_count, 2);
}

TEST(JobFromFlagsTest, ScaleTierConflictsAndMissingPiecesNameTheFlags) {
  auto error = [](const RunFlags& flags) {
    return std::string(JobFromFlags(flags, absl::Now()).status().message());
  };
  RunFlags flags;
  flags.scale_tier = "BASIC";
  EXPECT_THAT(error(flags), HasSubstr("--scale-tier needs the job's code: --master-image-uri"));
  flags.master_image_uri = "local:/bin/true";
  flags.worker_pool_specs = {kPool};
  EXPECT_THAT(error(flags),
              HasSubstr("--scale-tier and --worker-pool-spec both say what the worker pools are"));
  flags.worker_pool_specs.clear();
  flags.config = "job.yaml";
  EXPECT_THAT(error(flags), HasSubstr("--scale-tier and --config both say"));
  flags.config.clear();
  flags.executor_image_uri = "python:3";
  flags.python_module = "trainer.task";
  EXPECT_THAT(error(flags), HasSubstr("give the job's code one way"));
  flags.master_image_uri.clear();
  flags.python_module.clear();
  EXPECT_THAT(error(flags), HasSubstr("--executor-image-uri needs --python-module"));
  flags.scale_tier = "basic-tpu";
  EXPECT_THAT(error(flags), HasSubstr("BASIC_TPU runs the job on a Cloud TPU"));
  flags.scale_tier = "premum-1";
  EXPECT_THAT(error(flags), HasSubstr("did you mean 'PREMIUM_1'?"));

  RunFlags without_tier;
  without_tier.worker_pool_specs = {kPool};
  without_tier.worker_count = 3;
  EXPECT_THAT(error(without_tier), HasSubstr("--worker-count goes with --scale-tier"));
}

TEST(JobFromFlagsTest, DefaultsTheDisplayNameLikeThePythonSdk) {
  RunFlags flags;
  flags.worker_pool_specs = {kPool};
  absl::StatusOr<jobspec::CustomJob> job = JobOf(flags);
  ASSERT_THAT(job, IsOk());
  EXPECT_THAT(job->display_name, ::testing::StartsWith("CustomJob 20"));
}

}  // namespace
}  // namespace trainpkg::cli
