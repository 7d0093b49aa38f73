// The local backend's driver (sdk/backend_driver.h): replicas as processes or
// runc containers on this machine (sdk/local/internal/local_process_backend.h),
// supervised by the process that submitted the job.
#ifndef TRAINPKG_SDK_LOCAL_LOCAL_DRIVER_H_
#define TRAINPKG_SDK_LOCAL_LOCAL_DRIVER_H_

#include "sdk/backend_driver.h"

namespace trainpkg::sdk::local {

const BackendDriver& LocalDriver();

}  // namespace trainpkg::sdk::local

#endif  // TRAINPKG_SDK_LOCAL_LOCAL_DRIVER_H_
