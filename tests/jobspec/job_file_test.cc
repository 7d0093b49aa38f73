#include "jobspec/job_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
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

TEST(JobFileTest, YamlScalarsKeepTheirCoreSchemaTypes) {
  absl::StatusOr<json> out = YamlToJson(R"(
int: 2
negative: -7
quoted_int: "2"
single_quoted: '3'
hex: 0x1F
octal: 0o17
float: 1.5
negative_float: -1.5
leading_dot: .5
plus_int: +5
sign_soup: +-5
infinity: -.inf
exponent: 1e3
bool: true
capital_bool: False
yes_is_a_string: yes
tilde: ~
null_word: null
empty:
quoted_null: "null"
tagged: !!str 5
text: hello world
version: 1.2.3
block: |
  line
list: [a, 1, "1"]
nested: {key: value}
)");
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)["int"], 2);
  EXPECT_TRUE((*out)["int"].is_number_integer());
  EXPECT_EQ((*out)["negative"], -7);
  EXPECT_EQ((*out)["quoted_int"], "2");
  EXPECT_EQ((*out)["single_quoted"], "3");
  EXPECT_EQ((*out)["hex"], 31);
  EXPECT_EQ((*out)["octal"], 15);
  EXPECT_EQ((*out)["float"], 1.5);
  EXPECT_EQ((*out)["negative_float"], -1.5);
  EXPECT_EQ((*out)["leading_dot"], 0.5);
  EXPECT_EQ((*out)["plus_int"], 5);
  EXPECT_EQ((*out)["sign_soup"], "+-5");
  EXPECT_EQ((*out)["infinity"], -std::numeric_limits<double>::infinity());
  EXPECT_EQ((*out)["exponent"], 1000.0);
  EXPECT_EQ((*out)["bool"], true);
  EXPECT_EQ((*out)["capital_bool"], false);
  EXPECT_EQ((*out)["yes_is_a_string"], "yes");
  EXPECT_TRUE((*out)["tilde"].is_null());
  EXPECT_TRUE((*out)["null_word"].is_null());
  EXPECT_TRUE((*out)["empty"].is_null());
  EXPECT_EQ((*out)["quoted_null"], "null");
  EXPECT_EQ((*out)["tagged"], "5");
  EXPECT_EQ((*out)["text"], "hello world");
  EXPECT_EQ((*out)["version"], "1.2.3");
  EXPECT_EQ((*out)["block"], "line\n");
  EXPECT_EQ((*out)["list"], json::parse(R"(["a", 1, "1"])"));
  EXPECT_EQ((*out)["nested"], json::parse(R"({"key": "value"})"));
}

TEST(JobFileTest, YamlSyntaxErrorsNameLineAndColumn) {
  absl::StatusOr<json> out = YamlToJson("a: [1, 2\nb: c\n");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(out.status()), StartsWith("invalid YAML at line 2, column 2: "));
}

TEST(JobFileTest, YamlDuplicateKeysAreErrors) {
  absl::StatusOr<json> out = YamlToJson("a: 1\nb: 2\na: 3\n");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(MessageOf(out.status()), "invalid YAML at line 3, column 1: duplicate key 'a'");
}

// Found by fuzz_yaml_to_json: "a\0\0\0" made yaml-cpp read the text as
// UTF-32LE, and the scalars it decoded were not UTF-8, so dumping the JSON
// threw (std::terminate in the CLI).
TEST(JobFileTest, YamlWithNulBytesIsRefusedNotReadAsUtf32) {
  const std::string utf32_looking("a\0\0\0\x0f b: : 1\n\x18\0", 15);
  absl::StatusOr<json> out = YamlToJson(utf32_looking);
  ASSERT_FALSE(out.ok()) << out->dump(-1, ' ', false, json::error_handler_t::replace);
  EXPECT_EQ(MessageOf(out.status()),
            "invalid YAML: byte 2 is NUL (YAML files must be UTF-8 text, which has no NUL bytes; "
            "convert UTF-16 or UTF-32 files to UTF-8)");
  const std::string utf16le("a\0:\0 \0b\0\n\0", 10);
  out = YamlToJson(utf16le);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(MessageOf(out.status()), StartsWith("invalid YAML: byte 2 is NUL"));
  out = YamlToJson(std::string("a: b\0c\n", 7));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(MessageOf(out.status()), StartsWith("invalid YAML: byte 5 is NUL"));
}

