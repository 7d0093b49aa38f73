#include "packager/builder/registry_base_source.h"

#include "absl/strings/str_join.h"
#include "base/status_context.h"
#include "fmt/format.h"
#include "http/http_transport.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder {
namespace {

absl::Status Context(const absl::Status& status, std::string_view reference) {
  return base::WithContext(status, fmt::format("base image {}", reference));
}

}  // namespace

absl::StatusOr<ResolvedBase> RegistryClientBaseSource::Fetch(std::string_view reference,
                                                             const oci::Platform& platform) {
  auto ref = registry::ParseReference(reference);
  if (!ref.ok()) return Context(ref.status(), reference);
  auto blob = client_->GetManifest(*ref);
  if (!blob.ok()) return Context(blob.status(), reference);
  if (oci::IsIndexMediaType(blob->media_type)) {
    auto index = oci::ParseImageIndex(blob->bytes);
    if (!index.ok()) return Context(index.status(), reference);
    std::vector<std::string> offered;
    const oci::Descriptor* chosen = nullptr;
    for (const oci::Descriptor& entry : index->manifests) {
      if (!entry.platform) continue;
      offered.push_back(oci::FormatPlatform(*entry.platform));
      // The image-index spec: when several entries match, the first SHOULD be used.
      if (chosen == nullptr && oci::PlatformMatches(*entry.platform, platform)) chosen = &entry;
    }
    if (chosen == nullptr) {
      return absl::NotFoundError(
          fmt::format("base image {}: no manifest for {} (the index has: {})", reference,
                      oci::FormatPlatform(platform), absl::StrJoin(offered, ", ")));
    }
    // By the index's digest: a tag moved between the two requests cannot swap
    // in another manifest.
    registry::Reference by_digest = *ref;
    by_digest.digest = chosen->digest;
    blob = client_->GetManifest(by_digest);
    if (!blob.ok()) return Context(blob.status(), reference);
  }
  auto manifest = oci::ParseImageManifest(blob->bytes);
  if (!manifest.ok()) return Context(manifest.status(), reference);
  // Refused before the download: the config is read into memory, and the
  // manifest's declared size is all we know of it yet.
  if (manifest->config.size > static_cast<int64_t>(http::kMaxJsonBodyBytes)) {
    return absl::ResourceExhaustedError(fmt::format(
        "base image {}: its config is {} bytes; trainpkg reads image configs up to {} bytes",
        reference, manifest->config.size, http::kMaxJsonBodyBytes));
  }
  std::string config_bytes;
  auto fetched =
      client_->FetchBlob(ref->repository, manifest->config.digest,
                         static_cast<uint64_t>(manifest->config.size), [&](std::string_view chunk) {
        config_bytes.append(chunk);
        return absl::OkStatus();
      });
  if (!fetched.ok()) return Context(fetched.status(), reference);
  auto config = oci::ParseImageConfig(config_bytes);
  if (!config.ok()) return Context(config.status(), reference);
  ResolvedBase base;
  base.config = *std::move(config);
  base.layers = ToOciLayers(manifest->layers);
  registry::Reference name = *ref;
  name.digest = oci::Digest();
  base.name = name.String();
  base.manifest_digest = blob->digest;
  base.config_digest = manifest->config.digest;
  return base;
}

absl::Status RegistryClientBaseSource::FetchLayer(std::string_view name,
                                                  const oci::Descriptor& layer,
                                                  const oci::Layout& into) {
  const std::string what = fmt::format("{} layer {}", name, layer.digest.ToString());
  auto ref = registry::ParseReference(name);
  if (!ref.ok()) return Context(ref.status(), what);
  auto writer = into.NewBlobWriter(layer.digest.algorithm());
  if (!writer.ok()) return Context(writer.status(), what);
  auto fetched = client_->FetchBlob(ref->repository, layer.digest, static_cast<uint64_t>(layer.size),
                                    [&](std::string_view chunk) { return writer->Write(chunk); });
  if (!fetched.ok()) return Context(fetched.status(), what);
  auto committed = writer->CommitExpecting(layer.digest, layer.size);
  if (!committed.ok()) return Context(committed.status(), what);
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::builder
