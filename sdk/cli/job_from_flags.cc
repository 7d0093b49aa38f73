#include "sdk/cli/job_from_flags.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "jobspec/job_file.h"
#include "jobspec/worker_pool_flag.h"
#include "sdk/cli/scale_tier_flags.h"

namespace trainpkg::cli {

absl::StatusOr<FlagJob> JobFromFlags(const RunFlags& flags, absl::Time now) {
  jobspec::CustomJob job;
  if (!flags.scale_tier.empty()) {
    if (!flags.config.empty() || !flags.worker_pool_specs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--scale-tier and ", flags.config.empty() ? "--worker-pool-spec" : "--config",
          " both say what the worker pools are; give one of them"));
    }
    TP_ASSIGN_OR_RETURN(job.job_spec.worker_pool_specs, ScaleTierPoolsFromFlags(flags));
  } else {
    TP_RETURN_IF_ERROR(CheckNoScaleTierCompanions(flags));
    if (flags.config.empty() && flags.worker_pool_specs.empty()) {
      return absl::InvalidArgumentError(
          "one of --config, --worker-pool-spec or --scale-tier is required");
    }
  }
  if (!flags.config.empty()) {
    TP_ASSIGN_OR_RETURN(job, jobspec::LoadJobFile(flags.config));
  }
  std::optional<jobspec::Autopackaging> autopackaging;
  if (!flags.worker_pool_specs.empty()) {
    TP_ASSIGN_OR_RETURN(jobspec::WorkerPoolFlags pools,
                        jobspec::ParseWorkerPoolSpecFlags(flags.worker_pool_specs));
    job.job_spec.worker_pool_specs = std::move(pools.pools);
    autopackaging = std::move(pools.autopackaging);
  }
  if (autopackaging.has_value() && !flags.python_package_uris.empty()) {
    return absl::InvalidArgumentError(
        "--python-package-uris does not go with local-package-path (as with gcloud): the "
        "package is built into an image; give the packages as extra-packages=A;B in the first "
        "--worker-pool-spec");
  }
  bool has_python = false;
  for (jobspec::WorkerPoolSpec& pool : job.job_spec.worker_pool_specs) {
    if (pool.python_package_spec.has_value()) {
      has_python = true;
      std::vector<std::string>& uris = pool.python_package_spec->package_uris;
      uris.insert(uris.end(), flags.python_package_uris.begin(), flags.python_package_uris.end());
    }
    if (pool.container_spec.has_value()) {
      if (!flags.command.empty()) pool.container_spec->command = flags.command;
      pool.container_spec->args.insert(pool.container_spec->args.end(), flags.args.begin(),
                                       flags.args.end());
    } else if (pool.python_package_spec.has_value()) {
      pool.python_package_spec->args.insert(pool.python_package_spec->args.end(),
                                            flags.args.begin(), flags.args.end());
    }
  }
  if (!flags.python_package_uris.empty() && !has_python) {
    return absl::InvalidArgumentError(
        "--python-package-uris: no worker pool runs a Python package; give the pools "
        "executor-image-uri=IMAGE,python-module=MODULE (or a pythonPackageSpec in --config)");
  }
  for (const std::string& label : flags.labels) {
    size_t eq = label.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--labels: \"", label, "\" is not of the form KEY=VALUE"));
    }
    job.labels[label.substr(0, eq)] = label.substr(eq + 1);
  }
  if (!flags.display_name.empty()) job.display_name = flags.display_name;
  if (job.display_name.empty()) {
    job.display_name = absl::StrCat(
        "CustomJob ", absl::FormatTime("%Y-%m-%d %H:%M:%E3S", now, absl::LocalTimeZone()));
  }
  if (!flags.base_output_dir.empty()) job.job_spec.base_output_directory = flags.base_output_dir;
  return FlagJob{std::move(job), std::move(autopackaging)};
}

}  // namespace trainpkg::cli
