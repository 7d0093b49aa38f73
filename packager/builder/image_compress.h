// Compressing an image's layers when it leaves the machine.
//
// `trainpkg build -t` keeps the layers it writes uncompressed in the local
// store (application/vnd.oci.image.layer.v1.tar), as Docker's and
// containers-storage's stores do: building and running locally never pay for
// compression. Pushing (and `trainpkg save`-like exports) call CompressImage,
// which writes the compressed form of each such layer next to it and a
// manifest naming those blobs:
//
//   TP_ASSIGN_OR_RETURN(CompressedImage out,
//                       CompressImage(store, manifest, {.compression = kGzip}, cache_dir));
//   PushImage(client, store, out.manifest, target, ...);
//
// The compressed bytes are WriteLayer's (CompressLayerBlob), and the manifest
// is the builder's with only those layer descriptors changed, so the result
// has exactly the digest `trainpkg build --output oci:` gives the same inputs
// with the same compression options. Each layer is compressed once per set of
// options: the blob is recorded under CompressedLayerKey(diff_id, options) in
// `cache_dir`/compressed (a LayerCache over `store`).
//
// Layers already compressed, foreign/non-distributable layers and Docker
// media types are kept as they are; an image index, or a manifest with no
// uncompressed layer, comes back unchanged (nothing written).
//
// Thread safety: one call per store at a time within a process; processes
// may share a store (blobs and key files are written atomically).
#ifndef TRAINPKG_PACKAGER_BUILDER_IMAGE_COMPRESS_H_
#define TRAINPKG_PACKAGER_BUILDER_IMAGE_COMPRESS_H_

#include <cstdint>
#include <filesystem>
#include <functional>

#include "absl/status/statusor.h"
#include "packager/layer/layer_options.h"
#include "registry/oci/byte_sink.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

// One layer, reported as it starts (done false; `cached` already known) and
// when done.
struct LayerCompressionStep {
  oci::Digest diff_id;
  int64_t uncompressed_size = 0;
  bool done = false;
  bool cached = false;         // compressed by an earlier call
  oci::Descriptor compressed;  // when done
  double seconds = 0;          // when done
};

struct CompressedImage {
  oci::Descriptor manifest;  // the input itself when nothing was compressed
  int layers_compressed = 0;
  int layers_cached = 0;
};

// Returns the image `manifest` (in `store`) with every uncompressed OCI layer
// compressed as `options` says (compression kGzip or kZstd, levels, block
// size, threads). Errors: InvalidArgument for kNone; the manifest's parse
// errors; CompressLayerBlob's (NotFound for a missing layer blob, DataLoss
// for a damaged one), naming the layer; the store's write errors.
//
// `progress` (may be empty) is told of each layer as it starts and ends.
// `copy_to` (may be empty) is asked, before an uncached layer is compressed,
// for a sink that also receives its compressed bytes as they are written
// (null: none; CompressLayerBlob's `copy`), e.g. to upload them meanwhile;
// the sink's errors fail the call.
absl::StatusOr<CompressedImage> CompressImage(
    const oci::Layout& store, const oci::Descriptor& manifest, const LayerOptions& options,
    const std::filesystem::path& cache_dir,
    const std::function<void(const LayerCompressionStep&)>& progress = {},
    const std::function<oci::ByteSink*(const oci::Digest& diff_id)>& copy_to = {});

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_IMAGE_COMPRESS_H_
