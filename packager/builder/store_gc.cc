#include "packager/builder/store_gc.h"

#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder {
namespace {

// The manifest size the distribution spec asks registries to accept (4 MB),
// and what trainpkg reads of a JSON body: anything larger is no manifest of ours.
constexpr int64_t kLargestManifest = 4 << 20;

// Adds `root` and what it reaches to `marked`. Blobs absent from the layout
// are marked but not followed (a lazy base's layers).
absl::Status Mark(const oci::Layout& layout, const oci::Descriptor& root,
                  std::set<oci::Digest>* marked) {
  if (!marked->insert(root.digest).second) return absl::OkStatus();
  if (!layout.HasBlob(root.digest)) return absl::OkStatus();
  if (oci::IsIndexMediaType(root.media_type)) {
    TP_ASSIGN_OR_RETURN(std::string bytes, layout.ReadBlob(root.digest));
    TP_ASSIGN_OR_RETURN(oci::ImageIndex index, oci::ParseImageIndex(bytes));
    for (const oci::Descriptor& child : index.manifests) {
      TP_RETURN_IF_ERROR(Mark(layout, child, marked));
    }
    return absl::OkStatus();
  }
  if (oci::IsManifestMediaType(root.media_type)) {
    TP_ASSIGN_OR_RETURN(std::string bytes, layout.ReadBlob(root.digest));
    TP_ASSIGN_OR_RETURN(oci::ImageManifest manifest, oci::ParseImageManifest(bytes));
    marked->insert(manifest.config.digest);
    for (const oci::Descriptor& layer : manifest.layers) marked->insert(layer.digest);
  }
  return absl::OkStatus();
}

// Every blob file named like a digest, with its size.
std::vector<std::pair<oci::Digest, int64_t>> StoredBlobs(const oci::Layout& layout) {
  std::vector<std::pair<oci::Digest, int64_t>> out;
  std::error_code ec;
  for (const auto& alg_dir : std::filesystem::directory_iterator(layout.root() / "blobs", ec)) {
    if (!alg_dir.is_directory(ec)) continue;
    for (const auto& file : std::filesystem::directory_iterator(alg_dir.path(), ec)) {
      auto digest = oci::Digest::Parse(alg_dir.path().filename().string() + ":" +
                                       file.path().filename().string());
      if (!digest.ok() || !file.is_regular_file(ec)) continue;
      out.emplace_back(*digest, static_cast<int64_t>(file.file_size(ec)));
    }
  }
  return out;
}

bool IsImageManifest(const oci::Layout& layout, const oci::Digest& digest, int64_t size) {
  // A blob file has no media type: a manifest is told from layers and configs
  // by its content, and only small JSON-looking blobs are parsed.
  if (size > kLargestManifest) return false;
  auto bytes = layout.ReadBlob(digest);
  if (!bytes.ok() || bytes->empty() || bytes->front() != '{') return false;
  auto manifest = oci::ParseImageManifest(*bytes);
  return manifest.ok() && !manifest->config.digest.empty();
}

}  // namespace

absl::StatusOr<std::set<oci::Digest>> ReachableBlobs(const oci::Layout& layout,
                                                     const oci::Descriptor& root) {
  std::set<oci::Digest> marked;
  TP_RETURN_IF_ERROR(Mark(layout, root, &marked));
  std::erase_if(marked, [&](const oci::Digest& digest) { return !layout.HasBlob(digest); });
  return marked;
}

absl::StatusOr<CollectedBlobs> CollectBlobs(const oci::Layout& layout,
                                            const std::set<oci::Digest>& extra_roots,
                                            const std::set<oci::Digest>* candidates) {
  std::set<oci::Digest> marked = extra_roots;
  TP_ASSIGN_OR_RETURN(oci::ImageIndex index, layout.ReadIndex());
  for (const oci::Descriptor& entry : index.manifests) {
    // One unreadable manifest stops the collection: its layers would otherwise
    // look unreachable and be deleted.
    absl::Status status = Mark(layout, entry, &marked);
    if (!status.ok()) {
      return base::WithContext(status,
                               fmt::format("reading {} (tagged in {}), so nothing was deleted",
                                           entry.digest.ToString(), layout.root().string()));
    }
  }
  CollectedBlobs collected;
  for (const auto& [digest, size] : StoredBlobs(layout)) {
    if (marked.contains(digest)) continue;
    if (candidates != nullptr && !candidates->contains(digest)) continue;
    const bool manifest = IsImageManifest(layout, digest, size);
    std::error_code ec;
    std::filesystem::remove(layout.BlobPath(digest), ec);
    if (ec) return base::ErrnoToStatus(ec.value(), "deleting " + layout.BlobPath(digest).string());
    if (manifest) collected.manifests.push_back(digest);
    ++collected.blobs;
    collected.bytes += size;
  }
  return collected;
}

absl::StatusOr<std::vector<oci::Digest>> DanglingManifests(const oci::Layout& layout) {
  std::set<oci::Digest> marked;
  TP_ASSIGN_OR_RETURN(oci::ImageIndex index, layout.ReadIndex());
  for (const oci::Descriptor& entry : index.manifests) {
    TP_RETURN_IF_ERROR(Mark(layout, entry, &marked));
  }
  std::vector<oci::Digest> out;
  for (const auto& [digest, size] : StoredBlobs(layout)) {
    if (!marked.contains(digest) && IsImageManifest(layout, digest, size)) out.push_back(digest);
  }
  return out;
}

}  // namespace trainpkg::packager::builder
