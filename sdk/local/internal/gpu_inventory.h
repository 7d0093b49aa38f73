// The local GPUs replicas may use, and their split between replicas.
//
// The GPUs are the entries of the host's CUDA_VISIBLE_DEVICES when it is
// set (so a user, or a test, can restrict trainpkg to some GPUs), else one
// per /proc/driver/nvidia/gpus entry (the NVIDIA driver's list), as indexes
// "0", "1", ... Replicas get disjoint slices, in plan order, of
// machineSpec.acceleratorCount GPUs each, as CUDA_VISIBLE_DEVICES; replicas
// asking for none get no CUDA_VISIBLE_DEVICES from here.
#ifndef TRAINPKG_SDK_LOCAL_INTERNAL_GPU_INVENTORY_H_
#define TRAINPKG_SDK_LOCAL_INTERNAL_GPU_INVENTORY_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sdk/internal/replica_plan.h"

namespace trainpkg::sdk::local::internal {

// `proc_gpus` is a seam for tests.
std::vector<std::string> LocalGpus(
    const std::map<std::string, std::string>& environment,
    const std::filesystem::path& proc_gpus = "/proc/driver/nvidia/gpus");

// One slice per plan (empty for acceleratorCount 0). InvalidArgument naming
// the first replica that does not fit, how many GPUs the job asks for and
// how many exist.
absl::StatusOr<std::vector<std::vector<std::string>>> AssignGpus(
    const std::vector<sdk::internal::ReplicaPlan>& plans, const std::vector<std::string>& gpus);

// The host device nodes a container needs for `slice`: /dev/nvidia<i> for
// each numeric index, plus /dev/nvidiactl, /dev/nvidia-uvm and
// /dev/nvidia-uvm-tools; only those that exist under `dev`.
std::vector<std::filesystem::path> GpuDevices(const std::vector<std::string>& slice,
                                              const std::filesystem::path& dev = "/dev");

}  // namespace trainpkg::sdk::local::internal

#endif  // TRAINPKG_SDK_LOCAL_INTERNAL_GPU_INVENTORY_H_
