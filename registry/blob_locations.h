// Where blobs were last seen, per registry: after a push or a pull the
// repository is recorded for each blob digest, so a later push of the same
// blob to another repository of that registry mounts it from there
// (`POST …/blobs/uploads/?mount=&from=`) instead of uploading it — docker's
// distribution metadata ("v2metadata-by-digest") and skopeo's blob-info
// cache do the same.
//
// A cache: a wrong entry only costs a refused mount, after which the blob is
// uploaded. Thread-safe.
#ifndef TRAINPKG_REGISTRY_BLOB_LOCATIONS_H_
#define TRAINPKG_REGISTRY_BLOB_LOCATIONS_H_

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/digest.h"
#include "registry/reference.h"

namespace trainpkg::registry {

class BlobLocations {
 public:
  // Repositories kept per digest; older ones are forgotten.
  static constexpr size_t kMaxRepositoriesPerBlob = 5;

  // Empty; Save() does nothing unless `file` is set by Open.
  BlobLocations() = default;

  // Loads `file` when it exists. A file that is not valid JSON of the shape
  // Save writes is ignored with a warning (the cache starts empty); an
  // unreadable one is the Status.
  static absl::StatusOr<std::unique_ptr<BlobLocations>> Open(const std::filesystem::path& file);

  // Repositories on `registry` known to hold `digest`, most recent first.
  std::vector<Repository> Find(const oci::Digest& digest, std::string_view registry) const;

  // `repository` holds `digest` (now the most recent).
  void Record(const oci::Digest& digest, const Repository& repository);

  // Writes the file given to Open (atomically, mode 0600, without fsync:
  // after a crash it may be stale or empty, which Open accepts): {"<digest>":
  // ["<registry>/<path>", …]}. OK without a file, or when no Record changed
  // anything (a re-push writes nothing).
  absl::Status Save() const;

 private:
  std::filesystem::path file_;
  mutable std::mutex mu_;
  std::map<std::string, std::vector<Repository>> by_digest_;  // most recent first
  bool changed_ = false;                                      // since Open
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_BLOB_LOCATIONS_H_
