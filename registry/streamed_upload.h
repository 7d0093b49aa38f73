// Uploading a blob while it is being produced (a layer compressed on the way
// out), so that producing and sending overlap:
//
//   StreamedUpload upload(client, repo);
//   ... write the blob's bytes to `upload` (and to the local file) ...
//   absl::Status sent = upload.Commit(digest);   // OK: the registry has it
//
// Bytes go out in PATCH chunks of `chunk_size` into one upload session (the
// first write opens it), and Commit sends the rest with the final PUT
// ?digest=, whose answer the client checks. The digest is only needed then:
// this is why a blob can be sent before it is known.
//
// Best effort by design: this path does not resume. The first failure ends
// the stream: the session is cancelled (DELETE), later writes are dropped
// and still return OK (the producer must not fail because the network did),
// and Commit returns that failure. The caller then uploads the finished
// blob from its file with UploadBlob, which asks where sessions stand and
// resumes. A StreamedUpload destroyed without Commit cancels its session.
//
// Thread safety: one thread at a time (Write may be called from a thread
// other than the one that constructed it).
#ifndef TRAINPKG_REGISTRY_STREAMED_UPLOAD_H_
#define TRAINPKG_REGISTRY_STREAMED_UPLOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "registry/oci/byte_sink.h"
#include "registry/oci/digest.h"
#include "registry/reference.h"
#include "registry/registry_client.h"

namespace trainpkg::registry {

class StreamedUpload final : public oci::ByteSink {
 public:
  static constexpr uint64_t kDefaultChunkSize = uint64_t{8} << 20;

  // `client` must outlive this object.
  StreamedUpload(RegistryClient& client, Repository repo, uint64_t chunk_size = kDefaultChunkSize);
  ~StreamedUpload() override;
  StreamedUpload(const StreamedUpload&) = delete;
  StreamedUpload& operator=(const StreamedUpload&) = delete;

  // Buffers `data` and PATCHes whole chunks. Always OK (see above).
  absl::Status Write(std::string_view data) override;

  // Sends what is buffered with the final PUT as `digest`. The failure that
  // ended the stream, if any (then nothing is committed); FailedPrecondition
  // when called twice.
  absl::Status Commit(const oci::Digest& digest);

  // Whether no failure has ended the stream yet.
  bool ok() const { return failure_.ok(); }
  // Bytes the registry acknowledged so far.
  uint64_t sent() const { return session_ ? session_->offset : 0; }

 private:
  // PATCHes `buffer_`; on failure records it and cancels the session.
  void Flush();
  void Fail(absl::Status status);

  RegistryClient& client_;
  Repository repo_;
  uint64_t chunk_size_;
  std::optional<UploadSession> session_;
  std::string buffer_;
  absl::Status failure_;
  bool committed_ = false;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_STREAMED_UPLOAD_H_
