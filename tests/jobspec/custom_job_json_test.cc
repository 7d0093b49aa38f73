#include "jobspec/custom_job_json.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

using ::nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

absl::Time At(int64_t unix_seconds, int64_t nanos = 0) {
  return absl::FromUnixSeconds(unix_seconds) + absl::Nanoseconds(nanos);
}

// Every field of the model set to a non-default value.
CustomJob MakeFullJob() {
  CustomJob job;
  job.name = "projects/123/locations/us-central1/customJobs/456";
  job.display_name = "full-job";
  job.state = JobState::kFailed;
  job.create_time = At(1'790'000'000, 123'000'000);
  job.start_time = At(1'790'000'100, 456'000);
  job.end_time = At(1'790'000'200, 7);
  job.update_time = At(1'790'000'300);
  job.error = RpcStatus{3, "The replica workerpool0-0 exited with a non-zero status of 1."};
  job.labels = {{"team", "ml"}, {"env", "dev"}};
  job.encryption_spec_kms_key_name = "projects/p/locations/l/keyRings/r/cryptoKeys/k";
  job.web_access_uris = {{"workerpool0-0", "https://example.invalid/shell"}};

  CustomJobSpec& spec = job.job_spec;
  spec.persistent_resource_id = "pr-1";
  spec.scheduling = Scheduling{absl::Hours(1), true, "SPOT", true, absl::Milliseconds(1500)};
  spec.service_account = "trainer@p.iam.gserviceaccount.com";
  spec.network = "projects/123/global/networks/vpc";
  spec.reserved_ip_ranges = {"range-a", "range-b"};
  spec.base_output_directory = "gs://bucket/out";
  spec.protected_artifact_location_id = "us-central1";
  spec.tensorboard = "projects/p/locations/l/tensorboards/1";
  spec.enable_web_access = true;
  spec.enable_dashboard_access = true;
  spec.experiment = "exp";
  spec.experiment_run = "run-1";
  spec.models = {"model-a"};

  WorkerPoolSpec chief;
  chief.container_spec = ContainerSpec{"us-docker.pkg.dev/p/r/trainer:1",
                                       {"/bin/train"},
                                       {"--epochs", "3"},
                                       {{"LR", "0.1"}, {"PATH2", "$(PATH)"}}};
  chief.machine_spec = MachineSpec{
      "a2-highgpu-1g",
      "NVIDIA_TESLA_A100",
      1,
      "1g.10gb",
      "2x2x1",
      ReservationAffinity{
          "SPECIFIC_RESERVATION", "compute.googleapis.com/reservation-name", {"res-1"}}};
  chief.replica_count = 1;
  chief.nfs_mounts = {NfsMount{"10.0.0.2", "/export", "data"}};
  chief.disk_spec = DiskSpec{"pd-ssd", 200};

  WorkerPoolSpec workers;
  workers.python_package_spec =
      PythonPackageSpec{"us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12:latest",
                        {"gs://bucket/trainer-0.1.tar.gz"},
                        "trainer.task",
                        {"--steps=10"},
                        {{"MODE", "worker"}}};
  workers.machine_spec.emplace().machine_type = "n1-standard-4";
  workers.replica_count = 3;

  spec.worker_pool_specs = {chief, workers, WorkerPoolSpec{}, WorkerPoolSpec{}};
  return job;
}

TEST(CustomJobJsonTest, FullJobRoundTripsThroughJsonAndText) {
  const CustomJob job = MakeFullJob();
  absl::StatusOr<CustomJob> from_json = CustomJobFromJson(CustomJobToJson(job));
  ASSERT_THAT(from_json, IsOk());
  EXPECT_EQ(*from_json, job);

  absl::StatusOr<CustomJob> from_text = ParseCustomJobJson(FormatCustomJobJson(job));
  ASSERT_THAT(from_text, IsOk());
  EXPECT_EQ(*from_text, job);
}

TEST(CustomJobJsonTest, WritesProto3JsonForms) {
  const json out = CustomJobToJson(MakeFullJob());
  const json& spec = out["jobSpec"];
  const json& chief = spec["workerPoolSpecs"][0];
  EXPECT_EQ(chief["replicaCount"], "1");  // int64 as a string
  EXPECT_EQ(spec["workerPoolSpecs"][1]["replicaCount"], "3");
  EXPECT_EQ(chief["machineSpec"]["acceleratorCount"], 1);  // int32 as a number
  EXPECT_TRUE(chief["machineSpec"]["acceleratorCount"].is_number_integer());
  EXPECT_EQ(chief["machineSpec"]["acceleratorType"], "NVIDIA_TESLA_A100");
  EXPECT_EQ(chief["machineSpec"]["reservationAffinity"]["reservationAffinityType"],
            "SPECIFIC_RESERVATION");
  EXPECT_EQ(chief["diskSpec"], json({{"bootDiskType", "pd-ssd"}, {"bootDiskSizeGb", 200}}));
  EXPECT_EQ(chief["nfsMounts"][0]["mountPoint"], "data");
  EXPECT_EQ(chief["containerSpec"]["env"][1], json({{"name", "PATH2"}, {"value", "$(PATH)"}}));
  EXPECT_EQ(spec["workerPoolSpecs"][2], json::object());  // placeholder pool
  EXPECT_EQ(spec["baseOutputDirectory"], json({{"outputUriPrefix", "gs://bucket/out"}}));
  EXPECT_EQ(spec["scheduling"]["timeout"], "3600s");
  EXPECT_EQ(spec["scheduling"]["maxWaitDuration"], "1.500s");
  EXPECT_EQ(spec["scheduling"]["strategy"], "SPOT");
  EXPECT_EQ(spec["enableWebAccess"], true);
  EXPECT_EQ(out["state"], "JOB_STATE_FAILED");
  EXPECT_EQ(out["createTime"], "2026-09-21T14:13:20.123Z");
  EXPECT_EQ(out["startTime"], "2026-09-21T14:15:00.000456Z");
  EXPECT_EQ(out["endTime"], "2026-09-21T14:16:40.000000007Z");
  EXPECT_EQ(out["updateTime"], "2026-09-21T14:18:20Z");
  EXPECT_EQ(out["error"]["code"], 3);
  EXPECT_EQ(out["encryptionSpec"],
            json({{"kmsKeyName", "projects/p/locations/l/keyRings/r/cryptoKeys/k"}}));
  EXPECT_EQ(out["webAccessUris"]["workerpool0-0"], "https://example.invalid/shell");
  EXPECT_EQ(out["labels"]["team"], "ml");
}

TEST(CustomJobJsonTest, OmitsDefaultValues) {
  CustomJob job;
  job.display_name = "minimal";
  WorkerPoolSpec pool;
  pool.machine_spec = MachineSpec{};
  job.job_spec.worker_pool_specs = {pool};
  EXPECT_EQ(CustomJobToJson(job), json::parse(R"({"displayName": "minimal",
                            "jobSpec": {"workerPoolSpecs": [{"machineSpec": {}}]}})"));
  EXPECT_EQ(CustomJobToJson(CustomJob{}), json::parse(R"({"jobSpec": {}})"));
}

TEST(CustomJobJsonTest, PresentButEmptyMessagesSurviveARoundTrip) {
  CustomJob job;
  job.job_spec.scheduling = Scheduling{};
  job.error = RpcStatus{};
  WorkerPoolSpec pool;
  pool.container_spec = ContainerSpec{};
  pool.disk_spec = DiskSpec{};
  job.job_spec.worker_pool_specs = {pool};
  absl::StatusOr<CustomJob> parsed = CustomJobFromJson(CustomJobToJson(job));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, job);
}

absl::StatusOr<WorkerPoolSpec> PoolFrom(const char* text) {
  return WorkerPoolSpecFromJson(json::parse(text), "jobSpec.workerPoolSpecs[1]");
}

TEST(CustomJobJsonTest, ReadsIntegersAsNumbersOrStringsOfDigits) {
  EXPECT_EQ(PoolFrom(R"({"replicaCount": 2})")->replica_count, 2);
  EXPECT_EQ(PoolFrom(R"({"replicaCount": "2"})")->replica_count, 2);
  EXPECT_EQ(PoolFrom(R"({"replicaCount": 2.0})")->replica_count, 2);
  EXPECT_EQ(PoolFrom(R"({"replicaCount": "-1"})")->replica_count, -1);
  EXPECT_EQ(PoolFrom(R"({"replicaCount": "9223372036854775807"})")->replica_count, INT64_MAX);
  EXPECT_EQ(
      PoolFrom(R"({"machineSpec": {"acceleratorCount": "4"}})")->machine_spec->accelerator_count,
      4);
  EXPECT_EQ(PoolFrom(R"({"diskSpec": {"bootDiskSizeGb": 100}})")->disk_spec->boot_disk_size_gb,
            100);
}

TEST(CustomJobJsonTest, RejectsNonIntegersWithThePath) {
  EXPECT_EQ(MessageOf(PoolFrom(R"({"replicaCount": true})").status()),
            "jobSpec.workerPoolSpecs[1].replicaCount: expected an integer (number or string of "
            "digits), got the boolean true");
  for (const char* bad :
       {R"({"replicaCount": 2.5})", R"({"replicaCount": "2.5"})", R"({"replicaCount": "two"})",
        R"({"replicaCount": ""})", R"({"replicaCount": " 2"})", R"({"replicaCount": [2]})"}) {
    absl::StatusOr<WorkerPoolSpec> pool = PoolFrom(bad);
    ASSERT_FALSE(pool.ok()) << bad;
    EXPECT_EQ(pool.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(MessageOf(pool.status()),
                StartsWith("jobSpec.workerPoolSpecs[1].replicaCount: expected an integer"))
        << bad;
  }
}

TEST(CustomJobJsonTest, RejectsIntegerOverflow) {
  EXPECT_EQ(MessageOf(PoolFrom(R"({"replicaCount": "9223372036854775808"})").status()),
            "jobSpec.workerPoolSpecs[1].replicaCount: 9223372036854775808 is out of range for a "
            "64-bit integer");
  EXPECT_THAT(MessageOf(PoolFrom(R"({"replicaCount": 18446744073709551615})").status()),
              HasSubstr("out of range for a 64-bit integer"));
  EXPECT_EQ(MessageOf(PoolFrom(R"({"machineSpec": {"acceleratorCount": 3000000000}})").status()),
            "jobSpec.workerPoolSpecs[1].machineSpec.acceleratorCount: 3000000000 is out of range "
            "for a 32-bit integer");
}

TEST(CustomJobJsonTest, ReadsEnumsByNameOrNumber) {
  absl::StatusOr<CustomJob> job = CustomJobFromJson(json::parse(R"({
    "state": 3,
    "jobSpec": {
      "scheduling": {"strategy": 6},
      "workerPoolSpecs": [
        {"machineSpec": {"acceleratorType": 5,
                         "reservationAffinity": {"reservationAffinityType": 2}}},
        {"machineSpec": {"acceleratorType": 15}},
        {"machineSpec": {"acceleratorType": "TPU_V5_LITEPOD"}},
        {"machineSpec": {"acceleratorType": 0}},
        {"machineSpec": {"acceleratorType": "ACCELERATOR_TYPE_UNSPECIFIED"}}
      ]}})"));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state, JobState::kRunning);
  EXPECT_EQ(job->job_spec.scheduling->strategy, "FLEX_START");
  const auto& pools = job->job_spec.worker_pool_specs;
  EXPECT_EQ(pools[0].machine_spec->accelerator_type, "NVIDIA_TESLA_T4");
  EXPECT_EQ(pools[0].machine_spec->reservation_affinity->reservation_affinity_type,
            "ANY_RESERVATION");
  EXPECT_EQ(pools[1].machine_spec->accelerator_type, "NVIDIA_H200_141GB");
  EXPECT_EQ(pools[2].machine_spec->accelerator_type, "TPU_V5_LITEPOD");
  EXPECT_EQ(pools[3].machine_spec->accelerator_type, "");
  EXPECT_EQ(pools[4].machine_spec->accelerator_type, "");

  EXPECT_EQ(CustomJobFromJson(json::parse(R"({"state": "JOB_STATE_SUCCEEDED"})"))->state,
            JobState::kSucceeded);
}

TEST(CustomJobJsonTest, RejectsUnknownEnumNumbersAndStates) {
  EXPECT_THAT(
      MessageOf(PoolFrom(R"({"machineSpec": {"acceleratorType": 99}})").status()),
      StartsWith(
          "jobSpec.workerPoolSpecs[1].machineSpec.acceleratorType: unknown AcceleratorType "
          "number 99; valid numbers: 0 (ACCELERATOR_TYPE_UNSPECIFIED), 1 (NVIDIA_TESLA_K80)"));
  EXPECT_THAT(
      MessageOf(PoolFrom(R"({"machineSpec": {"acceleratorType": true}})").status()),
      HasSubstr(
          "expected an enum value of AcceleratorType (name or number), got the boolean true"));
  EXPECT_THAT(MessageOf(CustomJobFromJson(json::parse(R"({"state": "DONE"})")).status()),
              StartsWith("state: unknown job state 'DONE'"));
  EXPECT_THAT(MessageOf(CustomJobFromJson(json::parse(R"({"state": 42})")).status()),
              StartsWith("state: unknown JobState number 42"));
}

TEST(CustomJobJsonTest, ReadsSnakeCaseNamesOfThePythonSdk) {
  absl::StatusOr<CustomJob> job = CustomJobFromJson(json::parse(R"({
    "display_name": "sdk-job",
    "job_spec": {
      "worker_pool_specs": [{
        "machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": "NVIDIA_TESLA_T4",
                         "accelerator_count": 1},
        "replica_count": 1,
        "container_spec": {"image_uri": "gcr.io/p/trainer", "args": ["--lr=0.1"]},
        "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 100},
        "nfs_mounts": [{"server": "s", "path": "/p", "mount_point": "m"}]
      }],
      "base_output_directory": {"output_uri_prefix": "gs://bucket/out"},
      "service_account": "sa@p.iam.gserviceaccount.com",
      "scheduling": {"restart_job_on_worker_restart": true, "max_wait_duration": "60s"}
    },
    "encryption_spec": {"kms_key_name": "key"},
    "web_access_uris": {"workerpool0-0": "uri"}
  })"));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "sdk-job");
  const WorkerPoolSpec& pool = job->job_spec.worker_pool_specs.at(0);
  EXPECT_EQ(pool.machine_spec->machine_type, "n1-standard-4");
  EXPECT_EQ(pool.machine_spec->accelerator_type, "NVIDIA_TESLA_T4");
  EXPECT_EQ(pool.machine_spec->accelerator_count, 1);
  EXPECT_EQ(pool.replica_count, 1);
  EXPECT_EQ(pool.container_spec->image_uri, "gcr.io/p/trainer");
  EXPECT_EQ(pool.disk_spec->boot_disk_size_gb, 100);
  EXPECT_EQ(pool.nfs_mounts.at(0).mount_point, "m");
  EXPECT_EQ(job->job_spec.base_output_directory, "gs://bucket/out");
  EXPECT_EQ(job->job_spec.service_account, "sa@p.iam.gserviceaccount.com");
  EXPECT_TRUE(job->job_spec.scheduling->restart_job_on_worker_restart);
  EXPECT_EQ(job->job_spec.scheduling->max_wait_duration, absl::Seconds(60));
  EXPECT_EQ(job->encryption_spec_kms_key_name, "key");
  EXPECT_EQ(job->web_access_uris.at("workerpool0-0"), "uri");
}

TEST(CustomJobJsonTest, RejectsUnknownFieldsWithASuggestion) {
  EXPECT_EQ(MessageOf(PoolFrom(R"({"replicaCont": 1})").status()),
            "jobSpec.workerPoolSpecs[1].replicaCont: unknown field; did you mean 'replicaCount'?");
  EXPECT_EQ(MessageOf(PoolFrom(R"({"machineSpec": {"machine_tpye": "n1"}})").status()),
            "jobSpec.workerPoolSpecs[1].machineSpec.machine_tpye: unknown field; did you mean "
            "'machine_type'?");
  EXPECT_EQ(MessageOf(PoolFrom(R"({"containerSpec": {"imageURI": "x"}})").status()),
            "jobSpec.workerPoolSpecs[1].containerSpec.imageURI: unknown field; did you mean "
            "'imageUri'?");
  EXPECT_EQ(MessageOf(CustomJobFromJson(json::parse(R"({"zzz": 1})")).status()),
            "zzz: unknown field; valid fields: name, displayName, jobSpec, state, createTime, "
            "startTime, endTime, updateTime, error, labels, encryptionSpec, webAccessUris");
  EXPECT_EQ(MessageOf(CustomJobSpecFromJson(json::parse(R"({"baseOutputDir": {}})")).status()),
            "baseOutputDir: unknown field; did you mean 'baseOutputDirectory'?");
}

TEST(CustomJobJsonTest, ExplainsBaseOutputDirectoryGivenAsAString) {
  absl::StatusOr<CustomJob> job =
      CustomJobFromJson(json::parse(R"({"jobSpec": {"baseOutputDirectory": "gs://bucket/out"}})"));
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MessageOf(job.status()),
            "jobSpec.baseOutputDirectory: must be an object {\"outputUriPrefix\": \"...\"}, not a "
            "string; write \"baseOutputDirectory\": {\"outputUriPrefix\": \"gs://bucket/out\"}");
}

TEST(CustomJobJsonTest, RejectsAFieldGivenInBothSpellings) {
  EXPECT_EQ(MessageOf(PoolFrom(R"({"replicaCount": 1, "replica_count": 2})").status()),
            "jobSpec.workerPoolSpecs[1].replicaCount: given twice, as 'replicaCount' and as "
            "'replica_count'; keep one");
}

TEST(CustomJobJsonTest, RejectsWrongValueTypes) {
  EXPECT_EQ(MessageOf(PoolFrom(R"({"containerSpec": {"args": ["--epochs", 10]}})").status()),
            "jobSpec.workerPoolSpecs[1].containerSpec.args[1]: expected a string, got the number "
            "10 (quote it: \"10\")");
  EXPECT_EQ(MessageOf(PoolFrom(R"({"containerSpec": {"args": "--epochs"}})").status()),
            "jobSpec.workerPoolSpecs[1].containerSpec.args: expected a list of strings, got the "
            "string \"--epochs\"");
  EXPECT_EQ(
      MessageOf(PoolFrom(R"({"containerSpec": {"env": [{"name": "A", "value": 1}]}})").status()),
      "jobSpec.workerPoolSpecs[1].containerSpec.env[0].value: expected a string, got the number 1 "
      "(quote it: \"1\")");
  EXPECT_EQ(MessageOf(PoolFrom(R"({"machineSpec": "n1-standard-4"})").status()),
            "jobSpec.workerPoolSpecs[1].machineSpec: expected an object, got the string "
            "\"n1-standard-4\"");
  EXPECT_EQ(MessageOf(CustomJobSpecFromJson(json::parse(R"({"enableWebAccess": "yes"})")).status()),
            "enableWebAccess: expected true or false, got the string \"yes\"");
  EXPECT_EQ(MessageOf(CustomJobSpecFromJson(json::parse(R"({"workerPoolSpecs": {}})")).status()),
            "workerPoolSpecs: expected a list, got an object {}");
  EXPECT_EQ(MessageOf(CustomJobFromJson(json::parse(R"({"labels": {"a": 1}})")).status()),
            "labels.a: expected a string, got the number 1 (quote it: \"1\")");
  EXPECT_EQ(MessageOf(CustomJobFromJson(json::parse("[1]")).status()),
            "(top level): expected an object, got a list [1]");
  EXPECT_EQ(
      MessageOf(CustomJobSpecFromJson(json::parse(R"({"scheduling": {"timeout": 60}})")).status()),
      "scheduling.timeout: expected a duration string such as \"3600s\", got the number 60");
  EXPECT_THAT(MessageOf(CustomJobFromJson(json::parse(R"({"createTime": "yesterday"})")).status()),
              StartsWith("createTime: invalid timestamp \"yesterday\""));
}

TEST(CustomJobJsonTest, NullMeansDefaultAndPlaceholderPool) {
  absl::StatusOr<CustomJob> job = CustomJobFromJson(json::parse(R"({
    "displayName": null,
    "jobSpec": {"workerPoolSpecs": [{"replicaCount": "1", "diskSpec": null}, null],
                "baseOutputDirectory": null}})"));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "");
  ASSERT_EQ(job->job_spec.worker_pool_specs.size(), 2u);
  EXPECT_FALSE(job->job_spec.worker_pool_specs[0].disk_spec.has_value());
  EXPECT_TRUE(job->job_spec.worker_pool_specs[1].IsEmpty());
}

TEST(CustomJobJsonTest, DropsOutputOnlyFieldsItDoesNotModelAndRejectsUnsupportedOnes) {
  absl::StatusOr<CustomJob> job = CustomJobFromJson(json::parse(R"({
    "satisfiesPzs": true,
    "error": {"code": 1, "message": "cancelled", "details": [{"@type": "x"}]}})"));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->error, (RpcStatus{1, "cancelled"}));

  EXPECT_EQ(MessageOf(PoolFrom(R"({"lustreMounts": []})").status()),
            "jobSpec.workerPoolSpecs[1].lustreMounts: this Vertex AI field is not supported by "
            "trainpkg; remove it");
}

// The shape of the CustomJob the Vertex AI docs show coming back from
// customJobs.create: output-only fields, int64 as a string, microsecond times.
TEST(CustomJobJsonTest, ParsesAVertexCreateResponse) {
  absl::StatusOr<CustomJob> job = ParseCustomJobJson(R"({
    "name": "projects/123456/locations/us-central1/customJobs/5636733135312912384",
    "displayName": "hello_custom",
    "jobSpec": {
      "workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"},
        "replicaCount": "1",
        "pythonPackageSpec": {
          "executorImageUri": "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest",
          "packageUris": ["gs://my-bucket/training/trainer-0.1.tar.gz"],
          "pythonModule": "trainer.task",
          "args": ["--model-dir=gs://my-bucket/output/"]
        }
      }]
    },
    "state": "JOB_STATE_PENDING",
    "createTime": "2026-09-15T19:09:54.342080Z",
    "updateTime": "2026-09-15T19:09:54.342080Z"
  })");
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state, JobState::kPending);
  EXPECT_EQ(job->job_spec.worker_pool_specs.at(0).python_package_spec->python_module,
            "trainer.task");
  EXPECT_EQ(FormatTimestamp(*job->create_time), "2026-09-15T19:09:54.342080Z");
  EXPECT_EQ(CustomJobToJson(*job)["jobSpec"]["workerPoolSpecs"][0]["replicaCount"], "1");
}

