// Uploading a blob while it is being produced (a layer compressed on the way
// out), so that producing and sending overlap:
//
//   StreamedUpload upload(client, repo);
//   ... write the blob's bytes to `upload` (and to the local file) ...
//   absl::Status sent = upload.Commit(digest);   // OK: the registry has it
//
// Bytes go out in PATCH chunks of `chunk_size` into one upload session, sent
// by a thread of this object so that the producer never waits for the
// network while fewer than `max_queued` bytes are waiting to be sent (then
// Write blocks: the producer runs at the network's pace). Commit sends the
// rest with the final PUT ?digest=, whose answer the client checks. The
// digest is only needed then: this is why a blob can be sent before it is
// known.
//
// Best effort by design: this path does not resume. The first failure ends
// the stream: the session is cancelled (DELETE), queued and later bytes are
// dropped and Write still returns OK (the producer must not fail because the
// network did), and Commit returns that failure. The caller then uploads the
// finished blob from its file with UploadBlob, which asks where sessions
// stand and resumes. A StreamedUpload destroyed without Commit stops its
// thread and cancels its session.
//
// Thread safety: Write and Commit from one thread at a time (not
// necessarily the one that constructed it); ok() from any.
#ifndef TRAINPKG_REGISTRY_STREAMED_UPLOAD_H_
#define TRAINPKG_REGISTRY_STREAMED_UPLOAD_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/status.h"
#include "registry/oci/byte_sink.h"
#include "registry/oci/digest.h"
#include "registry/reference.h"
#include "registry/registry_client.h"

namespace trainpkg::registry {

class StreamedUpload final : public oci::ByteSink {
 public:
  static constexpr uint64_t kDefaultChunkSize = uint64_t{8} << 20;
  static constexpr uint64_t kDefaultMaxQueued = uint64_t{64} << 20;

  // `client` must outlive this object.
  StreamedUpload(RegistryClient& client, Repository repo, uint64_t chunk_size = kDefaultChunkSize,
                 uint64_t max_queued = kDefaultMaxQueued);
  ~StreamedUpload() override;
  StreamedUpload(const StreamedUpload&) = delete;
  StreamedUpload& operator=(const StreamedUpload&) = delete;

  // Buffers `data`; whole chunks are queued for the sender. Always OK (see
  // above).
  absl::Status Write(std::string_view data) override;

  // Waits for the queued chunks, then sends what is buffered with the final
  // PUT as `digest`. The failure that ended the stream, if any (then nothing
  // is committed); FailedPrecondition when called twice.
  absl::Status Commit(const oci::Digest& digest);

  // Whether no failure has ended the stream yet.
  bool ok() const;

 private:
  void SendLoop();
  // Opens the session if needed and PATCHes `chunk`. Called without mu_.
  absl::Status Send(std::string chunk);
  // Records the first failure, drops what is queued and cancels the
  // session. REQUIRES: mu_ held by the caller's lock `lock` (released while
  // the DELETE is sent).
  void Fail(absl::Status status, std::unique_lock<std::mutex>& lock);

  RegistryClient& client_;
  const Repository repo_;
  const uint64_t chunk_size_;
  const uint64_t max_queued_;
  std::string buffer_;  // the chunk being filled (producer only)

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;         // guarded by mu_
  uint64_t queued_bytes_ = 0;             // guarded by mu_
  bool sending_ = false;                  // a chunk is in flight; guarded by mu_
  bool stop_ = false;                     // guarded by mu_
  std::optional<UploadSession> session_;  // guarded by mu_ (written by the sender)
  absl::Status failure_;                  // guarded by mu_
  bool committed_ = false;                // producer only
  std::thread sender_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_STREAMED_UPLOAD_H_
