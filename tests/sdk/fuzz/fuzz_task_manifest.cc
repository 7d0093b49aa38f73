// Fuzz target: any bytes as a task manifest, the file a Slurm task
// (trainpkg-slurm-task) and an SSH replica (`trainpkg ssh-replica`, run as
// root on the host) read to learn their job. Must never crash, hang or trip a
// sanitizer; errors are fine. What parses must survive FormatTaskManifest
// and parse again to the same job id, replica and environment.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sdk/internal/task_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using trainpkg::sdk::internal::TaskManifest;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<TaskManifest> manifest = trainpkg::sdk::internal::ParseTaskManifest(text);
  if (!manifest.ok()) return 0;
  const std::string again = trainpkg::sdk::internal::FormatTaskManifest(*manifest);
  absl::StatusOr<TaskManifest> reparsed = trainpkg::sdk::internal::ParseTaskManifest(again);
  if (!reparsed.ok()) std::abort();
  if (reparsed->job_id != manifest->job_id || reparsed->project_id != manifest->project_id ||
      reparsed->replica != manifest->replica || reparsed->env != manifest->env) {
    std::abort();
  }
  return 0;
}
