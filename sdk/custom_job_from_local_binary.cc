#include "sdk/custom_job_from_local_binary.h"

#include <memory>
#include <utility>

#include "base/environment.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/validation.h"
#include "registry/auth/docker_config.h"
#include "registry/image_pusher.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "sdk/image_builder.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk {
namespace {

// Pool 0: the chief; pool 1: the other replica_count - 1 replicas.
absl::StatusOr<jobspec::CustomJob> LocalBinaryJob(const LocalBinaryJobOptions& request) {
  if (request.replica_count < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "replica_count: {} is not a replica count; want 1 (a chief) or more (a chief and workers)",
        request.replica_count));
  }
  jobspec::CustomJob job;
  job.display_name = request.display_name;
  job.job_spec.base_output_directory = request.base_output_dir;
  jobspec::WorkerPoolSpec pool;
  pool.replica_count = 1;
  pool.machine_spec.emplace().machine_type = request.machine_type;
  jobspec::ContainerSpec& container = pool.container_spec.emplace();
  container.image_uri = request.image_uri;
  container.args = request.args;
  container.env = request.env;
  job.job_spec.worker_pool_specs.push_back(pool);
  if (request.replica_count > 1) {
    pool.replica_count = request.replica_count - 1;
    job.job_spec.worker_pool_specs.push_back(std::move(pool));
  }
  TP_RETURN_IF_ERROR(jobspec::ValidateCustomJob(job));
  return job;
}

}  // namespace

absl::StatusOr<CustomJob> CustomJobFromLocalBinary(const LocalBinaryJobOptions& request,
                                                   CustomJobOptions options) {
  // The push target first: a bad one is the request's image_uri, not a field
  // of the job built from it.
  absl::StatusOr<registry::Reference> target = registry::ParseReference(request.image_uri);
  if (!target.ok() || !target->digest.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("image_uri \"{}\": {}; want [REGISTRY/]REPOSITORY[:TAG] to push the image to",
                    request.image_uri,
                    target.ok() ? std::string("a digest names an image that exists")
                                : std::string(target.status().message())));
  }
  if (target->tag.empty()) target->tag = "latest";
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob job, LocalBinaryJob(request));

  auto environment = std::make_shared<base::MapEnvironment>(
      options.environment.has_value() ? *options.environment : base::SnapshotProcessEnvironment());
  std::filesystem::path home = options.home;
  if (home.empty()) {
    TP_ASSIGN_OR_RETURN(home, DefaultJobStoreHome(*environment));
  }
  // The image is built into the store of the job's home, not the process's
  // default one.
  environment->Set("TRAINPKG_HOME", home.string());

  ImageBuildOptions build;
  build.bundle = request.bundle;
  build.tags = {target->String()};
  // Pushed right away: compress as the layers are written, not after.
  build.compression = packager::LayerCompression::kGzip;
  build.environment = environment.get();
  TP_ASSIGN_OR_RETURN(BuiltImage built, BuildImage(build));
  registry::RegistryClientOptions client_options;
  client_options.keychain = std::make_shared<registry::DockerKeychain>(*environment);
  client_options.insecure_registries = request.insecure_registries;
  registry::RegistryClient client(std::move(client_options));
  absl::StatusOr<registry::TransferResult> pushed =
      PushStoredImage(*environment, built.tags.at(0), client, *target, {});
  if (!pushed.ok()) {
    return base::WithContext(pushed.status(), fmt::format("pushing {}", request.image_uri));
  }
  return CustomJob::Create(std::move(job), std::move(options));
}

}  // namespace trainpkg::sdk
