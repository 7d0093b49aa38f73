// A layer blob read as a tar, digests checked on the way: the compressed
// bytes against the descriptor (digest and size), the decompressed bytes
// against the diff_id. Compression (gzip, zstd, none) is detected from the
// bytes by libarchive. The blob comes from a ByteSource: a file, or a
// download still in progress (read as it arrives).
#ifndef TRAINPKG_PACKAGER_UNPACK_INTERNAL_LAYER_STREAM_H_
#define TRAINPKG_PACKAGER_UNPACK_INTERNAL_LAYER_STREAM_H_

#include <archive.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "packager/unpack/extract_limits.h"
#include "registry/oci/byte_source.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/digest_builder.h"

namespace trainpkg::packager::unpack::internal {

class LayerStream {
 public:
  // `budget` is charged with every decompressed byte; not owned, must
  // outlive the stream.
  static absl::StatusOr<std::unique_ptr<LayerStream>> Open(std::unique_ptr<oci::ByteSource> blob,
                                                           const oci::Descriptor& layer,
                                                           const oci::Digest& diff_id,
                                                           ExtractBudget* budget);
  ~LayerStream();
  LayerStream(const LayerStream&) = delete;
  LayerStream& operator=(const LayerStream&) = delete;

  // The tar reader: archive_read_next_header / archive_read_data on it.
  struct archive* tar() const {
    return tar_;
  }

  // Reads what is left of both streams and checks size, digest and diff_id
  // (DataLoss naming the expected and actual values).
  absl::Status Finish();

  // Why the decompressed stream stopped when the budget ran out (then the
  // tar reader reports an error too); OK otherwise.
  const absl::Status& budget_status() const { return budget_status_; }
  // Why reading the blob failed (a download that broke off, say; then the
  // readers report an error too); OK otherwise.
  const absl::Status& read_status() const { return read_status_; }

 private:
  LayerStream(std::unique_ptr<oci::ByteSource> blob, const oci::Descriptor& layer,
              const oci::Digest& diff_id, ExtractBudget* budget);
  static la_ssize_t ReadCompressed(struct archive*, void* self, const void** buffer);
  static la_ssize_t ReadTar(struct archive*, void* self, const void** buffer);

  std::unique_ptr<oci::ByteSource> blob_;
  // The blob's first bytes, to name its real compression in errors.
  std::string magic_;
  // Why reading the blob failed; OK otherwise.
  absl::Status read_status_;
  oci::Descriptor layer_;
  oci::Digest diff_id_;
  oci::DigestBuilder compressed_digest_;
  oci::DigestBuilder tar_digest_;
  std::string compressed_buffer_;
  std::string tar_buffer_;
  std::string decompress_error_;
  ExtractBudget* budget_;
  absl::Status budget_status_;
  struct archive* raw_ = nullptr;  // decompresses
  struct archive* tar_ = nullptr;  // parses the decompressed bytes
};

}  // namespace trainpkg::packager::unpack::internal

#endif  // TRAINPKG_PACKAGER_UNPACK_INTERNAL_LAYER_STREAM_H_
