#include "sdk/internal/replica_plan.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeJob;

TEST(ReplicaPlanTest, EveryReplicaOfEveryPoolInOrder) {
  jobspec::CustomJob job = MakeJob("/opt/train", {{1, {"--chief"}}, {0, {}}, {2, {"--ps"}}});
  absl::StatusOr<std::vector<ReplicaPlan>> plans = PlanReplicas(job.job_spec);
  ASSERT_THAT(plans, IsOk());
  ASSERT_EQ(plans->size(), 3u);
  EXPECT_EQ((*plans)[0].ref.Name(), "workerpool0-0");
  EXPECT_EQ((*plans)[1].ref.Name(), "workerpool2-0");
  EXPECT_EQ((*plans)[2].ref.Name(), "workerpool2-1");
  EXPECT_EQ((*plans)[0].program, "/opt/train");
  EXPECT_THAT((*plans)[0].argv, ElementsAre("/opt/train", "--chief"));
  EXPECT_THAT((*plans)[2].argv, ElementsAre("/opt/train", "--ps"));
}

TEST(ReplicaPlanTest, CommandReplacesTheEntrypoint) {
  jobspec::CustomJob job = MakeJob("/opt/train", {{1, {"a"}}});
  job.job_spec.worker_pool_specs[0].container_spec->command = {"sh", "-c", "echo"};
  absl::StatusOr<std::vector<ReplicaPlan>> plans = PlanReplicas(job.job_spec);
  ASSERT_THAT(plans, IsOk());
  EXPECT_EQ((*plans)[0].program, "sh");
  EXPECT_EQ((*plans)[0].program_field, "jobSpec.workerPoolSpecs[0].containerSpec.command[0]");
  EXPECT_THAT((*plans)[0].argv, ElementsAre("sh", "-c", "echo", "a"));
}

TEST(ReplicaPlanTest, ContainerImagesRunInContainerMode) {
  jobspec::CustomJob job = MakeJob("/opt/train", {{1, {}}, {1, {"--epochs=2"}}});
  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "us-docker.pkg.dev/p/r/img:1";
  job.job_spec.worker_pool_specs[1].container_spec->command = {"python3"};
  absl::StatusOr<std::vector<ReplicaPlan>> plans = PlanReplicas(job.job_spec);
  ASSERT_THAT(plans, IsOk());
  EXPECT_FALSE((*plans)[0].image.has_value());
  const ReplicaPlan& container = (*plans)[1];
  ASSERT_TRUE(container.image.has_value());
  EXPECT_EQ(container.image->ToString(), "us-docker.pkg.dev/p/r/img:1");
  EXPECT_EQ(container.program_field, "jobSpec.workerPoolSpecs[1].containerSpec.imageUri");
  EXPECT_THAT(container.command, ElementsAre("python3"));
  EXPECT_THAT(container.args, ElementsAre("--epochs=2"));
  // Container images are resolved when the job starts, not checked here.
  EXPECT_THAT(CheckExecutables({container}, ""), IsOk());

  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "local:";
  absl::Status status = PlanReplicas(job.job_spec).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("jobSpec.workerPoolSpecs[1].containerSpec.imageUri"));
}

