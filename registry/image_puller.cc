#include "registry/image_puller.h"

#include <algorithm>
#include <optional>

#include "base/log.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/blob_feed.h"
#include "registry/internal/bounded_parallel.h"
#include "registry/oci/blob_writer.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::registry {
namespace {

// Streams one blob into the layout, resuming with Range after a cut.
absl::Status Download(RegistryClient& client, const Repository& repo, const oci::Layout& layout,
                      const oci::Descriptor& blob, const PullOptions& options) {
  std::optional<oci::BlobWriter> writer;
  TP_ASSIGN_OR_RETURN(oci::BlobWriter first, layout.NewBlobWriter(blob.digest.algorithm()));
  writer.emplace(std::move(first));
  if (options.feed != nullptr) options.feed->Downloading(blob.digest, writer->temp_path());
  uint64_t received = 0;
  uint64_t size = static_cast<uint64_t>(blob.size);
  for (int resumes = 0;; ++resumes) {
    auto start = [&](uint64_t from) -> absl::Status {
      if (from == received) return absl::OkStatus();
      // The registry ignored the Range: take the whole blob again.
      TP_ASSIGN_OR_RETURN(oci::BlobWriter fresh, layout.NewBlobWriter(blob.digest.algorithm()));
      // Readers move to the new file before the old one goes.
      if (options.feed != nullptr) options.feed->Downloading(blob.digest, fresh.temp_path());
      writer.reset();
      writer.emplace(std::move(fresh));
      received = 0;
      return absl::OkStatus();
    };
    auto sink = [&](std::string_view chunk) -> absl::Status {
      // Never more than the descriptor names, whatever the registry sends.
      if (chunk.size() > size - received) return BlobTooLong(blob.digest, repo, size);
      TP_RETURN_IF_ERROR(writer->Write(chunk));
      received += chunk.size();
      if (options.feed != nullptr)
        TP_RETURN_IF_ERROR(options.feed->Received(blob.digest, received));
      if (options.progress) options.progress->Advanced(blob, received);
      return absl::OkStatus();
    };
    // Each try asks for the bytes after those already written (Range); the
    // digest is checked once, at commit, over the whole file.
    absl::StatusOr<uint64_t> read = client.ReadBlob(repo, blob.digest, received, start, sink);
    if (read.ok() && received >= size) break;
    absl::Status failure =
        read.ok() ? absl::DataLossError(fmt::format(
                        "pulling blob {} from {}: the registry ended it after {} of {} bytes",
                        blob.digest.ToString(), repo.Name(), received, size))
                  : read.status();
    if (!(read.ok() || http::IsTransientTransportFailure(failure)) ||
        resumes >= options.max_resumes)
      return failure;
    TP_LOG(INFO, "{}; resuming at byte {}", std::string(failure.message()), received);
  }
  absl::StatusOr<oci::DigestAndSize> stored = writer->CommitExpecting(blob.digest, blob.size);
  if (!stored.ok()) {
    return base::WithContext(stored.status(), fmt::format("pulling blob {} from {}",
                                                          blob.digest.ToString(), repo.Name()));
  }
  if (options.feed != nullptr) options.feed->Stored(blob.digest, layout.BlobPath(blob.digest));
  return absl::OkStatus();
}

absl::StatusOr<TransferResult> Pull(RegistryClient& client, const Reference& source,
                                    const oci::Layout& layout, std::string_view tag,
                                    const PullOptions& options) {
  if (options.jobs < 1) return absl::InvalidArgumentError("pull jobs must be at least 1");
  TP_ASSIGN_OR_RETURN(ManifestBlob top, client.GetManifest(source));
  ManifestBlob chosen = top;
  std::optional<oci::Platform> platform;
  if (oci::IsIndexMediaType(top.media_type)) {
    TP_ASSIGN_OR_RETURN(oci::ImageIndex index, oci::ParseImageIndex(top.bytes));
    absl::StatusOr<oci::Descriptor> entry = oci::SelectManifest(index, options.platform);
    if (!entry.ok()) {
      return base::WithContext(entry.status(), fmt::format("pulling {}", source.String()));
    }
    Reference pinned = source;
    // The platform's manifest is fetched by digest, so it is the one the index
    // named even if the tag moves meanwhile, and its bytes are checked
    // against that digest.
    pinned.digest = entry->digest;
    TP_ASSIGN_OR_RETURN(chosen, client.GetManifest(pinned));
    platform = entry->platform;
  }
  if (!oci::IsManifestMediaType(chosen.media_type)) {
    return absl::UnimplementedError(fmt::format(
        "pulling {}: the registry served {} of type \"{}\", which is not an image manifest",
        source.String(), chosen.digest.ToString(), chosen.media_type));
  }
  TP_ASSIGN_OR_RETURN(oci::ImageManifest manifest, oci::ParseImageManifest(chosen.bytes));
  std::vector<oci::Descriptor> blobs{manifest.config};
  for (const oci::Descriptor& layer : manifest.layers) {
    if (std::none_of(blobs.begin(), blobs.end(),
                     [&](const oci::Descriptor& b) { return b.digest == layer.digest; })) {
      blobs.push_back(layer);
    }
  }
  oci::Descriptor root;
  root.media_type = chosen.media_type;
  root.digest = chosen.digest;
  root.size = static_cast<int64_t>(chosen.bytes.size());
  root.platform = platform;
  if (options.feed != nullptr) {
    options.feed->ManifestChosen(
        ChosenManifest{.descriptor = root, .bytes = chosen.bytes, .manifest = manifest});
  }
  std::vector<BlobReport> reports(blobs.size());
  absl::Status moved = internal::RunBounded(blobs.size(), options.jobs, [&](size_t i) {
    const oci::Descriptor& blob = blobs[i];
    BlobAction action = BlobAction::kPulled;
    if (layout.HasBlob(blob.digest)) {
      action = BlobAction::kExists;
      if (options.feed != nullptr) options.feed->Stored(blob.digest, layout.BlobPath(blob.digest));
    } else if (oci::IsNondistributableLayerMediaType(blob.media_type)) {
      action = BlobAction::kSkipped;
    } else {
      if (options.progress) options.progress->Started(blob);
      TP_RETURN_IF_ERROR(Download(client, source.repository, layout, blob, options));
    }
    if (options.locations != nullptr && action != BlobAction::kSkipped) {
      options.locations->Record(blob.digest, source.repository);
    }
    if (options.progress) options.progress->Finished(blob, action, "");
    reports[i] = BlobReport{.descriptor = blob, .action = action, .source = ""};
    return absl::OkStatus();
  });
  if (!moved.ok()) return moved;
  // The manifest goes in last, once every blob it names is stored (or
  // skipped as non-distributable): a failed pull leaves no manifest that
  // points at blobs it never got.
  TP_RETURN_IF_ERROR(layout.WriteBlob(root, chosen.bytes));
  TP_RETURN_IF_ERROR(layout.Tag(root, tag));
  return TransferResult{.reference = source.String(), .root = root, .blobs = std::move(reports)};
}

}  // namespace

oci::Platform DefaultPlatform() {
  oci::Platform platform;
  platform.architecture = "amd64";
  platform.os = "linux";
  return platform;
}

absl::StatusOr<TransferResult> PullImage(RegistryClient& client, const Reference& source,
                                         const oci::Layout& layout, std::string_view tag,
                                         const PullOptions& options) {
  absl::StatusOr<TransferResult> result = Pull(client, source, layout, tag, options);
  if (options.feed != nullptr) options.feed->Finished(result.status());
  return result;
}

}  // namespace trainpkg::registry
