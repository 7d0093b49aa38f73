// machineSpec (and diskSpec, scheduling.timeout) as Slurm resource requests,
// per task: one replica is one Slurm task. The table is in
// docs/adr/2026-11-24-slurm-backend.md:
//
//   machineType        -> --cpus-per-task=<vCPUs> --mem-per-cpu=<memory / vCPUs, MiB, rounded up>
//   acceleratorCount N -> --gpus-per-task=N, or <type>:N with a gpu_types entry
//   diskSpec.bootDiskSizeGb G -> --tmp=<G>G (only when diskSpec is given)
//   scheduling.timeout -> --time=<minutes, rounded up>
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_RESOURCES_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_RESOURCES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::sdk::slurm::internal {

// A Compute Engine machine type's size.
struct MachineShape {
  int vcpus = 0;
  int64_t memory_mib = 0;
  bool operator==(const MachineShape&) const = default;
};

// The shape of "n1-standard-4", "e2-highmem-8", "a2-highgpu-2g", ...
// InvalidArgument naming the machine type and the families known.
absl::StatusOr<MachineShape> ShapeOfMachineType(std::string_view machine_type);

// The sbatch options of one pool's component, e.g. {"--ntasks=2",
// "--cpus-per-task=4", "--mem-per-cpu=3840M"}. Errors are InvalidArgument
// naming "jobSpec.workerPoolSpecs[<pool>].machineSpec.machineType".
absl::StatusOr<std::vector<std::string>> PoolResourceOptions(
    const jobspec::CustomJobSpec& spec, int pool,
    const std::map<std::string, std::string>& gpu_types);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_RESOURCES_H_
