// StudySpec / HyperparameterTuningJob / Trial <-> proto3 JSON.
#include "jobspec/study_spec_json.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

StudySpec FullStudy() {
  StudySpec spec;
  spec.metrics.push_back({"accuracy", GoalType::kMaximize});
  ParameterSpec lr{"learning_rate", DoubleValueSpec{1e-4, 0.1, 0.01}, ScaleType::kLog, {}};
  ParameterSpec units{"num_units", IntegerValueSpec{16, 256, {}}, ScaleType::kReverseLog, {}};
  ParameterSpec optimizer{
      "optimizer", CategoricalValueSpec{{"sgd", "adam"}, "sgd"}, ScaleType::kUnspecified, {}};
  ParameterSpec momentum{
      "momentum", DiscreteValueSpec{{0.5, 0.9, 0.99}, {}}, ScaleType::kLinear, {}};
  optimizer.conditional_parameter_specs.push_back({ParentCategoricalValues{{"sgd"}}, momentum});
  ParameterSpec batch{"batch", DiscreteValueSpec{{32, 64}, {}}, ScaleType::kUnspecified, {}};
  batch.conditional_parameter_specs.push_back(
      {ParentDiscreteValues{{64}},
       ParameterSpec{"dropout", DoubleValueSpec{0, 0.5, {}}, ScaleType::kUnspecified, {}}});
  units.conditional_parameter_specs.push_back(
      {ParentIntValues{{16, 32}},
       ParameterSpec{"layers", IntegerValueSpec{1, 3, {}}, ScaleType::kUnspecified, {}}});
  spec.parameters = {lr, units, optimizer, batch};
  spec.algorithm = SearchAlgorithm::kRandomSearch;
  spec.measurement_selection_type = MeasurementSelection::kBest;
  spec.median_automated_stopping_spec = MedianAutomatedStoppingSpec{true};
  return spec;
}

TEST(StudySpecJsonTest, RoundTripsEveryParameterTypeScaleAndCondition) {
  const StudySpec spec = FullStudy();
  const json encoded = StudySpecToJson(spec);
  absl::StatusOr<StudySpec> decoded = StudySpecFromJson(encoded);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(*decoded, spec);
}

TEST(StudySpecJsonTest, WritesProto3Json) {
  const json encoded = StudySpecToJson(FullStudy());
  EXPECT_EQ(encoded["metrics"][0], json({{"metricId", "accuracy"}, {"goal", "MAXIMIZE"}}));
  EXPECT_EQ(encoded["parameters"][0]["scaleType"], "UNIT_LOG_SCALE");
  EXPECT_EQ(encoded["parameters"][1]["integerValueSpec"]["minValue"], "16");  // int64 as string
  EXPECT_EQ(encoded["parameters"][1]["conditionalParameterSpecs"][0]["parentIntValues"]["values"],
            json({"16", "32"}));
  EXPECT_FALSE(encoded["parameters"][2].contains("scaleType"));
  EXPECT_EQ(encoded["algorithm"], "RANDOM_SEARCH");
  EXPECT_EQ(encoded["measurementSelectionType"], "BEST_MEASUREMENT");
  EXPECT_EQ(encoded["medianAutomatedStoppingSpec"], json({{"useElapsedDuration", true}}));
}

TEST(StudySpecJsonTest, ReadsNumbersForInt64AndEnumsByNumberAndSnakeCase) {
  const json input = json::parse(R"({
    "metrics": [{"metric_id": "loss", "goal": 2}],
    "parameters": [{"parameter_id": "units", "integer_value_spec": {"min_value": 4, "max_value": "8"},
                    "scale_type": 2}],
    "algorithm": 2, "measurement_selection_type": "LAST_MEASUREMENT"})");
  absl::StatusOr<StudySpec> spec = StudySpecFromJson(input);
  ASSERT_THAT(spec, IsOk());
  EXPECT_EQ(spec->metrics[0].goal, GoalType::kMinimize);
  EXPECT_EQ(std::get<IntegerValueSpec>(spec->parameters[0].value_spec).min_value, 4);
  EXPECT_EQ(std::get<IntegerValueSpec>(spec->parameters[0].value_spec).max_value, 8);
  EXPECT_EQ(spec->parameters[0].scale_type, ScaleType::kLog);
  EXPECT_EQ(spec->algorithm, SearchAlgorithm::kGridSearch);
  EXPECT_EQ(spec->measurement_selection_type, MeasurementSelection::kLast);
}

