#include "sdk/internal/image_resolver.h"

#include <memory>

#include "base/environment.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/store_lock.h"
#include "registry/auth/docker_config.h"
#include "registry/image_puller.h"
#include "registry/oci/layout_reference.h"
#include "registry/registry_client.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr std::string_view kOciScheme = "oci:";

absl::Status WithUri(std::string_view uri, const absl::Status& status) {
  return base::WithContext(status, fmt::format("image \"{}\"", uri));
}

absl::StatusOr<ResolvedImage> Complete(oci::Layout layout, oci::LayoutImage image,
                                       std::string_view tag) {
  if (!image.missing_blobs.empty()) {
    return absl::FailedPreconditionError(
        fmt::format("{} lacks blob {} (and {} more); pull the image whole", layout.root().string(),
                    image.missing_blobs[0].digest.ToString(), image.missing_blobs.size() - 1));
  }
  if (!image.config.has_value()) {
    return absl::FailedPreconditionError("the manifest has no image config (an artifact?)");
  }
  std::string reference = oci::FormatLayoutReference({layout.root(), std::string(tag)});
  return ResolvedImage{std::move(layout), std::move(image), std::move(reference)};
}

}  // namespace

ImagePuller RegistryImagePuller(std::map<std::string, std::string> environment) {
  auto env = std::make_shared<base::MapEnvironment>(std::move(environment));
  return [env](const registry::Reference& reference, const oci::Layout& store,
               const std::string& tag) -> absl::Status {
    registry::RegistryClientOptions options;
    options.keychain = std::make_shared<registry::DockerKeychain>(*env);
    registry::RegistryClient client(std::move(options));
    return registry::PullImage(client, reference, store, tag, registry::PullOptions{}).status();
  };
}

absl::StatusOr<ResolvedImage> ImageResolver::Resolve(std::string_view image_uri) const {
  if (image_uri.substr(0, kOciScheme.size()) != kOciScheme) return FromStore(image_uri);
  absl::StatusOr<oci::LayoutReference> reference = oci::ParseLayoutReference(image_uri);
  if (!reference.ok()) return WithUri(image_uri, reference.status());
  absl::StatusOr<oci::Layout> layout = oci::Layout::Open(reference->dir);
  if (!layout.ok()) return WithUri(image_uri, layout.status());
  absl::StatusOr<oci::LayoutImage> image =
      layout->ReadImage(reference->tag, registry::DefaultPlatform());
  if (!image.ok()) return WithUri(image_uri, image.status());
  absl::StatusOr<ResolvedImage> resolved =
      Complete(*std::move(layout), *std::move(image), reference->tag);
  if (!resolved.ok()) return WithUri(image_uri, resolved.status());
  return resolved;
}

absl::StatusOr<ResolvedImage> ImageResolver::FromStore(std::string_view image_uri) const {
  absl::StatusOr<registry::Reference> reference = registry::ParseReference(image_uri);
  if (!reference.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "image \"{}\": {}; use a registry reference ([REGISTRY/]REPOSITORY[:TAG|@DIGEST]), "
        "oci:DIR[:TAG] or local:PATH",
        image_uri, std::string(reference.status().message())));
  }
  if (reference->tag.empty() && reference->digest.empty()) reference->tag = "latest";
  // The store's tags are normalised references (image_store.h).
  const std::string tag = reference->String();
  absl::StatusOr<oci::Layout> store = oci::Layout::Create(home_ / "images");
  if (!store.ok()) return WithUri(image_uri, store.status());
  absl::StatusOr<oci::LayoutImage> image = store->ReadImage(tag, registry::DefaultPlatform());
  if (absl::IsNotFound(image.status())) {
    if (!pull_) {
      return absl::NotFoundError(fmt::format("image \"{}\": not in the local image store {}",
                                             image_uri, store->root().string()));
    }
    // A prune waits until the pulled blobs are tagged.
    absl::StatusOr<packager::builder::StoreLock> gc_lock = packager::builder::StoreLock::ForCollection(
        store->root(), packager::builder::StoreLock::Mode::kShared);
    if (!gc_lock.ok()) return WithUri(image_uri, gc_lock.status());
    absl::Status pulled = pull_(*reference, *store, tag);
    if (!pulled.ok()) return WithUri(image_uri, pulled);
    image = store->ReadImage(tag, registry::DefaultPlatform());
  }
  if (!image.ok()) return WithUri(image_uri, image.status());
  absl::StatusOr<ResolvedImage> resolved = Complete(*std::move(store), *std::move(image), tag);
  if (!resolved.ok()) return WithUri(image_uri, resolved.status());
  return resolved;
}

}  // namespace trainpkg::sdk::internal
