#include "packager/unpack/internal/layer_stream.h"

#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::unpack::internal {
namespace {

constexpr size_t kBufferSize = 1 << 16;

std::string ArchiveErrorText(struct archive* a) {
  const char* text = ::archive_error_string(a);
  return text != nullptr ? text : "unknown libarchive error";
}

struct Compression {
  int filter;         // ARCHIVE_FILTER_*
  const char* name;   // for messages
  int (*enable)(struct archive*);  // null: none
};

constexpr size_t kMagicBytes = 6;

// What the first bytes of a blob say it is compressed with ("" for none of
// the formats below).
std::string_view SniffCompression(std::string_view magic) {
  auto starts = [&](std::initializer_list<unsigned char> prefix) {
    return magic.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(),
                      reinterpret_cast<const unsigned char*>(magic.data()));
  };
  if (starts({0x1f, 0x8b})) return "gzip data";
  if (starts({'B', 'Z', 'h'})) return "bzip2 data";
  if (starts({0xfd, '7', 'z', 'X', 'Z', 0x00})) return "xz data";
  if (starts({0x28, 0xb5, 0x2f, 0xfd})) return "zstd data";
  if (starts({0x5d, 0x00, 0x00})) return "lzma data";
  return "";
}

// The one decompressor `media_type` (a layer type) names.
Compression CompressionOf(std::string_view media_type) {
  if (media_type.ends_with("+gzip") || media_type.ends_with(".tar.gzip")) {
    return {ARCHIVE_FILTER_GZIP, "gzip", &::archive_read_support_filter_gzip};
  }
  if (media_type.ends_with("+zstd")) {
    return {ARCHIVE_FILTER_ZSTD, "zstd", &::archive_read_support_filter_zstd};
  }
  return {ARCHIVE_FILTER_NONE, "no compression", nullptr};
}

}  // namespace

LayerStream::LayerStream(std::unique_ptr<oci::ByteSource> blob, const oci::Descriptor& layer,
                         const oci::Digest& diff_id, ExtractBudget* budget)
    : blob_(std::move(blob)),
      layer_(layer),
      diff_id_(diff_id),
      compressed_digest_(layer.digest.algorithm()),
      tar_digest_(diff_id.algorithm()),
      compressed_buffer_(kBufferSize, '\0'),
      tar_buffer_(kBufferSize, '\0'),
      budget_(budget) {}

LayerStream::~LayerStream() {
  if (tar_ != nullptr) ::archive_read_free(tar_);
  if (raw_ != nullptr) ::archive_read_free(raw_);
}

absl::StatusOr<std::unique_ptr<LayerStream>> LayerStream::Open(
    std::unique_ptr<oci::ByteSource> blob, const oci::Descriptor& layer,
    const oci::Digest& diff_id, ExtractBudget* budget) {
  std::unique_ptr<LayerStream> stream(new LayerStream(std::move(blob), layer, diff_id, budget));
  // Two readers in a chain: raw_ decompresses the blob and tar_ reads the
  // result through ReadTar, so the compressed bytes (digest) and the tar
  // bytes (diff_id) are both hashed in the one pass that unpacks them.
  stream->raw_ = ::archive_read_new();
  const Compression compression = CompressionOf(layer.media_type);
  // ARCHIVE_WARN means libarchive would run an external program instead.
  if (compression.enable != nullptr && compression.enable(stream->raw_) != ARCHIVE_OK) {
    return absl::FailedPreconditionError(fmt::format(
        "this libarchive has no built-in {} decompressor (trainpkg never runs an external one)",
        compression.name));
  }
  ::archive_read_support_format_raw(stream->raw_);
  if (::archive_read_open(stream->raw_, stream.get(), nullptr, &LayerStream::ReadCompressed,
                          nullptr) != ARCHIVE_OK) {
    if (!stream->read_status_.ok()) return stream->read_status_;
    return absl::InvalidArgumentError(
        fmt::format("not a {} blob: {}", layer.media_type, ArchiveErrorText(stream->raw_)));
  }
  struct archive_entry* raw_entry = nullptr;
  if (::archive_read_next_header(stream->raw_, &raw_entry) != ARCHIVE_OK) {
    if (!stream->read_status_.ok()) return stream->read_status_;
    return absl::InvalidArgumentError(
        fmt::format("reading the blob: {}", ArchiveErrorText(stream->raw_)));
  }
  // With only that decompressor enabled, other data passes through raw.
  // Only the compression the media type names is accepted: a runtime that
  // trusted the media type would read such a blob differently, or not at all.
  std::string_view found = SniffCompression(stream->magic_);
  if (::archive_filter_code(stream->raw_, 0) != compression.filter ||
      (compression.filter == ARCHIVE_FILTER_NONE && !found.empty())) {
    return absl::InvalidArgumentError(fmt::format(
        "the media type {} names {}, but the blob is {}; only the compression a layer's "
        "media type names is accepted",
        layer.media_type, compression.name, found.empty() ? "something else" : found));
  }
  stream->tar_ = ::archive_read_new();
  ::archive_read_support_format_tar(stream->tar_);
  if (::archive_read_open(stream->tar_, stream.get(), nullptr, &LayerStream::ReadTar, nullptr) !=
      ARCHIVE_OK) {
    if (!stream->budget_status_.ok()) return stream->budget_status_;
    std::string why =
        stream->decompress_error_.empty() ? ArchiveErrorText(stream->tar_) : stream->decompress_error_;
    return absl::InvalidArgumentError(fmt::format("not a tar archive: {}", why));
  }
  return stream;
}

