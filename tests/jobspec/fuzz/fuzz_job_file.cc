// Fuzz target: any bytes as a `trainpkg run --config` job file (YAML or
// JSON, CustomJob or gcloud's CustomJobSpec form) through the file reader
// and the validator. Must never crash, hang or trip a sanitizer; errors are
// fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/job_file.h"
#include "jobspec/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<CustomJob> job = ParseJobFile(text);
  if (!job.ok()) return 0;
  (void)ValidateCustomJob(*job);
  return 0;
}
