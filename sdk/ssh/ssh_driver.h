// The SSH backend's driver (sdk/backend_driver.h): a job's replicas on a
// list of hosts through the system's OpenSSH client
// (sdk/ssh/internal/ssh_backend.h), supervised by the process that
// submitted it and recorded in the job store like a local job.
#ifndef TRAINPKG_SDK_SSH_SSH_DRIVER_H_
#define TRAINPKG_SDK_SSH_SSH_DRIVER_H_

#include "sdk/backend_driver.h"

namespace trainpkg::sdk::ssh {

const BackendDriver& SshDriver();

}  // namespace trainpkg::sdk::ssh

#endif  // TRAINPKG_SDK_SSH_SSH_DRIVER_H_
