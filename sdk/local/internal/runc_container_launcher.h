// Starts one container with `runc run` (foreground, no terminal: the
// container's stdout and stderr are runc's, so the replica's log pump reads
// them like a process's) through an inner ProcessLauncher, and cleans up
// after it: once runc has exited, `runc delete --force <id>` removes the
// container (killing whatever is left of it) and the bundle directory is
// removed. So a replica stopped by SIGTERM / SIGKILL to runc's process group
// (which holds the container's init too) leaves no container, process or
// bundle behind. The container is recorded in this process's
// HostResourceLedger (packager/run/host_resource_ledger.h): when this
// process dies, its watchdog deletes it.
#ifndef TRAINPKG_SDK_LOCAL_INTERNAL_RUNC_CONTAINER_LAUNCHER_H_
#define TRAINPKG_SDK_LOCAL_INTERNAL_RUNC_CONTAINER_LAUNCHER_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "sdk/process_launcher.h"

namespace trainpkg::sdk::local::internal {

struct RuncContainer {
  std::string id;                          // unique on this host while it runs
  std::filesystem::path bundle_dir;        // written by WriteContainerBundle; removed after
  std::map<std::string, std::string> env;  // runc's own environment (PATH finds runc)
};

// The process spec that runs `container`: runc run --bundle DIR ID.
ProcessSpec RuncRunSpec(const std::string& replica_name, const RuncContainer& container);

class RuncContainerLauncher final : public ProcessLauncher {
 public:
  RuncContainerLauncher(std::shared_ptr<ProcessLauncher> inner, RuncContainer container)
      : inner_(std::move(inner)), container_(std::move(container)) {}

  // Starts `spec` (RuncRunSpec(...) of this container) with the inner
  // launcher; the returned Process's Wait() (or TryWait() once runc has
  // exited) also deletes the container and the bundle. On error the bundle
  // is removed too. Unimplemented for a spec with outlives_caller or
  // append_output_to: the container is recorded for deletion when this
  // process dies, and the replica's log pump reads runc's output pipe.
  absl::StatusOr<std::unique_ptr<Process>> Start(const ProcessSpec& spec) override;

 private:
  std::shared_ptr<ProcessLauncher> inner_;
  RuncContainer container_;
};

// `runc delete --force <id>` then removal of the bundle directory; errors
// are logged (cleanup is best effort, and idempotent).
void DeleteRuncContainer(ProcessLauncher& launcher, const RuncContainer& container);

}  // namespace trainpkg::sdk::local::internal

#endif  // TRAINPKG_SDK_LOCAL_INTERNAL_RUNC_CONTAINER_LAUNCHER_H_