// A pythonPackageSpec pool runs `python3 -m <pythonModule> <args>` in
// container mode on its executor, its packages to be installed first.
TEST(ReplicaPlanTest, PythonPackagesRunTheModuleOnTheExecutor) {
  jobspec::CustomJob job = MakeJob("/opt/train", {{1, {}}, {2, {}}});
  jobspec::WorkerPoolSpec& pool = job.job_spec.worker_pool_specs[1];
  pool.container_spec.reset();
  jobspec::PythonPackageSpec& python = pool.python_package_spec.emplace();
  python.executor_image_uri = "python:3.11";
  python.package_uris = {"dist/trainer-0.1.tar.gz"};
  python.python_module = "trainer.task";
  python.args = {"--epochs=2"};
  python.env = {{"A", "1"}};
  absl::StatusOr<std::vector<ReplicaPlan>> plans = PlanReplicas(job.job_spec);
  ASSERT_THAT(plans, IsOk());
  ASSERT_EQ(plans->size(), 3u);
  EXPECT_FALSE((*plans)[0].python_packages.has_value());
  for (size_t i = 1; i < 3; ++i) {
    const ReplicaPlan& plan = (*plans)[i];
    EXPECT_EQ(plan.ref.Name(), "workerpool1-" + std::to_string(i - 1));
    ASSERT_TRUE(plan.image.has_value());
    EXPECT_EQ(plan.image->ToString(), "python:3.11");
    EXPECT_EQ(plan.program_field, "jobSpec.workerPoolSpecs[1].pythonPackageSpec.executorImageUri");
    EXPECT_THAT(plan.command, ElementsAre("python3", "-m", "trainer.task"));
    EXPECT_THAT(plan.args, ElementsAre("--epochs=2"));
    EXPECT_EQ(plan.env.size(), 1u);
    ASSERT_TRUE(plan.python_packages.has_value());
    EXPECT_THAT(*plan.python_packages, ElementsAre("dist/trainer-0.1.tar.gz"));
  }
}

// The plan carries the parsed image, so backends branch on its kind instead
// of re-reading prefixes; what ImageUri refuses is refused here, naming the
// field.
TEST(ReplicaPlanTest, ImagesAreParsedOnceIntoThePlan) {
  jobspec::CustomJob job = MakeJob("/opt/train", {{1, {}}, {1, {}}});
  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "oci:/srv/layouts/trainer:v1";
  absl::StatusOr<std::vector<ReplicaPlan>> plans = PlanReplicas(job.job_spec);
  ASSERT_THAT(plans, IsOk());
  ASSERT_TRUE((*plans)[1].image.has_value());
  EXPECT_EQ((*plans)[1].image->kind(), jobspec::ImageUri::Kind::kOciLayout);
  EXPECT_EQ((*plans)[1].image->layout_dir(), "/srv/layouts/trainer");
  EXPECT_EQ((*plans)[1].image->layout_tag(), "v1");

  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "gcr.io/p/../t:1";
  absl::Status status = PlanReplicas(job.job_spec).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("jobSpec.workerPoolSpecs[1].containerSpec.imageUri: "));
  EXPECT_THAT(status.message(), HasSubstr("is not a repository path component"));

  jobspec::WorkerPoolSpec& pool = job.job_spec.worker_pool_specs[1];
  pool.container_spec.reset();
  jobspec::PythonPackageSpec& python = pool.python_package_spec.emplace();
  python.executor_image_uri = "local:/usr/bin/python3";
  python.python_module = "trainer.task";
  status = PlanReplicas(job.job_spec).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("jobSpec.workerPoolSpecs[1].pythonPackageSpec.executorImageUri: a local: "
                        "executable cannot run a Python package"));
}

TEST(ReplicaPlanTest, RelativeLocalImagesBecomeAbsolute) {
  jobspec::CustomJob job = MakeJob("build/bin/train", {{1, {}}, {1, {}}});
  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "local:/abs/train";
  AbsolutizeLocalImages(job.job_spec, "/work/dir");
  EXPECT_EQ(job.job_spec.worker_pool_specs[0].container_spec->image_uri,
            "local:/work/dir/build/bin/train");
  EXPECT_EQ(job.job_spec.worker_pool_specs[1].container_spec->image_uri, "local:/abs/train");
}

TEST(ReplicaPlanTest, CheckExecutablesNamesTheField) {
  jobspec::CustomJob job = MakeJob("/nonexistent/train", {{1, {}}});
  absl::Status status = CheckExecutables(*PlanReplicas(job.job_spec), "/usr/bin:/bin");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("jobSpec.workerPoolSpecs[0].containerSpec.imageUri"));
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/train"));

  job.job_spec.worker_pool_specs[0].container_spec->command = {"sh", "-c", "true"};
  EXPECT_THAT(CheckExecutables(*PlanReplicas(job.job_spec), "/usr/bin:/bin"), IsOk());
}

}  // namespace
}  // namespace trainpkg::sdk::internal
