// The Slurm backend's driver (sdk/backend_driver.h): one sbatch (or salloc)
// job per CustomJob (sdk/slurm/internal/slurm_backend.h), supervised by the
// process that submitted it and recorded in the job store like a local job.
#ifndef TRAINPKG_SDK_SLURM_SLURM_DRIVER_H_
#define TRAINPKG_SDK_SLURM_SLURM_DRIVER_H_

#include "sdk/backend_driver.h"

namespace trainpkg::sdk::slurm {

const BackendDriver& SlurmDriver();

}  // namespace trainpkg::sdk::slurm

#endif  // TRAINPKG_SDK_SLURM_SLURM_DRIVER_H_
