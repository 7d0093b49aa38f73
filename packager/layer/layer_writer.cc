#include "packager/layer/layer_writer.h"

#include <memory>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/layer/internal/layer_plan.h"
#include "packager/layer/internal/parallel_gzip_writer.h"
#include "packager/layer/internal/tar_writer.h"
#include "registry/oci/hashing_writer.h"

namespace trainpkg::packager {
namespace {

using layer_internal::ParallelGzipWriter;

absl::Status CheckOptions(const LayerOptions& options) {
  if (options.gzip_level < 0 || options.gzip_level > 12) {
    return absl::InvalidArgumentError(
        fmt::format("gzip level {} is outside 0..12", options.gzip_level));
  }
  if (options.gzip_block_size == 0) {
    return absl::InvalidArgumentError("gzip block size must be positive");
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("threads must be >= 1, got {}", options.threads));
  }
  return absl::OkStatus();
}

absl::StatusOr<LayerResult> Write(const LayerSource& source, const LayerOptions& options,
                                  oci::ByteSink* sink) {
  TP_RETURN_IF_ERROR(CheckOptions(options));
  TP_ASSIGN_OR_RETURN(std::vector<layer_internal::TarEntry> entries,
                      layer_internal::PlanLayer(source, options));

  const bool gzip = options.compression == LayerCompression::kGzip;
  oci::HashingWriter compressed(sink);
  std::unique_ptr<ParallelGzipWriter> gzip_writer;
  if (gzip) {
    gzip_writer = std::make_unique<ParallelGzipWriter>(
        &compressed, ParallelGzipWriter::Options{.level = options.gzip_level,
                                                 .block_size = options.gzip_block_size,
                                                 .threads = options.threads});
  }
  oci::HashingWriter uncompressed(gzip ? static_cast<oci::ByteSink*>(gzip_writer.get()) : sink);

  TP_ASSIGN_OR_RETURN(std::unique_ptr<layer_internal::TarWriter> tar,
                      layer_internal::TarWriter::Open(&uncompressed));
  for (const layer_internal::TarEntry& entry : entries) TP_RETURN_IF_ERROR(tar->Add(entry));
  TP_RETURN_IF_ERROR(tar->Close());
  if (gzip) TP_RETURN_IF_ERROR(gzip_writer->Finish());

  LayerResult result;
  result.uncompressed_size = uncompressed.size();
  result.diff_id = uncompressed.Finish();
  result.entries = static_cast<int64_t>(entries.size());
  if (gzip) {
    result.size = compressed.size();
    result.digest = compressed.Finish();
  } else {
    result.size = result.uncompressed_size;
    result.digest = result.diff_id;
  }
  return result;
}

}  // namespace

absl::StatusOr<LayerResult> WriteLayer(const LayerSource& source, const LayerOptions& options,
                                       oci::ByteSink* sink) {
  absl::StatusOr<LayerResult> result = Write(source, options, sink);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        fmt::format("writing layer: {}", std::string(result.status().message())));
  }
  return result;
}

}  // namespace trainpkg::packager
