#include "sdk/internal/replica_plan.h"

#include "absl/strings/str_cat.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "sdk/internal/find_executable.h"

namespace trainpkg::sdk::internal {
namespace {

std::string PoolFieldPath(size_t pool) { return absl::StrCat("jobSpec.workerPoolSpecs[", pool, "]"); }

absl::StatusOr<jobspec::ImageUri> ParseImage(std::string_view text, const std::string& field) {
  absl::StatusOr<jobspec::ImageUri> image = jobspec::ImageUri::Parse(text);
  if (!image.ok()) return base::WithContext(image.status(), field);
  return image;
}

}  // namespace

absl::StatusOr<std::vector<ReplicaPlan>> PlanReplicas(const jobspec::CustomJobSpec& spec) {
  std::vector<ReplicaPlan> plans;
  for (size_t pool = 0; pool < spec.worker_pool_specs.size(); ++pool) {
    const jobspec::WorkerPoolSpec& pool_spec = spec.worker_pool_specs[pool];
    if (pool_spec.IsEmpty()) continue;
    if (pool_spec.python_package_spec.has_value()) {
      const jobspec::PythonPackageSpec& python = *pool_spec.python_package_spec;
      ReplicaPlan plan;
      plan.program_field = absl::StrCat(PoolFieldPath(pool), ".pythonPackageSpec.executorImageUri");
      TP_ASSIGN_OR_RETURN(jobspec::ImageUri executor,
                          ParseImage(python.executor_image_uri, plan.program_field));
      if (!executor.is_image()) {
        return absl::InvalidArgumentError(absl::StrCat(
            plan.program_field, ": a local: executable cannot run a Python package; name an "
                                "image (oci:DIR[:TAG] or a registry reference)"));
      }
      plan.env = python.env;
      plan.image = std::move(executor);
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
    const std::string image_field = absl::StrCat(PoolFieldPath(pool), ".containerSpec.imageUri");
    TP_ASSIGN_OR_RETURN(jobspec::ImageUri image, ParseImage(container.image_uri, image_field));
    ReplicaPlan plan;
    if (pool_spec.machine_spec.has_value()) {
      plan.accelerator_count = pool_spec.machine_spec->accelerator_count;
    }
    if (image.is_image()) {
      plan.program_field = image_field;
      plan.image = std::move(image);
      plan.command = container.command;
      plan.args = container.args;
    } else if (container.command.empty()) {
      plan.program_field = image_field;
      plan.program = image.local_path();
      plan.argv = {plan.program};
    } else {
      plan.program_field = absl::StrCat(PoolFieldPath(pool), ".containerSpec.command[0]");
      plan.program = container.command[0];
      plan.argv = container.command;
    }
    // A container keeps command and args apart: Vertex's rule replaces the
    // image's ENTRYPOINT with one and its CMD with the other.
    if (!plan.image.has_value()) {
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
    // An unparsable imageUri is left for validation to name.
    // Resolved against the submitting process's directory, once: the record
    // then names the same file from whatever directory later reads it.
    absl::StatusOr<jobspec::ImageUri> image = jobspec::ImageUri::Parse(pool.container_spec->image_uri);
    if (!image.ok() || image->is_image() || image->local_path().front() == '/') continue;
    pool.container_spec->image_uri =
        absl::StrCat("local:", (cwd / image->local_path()).lexically_normal().string());
  }
}

absl::Status CheckExecutables(const std::vector<ReplicaPlan>& plans, std::string_view path_env) {
  for (const ReplicaPlan& plan : plans) {
    if (plan.image.has_value()) continue;
    absl::StatusOr<std::string> found = FindExecutable(plan.program, path_env);
    if (!found.ok()) {
      return base::WithContext(found.status(), plan.program_field);
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk::internal
