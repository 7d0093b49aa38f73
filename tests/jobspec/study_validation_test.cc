#include <ostream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/hyperparameter_tuning_job_validation.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {

void PrintTo(const ValidationIssue& issue, std::ostream* os) {
  *os << issue.field << ": " << issue.message;
}

namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

MATCHER_P2(Issue, field, message_part, "") {
  return arg.field == field && arg.message.find(message_part) != std::string::npos;
}

HyperparameterTuningJob ValidJob() {
  HyperparameterTuningJob job;
  job.display_name = "tune";
  job.max_trial_count = 4;
  job.parallel_trial_count = 2;
  job.study_spec.metrics.push_back({"loss", GoalType::kMinimize});
  job.study_spec.parameters.push_back({"lr", DoubleValueSpec{1e-4, 0.1, {}}, ScaleType::kLog, {}});
  job.study_spec.parameters.push_back(
      {"units", IntegerValueSpec{8, 64, {}}, ScaleType::kUnspecified, {}});
  WorkerPoolSpec pool;
  pool.machine_spec.emplace().machine_type = "n1-standard-4";
  pool.replica_count = 1;
  pool.container_spec.emplace().image_uri = "trainer:1";
  job.trial_job_spec.worker_pool_specs.push_back(pool);
  return job;
}

TEST(StudyValidationTest, AcceptsAValidJob) {
  EXPECT_THAT(CollectValidationIssues(ValidJob()), IsEmpty());
  EXPECT_THAT(ValidateHyperparameterTuningJob(ValidJob()), IsOk());
}

TEST(StudyValidationTest, ChecksTrialCounts) {
  HyperparameterTuningJob job = ValidJob();
  job.parallel_trial_count = 5;
  job.max_failed_trial_count = 9;
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("parallelTrialCount", "must be <= maxTrialCount (4); it is 5"),
                          Issue("maxFailedTrialCount", "must be <= maxTrialCount (4)")));
  job.max_trial_count = 0;
  job.parallel_trial_count = 0;
  job.max_failed_trial_count = -1;
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("maxTrialCount", "must be at least 1"),
                          Issue("parallelTrialCount", "must be at least 1"),
                          Issue("maxFailedTrialCount", "must be >= 0")));
}

TEST(StudyValidationTest, ChecksBoundsAndScales) {
  HyperparameterTuningJob job = ValidJob();
  job.study_spec.parameters[0].value_spec = DoubleValueSpec{0.5, 0.1, {}};
  job.study_spec.parameters[1].value_spec = IntegerValueSpec{0, 64, {}};
  job.study_spec.parameters[1].scale_type = ScaleType::kReverseLog;
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("studySpec.parameters[0].doubleValueSpec.minValue",
                                "must be < maxValue (0.1); it is 0.5"),
                          Issue("studySpec.parameters[1].integerValueSpec.minValue",
                                "UNIT_REVERSE_LOG_SCALE needs minValue > 0; it is 0")));
  job.study_spec.parameters[0].value_spec = DoubleValueSpec{0, 0.1, {}};
  EXPECT_THAT(CollectValidationIssues(job),
              Contains(Issue("studySpec.parameters[0].doubleValueSpec.minValue",
                             "UNIT_LOG_SCALE needs minValue > 0")));
}

TEST(StudyValidationTest, ChecksCategoricalAndDiscreteValues) {
  HyperparameterTuningJob job = ValidJob();
  job.study_spec.parameters.push_back(
      {"act", CategoricalValueSpec{{"relu", "relu"}, {}}, ScaleType::kLinear, {}});
  job.study_spec.parameters.push_back(
      {"batch", DiscreteValueSpec{{64, 32}, {}}, ScaleType::kUnspecified, {}});
  job.study_spec.parameters.push_back({"empty", DiscreteValueSpec{}, ScaleType::kLog, {}});
  EXPECT_THAT(
      CollectValidationIssues(job),
      ElementsAre(
          Issue("studySpec.parameters[2].categoricalValueSpec.values[1]", "'relu' is listed twice"),
          Issue("studySpec.parameters[2].scaleType", "must be unset for a categorical parameter"),
          Issue("studySpec.parameters[3].discreteValueSpec.values[1]", "values must increase"),
          Issue("studySpec.parameters[4].discreteValueSpec.values", "needs at least one value")));
}

TEST(StudyValidationTest, ChecksMetricsIdsAndValueSpecs) {
  HyperparameterTuningJob job = ValidJob();
  job.study_spec.metrics.push_back({"my metric", GoalType::kMaximize});
  job.study_spec.parameters.push_back(
      {"lr", IntegerValueSpec{1, 2, {}}, ScaleType::kUnspecified, {}});
  job.study_spec.parameters.push_back({"", {}, ScaleType::kUnspecified, {}});
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("studySpec.metrics", "exactly one metric; 2 given"),
                          Issue("studySpec.metrics[1].metricId", "must not contain whitespace"),
                          Issue("studySpec.parameters[2].parameterId", "'lr' is used by another"),
                          Issue("studySpec.parameters[3].parameterId", "required"),
                          Issue("studySpec.parameters[3]", "needs one of doubleValueSpec")));
}

