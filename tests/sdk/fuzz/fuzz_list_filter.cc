// Fuzz target: any bytes as the `filter` of `trainpkg serve`'s list calls
// (AIP-160 subset), parsed and matched against two jobs. Must never crash,
// hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/serve/list_filter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<sdk::serve::ListFilter> filter = sdk::serve::ListFilter::Parse(text);
  if (!filter.ok()) return 0;
  jobspec::CustomJob job;
  job.display_name = "digits-* \"quoted\"";
  job.state = jobspec::JobState::kSucceeded;
  job.create_time = absl::FromUnixSeconds(1800000000);
  job.update_time = absl::FromUnixSeconds(1800000600);
  job.labels = {{"team", "ml"}, {"env", ""}};
  (void)filter->Matches(job);
  (void)filter->Matches(jobspec::CustomJob{});
  return 0;
}