// Found by fuzz_yaml_to_json: yaml-cpp decodes \N and \_ to the lone bytes
// 0x85 and 0xA0, so the JSON held invalid UTF-8 and dumping it threw.
TEST(JobFileTest, YamlNelAndNbspEscapesBecomeUtf8) {
  absl::StatusOr<json> out = YamlToJson("a: \"x\\N\\_y\"\n\"k\\N\": 1\n");
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)["a"].get<std::string>(), "x\u0085\u00A0y");
  EXPECT_EQ((*out)["k\u0085"], 1);
  EXPECT_EQ(out->dump(), "{\"a\":\"x\u0085\u00A0y\",\"k\u0085\":1}");
}

// gcloud's --config form, as in the Vertex AI docs' Dynamic Workload Scheduler
// example: the CustomJobSpec at the top level and workerPoolSpecs given as a
// single mapping.
TEST(JobFileTest, ParsesGcloudConfigWithASingleWorkerPoolMapping) {
  absl::StatusOr<CustomJob> job = ParseJobFile(R"(
workerPoolSpecs:
  machineSpec:
    machineType: a2-highgpu-1g
    acceleratorType: NVIDIA_TESLA_A100
    acceleratorCount: 1
  replicaCount: 1
  containerSpec:
    imageUri: us-docker.pkg.dev/my-project/training/trainer:latest
    args:
    - port=8500
    command:
    - start
scheduling:
  strategy: FLEX_START
  maxWaitDuration: 7200s
)");
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "");
  ASSERT_EQ(job->job_spec.worker_pool_specs.size(), 1u);
  const WorkerPoolSpec& pool = job->job_spec.worker_pool_specs[0];
  EXPECT_EQ(pool.machine_spec->machine_type, "a2-highgpu-1g");
  EXPECT_EQ(pool.machine_spec->accelerator_type, "NVIDIA_TESLA_A100");
  EXPECT_EQ(pool.machine_spec->accelerator_count, 1);
  EXPECT_EQ(pool.replica_count, 1);
  EXPECT_EQ(pool.container_spec->image_uri, "us-docker.pkg.dev/my-project/training/trainer:latest");
  EXPECT_EQ(pool.container_spec->args, std::vector<std::string>{"port=8500"});
  EXPECT_EQ(pool.container_spec->command, std::vector<std::string>{"start"});
  EXPECT_EQ(job->job_spec.scheduling->strategy, "FLEX_START");
  EXPECT_EQ(job->job_spec.scheduling->max_wait_duration, absl::Hours(2));
}

TEST(JobFileTest, ParsesAWholeCustomJobWithPlaceholderPools) {
  absl::StatusOr<CustomJob> job = ParseJobFile(R"(
displayName: distributed
labels:
  team: ml
jobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-8}
    replicaCount: 1
    containerSpec: {imageUri: "local:/opt/trainer/bin/train"}
  - machineSpec: {machineType: n1-standard-8}
    replicaCount: "2"
    containerSpec:
      imageUri: local:/opt/trainer/bin/train
      env:
      - {name: LR, value: "0.1"}
  - {}
  -
  baseOutputDirectory:
    outputUriPrefix: /tmp/out
)");
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "distributed");
  EXPECT_EQ(job->labels.at("team"), "ml");
  const auto& pools = job->job_spec.worker_pool_specs;
  ASSERT_EQ(pools.size(), 4u);
  EXPECT_EQ(pools[1].replica_count, 2);
  EXPECT_EQ(pools[1].container_spec->env.at(0), (EnvVar{"LR", "0.1"}));
  EXPECT_TRUE(pools[2].IsEmpty());
  EXPECT_TRUE(pools[3].IsEmpty());
  EXPECT_EQ(job->job_spec.base_output_directory, "/tmp/out");
}

