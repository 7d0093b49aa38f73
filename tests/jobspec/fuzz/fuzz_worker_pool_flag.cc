// Fuzz target: any bytes as one --worker-pool-spec value
// (machine-type=...,replica-count=...,...) through the flag parser and the
// pool's JSON form, and, split at newlines, as a command's flags through
// ParseWorkerPoolSpecFlags (autopackaging's rules across flags). Must never crash or trip a
// sanitizer; errors are fine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jobspec/custom_job_json.h"
#include "jobspec/worker_pool_flag.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag(text);
  if (pool.ok()) (void)WorkerPoolSpecToJson(*pool).dump();
  std::vector<std::string> values;
  for (size_t begin = 0; begin <= text.size();) {
    size_t newline = std::min(text.find('\n', begin), text.size());
    values.emplace_back(text.substr(begin, newline - begin));
    begin = newline + 1;
  }
  absl::StatusOr<WorkerPoolFlags> flags = ParseWorkerPoolSpecFlags(values);
  if (flags.ok()) {
    SetAutopackagedImage(flags->pools, "localhost/image:1");
    for (const WorkerPoolSpec& each : flags->pools) (void)WorkerPoolSpecToJson(each).dump();
  }
  return 0;
}
