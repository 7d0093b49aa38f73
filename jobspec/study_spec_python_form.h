// The Python SDK's way of writing a study (google.cloud.aiplatform
// HyperparameterTuningJob(metric_spec=..., parameter_spec=...) with
// hyperparameter_tuning.DoubleParameterSpec etc.), expressed as YAML/JSON
// mappings, converted to StudySpec parts.
//
// metric_spec: {<metricId>: maximize|minimize}            (case-insensitive)
//   -> metrics[{metricId, goal: MAXIMIZE|MINIMIZE}]
// parameter_spec: {<parameterId>: <spec>, ...}  (ordered by parameterId) where
//   {type: double,  min: a, max: b, scale: S}  -> doubleValueSpec {minValue a, maxValue b}
//   {type: integer, min: a, max: b, scale: S}  -> integerValueSpec {minValue a, maxValue b}
//   {type: categorical, values: [..]}          -> categoricalValueSpec {values} (strings;
//                                                 numbers/bools written as YAML text are kept
//                                                 as their text), no scale
//   {type: discrete, values: [..], scale: S}   -> discreteValueSpec {values}
//   S: linear -> UNIT_LINEAR_SCALE, log -> UNIT_LOG_SCALE,
//      reverse_log -> UNIT_REVERSE_LOG_SCALE, unspecified or absent ->
//      SCALE_TYPE_UNSPECIFIED (the SDK's _SCALE_TYPE_MAP).
//   Optional in any spec: conditional_parameter_spec: {<childId>: <spec> with
//   parent_values: [..]} -> conditionalParameterSpecs[{parameterSpec,
//   parentIntValues | parentCategoricalValues | parentDiscreteValues}], the
//   kind chosen by the parent's type (the SDK's parent_values argument).
// search_algorithm: grid|random|null -> GRID_SEARCH|RANDOM_SEARCH|ALGORITHM_UNSPECIFIED
// measurement_selection: best|last -> BEST_MEASUREMENT|LAST_MEASUREMENT (the
//   SDK's default is 'best'; applied by the job file reader, not here).
// Errors are InvalidArgument prefixed with the path ("parameter_spec.lr.min: ...").
#ifndef TRAINPKG_JOBSPEC_STUDY_SPEC_PYTHON_FORM_H_
#define TRAINPKG_JOBSPEC_STUDY_SPEC_PYTHON_FORM_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/study_spec.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec {

absl::StatusOr<std::vector<MetricSpec>> MetricSpecsFromPythonForm(const nlohmann::json& metric_spec,
                                                                  std::string_view path);
absl::StatusOr<std::vector<ParameterSpec>> ParameterSpecsFromPythonForm(
    const nlohmann::json& parameter_spec, std::string_view path);
absl::StatusOr<SearchAlgorithm> SearchAlgorithmFromPythonForm(const nlohmann::json& value,
                                                              std::string_view path);
absl::StatusOr<MeasurementSelection> MeasurementSelectionFromPythonForm(const nlohmann::json& value,
                                                                        std::string_view path);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_STUDY_SPEC_PYTHON_FORM_H_
