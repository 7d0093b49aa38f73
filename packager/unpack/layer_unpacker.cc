#include "packager/unpack/layer_unpacker.h"

#include <archive.h>
#include <archive_entry.h>

#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/unpack/internal/layer_applier.h"
#include "packager/unpack/internal/layer_stream.h"
#include "packager/unpack/internal/root_dir.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::unpack {
namespace {

absl::Status InLayer(const oci::Descriptor& layer, const absl::Status& status) {
  return base::WithContext(status, fmt::format("layer {}", layer.digest.ToString()));
}

absl::Status ApplyEntries(internal::LayerStream& stream, internal::LayerApplier& applier,
                          ExtractBudget& budget) {
  struct archive* tar = stream.tar();
  for (;;) {
    struct archive_entry* entry = nullptr;
    int r = ::archive_read_next_header(tar, &entry);
    if (r == ARCHIVE_EOF) return absl::OkStatus();
    if (!stream.budget_status().ok()) return stream.budget_status();
    if (!stream.read_status().ok()) return stream.read_status();
    if (r < ARCHIVE_WARN) {
      const char* why = ::archive_error_string(tar);
      return absl::DataLossError(
          fmt::format("reading the tar: {}", why != nullptr ? why : "unknown error"));
    }
    const char* name = ::archive_entry_pathname(entry);
    // The declared size is charged before a byte is written, so one huge
    // member is refused up front; the stream charge (LayerStream) bounds what
    // really decompresses, whatever the headers declare.
    TP_RETURN_IF_ERROR(budget.AddEntry(::archive_entry_size(entry)));
    absl::Status applied = applier.Apply(tar, entry);
    if (!stream.budget_status().ok()) return stream.budget_status();
    if (!stream.read_status().ok()) return stream.read_status();
    if (!applied.ok()) {
      return base::WithContext(applied, fmt::format("entry {}", name == nullptr ? "" : name));
    }
  }
}

absl::Status UnpackWithin(std::unique_ptr<oci::ByteSource> blob, const oci::Descriptor& layer,
                          const oci::Digest& diff_id, const std::filesystem::path& rootfs,
                          const UnpackOptions& options, ExtractBudget& budget) {
  if (!oci::IsLayerMediaType(layer.media_type)) {
    return InLayer(layer, absl::InvalidArgumentError(
                              fmt::format("media type {} is not a layer type", layer.media_type)));
  }
  absl::StatusOr<internal::RootDir> root = internal::RootDir::Open(rootfs);
  if (!root.ok()) return root.status();
  absl::StatusOr<std::unique_ptr<internal::LayerStream>> stream =
      internal::LayerStream::Open(std::move(blob), layer, diff_id, &budget);
  if (!stream.ok()) return InLayer(layer, stream.status());
  internal::LayerApplier applier(*root, options);
  absl::Status applied = ApplyEntries(**stream, applier, budget);
  if (!applied.ok()) return InLayer(layer, applied);
  // The digests are known only once the whole blob has been read, after its
  // entries are written; callers unpack into a directory they discard on
  // error (RootfsCache's temporary one), so unverified content is never used.
  absl::Status verified = (*stream)->Finish();
  if (!verified.ok()) return InLayer(layer, verified);
  return absl::OkStatus();
}

}  // namespace

absl::Status UnpackLayer(const std::filesystem::path& blob, const oci::Descriptor& layer,
                         const oci::Digest& diff_id, const std::filesystem::path& rootfs,
                         const UnpackOptions& options) {
  TP_ASSIGN_OR_RETURN(ExtractBudget budget, ExtractBudget::ForTarget(options.limits, rootfs));
  absl::StatusOr<std::unique_ptr<oci::ByteSource>> source = oci::OpenFileSource(blob);
  if (!source.ok()) return InLayer(layer, source.status());
  return UnpackWithin(*std::move(source), layer, diff_id, rootfs, options, budget);
}

BlobOpener LayoutBlobs(const oci::Layout& layout) {
  return
      [&layout](const oci::Descriptor& blob) -> absl::StatusOr<std::unique_ptr<oci::ByteSource>> {
        if (!layout.HasBlob(blob.digest)) {
          return absl::NotFoundError(fmt::format("blob not in {}", layout.root().string()));
        }
        return oci::OpenFileSource(layout.BlobPath(blob.digest));
      };
}

absl::Status UnpackLayers(const oci::Layout& layout, std::span<const oci::Descriptor> layers,
                          std::span<const oci::Digest> diff_ids,
                          const std::filesystem::path& rootfs, const UnpackOptions& options) {
  return UnpackLayers(LayoutBlobs(layout), layers, diff_ids, rootfs, options);
}

absl::Status UnpackLayers(const BlobOpener& open_blob, std::span<const oci::Descriptor> layers,
                          std::span<const oci::Digest> diff_ids,
                          const std::filesystem::path& rootfs, const UnpackOptions& options) {
  if (layers.size() != diff_ids.size()) {
    return absl::InvalidArgumentError(
        fmt::format("{} layers but {} diff_ids; the image config must list one per layer",
                    layers.size(), diff_ids.size()));
  }
  // One budget for all layers: an image of many layers gets the same cap as
  // one of a single layer.
  TP_ASSIGN_OR_RETURN(ExtractBudget budget, ExtractBudget::ForTarget(options.limits, rootfs));
  for (size_t i = 0; i < layers.size(); ++i) {
    // Layer i's bytes may still be arriving (a pull feeding the unpack):
    // the opener's source then blocks until they do.
    absl::StatusOr<std::unique_ptr<oci::ByteSource>> blob = open_blob(layers[i]);
    if (!blob.ok()) return InLayer(layers[i], blob.status());
    TP_RETURN_IF_ERROR(
        UnpackWithin(*std::move(blob), layers[i], diff_ids[i], rootfs, options, budget));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::unpack
