#include "jobspec/validation.h"

#include <ostream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {

// Readable failure output for ElementsAre(Issue(...)).
void PrintTo(const ValidationIssue& issue, std::ostream* os) {
  *os << issue.field << ": " << issue.message;
}

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

MATCHER_P2(Issue, field, message_part, "") {
  return arg.field == field && arg.message.find(message_part) != std::string::npos;
}

WorkerPoolSpec ContainerPool(int64_t replicas) {
  WorkerPoolSpec pool;
  pool.machine_spec.emplace().machine_type = "n1-standard-4";
  pool.replica_count = replicas;
  pool.container_spec.emplace().image_uri = "us-docker.pkg.dev/p/r/trainer:1";
  return pool;
}

PythonPackageSpec PythonSpec(std::vector<EnvVar> env = {}) {
  PythonPackageSpec spec;
  spec.executor_image_uri = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12:latest";
  spec.python_module = "trainer.task";
  spec.env = std::move(env);
  return spec;
}

CustomJob ValidJob() {
  CustomJob job;
  job.display_name = "valid";
  job.labels = {{"team", "ml-infra"}, {"cost_center", "42"}};
  job.job_spec.worker_pool_specs = {ContainerPool(1)};
  return job;
}

std::vector<ValidationIssue> IssuesOf(const CustomJob& job) { return CollectValidationIssues(job); }

TEST(ValidationTest, ValidJobHasNoIssues) {
  EXPECT_THAT(IssuesOf(ValidJob()), IsEmpty());
  EXPECT_THAT(ValidateCustomJob(ValidJob()), IsOk());
}

TEST(ValidationTest, DistributedJobWithPlaceholderPoolsIsValid) {
  CustomJob job = ValidJob();
  WorkerPoolSpec ps;
  ps.machine_spec.emplace().machine_type = "n1-highmem-8";
  ps.replica_count = 2;
  ps.python_package_spec = PythonSpec();
  job.job_spec.worker_pool_specs = {ContainerPool(1), WorkerPoolSpec{}, ps, WorkerPoolSpec{}};
  EXPECT_THAT(IssuesOf(job), IsEmpty());
}

TEST(ValidationTest, DisplayNameIsRequired) {
  CustomJob job = ValidJob();
  job.display_name.clear();
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("displayName", "required")));
}

TEST(ValidationTest, DisplayNameIsAtMost128Characters) {
  CustomJob job = ValidJob();
  job.display_name = std::string(129, 'x');
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("displayName", "must be at most 128 characters long; it has 129")));
  job.display_name = std::string(128, 'x');
  EXPECT_THAT(IssuesOf(job), IsEmpty());
  job.display_name.clear();
  for (int i = 0; i < 128; ++i) job.display_name += "\xC3\xA9";  // é: characters, not bytes
  EXPECT_THAT(IssuesOf(job), IsEmpty());
}

TEST(ValidationTest, AtMost64Labels) {
  CustomJob job = ValidJob();
  job.labels.clear();
  for (int i = 0; i < 65; ++i) job.labels["k" + std::to_string(i)] = "v";
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("labels", "has 65 labels; at most 64")));
}

TEST(ValidationTest, LabelKeysFollowTheRules) {
  CustomJob job = ValidJob();
  job.labels = {{"", "v"},      {std::string(64, 'k'), "v"}, {"1abc", "v"}, {"Team", "v"},
                {"te.am", "v"}, {"\xC3\xA9quipe", "v"}};  // international characters are allowed
  EXPECT_THAT(
      IssuesOf(job),
      ElementsAre(
          Issue("labels", "key must be 1 to 63 characters long; it has 0"),
          Issue("labels.1abc", "must start with a lowercase letter"),
          Issue("labels.Team", "must start with a lowercase letter"),
          Issue("labels.kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk",
                "key must be 1 to 63 characters long; it has 64"),
          Issue("labels.te.am", "only lowercase letters, digits, '_' and '-' are allowed")));
}

TEST(ValidationTest, LabelValuesFollowTheRules) {
  CustomJob job = ValidJob();
  job.labels = {{"a", std::string(64, 'v')}, {"b", "Prod"}, {"c", ""}, {"d", std::string(63, 'v')}};
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("labels.a", "value must be at most 63 characters long; it has 64"),
                          Issue("labels.b", "value 'Prod': only lowercase letters")));
}

