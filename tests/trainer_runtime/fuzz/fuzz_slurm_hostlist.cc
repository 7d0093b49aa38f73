// Fuzz target: any bytes as a Slurm hostlist (SLURM_STEP_NODELIST) and as a
// tasks-per-node list (SLURM_STEP_TASKS_PER_NODE). Must never crash, hang or
// trip a sanitizer, and never expand past the documented 1,048,576 hosts.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "trainer_runtime/slurm_hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::runtime;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(text);
  if (hosts.ok()) {
    TP_CHECK(hosts->size() <= (size_t{1} << 20), "{} hosts from '{}'", hosts->size(),
             std::string(text));
    for (const std::string& host : *hosts) TP_CHECK(!host.empty(), "empty host from '{}'", text);
  }
  absl::StatusOr<std::vector<int64_t>> counts = ExpandTasksPerNode(text);
  if (counts.ok()) {
    for (int64_t c : *counts) TP_CHECK(c > 0, "count {} from '{}'", c, std::string(text));
  }
  return 0;
}
