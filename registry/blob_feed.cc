#include "registry/blob_feed.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/unique_fd.h"
#include "fmt/format.h"

namespace trainpkg::registry {

// Follows one blob: the download's temporary file up to the bytes received,
// then the stored blob to its end.
class BlobFeed::Reader final : public oci::ByteSource {
 public:
  Reader(BlobFeed* feed, oci::Descriptor blob) : feed_(feed), blob_(std::move(blob)) {}

  absl::StatusOr<size_t> Read(std::span<char> buffer) override {
    if (buffer.empty()) return 0;
    for (;;) {
      std::filesystem::path file;
      int attempt = 0;
      bool stored = false;
      uint64_t available = 0;
      {
        std::unique_lock<std::mutex> lock(feed_->mu_);
        auto readable = [&] {
          auto it = feed_->blobs_.find(blob_.digest);
          return it != feed_->blobs_.end() && (it->second.stored || it->second.received > offset_);
        };
        feed_->changed_.wait(lock, [&] {
          return readable() || feed_->finished_.has_value() || !feed_->cancelled_.ok();
        });
        if (!feed_->cancelled_.ok()) return feed_->cancelled_;
        if (!readable()) return PullEndedWithout();
        const Blob& state = feed_->blobs_.at(blob_.digest);
        // A pull that ended without storing the blob removed its file: what
        // is left unread can never arrive.
        if (feed_->finished_.has_value() && !state.stored) return PullEndedWithout();
        file = state.file;
        attempt = state.attempt;
        stored = state.stored;
        available = stored ? std::numeric_limits<uint64_t>::max() : state.received - offset_;
      }
      // A restarted download is a new file; a stored one is the same inode
      // as the download's (renamed), so an open descriptor stays good.
      if (!fd_.valid() || attempt != attempt_) {
        int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
          // Renamed into place (or replaced) between the look and the open:
          // look again.
          if (errno == ENOENT && !stored) {
            std::unique_lock<std::mutex> lock(feed_->mu_);
            feed_->changed_.wait_for(lock, std::chrono::milliseconds(10));
            continue;
          }
          return base::ErrnoToStatus(errno, fmt::format("opening {}", file.string()));
        }
        fd_.Reset(fd);
        attempt_ = attempt;
      }
      const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), available));
      ssize_t n = ::pread(fd_.get(), buffer.data(), want, static_cast<off_t>(offset_));
      if (n < 0) {
        if (errno == EINTR) continue;
        return base::ErrnoToStatus(errno, fmt::format("reading {}", file.string()));
      }
      if (n == 0) {
        if (stored) return 0;
        continue;  // not expected: received counts bytes already written
      }
      offset_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  }

 private:
  // REQUIRES: feed_->mu_ held and the pull finished.
  absl::Status PullEndedWithout() const {
    if (!feed_->finished_->ok()) return *feed_->finished_;
    return absl::FailedPreconditionError(fmt::format(
        "the pull ended without blob {} (a non-distributable layer?)", blob_.digest.ToString()));
  }

  BlobFeed* feed_;
  oci::Descriptor blob_;
  uint64_t offset_ = 0;
  base::UniqueFd fd_;
  int attempt_ = -1;
};

absl::StatusOr<ChosenManifest> BlobFeed::WaitForManifest() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return manifest_.has_value() || finished_.has_value(); });
  if (manifest_.has_value()) return *manifest_;
  if (!finished_->ok()) return *finished_;
  return absl::InternalError("the pull ended without choosing a manifest");
}

std::unique_ptr<oci::ByteSource> BlobFeed::Open(const oci::Descriptor& blob) {
  return std::make_unique<Reader>(this, blob);
}

void BlobFeed::Cancel(absl::Status why) {
  if (why.ok()) why = absl::CancelledError("the pull's consumer gave up");
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_.ok()) cancelled_ = std::move(why);
  changed_.notify_all();
}

void BlobFeed::ManifestChosen(const ChosenManifest& chosen) {
  std::lock_guard<std::mutex> lock(mu_);
  manifest_ = chosen;
  changed_.notify_all();
}

void BlobFeed::Downloading(const oci::Digest& digest, const std::filesystem::path& temp_file) {
  std::lock_guard<std::mutex> lock(mu_);
  Blob& blob = blobs_[digest];
  blob.file = temp_file;
  ++blob.attempt;
  blob.received = 0;
  blob.stored = false;
  changed_.notify_all();
}

absl::Status BlobFeed::Received(const oci::Digest& digest, uint64_t total) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!cancelled_.ok()) {
    if (absl::IsCancelled(cancelled_)) return cancelled_;
    return absl::CancelledError(
        absl::StrCat("the pull's consumer gave up: ", cancelled_.message()));
  }
  blobs_[digest].received = total;
  changed_.notify_all();
  return absl::OkStatus();
}

void BlobFeed::Stored(const oci::Digest& digest, const std::filesystem::path& path) {
  std::lock_guard<std::mutex> lock(mu_);
  Blob& blob = blobs_[digest];
  blob.file = path;
  blob.stored = true;
  changed_.notify_all();
}

void BlobFeed::Finished(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = status;
  changed_.notify_all();
}

}  // namespace trainpkg::registry
