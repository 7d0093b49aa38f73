// The distribution-API client: ping, blobs (stat, streamed and ranged
// download, monolithic upload, the upload-session steps: start, mount,
// patch, status, complete, cancel), manifests (put, get, both verified
// against their digest) and tags, over any OCI registry. Requests go
// through AuthTransport → RetryTransport → the HTTP transport.
#ifndef TRAINPKG_REGISTRY_REGISTRY_CLIENT_H_
#define TRAINPKG_REGISTRY_REGISTRY_CLIENT_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/clock.h"
#include "http/curl_transport.h"
#include "http/http_transport.h"
#include "http/retry_transport.h"
#include "registry/auth/authenticator.h"
#include "registry/auth/credential.h"
#include "registry/oci/digest.h"
#include "registry/reference.h"

namespace trainpkg::registry {

struct RegistryClientOptions {
  std::shared_ptr<Keychain> keychain;  // null: anonymous
  // Registries ("host[:port]") that may be spoken to over plain HTTP and
  // whose certificates are not verified (docker's insecure-registries).
  // Loopback registries may use plain HTTP too, but a TLS one is verified.
  std::vector<std::string> insecure_registries;
  http::CurlTransportOptions curl;                 // used when `transport` is null
  std::shared_ptr<http::HttpTransport> transport;  // null: libcurl
  http::RetryPolicy retry;
  base::Clock* clock = nullptr;  // null: base::RealClock(); must outlive the client
};

struct BlobInfo {
  oci::Digest digest;
  int64_t size = 0;
};

struct ManifestBlob {
  std::string media_type;  // the response's Content-Type, without parameters
  oci::Digest digest;      // sha256 of `bytes`
  std::string bytes;       // exactly as stored
};

// An open blob upload session (distribution spec "Location"): where the next
// request goes and how many bytes the registry holds.
struct UploadSession {
  std::string url;  // absolute; always the newest Location the registry sent
  uint64_t offset = 0;
};

// The answer to a cross-repository mount request: either the registry
// linked the blob (201), or it opened an upload session instead (202), which
// the caller must use or cancel.
struct MountResult {
  bool mounted = false;
  UploadSession session;  // when !mounted
};

// DataLoss for a blob download that passed its descriptor's `size`.
absl::Status BlobTooLong(const oci::Digest& digest, const Repository& repo, uint64_t size);

// The types GetManifest accepts by default: OCI and Docker v2 manifests and
// indexes.
const std::vector<std::string>& DefaultManifestAccept();

// Thread-safe. Errors name the operation and the object ("pushing blob
// sha256:ab12… to 127.0.0.1:5000/app: HTTP 401: UNAUTHORIZED: …"); codes
// follow StatusFromResponse.
class RegistryClient {
 public:
  explicit RegistryClient(RegistryClientOptions options);

  // GET /v2/, authenticating when challenged: OK when the registry accepts
  // our credentials. Also settles the scheme (https, or http where allowed).
  absl::Status Ping(std::string_view registry);

  // HEAD of a blob: its size and digest, or nullopt when the repository
  // does not have it.
  absl::StatusOr<std::optional<BlobInfo>> StatBlob(const Repository& repo,
                                                   const oci::Digest& digest);

  // Streams the blob, which its descriptor says is `size` bytes, to `sink`
  // and checks its digest at the end: DataLoss when it differs or when the
  // registry sends more or fewer than `size` bytes (the transfer stops at
  // the first byte too many), in which case what reached the sink must be
  // discarded. Returns the number of bytes.
  absl::StatusOr<uint64_t> FetchBlob(const Repository& repo, const oci::Digest& digest,
                                     uint64_t size, const http::BodySink& sink);

  // Streams the blob from byte `offset` on (a "Range: bytes=<offset>-"
  // request when offset > 0) to `sink`, unverified: the caller hashes.
  // Before the first byte, `start(from)` learns where the body begins:
  // `offset` when the registry answered 206, 0 when it sent the whole blob
  // (200). Returns the bytes received; after a transport failure, what
  // reached the sink is a valid prefix, so the caller may resume from there.
  absl::StatusOr<uint64_t> ReadBlob(const Repository& repo, const oci::Digest& digest,
                                    uint64_t offset,
                                    const std::function<absl::Status(uint64_t from)>& start,
                                    const http::BodySink& sink);

