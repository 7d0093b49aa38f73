// Uploading one blob through the distribution upload protocol, monolithic
// or in chunks, surviving lost requests without ever sending a PATCH into a
// session blindly:
//
//  * monolithic: PUT <session>?digest= with the whole blob;
//  * chunked: PATCH <session> with Content-Range, following the newest
//    Location, then PUT ?digest= with no body.
//
// When a PATCH fails (connection reset, timeout, 416, 5xx) the session is
// asked where it stands (GET → 204 + Range) and the upload resumes from
// the offset the registry reports. When the session itself is gone (the
// GET answers 404, or a PUT failed), the blob is HEADed — a commit whose
// answer was lost may have landed — and otherwise the upload starts over in
// a fresh session, at most `max_session_restarts` times, after the wait a
// refusal's Retry-After asked for (429, 503). Abandoned sessions are
// cancelled with DELETE.
#ifndef TRAINPKG_REGISTRY_BLOB_UPLOAD_H_
#define TRAINPKG_REGISTRY_BLOB_UPLOAD_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "registry/oci/descriptor.h"
#include "registry/reference.h"
#include "registry/registry_client.h"

namespace trainpkg::registry {

struct UploadOptions {
  // 0: monolithic. Otherwise PATCH chunks of this many bytes (raised to
  // internal::kMinChunkSize); blobs no larger than one chunk go monolithic.
  uint64_t chunk_size = 0;
  // Fresh sessions tried after the first one is lost.
  int max_session_restarts = 2;
  // Session status queries (resumes) allowed within one session.
  int max_resumes = 5;
};

// Uploads `file`, whose content is `blob`, to `repo`, in `session` when
// the caller holds one (a mount answered 202) or in a new one. `on_bytes`
// (may be null) is told how many bytes the registry has (or is receiving)
// so far. Errors name the blob and the repository; DataLoss when the file
// does not hold `blob.size` bytes or the registry stored another digest.
absl::Status UploadBlob(RegistryClient& client, const Repository& repo, const oci::Descriptor& blob,
                        const std::filesystem::path& file, std::optional<UploadSession> session,
                        const UploadOptions& options,
                        const std::function<void(uint64_t)>& on_bytes);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_BLOB_UPLOAD_H_
