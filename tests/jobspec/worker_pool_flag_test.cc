#include "jobspec/worker_pool_flag.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::jobspec {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(std::string_view flag) {
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag(flag);
  EXPECT_FALSE(pool.ok()) << flag;
  EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument) << flag;
  return std::string(pool.status().message());
}

TEST(WorkerPoolFlagTest, ParsesAContainerPoolWithEveryHardwareKey) {
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag(
      "machine-type=n1-standard-4,replica-count=2,container-image-uri=gcr.io/p/trainer:1,"
      "accelerator-type=NVIDIA_TESLA_T4,accelerator-count=2,disk-type=pd-standard,disk-size=200");
  ASSERT_TRUE(pool.ok()) << pool.status();
  WorkerPoolSpec expected;
  MachineSpec& machine = expected.machine_spec.emplace();
  machine.machine_type = "n1-standard-4";
  machine.accelerator_type = "NVIDIA_TESLA_T4";
  machine.accelerator_count = 2;
  expected.replica_count = 2;
  expected.container_spec.emplace().image_uri = "gcr.io/p/trainer:1";
  expected.disk_spec = DiskSpec{"pd-standard", 200};
  EXPECT_EQ(*pool, expected);
}

TEST(WorkerPoolFlagTest, ParsesAPythonPackagePool) {
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag(
      "machine-type=e2-standard-4,executor-image-uri=us-docker.pkg.dev/vertex-ai/training/"
      "tf-cpu.2-12:latest,python-module=trainer.task");
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_TRUE(pool->python_package_spec.has_value());
  EXPECT_EQ(pool->python_package_spec->executor_image_uri,
            "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12:latest");
  EXPECT_EQ(pool->python_package_spec->python_module, "trainer.task");
  EXPECT_FALSE(pool->container_spec.has_value());
  EXPECT_FALSE(pool->disk_spec.has_value());
}

TEST(WorkerPoolFlagTest, DefaultsReplicaCountAndAcceleratorCountToOne) {
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag(
      "machine-type=n1-standard-4,container-image-uri=local:/opt/train,accelerator-type=NVIDIA_L4");
  ASSERT_TRUE(pool.ok()) << pool.status();
  EXPECT_EQ(pool->replica_count, 1);
  EXPECT_EQ(pool->machine_spec->accelerator_count, 1);
  EXPECT_EQ(pool->container_spec->image_uri, "local:/opt/train");
}

TEST(WorkerPoolFlagTest, EmptyValueIsAPlaceholderPool) {
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag("");
  ASSERT_TRUE(pool.ok());
  EXPECT_TRUE(pool->IsEmpty());
}

TEST(WorkerPoolFlagTest, RejectsMalformedEntries) {
  EXPECT_EQ(ErrorOf("machine-type"),
            "--worker-pool-spec: 'machine-type' is not KEY=VALUE; write e.g. machine-type=VALUE");
  EXPECT_EQ(ErrorOf("machine-type=n1,,replica-count=1"),
            "--worker-pool-spec: empty entry (two commas in a row, or a trailing comma)");
  EXPECT_EQ(ErrorOf("machine-type=n1,"),
            "--worker-pool-spec: empty entry (two commas in a row, or a trailing comma)");
  EXPECT_EQ(ErrorOf("machine-type="), "--worker-pool-spec: machine-type has an empty value");
}

TEST(WorkerPoolFlagTest, RejectsUnknownKeysWithASuggestion) {
  EXPECT_THAT(ErrorOf("machine_type=n1-standard-4"),
              HasSubstr("unknown key 'machine_type'; did you mean 'machine-type'?; valid keys: "
                        "machine-type, replica-count,"));
  EXPECT_THAT(ErrorOf("machine-type=n1,local-package-path=/src"),
              HasSubstr("unknown key 'local-package-path'"));
}

TEST(WorkerPoolFlagTest, RejectsRepeatedKeys) {
  EXPECT_EQ(ErrorOf("machine-type=a,machine-type=b"),
            "--worker-pool-spec: machine-type is given twice; give each key once");
}

TEST(WorkerPoolFlagTest, RejectsNonNumericCounts) {
  const std::string base = "machine-type=n1,container-image-uri=img,";
  EXPECT_EQ(ErrorOf(base + "replica-count=two"),
            "--worker-pool-spec: replica-count must be a whole number, got 'two'");
  EXPECT_THAT(ErrorOf(base + "replica-count=-1"),
              HasSubstr("replica-count must be a whole number"));
  EXPECT_THAT(ErrorOf(base + "replica-count=1.5"),
              HasSubstr("replica-count must be a whole number"));
  EXPECT_THAT(ErrorOf(base + "accelerator-type=NVIDIA_L4,accelerator-count=x"),
              HasSubstr("accelerator-count must be a whole number, got 'x'"));
  EXPECT_THAT(ErrorOf(base + "accelerator-type=NVIDIA_L4,accelerator-count=99999999999"),
              HasSubstr("accelerator-count must be a whole number"));
  EXPECT_THAT(ErrorOf(base + "disk-size=100GB"), HasSubstr("disk-size must be a whole number"));
}

TEST(WorkerPoolFlagTest, AppliesGcloudRules) {
  EXPECT_EQ(ErrorOf("container-image-uri=img"),
            "--worker-pool-spec: machine-type is required, e.g. machine-type=n1-standard-4");
  EXPECT_EQ(ErrorOf("machine-type=n1,container-image-uri=img,accelerator-count=1"),
            "--worker-pool-spec: accelerator-count needs accelerator-type, e.g. "
            "accelerator-type=NVIDIA_TESLA_T4");
  EXPECT_THAT(ErrorOf("machine-type=n1,container-image-uri=img,accelerator-type=NVIDIA_TESLA_T5"),
              HasSubstr("unknown accelerator-type 'NVIDIA_TESLA_T5'; did you mean "
                        "'NVIDIA_TESLA_T4'?; valid types: NVIDIA_TESLA_K80,"));
  EXPECT_EQ(ErrorOf("machine-type=n1"),
            "--worker-pool-spec: exactly one of container-image-uri or executor-image-uri is "
            "required");
  EXPECT_EQ(ErrorOf("machine-type=n1,container-image-uri=a,executor-image-uri=b"),
            "--worker-pool-spec: exactly one of container-image-uri or executor-image-uri is "
            "required");
  EXPECT_THAT(ErrorOf("machine-type=n1,container-image-uri=a,python-module=trainer.task"),
              HasSubstr("python-module goes with executor-image-uri"));
  EXPECT_EQ(ErrorOf("machine-type=n1,executor-image-uri=b"),
            "--worker-pool-spec: python-module is required with executor-image-uri, e.g. "
            "python-module=trainer.task");
}

}  // namespace
}  // namespace trainpkg::jobspec
