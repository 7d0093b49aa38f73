#include "packager/builder/image_compress.h"

#include <chrono>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/layer_key.h"
#include "packager/layer/layer_writer.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder {

absl::StatusOr<CompressedImage> CompressImage(
    const oci::Layout& store, const oci::Descriptor& manifest, const LayerOptions& options,
    const std::filesystem::path& cache_dir,
    const std::function<void(const LayerCompressionStep&)>& progress,
    const std::function<oci::ByteSink*(const oci::Digest& diff_id)>& copy_to) {
  if (options.compression == LayerCompression::kNone) {
    return absl::InvalidArgumentError(
        "compressing an image's layers: no compression was chosen (gzip or zstd)");
  }
  CompressedImage result{.manifest = manifest};
  // Only our own OCI manifests can hold uncompressed layers worth
  // compressing; indexes and Docker manifests go out as they are.
  if (manifest.media_type != oci::media_types::kOciImageManifest) return result;
  TP_ASSIGN_OR_RETURN(std::string bytes, store.ReadBlob(manifest));
  TP_ASSIGN_OR_RETURN(oci::ImageManifest parsed, oci::ParseImageManifest(bytes));
  LayerCache cache(cache_dir / "compressed", store);
  for (oci::Descriptor& layer : parsed.layers) {
    if (layer.media_type != oci::media_types::kOciLayer) continue;
    // An uncompressed layer's digest is its diff_id.
    const oci::Digest diff_id = layer.digest;
    const std::string key = CompressedLayerKey(diff_id, options);
    LayerCompressionStep step;
    step.diff_id = diff_id;
    step.uncompressed_size = layer.size;
    const auto start = std::chrono::steady_clock::now();
    std::optional<CachedLayer> cached = cache.Lookup(key);
    step.cached = cached.has_value();
    if (progress) progress(step);
    if (!cached) {
      oci::ByteSink* copy = copy_to ? copy_to(diff_id) : nullptr;
      TP_ASSIGN_OR_RETURN(LayerResult written, CompressLayerBlob(store, diff_id, options, copy));
      oci::Descriptor descriptor;
      descriptor.media_type = std::string(LayerMediaType(options.compression));
      descriptor.digest = written.digest;
      descriptor.size = written.size;
      cached = CachedLayer{descriptor, diff_id};
      TP_RETURN_IF_ERROR(cache.Record(key, *cached));
      ++result.layers_compressed;
    } else {
      ++result.layers_cached;
    }
    // Only the blob changes: annotations and other fields stay.
    layer.media_type = cached->descriptor.media_type;
    layer.digest = cached->descriptor.digest;
    layer.size = cached->descriptor.size;
    step.done = true;
    step.compressed = layer;
    step.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(step);
  }
  if (result.layers_compressed + result.layers_cached == 0) return result;
  TP_RETURN_IF_ERROR(oci::ValidateImageManifest(parsed));
  // A new manifest beside the stored one, which keeps its uncompressed layers.
  TP_ASSIGN_OR_RETURN(result.manifest, store.WriteBlob(oci::SerializeImageManifest(parsed),
                                                       oci::media_types::kOciImageManifest));
  return result;
}

}  // namespace trainpkg::packager::builder
