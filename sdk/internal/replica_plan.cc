#include "sdk/internal/replica_plan.h"

#include "absl/strings/str_cat.h"
#include "base/status_context.h"
#include "sdk/internal/find_executable.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr char kLocalScheme[] = "local:";

std::string PoolFieldPath(size_t pool) { return absl::StrCat("jobSpec.workerPoolSpecs[", pool, "]"); }

}  // namespace

std::optional<std::string_view> LocalImagePath(std::string_view image_uri) {
  std::string_view scheme = kLocalScheme;
  if (image_uri.substr(0, scheme.size()) != scheme) return std::nullopt;
  return image_uri.substr(scheme.size());
}

absl::StatusOr<std::vector<ReplicaPlan>> PlanReplicas(const jobspec::CustomJobSpec& spec) {
  std::vector<ReplicaPlan> plans;
  for (size_t pool = 0; pool < spec.worker_pool_specs.size(); ++pool) {
    const jobspec::WorkerPoolSpec& pool_spec = spec.worker_pool_specs[pool];
    if (pool_spec.IsEmpty()) continue;
    if (pool_spec.python_package_spec.has_value()) {
      const jobspec::PythonPackageSpec& python = *pool_spec.python_package_spec;
      ReplicaPlan plan;
      plan.program_field = absl::StrCat(PoolFieldPath(pool), ".pythonPackageSpec.executorImageUri");
      plan.env = python.env;
      plan.image_uri = python.executor_image_uri;
      plan.command = {"python3", "-m", python.python_module};
      plan.args = python.args;
      plan.python_packages = python.package_uris;
      if (pool_spec.machine_spec.has_value()) {
        plan.accelerator_count = pool_spec.machine_spec->accelerator_count;
      }
      for (int64_t index = 0; index < pool_spec.replica_count; ++index) {
        plan.ref = jobspec::ReplicaRef{.pool = static_cast<int>(pool), .index = index};
        plans.push_back(plan);
      }
      continue;
    }
    if (!pool_spec.container_spec.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(PoolFieldPath(pool), ": containerSpec is required"));
    }
    const jobspec::ContainerSpec& container = *pool_spec.container_spec;
    std::optional<std::string_view> executable = LocalImagePath(container.image_uri);
    if (executable.has_value() && executable->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(PoolFieldPath(pool),
                       ".containerSpec.imageUri: \"local:\" needs the path of an executable, e.g. "
                       "\"local:/usr/bin/trainer\""));
    }
    ReplicaPlan plan;
    if (pool_spec.machine_spec.has_value()) {
      plan.accelerator_count = pool_spec.machine_spec->accelerator_count;
    }
    if (!executable.has_value()) {
      plan.program_field = absl::StrCat(PoolFieldPath(pool), ".containerSpec.imageUri");
      plan.image_uri = container.image_uri;
      plan.command = container.command;
      plan.args = container.args;
    } else if (container.command.empty()) {
      plan.program_field = absl::StrCat(PoolFieldPath(pool), ".containerSpec.imageUri");
      plan.program = std::string(*executable);
      plan.argv = {plan.program};
    } else {
      plan.program_field = absl::StrCat(PoolFieldPath(pool), ".containerSpec.command[0]");
      plan.program = container.command[0];
      plan.argv = container.command;
    }
    if (executable.has_value()) {
      plan.argv.insert(plan.argv.end(), container.args.begin(), container.args.end());
    }
    plan.env = container.env;
    for (int64_t index = 0; index < pool_spec.replica_count; ++index) {
      plan.ref = jobspec::ReplicaRef{.pool = static_cast<int>(pool), .index = index};
      plans.push_back(plan);
    }
  }
  return plans;
}

void AbsolutizeLocalImages(jobspec::CustomJobSpec& spec, const std::filesystem::path& cwd) {
  for (jobspec::WorkerPoolSpec& pool : spec.worker_pool_specs) {
    if (!pool.container_spec.has_value()) continue;
    std::optional<std::string_view> path = LocalImagePath(pool.container_spec->image_uri);
    if (!path.has_value() || path->empty() || path->front() == '/') continue;
    pool.container_spec->image_uri =
        absl::StrCat(kLocalScheme, (cwd / *path).lexically_normal().string());
  }
}

absl::Status CheckExecutables(const std::vector<ReplicaPlan>& plans, std::string_view path_env) {
  for (const ReplicaPlan& plan : plans) {
    if (!plan.image_uri.empty()) continue;
    absl::StatusOr<std::string> found = FindExecutable(plan.program, path_env);
    if (!found.ok()) {
      return base::WithContext(found.status(), plan.program_field);
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk::internal
