// Writes one reproducible image layer: a tar of a LayerSource, compressed,
// streamed into a sink, with diff_id, digest and size computed on the way.
//
//   TP_ASSIGN_OR_RETURN(oci::BlobWriter blob, layout.NewBlobWriter());  // any oci::ByteSink
//   auto env_epoch = SourceDateEpochFromEnvironment(base::ProcessEnvironment());
//   LayerOptions options{.source_date_epoch = *env_epoch};
//   TP_ASSIGN_OR_RETURN(LayerResult layer,
//                       WriteLayer(LayerSource::DirectoryTree(dir), options, &blob));
//   // layer.diff_id -> config rootfs.diff_ids; layer.digest, layer.size -> descriptor
//
// Bytes: the same entries (paths, types, contents, link targets, the
// overrides) with the same options give the same tar, hence the same diff_id,
// on any host, whatever the files' owners, permission bits beyond the
// executable bit, atimes/ctimes, directory listing order or the locale; and,
// compressed, the same digest (which depends on gzip_level and
// gzip_block_size, never on threads). Entry rules are in layer_entry.h
// and internal/layer_plan.h; the tar format in internal/tar_writer.h; the gzip
// framing (concatenated members, fixed headers) in
// docs/adr/2026-11-22-layer-compression.md.
//
// Memory: O(threads * gzip_block_size) plus the entry list; never the layer.
// Thread safety: WriteLayer may run concurrently on different sinks.
#ifndef TRAINPKG_PACKAGER_LAYER_LAYER_WRITER_H_
#define TRAINPKG_PACKAGER_LAYER_LAYER_WRITER_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "packager/layer/layer_entry.h"
#include "packager/layer/layer_options.h"
#include "registry/oci/byte_sink.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager {

struct LayerResult {
  oci::Digest diff_id;            // sha256 of the uncompressed tar
  oci::Digest digest;             // sha256 of the bytes written to the sink
  int64_t size = 0;               // bytes written to the sink
  int64_t uncompressed_size = 0;  // bytes of tar
  int64_t entries = 0;            // tar entries, parents and whiteouts included
};

// Streams the layer into `sink` (not owned; used only during the call, from
// the calling thread). Errors, all prefixed "writing layer: ": InvalidArgument
// for bad options or entries (naming the path: escapes, whiteout names, file
// types, conflicts), NotFound for a missing root or source, FailedPrecondition
// when a file changes while it is read, the sink's own error when it fails.
// After an error the sink holds a truncated layer.
absl::StatusOr<LayerResult> WriteLayer(const LayerSource& source, const LayerOptions& options,
                                       oci::ByteSink* sink);

// Like WriteLayer, into a new blob of `layout` (sha256), committed (fsynced
// and named by its digest) before it returns: result.digest and size are the
// blob's. The compressed bytes are hashed once, by the blob writer. Errors:
// WriteLayer's, and the layout's when the blob cannot be written; no blob
// is left behind after an error.
absl::StatusOr<LayerResult> WriteLayerBlob(const LayerSource& source, const LayerOptions& options,
                                           const oci::Layout& layout);

// Compresses the uncompressed layer blob `tar` of `layout` into a new blob
// of the same layout, as `options` says (kGzip or kZstd; level, block size and
// threads as for WriteLayer): the bytes are exactly those WriteLayer writes for
// the same tar, so a layer compressed later has the digest it would have had
// if compressed while it was written. The tar is hashed as it is read and
// must match `tar` (result.diff_id). Errors, prefixed "compressing layer
// DIGEST: ": InvalidArgument for kNone or bad options, NotFound for a missing
// blob, DataLoss when the blob's bytes do not hash to `tar`, the layout's
// write errors; no blob is left behind after an error. `copy` (not owned; may
// be null) receives every compressed byte too, in order, as it is written to
// the blob (from one thread at a time, not necessarily the caller's); its
// errors fail the call.
absl::StatusOr<LayerResult> CompressLayerBlob(const oci::Layout& layout, const oci::Digest& tar,
                                              const LayerOptions& options,
                                              oci::ByteSink* copy = nullptr);

// The OCI media type of a layer written with `compression`.
std::string_view LayerMediaType(LayerCompression compression);

}  // namespace trainpkg::packager

#endif  // TRAINPKG_PACKAGER_LAYER_LAYER_WRITER_H_
