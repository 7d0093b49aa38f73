// Fuzz target: any bytes as a HyperparameterTuningJob body (what `trainpkg
// serve` takes on POST .../hyperparameterTuningJobs) through the JSON
// reader, the validator and the formatter. Must never crash, hang or trip a
// sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/hyperparameter_tuning_job_json.h"
#include "jobspec/hyperparameter_tuning_job_validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<HyperparameterTuningJob> job = ParseHyperparameterTuningJobJson(text);
  if (!job.ok()) return 0;
  (void)ValidateHyperparameterTuningJob(*job);
  (void)FormatHyperparameterTuningJobJson(*job);
  return 0;
}
