#include "registry/oci/blob_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::oci {

BlobWriter::BlobWriter(BlobWriter&& other) noexcept
    : blobs_dir_(std::move(other.blobs_dir_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(std::exchange(other.fd_, -1)),
      builder_(std::move(other.builder_)),
      writeback_started_(other.writeback_started_),
      done_(std::exchange(other.done_, true)) {}

BlobWriter::~BlobWriter() {
  if (!done_) Discard();
}

void BlobWriter::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  std::error_code ignored;
  std::filesystem::remove(temp_path_, ignored);
  done_ = true;
}

absl::Status BlobWriter::Write(std::string_view data) {
  if (done_) {
    std::fprintf(stderr, "trainpkg: BlobWriter::Write after Commit\n");
    std::abort();
  }
  std::string_view rest = data;
  while (!rest.empty()) {
    ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return base::ErrnoToStatus(errno, fmt::format("writing {}", temp_path_.string()));
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  builder_.Update(data);
  StartWriteback();
  return absl::OkStatus();
}

void BlobWriter::StartWriteback() {
  const int64_t written = builder_.size();
  if (written - writeback_started_ < kWritebackChunk) return;
  // Asynchronous: queues the dirty pages for the disk and returns. Advisory,
  // so its errors are ignored; CloseFile's fsync reports real I/O errors.
  ::sync_file_range(fd_, writeback_started_, written - writeback_started_, SYNC_FILE_RANGE_WRITE);
  writeback_started_ = written;
}

absl::Status BlobWriter::CloseFile() {
  int fd = std::exchange(fd_, -1);
  // Synced before the rename: a blob is named by its digest, and after a
  // crash the name must never stand for anything but those bytes.
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return base::ErrnoToStatus(err, fmt::format("syncing {}", temp_path_.string()));
  }
  if (::close(fd) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("closing {}", temp_path_.string()));
  }
  return absl::OkStatus();
}

absl::StatusOr<DigestAndSize> BlobWriter::Commit() { return Finish(nullptr, -1); }

absl::StatusOr<DigestAndSize> BlobWriter::CommitExpecting(const Digest& expected,
                                                          int64_t expected_size) {
  return Finish(&expected, expected_size);
}

absl::StatusOr<DigestAndSize> BlobWriter::Finish(const Digest* expected, int64_t expected_size) {
  if (done_) {
    std::fprintf(stderr, "trainpkg: BlobWriter committed twice\n");
    std::abort();
  }
  DigestAndSize blob;
  blob.size = builder_.size();
  blob.digest = builder_.Finish();
  if (expected != nullptr &&
      (blob.digest != *expected || (expected_size >= 0 && blob.size != expected_size))) {
    Discard();
    return absl::DataLossError(fmt::format("blob {}: the content written ({} bytes) hashes to {}",
                                           expected->ToString(), blob.size,
                                           blob.digest.ToString()));
  }
  absl::Status closed = CloseFile();
  if (!closed.ok()) {
    Discard();
    return closed;
  }
  // The temporary file lives in the same directory, so the rename is atomic:
  // readers see no blob or the whole blob.
  std::filesystem::path final_path = blobs_dir_ / blob.digest.hex();
  if (::rename(temp_path_.c_str(), final_path.c_str()) != 0) {
    int err = errno;
    Discard();
    return base::ErrnoToStatus(
        err, fmt::format("renaming {} to {}", temp_path_.string(), final_path.string()));
  }
  done_ = true;
  return blob;
}

}  // namespace trainpkg::oci
