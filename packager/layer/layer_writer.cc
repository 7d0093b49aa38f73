#include "packager/layer/layer_writer.h"

#include <memory>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/layer/internal/layer_plan.h"
#include "packager/layer/internal/parallel_gzip_writer.h"
#include "packager/layer/internal/tar_writer.h"
#include "packager/layer/internal/zstd_writer.h"
#include "registry/oci/blob_writer.h"
#include "registry/oci/hashing_writer.h"
#include "registry/oci/layout.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager {
namespace {

using layer_internal::ParallelGzipWriter;
using layer_internal::ZstdWriter;

absl::Status CheckOptions(const LayerOptions& options) {
  if (options.gzip_level < 0 || options.gzip_level > 12) {
    return absl::InvalidArgumentError(
        fmt::format("gzip level {} is outside 0..12", options.gzip_level));
  }
  if (options.gzip_block_size == 0) {
    return absl::InvalidArgumentError("gzip block size must be positive");
  }
  if (options.zstd_level < 1 || options.zstd_level > 19) {
    return absl::InvalidArgumentError(
        fmt::format("zstd level {} is outside 1..19", options.zstd_level));
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("threads must be >= 1, got {}", options.threads));
  }
  return absl::OkStatus();
}

// `hash_output`: whether to hash what reaches `sink` (result.digest and
// size); false when the sink hashes it itself (a BlobWriter), so that the
// compressed bytes are hashed once.
absl::StatusOr<LayerResult> Write(const LayerSource& source, const LayerOptions& options,
                                  oci::ByteSink* sink, bool hash_output) {
  TP_RETURN_IF_ERROR(CheckOptions(options));
  TP_ASSIGN_OR_RETURN(layer_internal::LayerPlan plan, layer_internal::PlanLayer(source, options));
  const std::vector<layer_internal::TarEntry>& entries = plan.entries;

  oci::HashingWriter hashed_output(sink);
  oci::ByteSink* compressed = hash_output ? static_cast<oci::ByteSink*>(&hashed_output) : sink;
  std::unique_ptr<ParallelGzipWriter> gzip_writer;
  std::unique_ptr<ZstdWriter> zstd_writer;
  oci::ByteSink* tar_sink = compressed;
  if (options.compression == LayerCompression::kGzip) {
    gzip_writer = std::make_unique<ParallelGzipWriter>(
        compressed, ParallelGzipWriter::Options{.level = options.gzip_level,
                                                .block_size = options.gzip_block_size,
                                                .threads = options.threads});
    tar_sink = gzip_writer.get();
  } else if (options.compression == LayerCompression::kZstd) {
    zstd_writer = std::make_unique<ZstdWriter>(
        compressed, ZstdWriter::Options{.level = options.zstd_level, .threads = options.threads});
    tar_sink = zstd_writer.get();
  }
  const bool compress = tar_sink != compressed;
  oci::HashingWriter uncompressed(tar_sink);

  TP_ASSIGN_OR_RETURN(std::unique_ptr<layer_internal::TarWriter> tar,
                      layer_internal::TarWriter::Open(&uncompressed));
  for (const layer_internal::TarEntry& entry : entries) TP_RETURN_IF_ERROR(tar->Add(entry));
  TP_RETURN_IF_ERROR(tar->Close());
  if (gzip_writer) TP_RETURN_IF_ERROR(gzip_writer->Finish());
  if (zstd_writer) TP_RETURN_IF_ERROR(zstd_writer->Finish());

  LayerResult result;
  result.uncompressed_size = uncompressed.size();
  result.diff_id = uncompressed.Finish();
  result.entries = static_cast<int64_t>(entries.size());
  if (!hash_output) return result;  // the caller fills digest and size
  if (compress) {
    result.size = hashed_output.size();
    result.digest = hashed_output.Finish();
  } else {
    result.size = result.uncompressed_size;
    result.digest = result.diff_id;
  }
  return result;
}

}  // namespace

std::string_view LayerMediaType(LayerCompression compression) {
  switch (compression) {
    case LayerCompression::kGzip:
      return oci::media_types::kOciLayerGzip;
    case LayerCompression::kZstd:
      return oci::media_types::kOciLayerZstd;
    case LayerCompression::kNone:
      return oci::media_types::kOciLayer;
  }
  return oci::media_types::kOciLayer;
}

absl::Status Prefixed(const absl::Status& status) {
  return absl::Status(status.code(),
                      fmt::format("writing layer: {}", std::string(status.message())));
}

absl::StatusOr<LayerResult> WriteLayer(const LayerSource& source, const LayerOptions& options,
                                       oci::ByteSink* sink) {
  absl::StatusOr<LayerResult> result = Write(source, options, sink, /*hash_output=*/true);
  if (!result.ok()) return Prefixed(result.status());
  return result;
}

absl::StatusOr<LayerResult> WriteLayerBlob(const LayerSource& source, const LayerOptions& options,
                                           const oci::Layout& layout) {
  absl::StatusOr<oci::BlobWriter> writer = layout.NewBlobWriter();
  if (!writer.ok()) return Prefixed(writer.status());
  absl::StatusOr<LayerResult> result = Write(source, options, &*writer, /*hash_output=*/false);
  if (!result.ok()) return Prefixed(result.status());
  absl::StatusOr<oci::DigestAndSize> blob = writer->Commit();
  if (!blob.ok()) return Prefixed(blob.status());
  result->digest = blob->digest;
  result->size = blob->size;
  return result;
}

}  // namespace trainpkg::packager