TEST(ValidationTest, AtLeastOneWorkerPool) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs.clear();
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs", "at least one worker pool")));
}

TEST(ValidationTest, AtMostFourWorkerPools) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs = {ContainerPool(1), ContainerPool(2), ContainerPool(1),
                                    ContainerPool(1), ContainerPool(1)};
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs", "has 5 pools; at most 4 are allowed")));
}

TEST(ValidationTest, FirstPoolMustNotBeAPlaceholder) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs = {WorkerPoolSpec{}, ContainerPool(2)};
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.workerPoolSpecs[0]",
                                               "the first pool (the chief) must not be empty")));
}

TEST(ValidationTest, FirstPoolHasExactlyOneReplica) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs = {ContainerPool(3)};
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].replicaCount",
                                "must be 1 for the first pool (the chief); got 3; put further "
                                "replicas in workerPoolSpecs[1]")));
  job.job_spec.worker_pool_specs = {ContainerPool(0)};
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].replicaCount", "must be 1")));
}

TEST(ValidationTest, OtherPoolsNeedAtLeastOneReplica) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs = {ContainerPool(1), ContainerPool(0), ContainerPool(-2)};
  EXPECT_THAT(
      IssuesOf(job),
      ElementsAre(Issue("jobSpec.workerPoolSpecs[1].replicaCount", "must be at least 1; got 0"),
                  Issue("jobSpec.workerPoolSpecs[2].replicaCount", "must be at least 1; got -2")));
}

TEST(ValidationTest, MachineTypeIsRequired) {
  CustomJob job = ValidJob();
  WorkerPoolSpec no_machine_spec = ContainerPool(1);
  no_machine_spec.machine_spec.reset();
  WorkerPoolSpec no_machine_type = ContainerPool(1);
  no_machine_type.machine_spec->machine_type.clear();
  job.job_spec.worker_pool_specs = {ContainerPool(1), no_machine_spec, no_machine_type};
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.workerPoolSpecs[1].machineSpec.machineType",
                                               "required, e.g. n1-standard-4"),
                                         Issue("jobSpec.workerPoolSpecs[2].machineSpec.machineType",
                                               "required, e.g. n1-standard-4")));
}

TEST(ValidationTest, ExactlyOneOfContainerSpecAndPythonPackageSpec) {
  CustomJob job = ValidJob();
  WorkerPoolSpec neither = ContainerPool(1);
  neither.container_spec.reset();
  WorkerPoolSpec both = ContainerPool(1);
  both.python_package_spec = PythonSpec();
  job.job_spec.worker_pool_specs = {neither, both};
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0]",
                                "exactly one of containerSpec or pythonPackageSpec is required; "
                                "neither is set"),
                          Issue("jobSpec.workerPoolSpecs[1]",
                                "both containerSpec and pythonPackageSpec are set")));
}

TEST(ValidationTest, ImageUriIsRequired) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs[0].container_spec->image_uri.clear();
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.workerPoolSpecs[0].containerSpec.imageUri",
                                               "required: the container image to run")));
}

TEST(ValidationTest, LocalImageUriNamesAnExecutable) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs[0].container_spec->image_uri = "local:/opt/trainer/bin/train";
  EXPECT_THAT(IssuesOf(job), IsEmpty());
  // Relative paths are resolved against the submitting process's directory.
  job.job_spec.worker_pool_specs[0].container_spec->image_uri = "local:bin/train";
  EXPECT_THAT(IssuesOf(job), IsEmpty());
  job.job_spec.worker_pool_specs[0].container_spec->image_uri = "local:";
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.workerPoolSpecs[0].containerSpec.imageUri",
                                               "'local:' names no executable")));
}

TEST(ValidationTest, ImageUrisAreParsedAndTheFieldNamed) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs.push_back(ContainerPool(2));
  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "gcr.io/p/my trainer:1";
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[1].containerSpec.imageUri",
                                "is not allowed in a registry reference")));
  job.job_spec.worker_pool_specs[1].container_spec->image_uri = "oci:";
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.workerPoolSpecs[1].containerSpec.imageUri",
                                               "no oci-layout directory")));

  WorkerPoolSpec& pool = job.job_spec.worker_pool_specs[1];
  pool.container_spec.reset();
  pool.python_package_spec = PythonSpec();
  pool.python_package_spec->executor_image_uri = std::string("python:3\x1b[2J");
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[1].pythonPackageSpec.executorImageUri",
                                "control byte 0x1b")));
  pool.python_package_spec->executor_image_uri = "local:/usr/bin/python3";
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[1].pythonPackageSpec.executorImageUri",
                                "is a host executable, not an image")));
}