TEST(StudySpecJsonTest, ErrorsNameTheFieldPath) {
  const json bad_enum = json::parse(
      R"({"parameters": [{"parameterId": "a"}, {"parameterId": "b", "scaleType": "UNIT_LOG_SCAL"}]})");
  absl::Status status = StudySpecFromJson(bad_enum, "studySpec").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(status.message()),
      HasSubstr("studySpec.parameters[1].scaleType: unknown StudySpec.ParameterSpec.ScaleType "
                "'UNIT_LOG_SCAL'; did you mean 'UNIT_LOG_SCALE'?"));

  const json two_specs = json::parse(R"({"parameterId": "a", "doubleValueSpec": {"minValue": 0,
      "maxValue": 1}, "integerValueSpec": {"minValue": 0, "maxValue": 1}})");
  EXPECT_THAT(std::string(ParameterSpecFromJson(two_specs, "p").status().message()),
              HasSubstr("p.integerValueSpec: only one of"));

  const json bad_min = json::parse(R"({"doubleValueSpec": {"minValue": "low", "maxValue": 1}})");
  EXPECT_THAT(std::string(ParameterSpecFromJson(bad_min, "p").status().message()),
              HasSubstr("p.doubleValueSpec.minValue: expected a number, got the string \"low\""));

  const json unsupported = json::parse(R"({"convexAutomatedStoppingSpec": {}})");
  EXPECT_THAT(std::string(StudySpecFromJson(unsupported).status().message()),
              HasSubstr("convexAutomatedStoppingSpec: this Vertex AI field is not supported"));

  const json both_stopping =
      json::parse(R"({"decayCurveStoppingSpec": {}, "medianAutomatedStoppingSpec": {}})");
  EXPECT_THAT(std::string(StudySpecFromJson(both_stopping).status().message()),
              HasSubstr("only one of decayCurveStoppingSpec and medianAutomatedStoppingSpec"));
}

HyperparameterTuningJob FullJob() {
  HyperparameterTuningJob job;
  job.name = "projects/p/locations/us-central1/hyperparameterTuningJobs/42";
  job.display_name = "tune-digits";
  job.study_spec = FullStudy();
  job.max_trial_count = 6;
  job.parallel_trial_count = 2;
  job.max_failed_trial_count = 1;
  WorkerPoolSpec pool;
  pool.machine_spec.emplace().machine_type = "n1-standard-4";
  pool.replica_count = 1;
  pool.container_spec.emplace().image_uri = "trainer:1";
  job.trial_job_spec.worker_pool_specs.push_back(pool);
  job.state = JobState::kSucceeded;
  job.create_time = absl::FromUnixSeconds(1800000000);
  job.labels = {{"team", "ml"}};
  Trial trial;
  trial.id = "1";
  trial.state = TrialState::kSucceeded;
  trial.parameters = {{"learning_rate", 0.01}, {"optimizer", std::string("sgd")}};
  trial.final_measurement = Measurement{absl::Seconds(12), 2, {{"accuracy", 0.91}}};
  trial.measurements = {Measurement{std::nullopt, 1, {{"accuracy", 0.8}}}};
  trial.start_time = absl::FromUnixSeconds(1800000001);
  trial.end_time = absl::FromUnixSeconds(1800000002);
  trial.custom_job = "projects/p/locations/us-central1/customJobs/7";
  job.trials.push_back(trial);
  Trial infeasible;
  infeasible.id = "2";
  infeasible.state = TrialState::kInfeasible;
  infeasible.infeasible_reason = "trainer exited with status 1";
  job.trials.push_back(infeasible);
  return job;
}

TEST(HyperparameterTuningJobJsonTest, RoundTripsThroughText) {
  const HyperparameterTuningJob job = FullJob();
  absl::StatusOr<HyperparameterTuningJob> parsed =
      ParseHyperparameterTuningJobJson(FormatHyperparameterTuningJobJson(job));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, job);
}

