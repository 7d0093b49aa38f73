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
    // Docker's credentials, as the submitting user has them in that environment.
    options.keychain = std::make_shared<registry::DockerKeychain>(*env);
    registry::RegistryClient client(std::move(options));
    return registry::PullImage(client, reference, store, tag, registry::PullOptions{}).status();
  };
}

absl::StatusOr<ResolvedImage> ImageResolver::Resolve(const jobspec::ImageUri& image_uri) const {
  switch (image_uri.kind()) {
    case jobspec::ImageUri::Kind::kOciLayout:
      return FromLayout(image_uri);
    case jobspec::ImageUri::Kind::kRegistry:
      return FromStore(image_uri);
    case jobspec::ImageUri::Kind::kLocalExecutable:
      break;
  }
  return absl::InvalidArgumentError(
      fmt::format("\"{}\" is a host executable, not an image; use a registry reference "
                  "([REGISTRY/]REPOSITORY[:TAG|@DIGEST]) or oci:DIR[:TAG]",
                  image_uri.ToString()));
}

absl::StatusOr<ResolvedImage> ImageResolver::FromLayout(const jobspec::ImageUri& image_uri) const {
  const std::string& uri = image_uri.ToString();
  if (!image_uri.layout_tag().empty()) {
    absl::Status tag_ok = oci::ValidateRefName(image_uri.layout_tag());
    if (!tag_ok.ok()) return WithUri(uri, tag_ok);
  }
  absl::StatusOr<oci::Layout> layout = oci::Layout::Open(image_uri.layout_dir());
  if (!layout.ok()) return WithUri(uri, layout.status());
  absl::StatusOr<oci::LayoutImage> image =
      layout->ReadImage(image_uri.layout_tag(), registry::DefaultPlatform());
  if (!image.ok()) return WithUri(uri, image.status());
  absl::StatusOr<ResolvedImage> resolved =
      Complete(*std::move(layout), *std::move(image), image_uri.layout_tag());
  if (!resolved.ok()) return WithUri(uri, resolved.status());
  return resolved;
}

absl::StatusOr<ResolvedImage> ImageResolver::FromStore(const jobspec::ImageUri& uri) const {
  const std::string& image_uri = uri.ToString();
  absl::StatusOr<registry::Reference> reference = registry::ParseReference(uri.reference());
  if (!reference.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "image \"{}\": {}; use a registry reference ([REGISTRY/]REPOSITORY[:TAG|@DIGEST]), "
        "oci:DIR[:TAG] or local:PATH",
        image_uri, std::string(reference.status().message())));
  }
  // As docker run reads a bare name.
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
