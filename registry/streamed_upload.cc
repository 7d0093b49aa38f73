#include "registry/streamed_upload.h"

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "fmt/format.h"
#include "registry/http_transport.h"
#include "registry/internal/upload_range.h"
#include "registry/internal/url.h"

namespace trainpkg::registry {

StreamedUpload::StreamedUpload(RegistryClient& client, Repository repo, uint64_t chunk_size)
    : client_(client),
      repo_(std::move(repo)),
      chunk_size_(std::max(chunk_size, internal::kMinChunkSize)) {}

StreamedUpload::~StreamedUpload() {
  if (session_ && !committed_ && failure_.ok()) {
    absl::Status cancelled = client_.CancelUpload(repo_, session_->url);
    if (!cancelled.ok()) TP_LOG(INFO, "{}", std::string(cancelled.message()));
  }
}

void StreamedUpload::Fail(absl::Status status) {
  failure_ = std::move(status);
  buffer_.clear();
  buffer_.shrink_to_fit();
  if (!session_) return;
  // Best effort: an abandoned session also expires on the registry.
  absl::Status cancelled = client_.CancelUpload(repo_, session_->url);
  if (!cancelled.ok()) TP_LOG(INFO, "{}", std::string(cancelled.message()));
}

void StreamedUpload::Flush() {
  if (!session_) {
    absl::StatusOr<UploadSession> started = client_.StartUpload(repo_);
    if (!started.ok()) return Fail(started.status());
    session_ = *std::move(started);
  }
  StringBodySource chunk(std::move(buffer_));
  buffer_ = std::string();
  absl::StatusOr<UploadSession> next = client_.PatchUpload(repo_, *session_, chunk);
  if (!next.ok()) return Fail(next.status());
  session_ = *std::move(next);
}

absl::Status StreamedUpload::Write(std::string_view data) {
  if (!failure_.ok() || committed_) return absl::OkStatus();
  while (!data.empty()) {
    const size_t take = std::min<size_t>(data.size(), chunk_size_ - buffer_.size());
    buffer_.append(data.substr(0, take));
    data.remove_prefix(take);
    if (buffer_.size() == chunk_size_) {
      Flush();
      if (!failure_.ok()) return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

absl::Status StreamedUpload::Commit(const oci::Digest& digest) {
  if (committed_) return absl::FailedPreconditionError("the streamed upload was committed already");
  if (!failure_.ok()) return failure_;
  if (!session_) {
    absl::StatusOr<UploadSession> started = client_.StartUpload(repo_);
    if (!started.ok()) {
      Fail(started.status());
      return failure_;
    }
    session_ = *std::move(started);
  }
  StringBodySource rest(std::move(buffer_));
  buffer_ = std::string();
  absl::Status done = client_.CompleteUpload(repo_, session_->url, digest, &rest);
  if (!done.ok()) {
    Fail(done);
    return failure_;
  }
  committed_ = true;
  return absl::OkStatus();
}

}  // namespace trainpkg::registry