  // Uploads `content` as the blob `digest` in one request (POST, then PUT
  // ?digest= to the returned Location, relative or absolute). The upload
  // PUT is never replayed; a retry must start a new session.
  absl::Status PushBlob(const Repository& repo, const oci::Digest& digest,
                        http::BodySource& content);

  // The upload protocol step by step (blob_upload.h drives it). Relative
  // Location headers are resolved; each call returns the newest session.
  //
  // POST /blobs/uploads/: a fresh session at offset 0.
  absl::StatusOr<UploadSession> StartUpload(const Repository& repo);
  // POST /blobs/uploads/?mount=<digest>&from=<source path>.
  absl::StatusOr<MountResult> MountBlob(const Repository& repo, const oci::Digest& digest,
                                        const Repository& source);
  // PATCH `chunk` at session.offset with Content-Range; 202 gives the new
  // session (its offset from the Range header). Never replayed: on any
  // failure ask GetUploadStatus where the session stands.
  absl::StatusOr<UploadSession> PatchUpload(const Repository& repo, const UploadSession& session,
                                            http::BodySource& chunk);
  // GET of the session: 204 with Location and Range. NotFound when the
  // registry dropped the session (the caller starts a new one).
  absl::StatusOr<UploadSession> GetUploadStatus(const Repository& repo, std::string_view url);
  // PUT <url>?digest=, with the last bytes in `body` (null: none). Checks
  // the registry's Docker-Content-Digest. Never replayed.
  absl::Status CompleteUpload(const Repository& repo, std::string_view url,
                              const oci::Digest& digest, http::BodySource* body);
  // DELETE of the session (cancel). OK when the registry already forgot it.
  absl::Status CancelUpload(const Repository& repo, std::string_view url);

  // PUTs `bytes` as `ref` (its tag, else its digest) with Content-Type
  // `media_type`. Returns the digest, checked against the registry's
  // Docker-Content-Digest and against `ref`'s digest when it has one.
  absl::StatusOr<oci::Digest> PutManifest(const Reference& ref, std::string_view media_type,
                                          std::string bytes);

  // GETs `ref` (up to 4 MiB) and checks it against `ref`'s digest, else the
  // registry's Docker-Content-Digest (DataLoss on mismatch).
  absl::StatusOr<ManifestBlob> GetManifest(
      const Reference& ref, const std::vector<std::string>& accept = DefaultManifestAccept());

  // DELETE of the manifest `ref` (its digest, else its tag; registries that
  // only delete by digest refuse a tag with UNSUPPORTED). NotFound when the
  // registry has no such manifest; the registry's own error otherwise (the
  // distribution registry answers 405 UNSUPPORTED unless deletes are
  // enabled in its storage config).
  absl::Status DeleteManifest(const Reference& ref);

  // Every tag of `repo`, following Link pagination (each page at most
  // 4 MiB, like every JSON body the client keeps in memory).
  absl::StatusOr<std::vector<std::string>> ListTags(const Repository& repo);

  // For steps retried above the transport (a new upload session after a
  // refused upload PUT or PATCH): waits as long as the Retry-After of the
  // response behind `failure` (a Status from this client) asks, capped by
  // the retry policy's max_retry_after; returns at once when it asked
  // nothing.
  void WaitForRetryAfter(const absl::Status& failure);

 private:
  struct Endpoint {
    std::string base_url;  // "https://host:port"
    std::shared_ptr<Authenticator> auth;
  };

  absl::StatusOr<Endpoint> EndpointFor(std::string_view registry);
  absl::StatusOr<http::HttpResponse> Send(const Endpoint& endpoint,
                                          const std::vector<std::string>& scopes,
                                          const http::HttpRequest& request);

  std::shared_ptr<Keychain> keychain_;
  std::vector<std::string> insecure_;
  base::Clock& clock_;
  std::filesystem::path certs_dir_;
  absl::Duration max_retry_after_;
  std::shared_ptr<http::HttpTransport> transport_;  // retrying
  std::mutex probe_mu_;  // held while a registry's scheme is probed
  std::mutex mu_;
  std::map<std::string, Endpoint> endpoints_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_REGISTRY_CLIENT_H_
