#include "jobspec/worker_pool_flag.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

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
  ASSERT_THAT(pool, IsOk());
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
  ASSERT_THAT(pool, IsOk());
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
  ASSERT_THAT(pool, IsOk());
  EXPECT_EQ(pool->replica_count, 1);
  EXPECT_EQ(pool->machine_spec->accelerator_count, 1);
  EXPECT_EQ(pool->container_spec->image_uri, "local:/opt/train");
}

TEST(WorkerPoolFlagTest, EmptyValueIsAPlaceholderPool) {
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag("");
  ASSERT_THAT(pool, IsOk());
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
  EXPECT_THAT(ErrorOf("machine-type=n1,local-package-dir=/src"),
              HasSubstr("unknown key 'local-package-dir'; did you mean 'local-package-path'?"));
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

// gcloud's autopackaging (command_lib/ai/custom_jobs/validation.py).
constexpr char kLocal[] =
    "machine-type=n1-standard-4,executor-image-uri=reg/py:1,local-package-path=pkg";

std::string FlagsError(const std::vector<std::string>& values) {
  absl::StatusOr<WorkerPoolFlags> flags = ParseWorkerPoolSpecFlags(values);
  EXPECT_FALSE(flags.ok()) << values[0];
  EXPECT_EQ(flags.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(flags.status().message());
}

TEST(WorkerPoolFlagsTest, AutopackagingOfTheFirstFlagFeedsEveryPool) {
  absl::StatusOr<WorkerPoolFlags> flags = ParseWorkerPoolSpecFlags(
      {std::string(kLocal) +
           ",python-module=trainer.task,requirements=numpy>=1.2;greet,extra-packages=deps/"
           "a-1.whl;b-2.tar.gz,extra-dirs=data;conf/x,output-image-uri=127.0.0.1:5000/t:1",
       "machine-type=n1-standard-4,replica-count=2", ""});
  ASSERT_THAT(flags, IsOk());
  ASSERT_TRUE(flags->autopackaging.has_value());
  Autopackaging expected{
      .executor_image_uri = "reg/py:1",
      .local_package_path = "pkg",
      .python_module = "trainer.task",
      .script = "",
      .requirements = {"numpy>=1.2", "greet"},
      .extra_packages = {"deps/a-1.whl", "b-2.tar.gz"},
      .extra_dirs = {"data", "conf/x"},
      .output_image_uri = "127.0.0.1:5000/t:1",
  };
  EXPECT_EQ(*flags->autopackaging, expected);
  ASSERT_EQ(flags->pools.size(), 3u);
  EXPECT_EQ(flags->pools[1].replica_count, 2);
  EXPECT_TRUE(flags->pools[2].IsEmpty());
  SetAutopackagedImage(flags->pools, "localhost/x:1");
  for (int i : {0, 1}) {
    ASSERT_TRUE(flags->pools[i].container_spec.has_value());
    EXPECT_EQ(flags->pools[i].container_spec->image_uri, "localhost/x:1");
    EXPECT_FALSE(flags->pools[i].python_package_spec.has_value());
  }
  EXPECT_TRUE(flags->pools[2].IsEmpty());
}

TEST(WorkerPoolFlagsTest, ExtraDirsLoseTheirTrailingSlash) {
  absl::StatusOr<WorkerPoolFlags> flags = ParseWorkerPoolSpecFlags(
      {std::string(kLocal) + ",python-module=t,extra-dirs=data/;conf//,extra-packages=a.whl"});
  ASSERT_THAT(flags, IsOk());
  EXPECT_EQ(flags->autopackaging->extra_dirs, (std::vector<std::string>{"data", "conf"}));
  EXPECT_EQ(flags->autopackaging->extra_packages, (std::vector<std::string>{"a.whl"}));
}

TEST(WorkerPoolFlagsTest, ScriptInsteadOfModule) {
  absl::StatusOr<WorkerPoolFlags> flags =
      ParseWorkerPoolSpecFlags({std::string(kLocal) + ",script=bin/run.sh"});
  ASSERT_THAT(flags, IsOk());
  EXPECT_EQ(flags->autopackaging->script, "bin/run.sh");
  EXPECT_EQ(flags->autopackaging->python_module, "");
}

TEST(WorkerPoolFlagsTest, WithoutLocalPackageNothingChanges) {
  absl::StatusOr<WorkerPoolFlags> flags =
      ParseWorkerPoolSpecFlags({"machine-type=n1,container-image-uri=img", ""});
  ASSERT_THAT(flags, IsOk());
  EXPECT_FALSE(flags->autopackaging.has_value());
  EXPECT_EQ(flags->pools[0].container_spec->image_uri, "img");
}

TEST(WorkerPoolFlagsTest, LocalPackagePathWithContainerImageUri) {
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t,container-image-uri=img"}),
              HasSubstr("--worker-pool-spec #1: container-image-uri does not go with "
                        "local-package-path"));
}

TEST(WorkerPoolFlagsTest, LocalPackagePathNeedsExecutorImageUri) {
  EXPECT_THAT(FlagsError({"machine-type=n1,local-package-path=pkg,python-module=t"}),
              HasSubstr("--worker-pool-spec #1: executor-image-uri is required with "
                        "local-package-path"));
}

TEST(WorkerPoolFlagsTest, PythonModuleAndScriptBoth) {
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t,script=t.py"}),
              HasSubstr("python-module and script both given; exactly one goes"));
}

