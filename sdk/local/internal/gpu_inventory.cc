#include "sdk/local/internal/gpu_inventory.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace trainpkg::sdk::local::internal {

std::vector<std::string> LocalGpus(const std::map<std::string, std::string>& environment,
                                   const std::filesystem::path& proc_gpus) {
  std::vector<std::string> gpus;
  // The submitter's own CUDA_VISIBLE_DEVICES bounds what the job may use.
  if (auto visible = environment.find("CUDA_VISIBLE_DEVICES"); visible != environment.end()) {
    for (absl::string_view gpu : absl::StrSplit(visible->second, ',', absl::SkipWhitespace())) {
      gpus.emplace_back(absl::StripAsciiWhitespace(gpu));
    }
    return gpus;
  }
  std::error_code ec;
  size_t count = 0;
  for (auto it = std::filesystem::directory_iterator(proc_gpus, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++count;
  }
  for (size_t i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
  return gpus;
}

absl::StatusOr<std::vector<std::vector<std::string>>> AssignGpus(
    const std::vector<sdk::internal::ReplicaPlan>& plans, const std::vector<std::string>& gpus) {
  int64_t wanted = 0;
  for (const sdk::internal::ReplicaPlan& plan : plans)
    wanted += std::max(plan.accelerator_count, 0);
  std::vector<std::vector<std::string>> slices(plans.size());
  size_t next = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const size_t count = static_cast<size_t>(std::max(plans[i].accelerator_count, 0));
    if (next + count > gpus.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "jobSpec.workerPoolSpecs[{}].machineSpec.acceleratorCount: replica {} asks for {} "
          "GPU(s) but only {} of the job's {} fit; this machine has {} GPU(s){}",
          plans[i].ref.pool, plans[i].ref.Name(), count, gpus.size() - next, wanted, gpus.size(),
          gpus.empty() ? "" : fmt::format(" ({})", fmt::join(gpus, ","))));
    }
    slices[i].assign(gpus.begin() + static_cast<std::ptrdiff_t>(next),
                     gpus.begin() + static_cast<std::ptrdiff_t>(next + count));
    next += count;
  }
  return slices;
}

std::vector<std::filesystem::path> GpuDevices(const std::vector<std::string>& slice,
                                              const std::filesystem::path& dev) {
  std::vector<std::filesystem::path> devices;
  if (slice.empty()) return devices;
  std::error_code ec;
  for (const std::string& gpu : slice) {
    if (!gpu.empty() && std::all_of(gpu.begin(), gpu.end(), absl::ascii_isdigit)) {
      std::filesystem::path path = dev / ("nvidia" + gpu);
      if (std::filesystem::exists(path, ec)) devices.push_back(path);
    }
  }
  // Besides each GPU's node, CUDA opens the driver's control and
  // unified-memory devices.
  for (const char* name : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"}) {
    if (std::filesystem::exists(dev / name, ec)) devices.push_back(dev / name);
  }
  return devices;
}

}  // namespace trainpkg::sdk::local::internal