TEST(ValidationTest, PythonPackageSpecNeedsExecutorImageAndModule) {
  CustomJob job = ValidJob();
  WorkerPoolSpec& pool = job.job_spec.worker_pool_specs[0];
  pool.container_spec.reset();
  pool.python_package_spec = PythonPackageSpec{};
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].pythonPackageSpec.executorImageUri",
                                "required"),
                          Issue("jobSpec.workerPoolSpecs[0].pythonPackageSpec.pythonModule",
                                "required: the module to run, e.g. trainer.task")));
}

TEST(ValidationTest, AcceleratorCountNeedsAcceleratorType) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs[0].machine_spec->accelerator_count = 2;
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount",
                                "set without acceleratorType")));
}

TEST(ValidationTest, AcceleratorTypeNeedsAPositiveCount) {
  CustomJob job = ValidJob();
  MachineSpec& machine = *job.job_spec.worker_pool_specs[0].machine_spec;
  machine.accelerator_type = "NVIDIA_TESLA_T4";
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount",
                                "required with acceleratorType")));
  machine.accelerator_count = -1;
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount",
                                "must be at least 1; got -1")));
  machine.accelerator_count = 4;
  EXPECT_THAT(IssuesOf(job), IsEmpty());
}

TEST(ValidationTest, AcceleratorTypeIsAKnownName) {
  CustomJob job = ValidJob();
  MachineSpec& machine = *job.job_spec.worker_pool_specs[0].machine_spec;
  machine.accelerator_count = 1;
  machine.accelerator_type = "NVIDIA_H100";
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType",
                                "unknown accelerator type 'NVIDIA_H100'; did you mean "
                                "'NVIDIA_H100_80GB'?; valid types: NVIDIA_TESLA_K80,")));
  machine.accelerator_type = "ACCELERATOR_TYPE_UNSPECIFIED";
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType",
                                "unknown accelerator type 'ACCELERATOR_TYPE_UNSPECIFIED'")));
  machine.accelerator_type = "TPU_V4_POD";
  EXPECT_THAT(IssuesOf(job), IsEmpty());
}

TEST(ValidationTest, EnvNamesAreValidCIdentifiers) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs[0].container_spec->env = {
      {"GOOD_1", "x"}, {"1BAD", "x"}, {"has-dash", "x"}, {"", "x"}, {"_ok", ""}};
  EXPECT_THAT(
      IssuesOf(job),
      ElementsAre(Issue("jobSpec.workerPoolSpecs[0].containerSpec.env[1].name",
                        "'1BAD' is not a valid C identifier"),
                  Issue("jobSpec.workerPoolSpecs[0].containerSpec.env[2].name",
                        "'has-dash' is not a valid C identifier"),
                  Issue("jobSpec.workerPoolSpecs[0].containerSpec.env[3].name", "required")));
}

TEST(ValidationTest, EnvNamesAreUnique) {
  CustomJob job = ValidJob();
  WorkerPoolSpec& pool = job.job_spec.worker_pool_specs[0];
  pool.container_spec.reset();
  pool.python_package_spec = PythonSpec({{"A", "1"}, {"B", "2"}, {"A", "3"}});
  EXPECT_THAT(IssuesOf(job),
              ElementsAre(Issue("jobSpec.workerPoolSpecs[0].pythonPackageSpec.env[2].name",
                                "'A' is already set by env[0]; each name may appear once")));
}

TEST(ValidationTest, AtMost100EnvVars) {
  CustomJob job = ValidJob();
  auto& env = job.job_spec.worker_pool_specs[0].container_spec->env;
  for (int i = 0; i < 101; ++i) env.push_back({"V" + std::to_string(i), "x"});
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.workerPoolSpecs[0].containerSpec.env",
                                               "has 101 variables; at most 100 are allowed")));
  env.pop_back();
  EXPECT_THAT(IssuesOf(job), IsEmpty());
}