TEST(JobFileTest, ParsesSnakeCaseJobsAndSingleMappingsInsideJobSpec) {
  absl::StatusOr<CustomJob> job = ParseJobFile(R"(
display_name: sdk-style
job_spec:
  worker_pool_specs:
    machine_spec: {machine_type: n1-standard-4}
    replica_count: 1
    python_package_spec:
      executor_image_uri: us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12:latest
      python_module: trainer.task
)");
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "sdk-style");
  ASSERT_EQ(job->job_spec.worker_pool_specs.size(), 1u);
  EXPECT_EQ(job->job_spec.worker_pool_specs[0].python_package_spec->python_module, "trainer.task");
}

TEST(JobFileTest, ParsesJsonText) {
  absl::StatusOr<CustomJob> job = ParseJobFile(
      "{\n\t\"displayName\": \"json\",\n\t\"jobSpec\": {\"workerPoolSpecs\": "
      "[{\"replicaCount\": \"1\"}]}\n}\n");
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "json");
  EXPECT_EQ(job->job_spec.worker_pool_specs.at(0).replica_count, 1);
}

TEST(JobFileTest, ErrorsCarryTheFieldPath) {
  EXPECT_EQ(MessageOf(ParseJobFile("workerPoolSpecs:\n  replicaCount: true\n").status()),
            "workerPoolSpecs[0].replicaCount: expected an integer (number or string of digits), "
            "got the boolean true");
  EXPECT_EQ(MessageOf(ParseJobFile("displayName: x\njobSpec:\n  workerPoolSpecs:\n  - "
                                   "containerSpec:\n      args: [--epochs, 10]\n")
                          .status()),
            "jobSpec.workerPoolSpecs[0].containerSpec.args[1]: expected a string, got the number "
            "10 (quote it: \"10\")");
  EXPECT_EQ(
      MessageOf(ParseJobFile("workerPoolSpecs: []\nbaseOutputDirectory: gs://b/o\n").status()),
      "baseOutputDirectory: must be an object {\"outputUriPrefix\": \"...\"}, not a string; "
      "write \"baseOutputDirectory\": {\"outputUriPrefix\": \"gs://b/o\"}");
  EXPECT_EQ(MessageOf(ParseJobFile("workerPoolSpec: []\n").status()),
            "workerPoolSpec: unknown field; did you mean 'workerPoolSpecs'?");
}

TEST(JobFileTest, RejectsEmptyAndNonMappingDocuments) {
  EXPECT_THAT(MessageOf(ParseJobFile("").status()), HasSubstr("the job file is empty"));
  EXPECT_THAT(MessageOf(ParseJobFile("# only a comment\n").status()),
              HasSubstr("the job file is empty"));
  EXPECT_THAT(MessageOf(ParseJobFile("- a\n- b\n").status()),
              StartsWith("expected a mapping at the top level"));
  EXPECT_THAT(MessageOf(ParseJobFile("jobSpec: [\n").status()), StartsWith("invalid YAML at line"));
}

class JobFileOnDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("jobspec_job_file_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path Write(const std::string& name, const std::string& text) {
    std::filesystem::path path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(JobFileOnDiskTest, LoadsAFile) {
  absl::StatusOr<CustomJob> job =
      LoadJobFile(Write("job.yaml", "displayName: on-disk\njobSpec: {}\n"));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "on-disk");
}

TEST_F(JobFileOnDiskTest, PrefixesErrorsWithThePath) {
  std::filesystem::path path = Write("bad.yaml", "displayName: x\nlabels: [1]\n");
  absl::StatusOr<CustomJob> job = LoadJobFile(path);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MessageOf(job.status()),
            path.string() + ": labels: expected an object of string values, got a list [1]");
}

TEST_F(JobFileOnDiskTest, MissingFileIsNotFound) {
  std::filesystem::path path = dir_ / "missing.yaml";
  absl::StatusOr<CustomJob> job = LoadJobFile(path);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(MessageOf(job.status()), HasSubstr(path.string()));
}

}  // namespace
}  // namespace trainpkg::jobspec