TEST(StudyValidationTest, GridSearchTakesNoDoubles) {
  HyperparameterTuningJob job = ValidJob();
  job.study_spec.algorithm = SearchAlgorithm::kGridSearch;
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("studySpec.parameters[0].doubleValueSpec",
                                "GRID_SEARCH takes only integer, categorical and discrete")));
}

TEST(StudyValidationTest, ChecksConditionalParameters) {
  HyperparameterTuningJob job = ValidJob();
  ParameterSpec& units = job.study_spec.parameters[1];
  units.conditional_parameter_specs.push_back(
      {ParentIntValues{{8, 100}}, ParameterSpec{"depth", IntegerValueSpec{1, 3, {}}, {}, {}}});
  units.conditional_parameter_specs.push_back(
      {ParentCategoricalValues{{"x"}}, ParameterSpec{"units", IntegerValueSpec{1, 3, {}}, {}, {}}});
  units.conditional_parameter_specs.push_back(
      {ParentValueCondition{}, ParameterSpec{"width", IntegerValueSpec{3, 1, {}}, {}, {}}});
  EXPECT_THAT(
      CollectValidationIssues(job),
      ElementsAre(
          Issue("studySpec.parameters[1].conditionalParameterSpecs[0].parentIntValues.values[1]",
                "100 is outside the parent's range [8, 64]"),
          Issue("studySpec.parameters[1].conditionalParameterSpecs[1].parentCategoricalValues",
                "the parent is not a categorical parameter"),
          Issue("studySpec.parameters[1].conditionalParameterSpecs[1].parameterSpec.parameterId",
                "'units' is used by another parameter"),
          Issue("studySpec.parameters[1].conditionalParameterSpecs[2]",
                "needs parentIntValues, parentCategoricalValues or parentDiscreteValues"),
          Issue("studySpec.parameters[1].conditionalParameterSpecs[2].parameterSpec."
                "integerValueSpec.minValue",
                "must be <= maxValue (1); it is 3")));
}

// Issue #16 finding 4: counts that size what a study allocates have upper
// bounds, and an oversized list gets one issue, not one per element.
TEST(StudyValidationTest, CountsHaveUpperBounds) {
  HyperparameterTuningJob job = ValidJob();
  job.max_trial_count = 1001;
  job.parallel_trial_count = 101;
  CategoricalValueSpec categorical;
  for (int i = 0; i < 1001; ++i) categorical.values.push_back("v");  // duplicates, unreported
  job.study_spec.parameters[1].value_spec = categorical;
  job.study_spec.parameters[1].scale_type = ScaleType::kUnspecified;
  DiscreteValueSpec discrete;
  discrete.values.assign(100000, 1.0);
  job.study_spec.parameters[0].value_spec = discrete;
  job.study_spec.parameters[0].scale_type = ScaleType::kUnspecified;
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("studySpec.parameters[0].discreteValueSpec.values",
                                "has 100000 values; at most 1000 are allowed"),
                          Issue("studySpec.parameters[1].categoricalValueSpec.values",
                                "has 1001 values; at most 1000 are allowed"),
                          Issue("maxTrialCount", "must be at most 1000; it is 1001"),
                          Issue("parallelTrialCount", "must be at most 100; it is 101")));

  job = ValidJob();
  ParameterSpec parent{"p", IntegerValueSpec{1, 3, {}}, ScaleType::kUnspecified, {}};
  ConditionalParameterSpec child;
  child.parameter_spec = {"c", IntegerValueSpec{1, 3, {}}, ScaleType::kUnspecified, {}};
  child.parent_values = ParentIntValues{std::vector<int64_t>(1001, 2)};
  parent.conditional_parameter_specs.push_back(child);
  job.study_spec.parameters = {parent};
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("studySpec.parameters[0].conditionalParameterSpecs[0]."
                                "parentIntValues.values",
                                "has 1001 values; at most 1000 are allowed")));

  job.study_spec.parameters.assign(60, parent);
  EXPECT_THAT(CollectValidationIssues(job),
              ElementsAre(Issue("studySpec.parameters", "has 120 parameters (conditional ones "
                                                        "included); at most 100 are allowed")));
}

TEST(StudyValidationTest, ValidatesTheTrialJobSpecWithTheCustomJobRules) {
  HyperparameterTuningJob job = ValidJob();
  job.display_name.clear();
  job.trial_job_spec.worker_pool_specs[0].replica_count = 2;
  std::vector<ValidationIssue> issues = CollectValidationIssues(job);
  EXPECT_THAT(issues, Contains(Issue("displayName", "required")));
  EXPECT_THAT(issues, Contains(Issue("trialJobSpec.workerPoolSpecs[0].replicaCount", "")));
  absl::Status status = ValidateHyperparameterTuningJob(job);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("invalid hyperparameter tuning job: 2 problems\n  displayName: required"));
}

}  // namespace
}  // namespace trainpkg::jobspec
