// Fuzz target: any bytes as a CustomJob body (what `trainpkg serve` takes on
// POST .../customJobs and `trainpkg run --config x.json` reads) through the
// JSON reader, the validator and the formatter. Must never crash, hang or
// trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/custom_job_json.h"
#include "jobspec/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<CustomJob> job = ParseCustomJobJson(text);
  if (!job.ok()) return 0;
  (void)ValidateCustomJob(*job);
  (void)FormatCustomJobJson(*job);
  return 0;
}
