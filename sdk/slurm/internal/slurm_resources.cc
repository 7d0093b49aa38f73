#include "sdk/slurm/internal/slurm_resources.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace trainpkg::sdk::slurm::internal {
namespace {

// Compute Engine's machine shapes: a job sized for Vertex asks Slurm for
// the same cores and memory.
// Families sized by vCPU count: <family>-<class>-<vCPUs>, memory per vCPU.
struct PerCpuFamily {
  std::string_view prefix;  // "n1-standard"
  double gib_per_vcpu;
};
constexpr std::array<PerCpuFamily, 12> kPerCpuFamilies{{
    {"n1-standard", 3.75},
    {"n1-highmem", 6.5},
    {"n1-highcpu", 0.9},
    {"n2-standard", 4},
    {"n2-highmem", 8},
    {"n2-highcpu", 1},
    {"e2-standard", 4},
    {"e2-highmem", 8},
    {"e2-highcpu", 1},
    {"c2-standard", 4},
    {"g2-standard", 4},
    {"m1-ultramem", 24.025},
}};

// GPU machine types sized by their GPU count: <prefix>-<N>g.
struct PerGpuFamily {
  std::string_view prefix;  // "a2-highgpu"
  int vcpus_per_gpu;
  double gib_per_gpu;
};
constexpr std::array<PerGpuFamily, 4> kPerGpuFamilies{{
    {"a2-highgpu", 12, 85},
    {"a2-megagpu", 6, 85},
    {"a2-ultragpu", 12, 170},
    {"a3-highgpu", 26, 234},
}};

int64_t GibToMib(double gib) { return static_cast<int64_t>(std::llround(gib * 1024)); }

std::string KnownFamilies() {
  std::string known;
  for (const PerCpuFamily& family : kPerCpuFamilies)
    absl::StrAppend(&known, std::string(family.prefix), "-N, ");
  for (const PerGpuFamily& family : kPerGpuFamilies)
    absl::StrAppend(&known, std::string(family.prefix), "-Ng, ");
  known.resize(known.size() - 2);
  return known;
}

}  // namespace

absl::StatusOr<MachineShape> ShapeOfMachineType(std::string_view machine_type) {
  const size_t dash = machine_type.rfind('-');
  if (dash != std::string_view::npos) {
    std::string_view prefix = machine_type.substr(0, dash);
    std::string_view size = machine_type.substr(dash + 1);
    int count = 0;
    for (const PerCpuFamily& family : kPerCpuFamilies) {
      if (family.prefix == prefix && absl::SimpleAtoi(std::string(size), &count) && count > 0) {
        return MachineShape{.vcpus = count, .memory_mib = GibToMib(family.gib_per_vcpu * count)};
      }
    }
    if (!size.empty() && size.back() == 'g') size.remove_suffix(1);
    for (const PerGpuFamily& family : kPerGpuFamilies) {
      if (family.prefix == prefix && absl::SimpleAtoi(std::string(size), &count) && count > 0) {
        return MachineShape{.vcpus = family.vcpus_per_gpu * count,
                            .memory_mib = GibToMib(family.gib_per_gpu * count)};
      }
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown machine type \"",
                                                 std::string(machine_type),
                                                 "\"; the Slurm backend knows ", KnownFamilies()));
}

absl::StatusOr<std::vector<std::string>> PoolResourceOptions(
    const jobspec::CustomJobSpec& spec, int pool,
    const std::map<std::string, std::string>& gpu_types) {
  const jobspec::WorkerPoolSpec& pool_spec = spec.worker_pool_specs[static_cast<size_t>(pool)];
  const std::string field = absl::StrCat("jobSpec.workerPoolSpecs[", pool, "]");
  std::vector<std::string> options{absl::StrCat("--ntasks=", pool_spec.replica_count)};
  const jobspec::MachineSpec machine = pool_spec.machine_spec.value_or(jobspec::MachineSpec{});
  absl::StatusOr<MachineShape> shape = ShapeOfMachineType(machine.machine_type);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".machineSpec.machineType: ", shape.status().message()));
  }
  // Rounded up: a task never gets less memory than its machine type has.
  const int64_t mib_per_cpu = (shape->memory_mib + shape->vcpus - 1) / shape->vcpus;
  options.push_back(absl::StrCat("--cpus-per-task=", shape->vcpus));
  options.push_back(absl::StrCat("--mem-per-cpu=", mib_per_cpu, "M"));
  if (machine.accelerator_count > 0) {
    auto type = gpu_types.find(machine.accelerator_type);
    options.push_back(absl::StrCat(
        "--gpus-per-task=", type == gpu_types.end() ? "" : absl::StrCat(type->second, ":"),
        machine.accelerator_count));
  }
  if (pool_spec.disk_spec.has_value() && pool_spec.disk_spec->boot_disk_size_gb > 0) {
    // The node's local scratch stands in for the boot disk.
    options.push_back(absl::StrCat("--tmp=", pool_spec.disk_spec->boot_disk_size_gb, "G"));
  }
  if (spec.scheduling.has_value() && spec.scheduling->timeout.has_value()) {
    const absl::Duration timeout = *spec.scheduling->timeout;
    // Whole minutes, rounded up: Slurm must not stop the job before its
    // scheduling.timeout.
    const int64_t minutes = std::max<int64_t>(
        1, absl::ToInt64Minutes(timeout + absl::Minutes(1) - absl::Nanoseconds(1)));
    options.push_back(absl::StrCat("--time=", minutes));
  }
  return options;
}

}  // namespace trainpkg::sdk::slurm::internal
