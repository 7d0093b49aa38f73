#include "sdk/serve/image_policy.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "fmt/format.h"
#include "registry/reference.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/replica_plan.h"

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
  const internal::ImageResolver store(home, nullptr);
  for (size_t i = 0; i < spec.worker_pool_specs.size(); ++i) {
    const jobspec::WorkerPoolSpec& pool = spec.worker_pool_specs[i];
    if (!pool.container_spec.has_value()) continue;  // nothing this service would run
    const std::string& uri = pool.container_spec->image_uri;
    const std::string field =
        fmt::format("{}.workerPoolSpecs[{}].containerSpec.imageUri", field_prefix, i);
    if (internal::LocalImagePath(uri).has_value()) {
      if (policy.allow_local_executables) continue;
      return Refuse(absl::PermissionDeniedError(fmt::format(
                        "\"{}\" is a host executable, which this service runs only when started "
                        "with --allow-local-executables",
                        uri)),
                    field, violation);
    }
    if (uri.starts_with("oci:") || store.Resolve(uri).ok()) continue;
    absl::StatusOr<registry::Reference> reference = registry::ParseReference(uri);
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
