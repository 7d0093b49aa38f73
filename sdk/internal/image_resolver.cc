#include "sdk/internal/image_resolver.h"

#include <memory>
#include <span>

#include "base/environment.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/store_lock.h"
#include "registry/auth/docker_config.h"
#include "registry/image_puller.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/image_config.h"
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
               const std::string& tag, registry::BlobFeed* feed) -> absl::Status {
    registry::RegistryClientOptions options;
    // Docker's credentials, as the submitting user has them in that environment.
    options.keychain = std::make_shared<registry::DockerKeychain>(*env);
    registry::RegistryClient client(std::move(options));
    registry::PullOptions pull;
    pull.feed = feed;
    return registry::PullImage(client, reference, store, tag, pull).status();
  };
}

PullInFlight::PullInFlight(const ImagePuller& pull, registry::Reference reference,
                           oci::Layout store, std::string tag,
                           packager::builder::StoreLock gc_lock)
    : gc_lock_(std::move(gc_lock)) {
  thread_ = std::thread([this, pull, reference = std::move(reference), store = std::move(store),
                         tag = std::move(tag)] {
    status_ = pull(reference, store, tag, &feed_);
    // A puller that never got as far as telling the feed still ends it, so
    // no reader waits forever. (A second Finished with the same status is
    // harmless.)
    feed_.Finished(status_);
  });
}

PullInFlight::~PullInFlight() {
  if (!waited_) {
    feed_.Cancel(absl::CancelledError("the job no longer needs the image"));
    thread_.join();
  }
}

absl::Status PullInFlight::Wait() {
  thread_.join();
  waited_ = true;
  return status_;
}

absl::StatusOr<oci::LayoutImage> PullInFlight::WaitForImage() {
  TP_ASSIGN_OR_RETURN(registry::ChosenManifest chosen, feed_.WaitForManifest());
  const oci::Descriptor& config = chosen.manifest.config;
  // An image config is small; one far larger is not one (nor is anything
  // read past its descriptor's size).
  constexpr int64_t kMaxConfigBytes = int64_t{16} << 20;
  if (config.size < 0 || config.size > kMaxConfigBytes) {
    return absl::InvalidArgumentError(fmt::format(
        "the image config {} is {} bytes; at most {} are accepted", config.digest.ToString(),
        config.size, kMaxConfigBytes));
  }
  std::unique_ptr<oci::ByteSource> source = feed_.Open(config);
  std::string bytes(static_cast<size_t>(config.size) + 1, '\0');
  size_t have = 0;
  for (;;) {
    TP_ASSIGN_OR_RETURN(size_t n, source->Read(std::span<char>(bytes).subspan(have)));
    if (n == 0) break;
    have += n;
    if (have == bytes.size()) break;
  }
  bytes.resize(have);
  if (oci::ComputeDigest(bytes, config.digest.algorithm()) != config.digest ||
      static_cast<int64_t>(have) != config.size) {
    return absl::DataLossError(fmt::format("the image config does not match its digest {}",
                                           config.digest.ToString()));
  }
  oci::LayoutImage image;
  image.descriptor = std::move(chosen.descriptor);
  image.manifest_bytes = std::move(chosen.bytes);
  image.manifest = std::move(chosen.manifest);
  TP_ASSIGN_OR_RETURN(image.config, oci::ParseImageConfig(bytes));
  return image;
}

packager::unpack::BlobOpener PullInFlight::Blobs() {
  return [this](const oci::Descriptor& blob)
             -> absl::StatusOr<std::unique_ptr<oci::ByteSource>> { return feed_.Open(blob); };
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

absl::StatusOr<ImageResolver::StoreTag> ImageResolver::StoreTagOf(
    const jobspec::ImageUri& image_uri) {
  absl::StatusOr<registry::Reference> reference = registry::ParseReference(image_uri.reference());
  if (!reference.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "image \"{}\": {}; use a registry reference ([REGISTRY/]REPOSITORY[:TAG|@DIGEST]), "
        "oci:DIR[:TAG] or local:PATH",
        image_uri.ToString(), std::string(reference.status().message())));
  }
  // As docker run reads a bare name.
  if (reference->tag.empty() && reference->digest.empty()) reference->tag = "latest";
  // The store's tags are normalised references (image_store.h).
  std::string tag = reference->String();
  return StoreTag{*std::move(reference), std::move(tag)};
}

