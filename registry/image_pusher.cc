#include "registry/image_pusher.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/internal/bounded_parallel.h"
#include "registry/oci/annotations.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::registry {
namespace {

class Pusher {
 public:
  Pusher(RegistryClient& client, const oci::Layout& layout, const Reference& target,
         const PushOptions& options)
      : client_(client), layout_(layout), target_(target), options_(options) {}

  absl::StatusOr<TransferResult> Run(oci::Descriptor root) {
    root.annotations.erase(std::string(oci::annotations::kRefName));
    const Reference& tagged = target_;
    if (oci::IsIndexMediaType(root.media_type)) {
      TP_ASSIGN_OR_RETURN(std::string bytes, layout_.ReadBlob(root));
      TP_ASSIGN_OR_RETURN(oci::ImageIndex index, oci::ParseImageIndex(bytes));
      // Children first, by digest, then the index: a registry may refuse a
      // manifest that names content it does not hold yet.
      for (const oci::Descriptor& child : index.manifests) {
        if (!oci::IsManifestMediaType(child.media_type)) {
          return absl::UnimplementedError(fmt::format(
              "index {} lists {} of type {}; only image manifests can be pushed inside an index",
              root.digest.ToString(), child.digest.ToString(), child.media_type));
        }
        TP_RETURN_IF_ERROR(PushManifest(child, Reference{target_.repository, "", child.digest}));
      }
      TP_RETURN_IF_ERROR(PutManifest(root, std::move(bytes), tagged));
    } else {
      TP_RETURN_IF_ERROR(PushManifest(root, tagged));
    }
    return TransferResult{.reference = target_.String(), .root = root, .blobs = reports_};
  }

 private:
  absl::Status PutManifest(const oci::Descriptor& descriptor, std::string bytes,
                           const Reference& ref) {
    TP_ASSIGN_OR_RETURN(oci::Digest stored,
                        client_.PutManifest(ref, descriptor.media_type, std::move(bytes)));
    if (stored != descriptor.digest) {
      return absl::DataLossError(
          fmt::format("pushing {}: the layout's manifest hashes to {}, not {}", ref.String(),
                      stored.ToString(), descriptor.digest.ToString()));
    }
    return absl::OkStatus();
  }

  absl::Status PushManifest(const oci::Descriptor& descriptor, const Reference& ref) {
    TP_ASSIGN_OR_RETURN(std::string bytes, layout_.ReadBlob(descriptor));
    TP_ASSIGN_OR_RETURN(oci::ImageManifest manifest, oci::ParseImageManifest(bytes));
    TP_ASSIGN_OR_RETURN(std::vector<oci::Descriptor> missing, layout_.MissingBlobs(descriptor));
    std::set<oci::Digest> absent;
    for (const oci::Descriptor& blob : missing) absent.insert(blob.digest);
    std::vector<Repository> sources = MountSources(manifest);
    std::vector<oci::Descriptor> blobs;
    blobs.push_back(manifest.config);
    for (const oci::Descriptor& layer : manifest.layers) {
      bool seen = std::any_of(blobs.begin(), blobs.end(),
                              [&](const oci::Descriptor& b) { return b.digest == layer.digest; });
      if (!seen && !pushed_.contains(layer.digest)) blobs.push_back(layer);
    }
    if (pushed_.contains(manifest.config.digest)) blobs.erase(blobs.begin());
    // Largest first: the longest transfers start at once and the small
    // blobs (the config, thin layers) finish beside them, rather than a big
    // layer waiting for a free slot behind small ones. Reports keep the
    // manifest's order.
    std::vector<size_t> order(blobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return blobs[a].size > blobs[b].size; });
    std::vector<BlobReport> reports(blobs.size());
    absl::Status moved = internal::RunBounded(blobs.size(), options_.jobs, [&](size_t k) {
      size_t i = order[k];
      absl::StatusOr<BlobReport> report =
          PushBlob(blobs[i], absent.contains(blobs[i].digest), SourcesFor(blobs[i], sources));
      if (!report.ok()) return report.status();
      if (options_.locations != nullptr && report->action != BlobAction::kSkipped) {
        options_.locations->Record(blobs[i].digest, target_.repository);
      }
      reports[i] = *std::move(report);
      return absl::OkStatus();
    });
    if (!moved.ok()) return moved;
    for (BlobReport& report : reports) {
      pushed_.insert(report.descriptor.digest);
      reports_.push_back(std::move(report));
    }
    // Only after every blob is there, for the same reason as the index's
    // children.
    return PutManifest(descriptor, std::move(bytes), ref);
  }

