// Fuzz target: any bytes as a `trainpkg hptune --config` file (YAML or JSON,
// REST or Python SDK form) through the file reader and the validator. Must
// never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/hyperparameter_tuning_job_file.h"
#include "jobspec/hyperparameter_tuning_job_validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<HyperparameterTuningJob> job = ParseHyperparameterTuningJobFile(text);
  if (!job.ok()) return 0;
  (void)ValidateHyperparameterTuningJob(*job);
  return 0;
}
