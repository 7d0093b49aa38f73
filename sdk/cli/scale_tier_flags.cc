#include "sdk/cli/scale_tier_flags.h"

#include <array>
#include <string>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/scale_tier.h"

namespace trainpkg::cli {
namespace {

// The image flag of each pool, in pool order; pools 1..3 fall back to pool 0's.
constexpr std::array<std::string_view, 4> kImageFlags = {"--master-image-uri", "--worker-image-uri",
                                                         "--parameter-server-image-uri",
                                                         "--evaluator-image-uri"};

std::array<const std::string*, 4> ImageFlagValues(const RunFlags& flags) {
  return {&flags.master_image_uri, &flags.worker_image_uri, &flags.parameter_server_image_uri,
          &flags.evaluator_image_uri};
}

jobspec::CustomTierMachines MachinesOf(const RunFlags& flags) {
  return {.master_machine_type = flags.master_machine_type,
          .worker_machine_type = flags.worker_machine_type,
          .worker_count = flags.worker_count,
          .parameter_server_machine_type = flags.parameter_server_machine_type,
          .parameter_server_count = flags.parameter_server_count,
          .evaluator_machine_type = flags.evaluator_machine_type,
          .evaluator_count = flags.evaluator_count};
}

// The task of every pool: which image, or which executor and module.
absl::Status CheckTaskFlags(const RunFlags& flags) {
  const bool container = !flags.master_image_uri.empty();
  const bool python = !flags.executor_image_uri.empty() || !flags.python_module.empty();
  if (container && python) {
    return absl::InvalidArgumentError(
        "--scale-tier: give the job's code one way: --master-image-uri (a container image) or "
        "--executor-image-uri with --python-module (a Python package), not both");
  }
  if (!container && !python) {
    return absl::InvalidArgumentError(
        "--scale-tier needs the job's code: --master-image-uri IMAGE (every pool runs it, "
        "unless --worker-image-uri, --parameter-server-image-uri or --evaluator-image-uri "
        "says otherwise) or --executor-image-uri IMAGE --python-module MODULE "
        "(with --python-package-uris)");
  }
  if (python) {
    if (flags.executor_image_uri.empty()) {
      return absl::InvalidArgumentError(
          "--python-module needs --executor-image-uri: the image the package runs on");
    }
    if (flags.python_module.empty()) {
      return absl::InvalidArgumentError(
          "--executor-image-uri needs --python-module: the module every replica runs "
          "(python3 -m MODULE)");
    }
    std::array<const std::string*, 4> images = ImageFlagValues(flags);
    for (size_t i = 1; i < images.size(); ++i) {
      if (!images[i]->empty()) {
        return absl::InvalidArgumentError(
            fmt::format("{} is for container images (--master-image-uri); with "
                        "--executor-image-uri every pool runs the same executor",
                        kImageFlags[i]));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddScaleTierFlags(CLI::App& command, RunFlags& flags) {
  command.add_option(
      "--scale-tier", flags.scale_tier,
      "AI Platform's cluster presets instead of --worker-pool-spec/--config: BASIC (1 master "
      "n1-standard-4), STANDARD_1 (1 master n1-highcpu-8, 4 workers n1-highcpu-8, 3 parameter "
      "servers n1-standard-4), PREMIUM_1 (1 master n1-highcpu-16, 19 workers n1-highcpu-16, "
      "11 parameter servers n1-highmem-8), BASIC_GPU (1 master n1-standard-8 with one "
      "NVIDIA_TESLA_K80), CUSTOM (the --*-machine-type/--*-count flags); also spelled "
      "standard-1 etc. Pools: 0 master, 1 workers, 2 parameter servers, 3 evaluators. "
      "BASIC_TPU is refused (no backend runs TPUs). E.g. --scale-tier STANDARD_1 "
      "--master-image-uri local:./trainer");
  command.add_option("--master-image-uri", flags.master_image_uri,
                     "With --scale-tier: the container image (or local:PATH) every pool runs");
  command.add_option("--worker-image-uri", flags.worker_image_uri,
                     "With --scale-tier: the workers' image (default: --master-image-uri)");
  command.add_option("--parameter-server-image-uri", flags.parameter_server_image_uri,
                     "With --scale-tier: the parameter servers' image (default: "
                     "--master-image-uri)");
  command.add_option("--evaluator-image-uri", flags.evaluator_image_uri,
                     "With --scale-tier: the evaluators' image (default: --master-image-uri)");
  command.add_option("--executor-image-uri", flags.executor_image_uri,
                     "With --scale-tier: run a Python package on this image in every pool "
                     "(with --python-module and --python-package-uris)");
  command.add_option("--python-module", flags.python_module,
                     "With --executor-image-uri: the module every replica runs");
  command.add_option("--master-machine-type", flags.master_machine_type,
                     "--scale-tier CUSTOM: the master's machine type (required)");
  command.add_option("--worker-machine-type", flags.worker_machine_type,
                     "--scale-tier CUSTOM: the workers' machine type (with --worker-count)");
  command.add_option("--worker-count", flags.worker_count,
                     "--scale-tier CUSTOM: how many workers (pool 1), 1 or more");
  command.add_option("--parameter-server-machine-type", flags.parameter_server_machine_type,
                     "--scale-tier CUSTOM: the parameter servers' machine type (with "
                     "--parameter-server-count)");
  command.add_option("--parameter-server-count", flags.parameter_server_count,
                     "--scale-tier CUSTOM: how many parameter servers (pool 2), 1 or more");
  command.add_option("--evaluator-machine-type", flags.evaluator_machine_type,
                     "--scale-tier CUSTOM: the evaluators' machine type (with --evaluator-count; "
                     "AI Platform's evaluatorType)");
  command.add_option("--evaluator-count", flags.evaluator_count,
                     "--scale-tier CUSTOM: how many evaluators (pool 3), 1 or more");
}

absl::StatusOr<std::vector<jobspec::WorkerPoolSpec>> ScaleTierPoolsFromFlags(
    const RunFlags& flags) {
  TP_ASSIGN_OR_RETURN(jobspec::ScaleTier tier, jobspec::ParseScaleTier(flags.scale_tier));
  TP_ASSIGN_OR_RETURN(std::vector<jobspec::WorkerPoolSpec> pools,
                      jobspec::ScaleTierPools(tier, MachinesOf(flags)));
  TP_RETURN_IF_ERROR(CheckTaskFlags(flags));
  std::array<const std::string*, 4> images = ImageFlagValues(flags);
  for (size_t i = 0; i < pools.size(); ++i) {
    jobspec::WorkerPoolSpec& pool = pools[i];
    if (pool.IsEmpty()) continue;
    if (!flags.executor_image_uri.empty()) {
      jobspec::PythonPackageSpec& python = pool.python_package_spec.emplace();
      python.executor_image_uri = flags.executor_image_uri;
      python.python_module = flags.python_module;
    } else {
      const std::string& image = images[i]->empty() ? flags.master_image_uri : *images[i];
      pool.container_spec.emplace().image_uri = image;
    }
  }
  return pools;
}

absl::Status CheckNoScaleTierCompanions(const RunFlags& flags) {
  const std::array<std::pair<std::string_view, bool>, 13> companions = {{
      {"--master-machine-type", !flags.master_machine_type.empty()},
      {"--worker-machine-type", !flags.worker_machine_type.empty()},
      {"--worker-count", flags.worker_count.has_value()},
      {"--parameter-server-machine-type", !flags.parameter_server_machine_type.empty()},
      {"--parameter-server-count", flags.parameter_server_count.has_value()},
      {"--evaluator-machine-type", !flags.evaluator_machine_type.empty()},
      {"--evaluator-count", flags.evaluator_count.has_value()},
      {"--master-image-uri", !flags.master_image_uri.empty()},
      {"--worker-image-uri", !flags.worker_image_uri.empty()},
      {"--parameter-server-image-uri", !flags.parameter_server_image_uri.empty()},
      {"--evaluator-image-uri", !flags.evaluator_image_uri.empty()},
      {"--executor-image-uri", !flags.executor_image_uri.empty()},
      {"--python-module", !flags.python_module.empty()},
  }};
  for (const auto& [flag, given] : companions) {
    if (given) {
      return absl::InvalidArgumentError(fmt::format(
          "{} goes with --scale-tier; with --worker-pool-spec put the pool's machine and "
          "image in the spec (machine-type=,replica-count=,container-image-uri= or "
          "executor-image-uri=,python-module=), with --config in the job file",
          flag));
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::cli
