// Content digests of context files behind a stat pre-key, like git's index,
// BuildKit's contenthash and Bazel's digest cache: a file whose (size,
// mtime in ns, inode, device) are unchanged since it was hashed is not read
// again. Files modified within the last 2 s are hashed but not remembered
// (git's "racily clean" rule: a later write in the same mtime tick would
// otherwise go unseen).
//
// Persisted as one JSON file (path -> stat key + digest); Load tolerates a
// missing or corrupt file (it starts empty: the cache is only an accelerator).
// Not thread-safe.
#ifndef TRAINPKG_PACKAGER_BUILDER_FILE_DIGEST_CACHE_H_
#define TRAINPKG_PACKAGER_BUILDER_FILE_DIGEST_CACHE_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/build_context.h"

namespace trainpkg::packager::builder {

class FileDigestCache {
 public:
  // `file` is the cache's own file ("" for an in-memory cache).
  static FileDigestCache Load(std::filesystem::path file);

  // sha256 hex of the regular file `path`, whose lstat is `stat`.
  absl::StatusOr<std::string> Digest(const std::filesystem::path& path, const ContextFile& stat);

  // Hashes, on up to `threads` threads, those of `files` (regular files
  // under `root`) that the cache cannot answer from their stat, so that
  // Digest() then returns at once (for this process's lifetime, racily
  // clean files included). Errors: the first file that cannot be read.
  absl::Status Prefetch(const std::filesystem::path& root,
                        const std::vector<const ContextFile*>& files, int threads);

  // Writes the cache file atomically when something changed.
  absl::Status Save() const;

  int64_t files_hashed() const { return files_hashed_; }

 private:
  struct Entry {
    std::string key;  // size:mtime_sec.mtime_nsec:inode:device
    std::string digest;
  };
  std::filesystem::path file_;
  std::map<std::string, Entry> entries_;
  bool dirty_ = false;
  int64_t files_hashed_ = 0;
  std::map<std::string, Entry> hashed_;  // by this process, by path
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_FILE_DIGEST_CACHE_H_
