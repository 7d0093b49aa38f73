// Tuning job files: the REST form and the Python SDK form, YAML and JSON.
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/hyperparameter_tuning_job_file.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

using ::testing::HasSubstr;

constexpr char kRestYaml[] = R"(
displayName: tune-digits
studySpec:
  metrics:
  - metricId: accuracy
    goal: MAXIMIZE
  parameters:
  - parameterId: learning_rate
    doubleValueSpec: {minValue: 0.0001, maxValue: 0.1}
    scaleType: UNIT_LOG_SCALE
  - parameterId: num_units
    integerValueSpec: {minValue: 16, maxValue: 128}
  algorithm: RANDOM_SEARCH
  medianAutomatedStoppingSpec: {}
maxTrialCount: 6
parallelTrialCount: 2
trialJobSpec:
  workerPoolSpecs:
    machineSpec: {machineType: n1-standard-4}
    replicaCount: 1
    containerSpec: {imageUri: trainer:1, args: [--epochs=3]}
)";

TEST(HyperparameterTuningJobFileTest, ReadsTheRestFormInYaml) {
  absl::StatusOr<HyperparameterTuningJob> job = ParseHyperparameterTuningJobFile(kRestYaml);
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->display_name, "tune-digits");
  EXPECT_EQ(job->max_trial_count, 6);
  EXPECT_EQ(job->parallel_trial_count, 2);
  ASSERT_EQ(job->study_spec.parameters.size(), 2u);
  EXPECT_EQ(job->study_spec.parameters[0].scale_type, ScaleType::kLog);
  EXPECT_EQ(std::get<IntegerValueSpec>(job->study_spec.parameters[1].value_spec).max_value, 128);
  EXPECT_TRUE(job->study_spec.median_automated_stopping_spec.has_value());
  ASSERT_EQ(job->trial_job_spec.worker_pool_specs.size(), 1u);  // single mapping wrapped
  EXPECT_EQ(job->trial_job_spec.worker_pool_specs[0].container_spec->args[0], "--epochs=3");
}

TEST(HyperparameterTuningJobFileTest, JsonRoundTripsThroughTheFileReader) {
  absl::StatusOr<HyperparameterTuningJob> job = ParseHyperparameterTuningJobFile(kRestYaml);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<HyperparameterTuningJob> again =
      ParseHyperparameterTuningJobFile(FormatHyperparameterTuningJobJson(*job));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, *job);
}

constexpr char kPythonYaml[] = R"(
display_name: tune-digits
metric_spec: {accuracy: maximize}
parameter_spec:
  learning_rate: {type: double, min: 1e-4, max: 1e-1, scale: log}
  momentum: {type: discrete, values: [0.5, 0.9, 0.99], scale: linear}
  num_units: {type: integer, min: 16, max: 128, scale: reverse_log}
  optimizer:
    type: categorical
    values: [sgd, adam]
    conditional_parameter_spec:
      nesterov: {type: categorical, values: ["true", "false"], parent_values: [sgd]}
  width:
    type: integer
    min: 1
    max: 4
    conditional_parameter_spec:
      depth: {type: integer, min: 1, max: 3, parent_values: [1, 2]}
max_trial_count: 6
parallel_trial_count: 2
search_algorithm: random
trial_job_spec:
  worker_pool_specs:
  - machine_spec: {machine_type: n1-standard-4}
    replica_count: 1
    container_spec: {image_uri: trainer:1}
)";

