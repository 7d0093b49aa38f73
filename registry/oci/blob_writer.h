// Streams one blob into an oci-layout: bytes go to a temporary file under
// blobs/<alg>/ while they are hashed; Commit renames the file to its digest,
// so a blob path never shows partial content. Made by Layout::NewBlobWriter.
//
//   TP_ASSIGN_OR_RETURN(BlobWriter w, layout.NewBlobWriter());
//   TP_RETURN_IF_ERROR(w.Write(chunk)); ...
//   TP_ASSIGN_OR_RETURN(DigestAndSize blob, w.Commit());
//
// Every 8 MiB written, the writer asks the kernel to start writing those
// pages to disk (sync_file_range), so the disk works while the producer
// does, and Commit's fsync waits only for the tail rather than the whole blob.
//
// Movable, not copyable, not thread-safe. A writer destroyed without a
// successful Commit removes its temporary file.
#ifndef TRAINPKG_REGISTRY_OCI_BLOB_WRITER_H_
#define TRAINPKG_REGISTRY_OCI_BLOB_WRITER_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "registry/oci/byte_sink.h"
#include "registry/oci/digest.h"
#include "registry/oci/digest_builder.h"

namespace trainpkg::oci {

class Layout;

class BlobWriter final : public ByteSink {
 public:
  ~BlobWriter() override;
  BlobWriter(BlobWriter&& other) noexcept;
  BlobWriter& operator=(BlobWriter&& other) = delete;
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;

  // Errors from write(2) name the temporary file. REQUIRES: not committed.
  absl::Status Write(std::string_view data) override;
  int64_t size() const { return builder_.size(); }
  // The temporary file the bytes go to until Commit renames it (a reader
  // may follow it there: registry/blob_feed.h).
  const std::filesystem::path& temp_path() const { return temp_path_; }

  // fsyncs and renames the file to blobs/<alg>/<hex>; returns what it holds.
  // REQUIRES: called once.
  absl::StatusOr<DigestAndSize> Commit();
  // Like Commit, but stores nothing and returns DataLoss when the content
  // does not hash to `expected` (or is not `expected_size` bytes, when >= 0).
  absl::StatusOr<DigestAndSize> CommitExpecting(const Digest& expected, int64_t expected_size = -1);

 private:
  friend class Layout;
  BlobWriter(std::filesystem::path blobs_dir, std::filesystem::path temp_path, int fd,
             DigestAlgorithm algorithm)
      : blobs_dir_(std::move(blobs_dir)),
        temp_path_(std::move(temp_path)),
        fd_(fd),
        builder_(algorithm) {}
  absl::StatusOr<DigestAndSize> Finish(const Digest* expected, int64_t expected_size);
  absl::Status CloseFile();
  void Discard();
  // Starts writeback of what was written since the last call, once that is
  // at least kWritebackChunk bytes.
  void StartWriteback();

  static constexpr int64_t kWritebackChunk = int64_t{8} << 20;

  std::filesystem::path blobs_dir_;  // blobs/<alg>
  std::filesystem::path temp_path_;
  int fd_ = -1;
  DigestBuilder builder_;
  int64_t writeback_started_ = 0;  // bytes before this offset are queued for the disk
  bool done_ = false;
};

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_BLOB_WRITER_H_
