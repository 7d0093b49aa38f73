#include "jobspec/hyperparameter_tuning_job.h"

#include "jobspec/internal/study_enums.h"

namespace trainpkg::jobspec {

std::string_view TrialStateName(TrialState state) {
  return internal::EnumName(internal::TrialStateEnum(), static_cast<int>(state));
}

std::optional<double> MetricValue(const Measurement& measurement, std::string_view metric_id) {
  for (const MeasurementMetric& metric : measurement.metrics) {
    if (metric.metric_id == metric_id) return metric.value;
  }
  return std::nullopt;
}

}  // namespace trainpkg::jobspec