  // The base image's repository (when on the target's registry), then the
  // configured sources, without the target itself.
  std::vector<Repository> MountSources(const oci::ImageManifest& manifest) const {
    std::vector<Repository> sources;
    auto base = manifest.annotations.find(std::string(oci::annotations::kBaseName));
    if (base != manifest.annotations.end()) {
      absl::StatusOr<Reference> ref = ParseReference(base->second);
      if (ref.ok() && ref->repository.registry == target_.repository.registry) {
        sources.push_back(ref->repository);
      }
    }
    for (const Repository& source : options_.mount_sources) {
      if (source.registry == target_.repository.registry &&
          std::find(sources.begin(), sources.end(), source) == sources.end()) {
        sources.push_back(source);
      }
    }
    std::erase(sources, target_.repository);
    return sources;
  }

  // The repositories the location cache knows for `blob` on the target's
  // registry, then `sources`, without the target or repeats.
  std::vector<Repository> SourcesFor(const oci::Descriptor& blob,
                                     const std::vector<Repository>& sources) const {
    if (options_.locations == nullptr) return sources;
    std::vector<Repository> out =
        options_.locations->Find(blob.digest, target_.repository.registry);
    std::erase(out, target_.repository);
    for (const Repository& source : sources) {
      if (std::find(out.begin(), out.end(), source) == out.end()) out.push_back(source);
    }
    return out;
  }

  absl::StatusOr<BlobReport> PushBlob(const oci::Descriptor& blob, bool absent,
                                      const std::vector<Repository>& sources) {
    const Repository& repo = target_.repository;
    // Non-distributable layers are fetched from their own URLs by whoever
    // pulls; a registry is not meant to receive them.
    if (oci::IsNondistributableLayerMediaType(blob.media_type)) {
      return Report(blob, BlobAction::kSkipped, "");
    }
    if (options_.uploaded.contains(blob.digest)) return Report(blob, BlobAction::kPushed, "");
    // A HEAD first: a blob already in the target costs one request and no
    // bytes.
    TP_ASSIGN_OR_RETURN(std::optional<BlobInfo> there, client_.StatBlob(repo, blob.digest));
    if (there.has_value()) return Report(blob, BlobAction::kExists, "");
    std::optional<UploadSession> session;
    for (size_t i = 0; i < sources.size(); ++i) {
      absl::StatusOr<MountResult> mount = client_.MountBlob(repo, blob.digest, sources[i]);
      if (!mount.ok()) {
        // Some registries refuse mounts outright (ggcr #1404, #1679): upload instead.
        TP_LOG(INFO, "{}; not mounting", std::string(mount.status().message()));
        continue;
      }
      if (mount->mounted) return Report(blob, BlobAction::kMounted, sources[i].path);
      // A failed mount's 202 session is kept only for the last source: before
      // that the next source may still mount, and an unused session is cancelled.
      if (!absent && i + 1 == sources.size()) {
        session = mount->session;  // the registry opened a session: upload into it
        break;
      }
      absl::Status cancelled = client_.CancelUpload(repo, mount->session.url);
      if (!cancelled.ok()) TP_LOG(WARNING, "{}", std::string(cancelled.message()));
    }
    // A blob the layout lacks (a base image's layer that was never pulled) can
    // only reach the target by a mount.
    if (absent) {
      std::string tried;
      for (const Repository& source : sources) tried += ", " + source.Name();
      return absl::FailedPreconditionError(fmt::format(
          "blob {} is not in {} and could not be mounted into {} (tried the target{}); pull the "
          "base image into the layout to push to another registry",
          blob.digest.ToString(), layout_.root().string(), repo.Name(), tried));
    }
    if (options_.progress) options_.progress->Started(blob);
    TP_RETURN_IF_ERROR(UploadBlob(client_, repo, blob, layout_.BlobPath(blob.digest), session,
                                  options_.upload, [&](uint64_t done) {
                                    if (options_.progress) options_.progress->Advanced(blob, done);
                                  }));
    return Report(blob, BlobAction::kPushed, "");
  }

  BlobReport Report(const oci::Descriptor& blob, BlobAction action, std::string source) {
    if (options_.progress) options_.progress->Finished(blob, action, source);
    return BlobReport{.descriptor = blob, .action = action, .source = std::move(source)};
  }

  RegistryClient& client_;
  const oci::Layout& layout_;
  const Reference& target_;
  const PushOptions& options_;
  std::set<oci::Digest> pushed_;  // blobs handled by an earlier manifest of this push
  std::vector<BlobReport> reports_;
};

}  // namespace

absl::StatusOr<TransferResult> PushImage(RegistryClient& client, const oci::Layout& layout,
                                         std::string_view tag, const Reference& target,
                                         const PushOptions& options) {
  TP_ASSIGN_OR_RETURN(oci::Descriptor root, layout.Resolve(tag));
  return PushImage(client, layout, root, target, options);
}

absl::StatusOr<TransferResult> PushImage(RegistryClient& client, const oci::Layout& layout,
                                         const oci::Descriptor& root, const Reference& target,
                                         const PushOptions& options) {
  if (options.jobs < 1) return absl::InvalidArgumentError("push jobs must be at least 1");
  return Pusher(client, layout, target, options).Run(root);
}

}  // namespace trainpkg::registry