TEST(HyperparameterTuningJobFileTest, ConvertsThePythonSdkForm) {
  absl::StatusOr<HyperparameterTuningJob> job = ParseHyperparameterTuningJobFile(kPythonYaml);
  ASSERT_THAT(job, IsOk());
  const StudySpec& spec = job->study_spec;
  ASSERT_EQ(spec.metrics.size(), 1u);
  EXPECT_EQ(spec.metrics[0], (MetricSpec{"accuracy", GoalType::kMaximize}));
  EXPECT_EQ(spec.algorithm, SearchAlgorithm::kRandomSearch);
  EXPECT_EQ(spec.measurement_selection_type, MeasurementSelection::kBest);  // the SDK default
  ASSERT_EQ(spec.parameters.size(), 5u);                                    // ordered by id
  EXPECT_EQ(spec.parameters[0],
            (ParameterSpec{"learning_rate", DoubleValueSpec{1e-4, 0.1, {}}, ScaleType::kLog, {}}));
  EXPECT_EQ(
      spec.parameters[1],
      (ParameterSpec{"momentum", DiscreteValueSpec{{0.5, 0.9, 0.99}, {}}, ScaleType::kLinear, {}}));
  EXPECT_EQ(
      spec.parameters[2],
      (ParameterSpec{"num_units", IntegerValueSpec{16, 128, {}}, ScaleType::kReverseLog, {}}));
  const ParameterSpec& optimizer = spec.parameters[3];
  EXPECT_EQ(std::get<CategoricalValueSpec>(optimizer.value_spec).values,
            (std::vector<std::string>{"sgd", "adam"}));
  EXPECT_EQ(optimizer.scale_type, ScaleType::kUnspecified);
  ASSERT_EQ(optimizer.conditional_parameter_specs.size(), 1u);
  EXPECT_EQ(optimizer.conditional_parameter_specs[0].parent_values,
            ParentValueCondition(ParentCategoricalValues{{"sgd"}}));
  EXPECT_EQ(optimizer.conditional_parameter_specs[0].parameter_spec.parameter_id, "nesterov");
  EXPECT_EQ(spec.parameters[4].conditional_parameter_specs[0].parent_values,
            ParentValueCondition(ParentIntValues{{1, 2}}));
  EXPECT_EQ(job->max_trial_count, 6);
  EXPECT_EQ(job->trial_job_spec.worker_pool_specs[0].container_spec->image_uri, "trainer:1");
}

TEST(HyperparameterTuningJobFileTest, PythonFormErrorsNameTheKey) {
  auto error = [](const std::string& text) {
    return std::string(ParseHyperparameterTuningJobFile(text).status().message());
  };
  EXPECT_THAT(error("metric_spec: {loss: minimise}\n"),
              HasSubstr("metric_spec.loss: unknown value 'minimise'; did you mean 'minimize'?"));
  EXPECT_THAT(error("parameter_spec: {lr: {type: double, min: 0.1}}\n"),
              HasSubstr("parameter_spec.lr.max: required for a double parameter"));
  EXPECT_THAT(error("parameter_spec: {lr: {type: float, min: 0, max: 1}}\n"),
              HasSubstr("parameter_spec.lr.type: unknown value 'float'"));
  EXPECT_THAT(error("parameter_spec: {lr: {type: double, min: 0, max: 1, scale: logarithmic}}\n"),
              HasSubstr("parameter_spec.lr.scale: unknown value 'logarithmic'"));
  EXPECT_THAT(error("parameter_spec: {lr: {type: double, min: 0, max: 1, scael: log}}\n"),
              HasSubstr("parameter_spec.lr.scael: unknown key; did you mean 'scale'?"));
  EXPECT_THAT(
      error("parameter_spec: {a: {type: integer, min: 0, max: 1, conditional_parameter_spec: "
            "{b: {type: integer, min: 0, max: 1}}}}\n"),
      HasSubstr("parameter_spec.a.conditional_parameter_spec.b.parent_values: required"));
  EXPECT_THAT(error("parameter_spec: {}\nmax_trial_cont: 3\n"),
              HasSubstr("max_trial_cont: unknown key of the Python SDK form; did you mean "
                        "'max_trial_count'?"));
}

TEST(HyperparameterTuningJobFileTest, RejectsEmptyAndNonMappingFiles) {
  EXPECT_THAT(std::string(ParseHyperparameterTuningJobFile("").status().message()),
              HasSubstr("the tuning job file is empty"));
  EXPECT_THAT(std::string(ParseHyperparameterTuningJobFile("- a\n").status().message()),
              HasSubstr("expected a mapping at the top level"));
}

TEST(HyperparameterTuningJobFileTest, LoadPrefixesThePath) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "study_job_file_test.yaml";
  std::ofstream(path) << "metric_spec: [loss]\n";
  absl::Status status = LoadHyperparameterTuningJobFile(path).status();
  EXPECT_THAT(std::string(status.message()), HasSubstr(path.string() + ": metric_spec: expected"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace trainpkg::jobspec