TEST(ValidationTest, SchedulingTimeoutIsPositive) {
  CustomJob job = ValidJob();
  job.job_spec.scheduling.emplace().timeout = absl::ZeroDuration();
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.scheduling.timeout",
                                               "must be positive, e.g. \"3600s\"; got \"0s\"")));
  job.job_spec.scheduling->timeout = absl::Seconds(-5);
  EXPECT_THAT(IssuesOf(job), ElementsAre(Issue("jobSpec.scheduling.timeout", "got \"-5s\"")));
  job.job_spec.scheduling->timeout = absl::Hours(1);
  EXPECT_THAT(IssuesOf(job), IsEmpty());
  job.job_spec.scheduling->timeout.reset();
  EXPECT_THAT(IssuesOf(job), IsEmpty());
}

TEST(ValidationTest, ValidateCustomJobListsEveryIssueOnItsOwnLine) {
  CustomJob job = ValidJob();
  job.display_name.clear();
  job.job_spec.worker_pool_specs[0].replica_count = 2;
  absl::Status status = ValidateCustomJob(job);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "invalid job: 2 problems\n"
            "  displayName: required: a name for the job, up to 128 characters\n"
            "  jobSpec.workerPoolSpecs[0].replicaCount: must be 1 for the first pool (the chief); "
            "got 2; put further replicas in workerPoolSpecs[1]");
}

// Issue #16 finding 4: counts that size allocations have upper bounds,
// reported with the field, the value and the bound.
TEST(ValidationTest, CountsHaveUpperBounds) {
  CustomJob job = ValidJob();
  job.job_spec.worker_pool_specs = {ContainerPool(1), ContainerPool(1001), ContainerPool(1000),
                                    ContainerPool(1000)};
  MachineSpec& machine = *job.job_spec.worker_pool_specs[2].machine_spec;
  machine.accelerator_type = "NVIDIA_TESLA_T4";
  machine.accelerator_count = 17;
  EXPECT_THAT(
      IssuesOf(job),
      ElementsAre(Issue("jobSpec.workerPoolSpecs[1].replicaCount",
                        "must be at most 1000 per pool; got 1001"),
                  Issue("jobSpec.workerPoolSpecs[2].machineSpec.acceleratorCount",
                        "must be at most 16 (the most any machine type has); got 17"),
                  Issue("jobSpec.workerPoolSpecs", "the pools ask for 2001 replicas in all; at "
                                                   "most 2000 are allowed per job")));
}

TEST(ValidationTest, ArgumentsAndEnvironmentHaveSizeBounds) {
  CustomJob job = ValidJob();
  ContainerSpec& container = *job.job_spec.worker_pool_specs[0].container_spec;
  container.command = {std::string(50'000, 'c')};
  container.args = {std::string(49'999, 'a')};  // with the two NULs: 100001
  container.env = {{"BIG", std::string(100'000, 'v')}};
  WorkerPoolSpec python = ContainerPool(2);
  python.container_spec.reset();
  python.python_package_spec = PythonSpec(std::vector<EnvVar>(101, EnvVar{"1bad", "x"}));
  python.python_package_spec->package_uris.assign(101, "gs://b/p.tar.gz");
  job.job_spec.worker_pool_specs.push_back(python);
  EXPECT_THAT(
      IssuesOf(job),
      ElementsAre(
          Issue("jobSpec.workerPoolSpecs[0].containerSpec.args",
                "the arguments are 100001 characters long (with one terminating NUL each); at "
                "most 100000 are allowed together"),
          Issue("jobSpec.workerPoolSpecs[0].containerSpec.env",
                "names and values are 100003 characters long together; at most 100000 are "
                "allowed"),
          Issue("jobSpec.workerPoolSpecs[1].pythonPackageSpec.packageUris",
                "has 101 URIs; at most 100 are allowed"),
          // One issue for the list, none for each of its 101 bad names.
          Issue("jobSpec.workerPoolSpecs[1].pythonPackageSpec.env",
                "has 101 variables; at most 100 are allowed")));
}

TEST(ValidationTest, JobIdRules) {
  EXPECT_THAT(ValidateJobId("my_job_1"), IsOk());
  EXPECT_THAT(ValidateJobId(std::string(128, 'a')), IsOk());
  struct Case {
    std::string id;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "job ID is empty"},
           {std::string(129, 'a'), "at most 128"},
           {"1job", "must start with a letter"},
           {"_job", "must start with a letter"},
           {"my-job", "may contain only letters, digits and underscores; found '-'"},
           {"my job", "found ' '"},
       }) {
    absl::Status status = ValidateJobId(c.id);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.id;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.id;
  }
}

}  // namespace
}  // namespace trainpkg::jobspec