TEST(WorkerPoolFlagsTest, NeitherPythonModuleNorScript) {
  EXPECT_THAT(FlagsError({kLocal}),
              HasSubstr("exactly one of python-module and script is required"));
}

TEST(WorkerPoolFlagsTest, NotAModuleName) {
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=trainer/task.py"}),
              HasSubstr("python-module=trainer/task.py is not a module name"));
}

TEST(WorkerPoolFlagsTest, ScriptNotInsideThePackage) {
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",script=../run.py"}),
              HasSubstr("script=../run.py leaves local-package-path"));
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",script=a/../../run.py"}),
              HasSubstr("script=a/../../run.py leaves local-package-path"));
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",script=/opt/run.py"}),
              HasSubstr("script=/opt/run.py is absolute"));
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t,extra-dirs=data;../up"}),
              HasSubstr("extra-dirs=../up leaves local-package-path"));
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t,extra-packages=/tmp/a.whl"}),
              HasSubstr("extra-packages=/tmp/a.whl is absolute"));
}

TEST(WorkerPoolFlagsTest, EmptyListItem) {
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t,requirements=a;;b"}),
              HasSubstr("requirements has an empty item"));
}

TEST(WorkerPoolFlagsTest, RequirementsWithoutLocalPackagePath) {
  for (std::string key : {"requirements=a", "script=a.py", "extra-packages=a.whl", "extra-dirs=d",
                          "output-image-uri=r/i:1"}) {
    EXPECT_THAT(FlagsError({"machine-type=n1,executor-image-uri=e,python-module=m," + key}),
                HasSubstr("only go with local-package-path=DIR"))
        << key;
  }
  EXPECT_THAT(ErrorOf("machine-type=n1,executor-image-uri=e,python-module=m,requirements=a"),
              HasSubstr("requirements only go with local-package-path=DIR"));
}

TEST(WorkerPoolFlagsTest, LocalPackagePathOnlyInTheFirstFlag) {
  EXPECT_THAT(FlagsError({"machine-type=n1,container-image-uri=img",
                          std::string(kLocal) + ",python-module=t"}),
              HasSubstr("--worker-pool-spec #2: local-package-path is only allowed in the first"));
  EXPECT_THAT(ErrorOf(std::string(kLocal) + ",python-module=t"),
              HasSubstr("local-package-path is autopackaging"));
}

TEST(WorkerPoolFlagsTest, LaterPoolsNameNoSoftware) {
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t",
                          "machine-type=n1,container-image-uri=img"}),
              HasSubstr("--worker-pool-spec #2: container-image-uri not allowed here: the first "
                        "--worker-pool-spec has local-package-path"));
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t",
                          "machine-type=n1,executor-image-uri=e,python-module=m"}),
              HasSubstr("executor-image-uri, python-module not allowed here"));
  EXPECT_THAT(FlagsError({std::string(kLocal) + ",python-module=t", "replica-count=2"}),
              HasSubstr("--worker-pool-spec #2: machine-type is required"));
}

}  // namespace
}  // namespace trainpkg::jobspec