TEST(CustomJobJsonTest, SyntaxErrorsNameLineAndColumn) {
  absl::StatusOr<CustomJob> job = ParseCustomJobJson("{\n  \"displayName\": \"x\",\n}");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(job.status()), StartsWith("invalid JSON: parse error at line 3, column 1"));
}

TEST(CustomJobJsonTest, FormatsDurations) {
  EXPECT_EQ(jobspec::FormatDuration(absl::Hours(1)), "3600s");
  EXPECT_EQ(jobspec::FormatDuration(absl::Milliseconds(1500)), "1.500s");
  EXPECT_EQ(jobspec::FormatDuration(absl::Microseconds(1)), "0.000001s");
  EXPECT_EQ(jobspec::FormatDuration(absl::Nanoseconds(1)), "0.000000001s");
  EXPECT_EQ(jobspec::FormatDuration(absl::ZeroDuration()), "0s");
  EXPECT_EQ(jobspec::FormatDuration(-absl::Milliseconds(1500)), "-1.500s");
}

TEST(CustomJobJsonTest, ParsesDurations) {
  EXPECT_EQ(*ParseDuration("3600s"), absl::Hours(1));
  EXPECT_EQ(*ParseDuration("0.5s"), absl::Milliseconds(500));
  EXPECT_EQ(*ParseDuration("1.000000001s"), absl::Seconds(1) + absl::Nanoseconds(1));
  EXPECT_EQ(*ParseDuration("-2s"), absl::Seconds(-2));
  for (const char* bad :
       {"", "s", "3600", "1h", "1.s", ".5s", "1.0000000001s", "+1s", "1 s", "315576000001s"}) {
    absl::StatusOr<absl::Duration> d = ParseDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_THAT(MessageOf(d.status()), HasSubstr("e.g. \"3600s\"")) << bad;
  }
}

TEST(CustomJobJsonTest, FormatsAndParsesTimestamps) {
  const absl::Time t = At(1'795'312'800, 123'000'000);
  EXPECT_EQ(FormatTimestamp(t), "2026-11-22T02:00:00.123Z");
  EXPECT_EQ(FormatTimestamp(At(0)), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTimestamp(At(-1, 500'000'000)), "1969-12-31T23:59:59.500Z");
  EXPECT_EQ(*ParseTimestamp("2026-11-22T02:00:00.123Z"), t);
  EXPECT_EQ(*ParseTimestamp("2026-11-22T03:00:00.123+01:00"), t);
  EXPECT_EQ(*ParseTimestamp("2026-11-22T02:00:00.123000000Z"), t);
  for (const char* bad : {"", "2026-11-22", "2026-11-22T02:00:00", "infinite-future", "not a time",
                          "0000-01-01T00:00:00Z"}) {
    EXPECT_FALSE(ParseTimestamp(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace trainpkg::jobspec
