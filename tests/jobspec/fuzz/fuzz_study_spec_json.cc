// Fuzz target: any bytes as JSON through the StudySpec reader and the study
// validation rules (conditional parameters, grid search, scales). Must
// never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/hyperparameter_tuning_job_validation.h"
#include "jobspec/study_spec_json.h"
#include "nlohmann/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  absl::StatusOr<StudySpec> spec = StudySpecFromJson(json, "studySpec");
  if (!spec.ok()) return 0;
  (void)CollectStudySpecIssues(*spec, "studySpec");
  (void)StudySpecToJson(*spec).dump();
  return 0;
}
