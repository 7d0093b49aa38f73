#include "packager/layer/layer_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "base/file_util.h"
#include "base/status_context.h"
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

// The compressing end of a layer's chain: tar bytes written to input() reach
// `out` compressed as `options` says (or as they are, for kNone).
class Compressor {
 public:
  Compressor(const LayerOptions& options, oci::ByteSink* out) : out_(out) {
    if (options.compression == LayerCompression::kGzip) {
      gzip_ = std::make_unique<ParallelGzipWriter>(
          out, ParallelGzipWriter::Options{.level = options.gzip_level,
                                           .block_size = options.gzip_block_size,
                                           .threads = options.threads});
    } else if (options.compression == LayerCompression::kZstd) {
      zstd_ = std::make_unique<ZstdWriter>(
          out, ZstdWriter::Options{.level = options.zstd_level, .threads = options.threads});
    }
  }

  oci::ByteSink* input() {
    if (gzip_) return gzip_.get();
    if (zstd_) return zstd_.get();
    return out_;
  }
  bool compresses() const { return gzip_ || zstd_; }
  // Flushes what is buffered into `out`. REQUIRES: every input() write done.
  absl::Status Finish() {
    if (gzip_) return gzip_->Finish();
    if (zstd_) return zstd_->Finish();
    return absl::OkStatus();
  }

 private:
  oci::ByteSink* out_;
  std::unique_ptr<ParallelGzipWriter> gzip_;
  std::unique_ptr<ZstdWriter> zstd_;
};

// `hash_output`: whether to hash what reaches `sink` (result.digest and
// size); false when the sink hashes it itself (a BlobWriter), so that the
// bytes are hashed once: the caller then fills digest and size, and for an
// uncompressed layer also diff_id (the same digest).
absl::StatusOr<LayerResult> Write(const LayerSource& source, const LayerOptions& options,
                                  oci::ByteSink* sink, bool hash_output) {
  TP_RETURN_IF_ERROR(CheckOptions(options));
  TP_ASSIGN_OR_RETURN(layer_internal::LayerPlan plan, layer_internal::PlanLayer(source, options));
  const std::vector<layer_internal::TarEntry>& entries = plan.entries;

  oci::HashingWriter hashed_output(sink);
  Compressor compressor(options, hash_output ? &hashed_output : sink);
  const bool compress = compressor.compresses();
  oci::HashingWriter uncompressed(compressor.input());
  // Uncompressed into a self-hashing sink: the sink's digest is the diff_id.
  const bool hash_tar = compress || hash_output;
  oci::ByteSink* tar_out = hash_tar ? &uncompressed : compressor.input();

  TP_ASSIGN_OR_RETURN(std::unique_ptr<layer_internal::TarWriter> tar,
                      layer_internal::TarWriter::Open(tar_out));
  for (const layer_internal::TarEntry& entry : entries) TP_RETURN_IF_ERROR(tar->Add(entry));
  TP_RETURN_IF_ERROR(tar->Close());
  TP_RETURN_IF_ERROR(compressor.Finish());

  LayerResult result;
  result.entries = static_cast<int64_t>(entries.size());
  if (hash_tar) {
    result.uncompressed_size = uncompressed.size();
    result.diff_id = uncompressed.Finish();
  }
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
  return base::WithContext(status, "writing layer");
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
  if (options.compression == LayerCompression::kNone) {
    result->diff_id = blob->digest;
    result->uncompressed_size = blob->size;
  }
  return result;
}

// Writes to two sinks, `first` then `second`.
class TeeSink final : public oci::ByteSink {
 public:
  TeeSink(oci::ByteSink* first, oci::ByteSink* second) : first_(first), second_(second) {}
  absl::Status Write(std::string_view data) override {
    TP_RETURN_IF_ERROR(first_->Write(data));
    return second_->Write(data);
  }

 private:
  oci::ByteSink* first_;
  oci::ByteSink* second_;
};

absl::StatusOr<LayerResult> CompressLayerBlob(const oci::Layout& layout, const oci::Digest& tar,
                                              const LayerOptions& options, oci::ByteSink* copy) {
  auto fail = [&](const absl::Status& status) {
    return base::WithContext(status, fmt::format("compressing layer {}", tar.ToString()));
  };
  if (options.compression == LayerCompression::kNone) {
    return fail(absl::InvalidArgumentError("no compression was chosen (gzip or zstd)"));
  }
  if (absl::Status checked = CheckOptions(options); !checked.ok()) return fail(checked);
  const std::filesystem::path path = layout.BlobPath(tar);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return fail(err == ENOENT ? absl::NotFoundError(fmt::format("no blob {} in {}", tar.ToString(),
                                                                layout.root().string()))
                              : base::ErrnoToStatus(err, fmt::format("opening {}", path.string())));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  absl::StatusOr<oci::BlobWriter> writer = layout.NewBlobWriter();
  if (!writer.ok()) {
    ::close(fd);
    return fail(writer.status());
  }
  LayerResult result;
  absl::Status status = [&]() -> absl::Status {
    TeeSink tee(&*writer, copy);
    Compressor compressor(options, copy != nullptr ? static_cast<oci::ByteSink*>(&tee) : &*writer);
    oci::HashingWriter uncompressed(compressor.input());
    std::string buffer(size_t{1} << 20, '\0');
    while (true) {
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
      if (n == 0) break;
      TP_RETURN_IF_ERROR(uncompressed.Write(std::string_view(buffer.data(), n)));
    }
    TP_RETURN_IF_ERROR(compressor.Finish());
    result.uncompressed_size = uncompressed.size();
    result.diff_id = uncompressed.Finish();
    if (result.diff_id != tar) {
      return absl::DataLossError(fmt::format("{} hashes to {}; the blob is damaged", path.string(),
                                             result.diff_id.ToString()));
    }
    return absl::OkStatus();
  }();
  ::close(fd);
  if (!status.ok()) return fail(status);  // the writer's temporary file goes with it
  absl::StatusOr<oci::DigestAndSize> blob = writer->Commit();
  if (!blob.ok()) return fail(blob.status());
  result.digest = blob->digest;
  result.size = blob->size;
  return result;
}

}  // namespace trainpkg::packager
