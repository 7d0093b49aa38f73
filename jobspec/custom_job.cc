#include "jobspec/custom_job.h"

namespace trainpkg::jobspec {

bool WorkerPoolSpec::IsEmpty() const {
  return !container_spec.has_value() && !python_package_spec.has_value() &&
         !machine_spec.has_value() && replica_count == 0 && nfs_mounts.empty() &&
         !disk_spec.has_value();
}

}  // namespace trainpkg::jobspec