absl::StatusOr<ResolvedImage> ImageResolver::FromStore(const jobspec::ImageUri& uri) const {
  const std::string& image_uri = uri.ToString();
  TP_ASSIGN_OR_RETURN(StoreTag named, StoreTagOf(uri));
  absl::StatusOr<oci::Layout> store = oci::Layout::Create(home_ / "images");
  if (!store.ok()) return WithUri(image_uri, store.status());
  absl::StatusOr<oci::LayoutImage> image = store->ReadImage(named.tag, registry::DefaultPlatform());
  if (absl::IsNotFound(image.status())) {
    if (!pull_) {
      return absl::NotFoundError(fmt::format("image \"{}\": not in the local image store {}",
                                             image_uri, store->root().string()));
    }
    // A prune waits until the pulled blobs are tagged.
    absl::StatusOr<packager::builder::StoreLock> gc_lock = packager::builder::StoreLock::ForCollection(
        store->root(), packager::builder::StoreLock::Mode::kShared);
    if (!gc_lock.ok()) return WithUri(image_uri, gc_lock.status());
    absl::Status pulled = pull_(named.reference, *store, named.tag, nullptr);
    if (!pulled.ok()) return WithUri(image_uri, pulled);
    image = store->ReadImage(named.tag, registry::DefaultPlatform());
  }
  if (!image.ok()) return WithUri(image_uri, image.status());
  absl::StatusOr<ResolvedImage> resolved = Complete(*std::move(store), *std::move(image), named.tag);
  if (!resolved.ok()) return WithUri(image_uri, resolved.status());
  return resolved;
}

absl::StatusOr<StreamingImage> ImageResolver::ResolveStreaming(
    const jobspec::ImageUri& image_uri) const {
  const std::string& uri = image_uri.ToString();
  if (image_uri.kind() != jobspec::ImageUri::Kind::kRegistry || !pull_) {
    TP_ASSIGN_OR_RETURN(ResolvedImage resolved, Resolve(image_uri));
    return StreamingImage{std::move(resolved), nullptr};
  }
  TP_ASSIGN_OR_RETURN(StoreTag named, StoreTagOf(image_uri));
  absl::StatusOr<oci::Layout> store = oci::Layout::Create(home_ / "images");
  if (!store.ok()) return WithUri(uri, store.status());
  absl::StatusOr<oci::LayoutImage> image = store->ReadImage(named.tag, registry::DefaultPlatform());
  if (!absl::IsNotFound(image.status())) {
    TP_ASSIGN_OR_RETURN(ResolvedImage resolved, Resolve(image_uri));
    return StreamingImage{std::move(resolved), nullptr};
  }
  absl::StatusOr<packager::builder::StoreLock> gc_lock = packager::builder::StoreLock::ForCollection(
      store->root(), packager::builder::StoreLock::Mode::kShared);
  if (!gc_lock.ok()) return WithUri(uri, gc_lock.status());
  auto pull = std::make_unique<PullInFlight>(pull_, named.reference, *store, named.tag,
                                             *std::move(gc_lock));
  absl::StatusOr<oci::LayoutImage> early = pull->WaitForImage();
  if (!early.ok()) {
    // The pull's own error says more than the feed's view of it.
    pull->Cancel(early.status());
    absl::Status pulled = pull->Wait();
    return WithUri(uri, pulled.ok() ? early.status() : pulled);
  }
  std::string reference = oci::FormatLayoutReference({store->root(), named.tag});
  return StreamingImage{ResolvedImage{*std::move(store), *std::move(early), std::move(reference)},
                        std::move(pull)};
}

}  // namespace trainpkg::sdk::internal