la_ssize_t LayerStream::ReadCompressed(struct archive* a, void* self, const void** buffer) {
  auto* stream = static_cast<LayerStream*>(self);
  absl::StatusOr<size_t> read = stream->blob_->Read(stream->compressed_buffer_);
  if (!read.ok()) {
    stream->read_status_ = read.status();
    ::archive_set_error(a, EIO, "reading the blob failed: %s",
                        std::string(read.status().message()).c_str());
    return -1;
  }
  const size_t n = *read;
  if (stream->magic_.size() < kMagicBytes) {
    stream->magic_.append(stream->compressed_buffer_.data(),
                          std::min(n, kMagicBytes - stream->magic_.size()));
  }
  stream->compressed_digest_.Update(std::string_view(stream->compressed_buffer_.data(), n));
  *buffer = stream->compressed_buffer_.data();
  return static_cast<la_ssize_t>(n);
}

la_ssize_t LayerStream::ReadTar(struct archive* a, void* self, const void** buffer) {
  auto* stream = static_cast<LayerStream*>(self);
  la_ssize_t n =
      ::archive_read_data(stream->raw_, stream->tar_buffer_.data(), stream->tar_buffer_.size());
  if (n < 0) {
    stream->decompress_error_ = fmt::format("decompressing: {}", ArchiveErrorText(stream->raw_));
    ::archive_set_error(a, EIO, "%s", stream->decompress_error_.c_str());
    return -1;
  }
  // Charged as decompressed, before the tar reader sees the bytes, so a
  // compression bomb stops at the limit whatever its headers claim.
  if (absl::Status charged = stream->budget_->AddStreamBytes(n); !charged.ok()) {
    stream->budget_status_ = charged;
    stream->decompress_error_ = std::string(charged.message());
    ::archive_set_error(a, EFBIG, "%s", stream->decompress_error_.c_str());
    return -1;
  }
  stream->tar_digest_.Update(std::string_view(stream->tar_buffer_.data(), n));
  *buffer = stream->tar_buffer_.data();
  return n;
}

absl::Status LayerStream::Finish() {
  // The tar reader stops at the end-of-archive blocks: hash what follows.
  const void* ignored = nullptr;
  for (;;) {
    la_ssize_t n = ReadTar(tar_, this, &ignored);
    if (!budget_status_.ok()) return budget_status_;
    if (n < 0) return absl::DataLossError(decompress_error_);
    if (n == 0) break;
  }
  for (;;) {
    la_ssize_t n = ReadCompressed(raw_, this, &ignored);
    if (n < 0) return read_status_;
    if (n == 0) break;
  }
  const int64_t size = compressed_digest_.size();
  oci::Digest digest = compressed_digest_.Finish();
  oci::Digest uncompressed = tar_digest_.Finish();
  if (size != layer_.size) {
    return absl::DataLossError(
        fmt::format("blob is {} bytes, the descriptor says {}", size, layer_.size));
  }
  if (digest != layer_.digest) {
    return absl::DataLossError(fmt::format("blob content has digest {}", digest.ToString()));
  }
  if (uncompressed != diff_id_) {
    return absl::DataLossError(fmt::format("uncompressed tar has digest {}, the diff_id is {}",
                                           uncompressed.ToString(), diff_id_.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::unpack::internal
