#include "sdk/serve/image_policy.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "fmt/format.h"
#include "jobspec/image_uri.h"
#include "registry/reference.h"
#include "sdk/internal/image_resolver.h"

namespace trainpkg::sdk::serve {
namespace {

absl::Status Refuse(absl::Status status, std::string field, vertex::FieldViolation& violation) {
  violation = {.field = std::move(field), .description = std::string(status.message())};
  return absl::Status(status.code(), fmt::format("{}: {}", violation.field, violation.description));
}

bool Allowed(const std::vector<std::string>& registries, std::string_view registry) {
  return std::any_of(registries.begin(), registries.end(), [&](const std::string& allowed) {
    return absl::EqualsIgnoreCase(allowed, std::string(registry));
  });
}

}  // namespace

absl::Status CheckJobImages(const jobspec::CustomJobSpec& spec, std::string_view field_prefix,
                            const ImagePolicy& policy, const std::filesystem::path& home,
                            vertex::FieldViolation& violation) {
  // Without a puller the resolver only looks in the store.
  // The check itself must never pull: a pull is what the policy restricts.
  const internal::ImageResolver store(home, nullptr);
  for (size_t i = 0; i < spec.worker_pool_specs.size(); ++i) {
    const jobspec::WorkerPoolSpec& pool = spec.worker_pool_specs[i];
    std::string uri;
    std::string field;
    if (pool.container_spec.has_value()) {
      uri = pool.container_spec->image_uri;
      field = fmt::format("{}.workerPoolSpecs[{}].containerSpec.imageUri", field_prefix, i);
    } else if (pool.python_package_spec.has_value()) {
      const jobspec::PythonPackageSpec& python = *pool.python_package_spec;
      if (!python.package_uris.empty() && !policy.allow_local_executables) {
        return Refuse(
            absl::PermissionDeniedError(
                "a pythonPackageSpec's packages are files of this host, which this "
                "service installs and runs only when started with "
                "--allow-local-executables"),
            fmt::format("{}.workerPoolSpecs[{}].pythonPackageSpec.packageUris", field_prefix, i),
            violation);
      }
      uri = python.executor_image_uri;
      field =
          fmt::format("{}.workerPoolSpecs[{}].pythonPackageSpec.executorImageUri", field_prefix, i);
    } else {
      continue;  // an empty pool: nothing this service would run
    }
    absl::StatusOr<jobspec::ImageUri> image = jobspec::ImageUri::Parse(uri);
    if (!image.ok()) return Refuse(image.status(), field, violation);
    if (image->kind() == jobspec::ImageUri::Kind::kLocalExecutable) {
      if (policy.allow_local_executables) continue;
      return Refuse(absl::PermissionDeniedError(fmt::format(
                        "\"{}\" is a host executable, which this service runs only when started "
                        "with --allow-local-executables",
                        uri)),
                    field, violation);
    }
    // Images already on this host run in containers, so they need no opt-in;
    // only a pull, or a host executable, does.
    if (image->kind() == jobspec::ImageUri::Kind::kOciLayout || store.Resolve(*image).ok()) {
      continue;
    }
    absl::StatusOr<registry::Reference> reference = registry::ParseReference(image->reference());
    if (!reference.ok()) {
      return Refuse(absl::InvalidArgumentError(fmt::format(
                        "\"{}\": {}; use a registry reference, oci:DIR[:TAG] or local:PATH", uri,
                        std::string(reference.status().message()))),
                    field, violation);
    }
    const std::string& registry = reference->repository.registry;
    if (Allowed(policy.allowed_registries, registry)) continue;
    return Refuse(
        absl::PermissionDeniedError(fmt::format(
            "\"{}\" is not in the local image store and this service pulls from registry {} only "
            "when started with --allow-registry {} (or `trainpkg pull {}` first)",
            uri, registry, registry, uri)),
        field, violation);
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk::serve
