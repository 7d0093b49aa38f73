// Fuzz target: any bytes as one --worker-pool-spec value
// (machine-type=...,replica-count=...,...) through the flag parser and the
// pool's JSON form. Must never crash or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/custom_job_json.h"
#include "jobspec/worker_pool_flag.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::jobspec;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<WorkerPoolSpec> pool = ParseWorkerPoolSpecFlag(text);
  if (pool.ok()) (void)WorkerPoolSpecToJson(*pool).dump();
  return 0;
}
