// The HyperparameterTuningJob resource of Vertex AI
// (google/cloud/aiplatform/v1/hyperparameter_tuning_job.proto) and its Trials
// (study.proto), as plain C++ values.
//
// JSON: hyperparameter_tuning_job_json.h; job files (REST form and the Python
// SDK's form): hyperparameter_tuning_job_file.h; validation:
// hyperparameter_tuning_job_validation.h. Value types, copyable.
#ifndef TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_H_
#define TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "jobspec/job_state.h"
#include "jobspec/study_spec.h"

namespace trainpkg::jobspec {

// Trial.State.
enum class TrialState {
  kUnspecified = 0,
  kRequested = 1,
  kActive = 2,
  kStopping = 3,
  kSucceeded = 4,
  kInfeasible = 5,  // done without a final measurement (or failed)
};

// "ACTIVE", "SUCCEEDED", ...; "STATE_UNSPECIFIED" for kUnspecified.
std::string_view TrialStateName(TrialState state);

// The value of one parameter in a trial (Trial.Parameter, whose value is a
// google.protobuf.Value): a number for double, integer and discrete
// parameters, a string for categorical ones.
using ParameterValueType = std::variant<double, std::string>;

struct TrialParameter {
  std::string parameter_id;
  ParameterValueType value;
  bool operator==(const TrialParameter&) const = default;
};

struct MeasurementMetric {
  std::string metric_id;
  double value = 0;
  bool operator==(const MeasurementMetric&) const = default;
};

// Measurement: metrics reported at one point of a trial.
struct Measurement {
  std::optional<absl::Duration> elapsed_duration;  // JSON "12.5s"
  int64_t step_count = 0;                          // JSON int64 (string)
  std::vector<MeasurementMetric> metrics;
  bool operator==(const Measurement&) const = default;
};

// The value of `metric_id` in `measurement`, nullopt when absent.
std::optional<double> MetricValue(const Measurement& measurement, std::string_view metric_id);

struct Trial {
  std::string id;  // "1", "2", ...
  TrialState state = TrialState::kUnspecified;
  std::vector<TrialParameter> parameters;
  std::optional<Measurement> final_measurement;
  std::vector<Measurement> measurements;  // intermediate, in report order
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  std::string custom_job;  // resource name of the CustomJob that ran it
  std::string infeasible_reason;
  std::map<std::string, std::string> web_access_uris;
  bool operator==(const Trial&) const = default;
};

struct HyperparameterTuningJob {
  std::string name;  // output only: projects/{p}/locations/{l}/hyperparameterTuningJobs/{id}
  std::string display_name;
  StudySpec study_spec;
  int32_t max_trial_count = 0;
  int32_t parallel_trial_count = 0;
  int32_t max_failed_trial_count = 0;  // 0: the service decides
  CustomJobSpec trial_job_spec;
  std::vector<Trial> trials;  // output only
  JobState state = JobState::kUnspecified;
  std::optional<absl::Time> create_time;
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  std::optional<absl::Time> update_time;
  std::optional<RpcStatus> error;
  std::map<std::string, std::string> labels;
  std::string encryption_spec_kms_key_name;
  bool operator==(const HyperparameterTuningJob&) const = default;
};

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_H_