TEST(HyperparameterTuningJobJsonTest, WritesTrialsAsVertexDoes) {
  const json encoded = HyperparameterTuningJobToJson(FullJob());
  EXPECT_EQ(encoded["displayName"], "tune-digits");
  EXPECT_EQ(encoded["maxTrialCount"], 6);
  EXPECT_EQ(encoded["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(encoded["trialJobSpec"]["workerPoolSpecs"][0]["replicaCount"], "1");
  const json& trial = encoded["trials"][0];
  EXPECT_EQ(trial["id"], "1");
  EXPECT_EQ(trial["state"], "SUCCEEDED");
  EXPECT_EQ(trial["parameters"][0], json({{"parameterId", "learning_rate"}, {"value", 0.01}}));
  EXPECT_EQ(trial["parameters"][1]["value"], "sgd");
  EXPECT_EQ(trial["finalMeasurement"]["stepCount"], "2");
  EXPECT_EQ(trial["finalMeasurement"]["elapsedDuration"], "12s");
  EXPECT_EQ(encoded["trials"][1]["state"], "INFEASIBLE");
}

TEST(HyperparameterTuningJobJsonTest, ReadsTheVertexDocumentationSample) {
  // The trial shape of the using-hyperparameter-tuning doc (reference/vertex.md §2.3).
  absl::StatusOr<Trial> trial = TrialFromJson(json::parse(R"({
      "id": "2", "state": "SUCCEEDED",
      "parameters": [{"parameterId": "my_parameter", "value": 0.7142687}],
      "finalMeasurement": {"stepCount": "2", "metrics": [{"metricId": "my_metric", "value": 0.30007}]},
      "startTime": "2026-11-22T02:00:00Z", "endTime": "2026-11-22T02:10:00.5Z"})"),
                                              "trials[0]");
  ASSERT_THAT(trial, IsOk());
  EXPECT_EQ(trial->state, TrialState::kSucceeded);
  EXPECT_EQ(std::get<double>(trial->parameters[0].value), 0.7142687);
  EXPECT_EQ(MetricValue(*trial->final_measurement, "my_metric"), 0.30007);
  EXPECT_EQ(MetricValue(*trial->final_measurement, "other"), std::nullopt);

  absl::Status bad_value =
      TrialFromJson(json::parse(R"({"parameters": [{"parameterId": "a", "value": true}]})"),
                    "trials[3]")
          .status();
  EXPECT_THAT(
      std::string(bad_value.message()),
      HasSubstr(
          "trials[3].parameters[0].value: expected a number or a string, got the boolean true"));
}

TEST(HyperparameterTuningJobJsonTest, ErrorsNameTheFieldPath) {
  absl::Status status =
      ParseHyperparameterTuningJobJson(
          R"({"displayName": "x", "trialJobSpec": {"workerPoolSpecs": [{"replicaCount": "many"}]}})")
          .status();
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("trialJobSpec.workerPoolSpecs[0].replicaCount: expected an integer"));
  EXPECT_THAT(std::string(ParseHyperparameterTuningJobJson("{\"a\": ").status().message()),
              HasSubstr("invalid JSON"));
  EXPECT_THAT(
      std::string(ParseHyperparameterTuningJobJson(R"({"maxTrialCont": 3})").status().message()),
      HasSubstr("maxTrialCont: unknown field; did you mean 'maxTrialCount'?"));
}

TEST(StudyEnumNamesTest, NamesEveryValue) {
  EXPECT_EQ(GoalTypeName(GoalType::kUnspecified), "GOAL_TYPE_UNSPECIFIED");
  EXPECT_EQ(ScaleTypeName(ScaleType::kReverseLog), "UNIT_REVERSE_LOG_SCALE");
  EXPECT_EQ(SearchAlgorithmName(SearchAlgorithm::kGridSearch), "GRID_SEARCH");
  EXPECT_EQ(MeasurementSelectionName(MeasurementSelection::kBest), "BEST_MEASUREMENT");
  EXPECT_EQ(TrialStateName(TrialState::kStopping), "STOPPING");
  EXPECT_EQ(EffectiveGoal({"m", GoalType::kUnspecified}), GoalType::kMaximize);
}

TEST(StudySpecTest, FindsNestedParametersAndEvaluatesConditions) {
  const StudySpec spec = FullStudy();
  ASSERT_NE(FindParameter(spec, "dropout"), nullptr);
  EXPECT_TRUE(std::holds_alternative<DoubleValueSpec>(FindParameter(spec, "dropout")->value_spec));
  EXPECT_EQ(FindParameter(spec, "absent"), nullptr);
  EXPECT_TRUE(ConditionHolds(ParentIntValues{{16, 32}}, 32.0));
  EXPECT_FALSE(ConditionHolds(ParentIntValues{{16, 32}}, 64.0));
  EXPECT_TRUE(ConditionHolds(ParentCategoricalValues{{"sgd"}}, std::string("sgd")));
  EXPECT_FALSE(ConditionHolds(ParentCategoricalValues{{"sgd"}}, 1.0));
  EXPECT_TRUE(ConditionHolds(ParentDiscreteValues{{64}}, 64.0));
  EXPECT_FALSE(ConditionHolds(ParentValueCondition{}, 64.0));
}

}  // namespace
}  // namespace trainpkg::jobspec
