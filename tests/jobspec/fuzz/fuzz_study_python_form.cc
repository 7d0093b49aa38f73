// Fuzz target: any bytes as YAML holding the Python SDK's study arguments
// (metric_spec, parameter_spec with DoubleParameterSpec-style mappings and
// conditional_parameter_spec, search_algorithm, measurement_selection)
// through the Python-form readers. Must never crash, hang or trip a
// sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/job_file.h"
#include "jobspec/study_spec_python_form.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<nlohmann::json> json = YamlToJson(text);
  if (!json.ok() || !json->is_object()) return 0;
  const nlohmann::json null;
  auto field = [&](const char* name) -> const nlohmann::json& {
    auto it = json->find(name);
    return it == json->end() ? null : *it;
  };
  (void)MetricSpecsFromPythonForm(field("metric_spec"), "metric_spec");
  (void)ParameterSpecsFromPythonForm(field("parameter_spec"), "parameter_spec");
  (void)SearchAlgorithmFromPythonForm(field("search_algorithm"), "search_algorithm");
  (void)MeasurementSelectionFromPythonForm(field("measurement_selection"),
                                           "measurement_selection");
  return 0;
}
