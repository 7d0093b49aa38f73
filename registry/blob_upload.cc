#include "registry/blob_upload.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "base/file_util.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/unique_fd.h"
#include "fmt/format.h"
#include "http/url.h"
#include "registry/internal/file_range_source.h"
#include "registry/internal/upload_range.h"

namespace trainpkg::registry {
namespace {

struct Upload {
  RegistryClient& client;
  const Repository& repo;
  const oci::Descriptor& blob;
  const std::filesystem::path& file;
  int fd;
  uint64_t size;
  const UploadOptions& options;
  const std::function<void(uint64_t)>& on_bytes;

  void Report(uint64_t done) const {
    if (on_bytes) on_bytes(done);
  }

  internal::FileRangeSource Range(uint64_t offset, uint64_t length) const {
    return internal::FileRangeSource(fd, file, offset, length,
                                     [this](uint64_t position) { Report(position); });
  }

  absl::Status Monolithic(const UploadSession& session) const {
    internal::FileRangeSource whole = Range(0, size);
    return client.CompleteUpload(repo, session.url, blob.digest, &whole);
  }

  // PATCHes from the session's offset to the end, then commits. `session`
  // follows the newest Location, so the caller can cancel what is left.
  absl::Status Chunked(UploadSession& session, uint64_t chunk) const {
    int resumes = 0;
    while (session.offset < size) {
      uint64_t length = std::min(chunk, size - session.offset);
      internal::FileRangeSource part = Range(session.offset, length);
      absl::StatusOr<UploadSession> next = client.PatchUpload(repo, session, part);
      if (next.ok()) {
        session = *std::move(next);
        Report(session.offset);
        continue;
      }
      // The PATCH may or may not have landed: ask, never resend blindly.
      if (++resumes > options.max_resumes) return next.status();
      TP_LOG(INFO, "{}; asking the registry where upload {} stands",
             std::string(next.status().message()), http::UrlForDisplay(session.url));
      client.WaitForRetryAfter(next.status());
      TP_ASSIGN_OR_RETURN(session, client.GetUploadStatus(repo, session.url));
      Report(session.offset);
    }
    if (session.offset != size) {
      return absl::DataLossError(
          fmt::format("the registry holds {} bytes of a {}-byte blob", session.offset, size));
    }
    // Every byte is in the session already; the PUT carries only the digest,
    // which the registry checks against what it holds.
    return client.CompleteUpload(repo, session.url, blob.digest, nullptr);
  }
};

// Failures after which a fresh session may succeed: the session or the
// connection was lost, or the registry was briefly unable. Anything else
// (auth, a rejected digest, a local read error) would fail again.
bool WorthANewSession(const absl::Status& status) {
  if (http::IsTransientTransportFailure(status)) return true;
  return status.code() == absl::StatusCode::kNotFound ||
         status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kResourceExhausted;
}

}  // namespace

absl::Status UploadBlob(RegistryClient& client, const Repository& repo, const oci::Descriptor& blob,
                        const std::filesystem::path& file, std::optional<UploadSession> session,
                        const UploadOptions& options,
                        const std::function<void(uint64_t)>& on_bytes) {
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return base::ErrnoToStatus(errno, "opening " + file.string());
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(file, ec);
  if (ec || size != static_cast<uint64_t>(blob.size)) {
    return absl::DataLossError(fmt::format("{} holds {} bytes, but blob {} has {}", file.string(),
                                           ec ? 0 : size, blob.digest.ToString(), blob.size));
  }
  Upload upload{client, repo, blob, file, fd.get(), size, options, on_bytes};
  uint64_t chunk = std::max(options.chunk_size, internal::kMinChunkSize);
  // A blob that fits one chunk goes in a single PUT: one request instead of
  // a PATCH and a PUT.
  bool chunked = options.chunk_size > 0 && size > chunk;
  absl::Status last;
  for (int attempt = 0; attempt <= options.max_session_restarts; ++attempt) {
    if (!session.has_value()) {
      absl::StatusOr<UploadSession> started = client.StartUpload(repo);
      if (!started.ok()) return started.status();
      session = *std::move(started);
    }
    upload.Report(0);
    last = chunked ? upload.Chunked(*session, chunk) : upload.Monolithic(*session);
    if (last.ok()) return last;
    // A commit whose answer was lost may have landed (jib #4301).
    absl::StatusOr<std::optional<BlobInfo>> there = client.StatBlob(repo, blob.digest);
    if (there.ok() && there->has_value()) return absl::OkStatus();
    // The failed session is cancelled (best effort) before a new one starts,
    // so attempts do not pile up half-written sessions on the registry.
    absl::Status cancelled = client.CancelUpload(repo, session->url);
    if (!cancelled.ok()) TP_LOG(WARNING, "{}", std::string(cancelled.message()));
    session.reset();
    if (!WorthANewSession(last)) return last;
    if (attempt < options.max_session_restarts) {
      TP_LOG(INFO, "{}; starting a new upload session", std::string(last.message()));
      client.WaitForRetryAfter(last);  // a 429 or 503 may say when
    }
  }
  return last;
}

}  // namespace trainpkg::registry
