// Advisory locks (base::FileLock, flock(2)) that keep the local image store's garbage
// collector (store_gc.h) off blobs another process is still writing:
// everything that writes blobs and then references them (a build, a push
// compressing layers, a pull) holds <store>/gc.lock shared for its whole
// run; a collection holds it exclusive, so it waits for those writers and
// they wait for it. index.json updates (ImageStore::Tag/Untag) take
// <store>/index.lock exclusive around their read-modify-write.
//
// The lock is released when the object is destroyed (or the process dies).
#ifndef TRAINPKG_PACKAGER_BUILDER_STORE_LOCK_H_
#define TRAINPKG_PACKAGER_BUILDER_STORE_LOCK_H_

#include <filesystem>
#include <utility>

#include "absl/status/statusor.h"
#include "base/file_lock.h"

namespace trainpkg::packager::builder {

class StoreLock {
 public:
  using Mode = base::FileLock::Mode;

  // Blocks until `file` (created when absent) is locked in `mode`.
  // Errors: errno-derived ones naming the file.
  static absl::StatusOr<StoreLock> Acquire(const std::filesystem::path& file, Mode mode);
  // <store_dir>/gc.lock: kShared for writers of blobs, kExclusive for a collection.
  static absl::StatusOr<StoreLock> ForCollection(const std::filesystem::path& store_dir, Mode mode);

 private:
  explicit StoreLock(base::FileLock lock) : lock_(std::move(lock)) {}
  base::FileLock lock_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_STORE_LOCK_H_
