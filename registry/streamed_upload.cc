#include "registry/streamed_upload.h"

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "http/http_transport.h"
#include "registry/internal/upload_range.h"

namespace trainpkg::registry {

StreamedUpload::StreamedUpload(RegistryClient& client, Repository repo, uint64_t chunk_size,
                               uint64_t max_queued)
    : client_(client),
      repo_(std::move(repo)),
      chunk_size_(std::max(chunk_size, internal::kMinChunkSize)),
      max_queued_(std::max(max_queued, chunk_size_)),
      sender_([this] { SendLoop(); }) {}

StreamedUpload::~StreamedUpload() {
  std::unique_lock<std::mutex> lock(mu_);
  stop_ = true;
  changed_.notify_all();
  lock.unlock();
  sender_.join();
  lock.lock();
  if (!committed_ && failure_.ok() && session_) {
    absl::Status cancelled = client_.CancelUpload(repo_, session_->url);
    if (!cancelled.ok()) TP_LOG(INFO, "{}", std::string(cancelled.message()));
  }
}

bool StreamedUpload::ok() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_.ok();
}

void StreamedUpload::Fail(absl::Status status, std::unique_lock<std::mutex>& lock) {
  failure_ = std::move(status);
  queue_.clear();
  queued_bytes_ = 0;
  changed_.notify_all();
  if (!session_) return;
  // The session is read under the lock, the DELETE sent without it: the
  // producer must not wait on the network to learn of the failure.
  const std::string url = session_->url;
  lock.unlock();
  // Best effort: an abandoned session also expires on the registry.
  absl::Status cancelled = client_.CancelUpload(repo_, url);
  if (!cancelled.ok()) TP_LOG(INFO, "{}", std::string(cancelled.message()));
  lock.lock();
}

absl::Status StreamedUpload::Send(std::string chunk) {
  std::optional<UploadSession> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    session = session_;
  }
  if (!session) {
    absl::StatusOr<UploadSession> started = client_.StartUpload(repo_);
    if (!started.ok()) return started.status();
    session = *std::move(started);
    std::lock_guard<std::mutex> lock(mu_);
    session_ = session;
  }
  http::StringBodySource body(std::move(chunk));
  absl::StatusOr<UploadSession> next = client_.PatchUpload(repo_, *session, body);
  if (!next.ok()) return next.status();
  std::lock_guard<std::mutex> lock(mu_);
  session_ = *std::move(next);
  return absl::OkStatus();
}

void StreamedUpload::SendLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    changed_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    std::string chunk = std::move(queue_.front());
    queue_.pop_front();
    const uint64_t size = chunk.size();
    sending_ = true;
    lock.unlock();
    absl::Status sent = Send(std::move(chunk));
    lock.lock();
    sending_ = false;
    queued_bytes_ -= std::min(queued_bytes_, size);
    changed_.notify_all();
    if (!sent.ok() && failure_.ok()) Fail(std::move(sent), lock);
  }
}

absl::Status StreamedUpload::Write(std::string_view data) {
  if (committed_) return absl::OkStatus();
  while (!data.empty()) {
    const size_t take = std::min<size_t>(data.size(), chunk_size_ - buffer_.size());
    buffer_.append(data.substr(0, take));
    data.remove_prefix(take);
    if (buffer_.size() < chunk_size_) continue;
    std::unique_lock<std::mutex> lock(mu_);
    // At most max_queued_ bytes wait: then the producer waits for the network.
    changed_.wait(lock,
                  [this] { return !failure_.ok() || queued_bytes_ + chunk_size_ <= max_queued_; });
    if (!failure_.ok()) {
      buffer_.clear();
      return absl::OkStatus();  // dropped: the caller uploads the finished blob
    }
    queued_bytes_ += buffer_.size();
    queue_.push_back(std::move(buffer_));
    buffer_ = std::string();
    buffer_.reserve(chunk_size_);
    changed_.notify_all();
  }
  return absl::OkStatus();
}

absl::Status StreamedUpload::Commit(const oci::Digest& digest) {
  if (committed_) return absl::FailedPreconditionError("the streamed upload was committed already");
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return !failure_.ok() || (queue_.empty() && !sending_); });
  if (!failure_.ok()) return failure_;
  std::optional<UploadSession> session = session_;
  lock.unlock();
  if (!session) {
    absl::StatusOr<UploadSession> started = client_.StartUpload(repo_);
    lock.lock();
    if (!started.ok()) {
      Fail(started.status(), lock);
      return failure_;
    }
    session_ = *started;
    session = *std::move(started);
    lock.unlock();
  }
  // The last, short chunk rides on the PUT: only whole chunks are PATCHed,
  // so no PATCH is below chunk_size.
  http::StringBodySource rest(std::move(buffer_));
  buffer_ = std::string();
  absl::Status done = client_.CompleteUpload(repo_, session->url, digest, &rest);
  lock.lock();
  if (!done.ok()) {
    Fail(done, lock);
    return failure_;
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace trainpkg::registry
