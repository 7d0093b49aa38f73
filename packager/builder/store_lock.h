// Advisory locks (flock(2)) that keep the local image store's garbage
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

#include "absl/status/statusor.h"

namespace trainpkg::packager::builder {

class StoreLock {
 public:
  enum class Mode { kShared, kExclusive };

  // Blocks until `file` (created when absent) is locked in `mode`.
  // Errors: errno-derived ones naming the file.
  static absl::StatusOr<StoreLock> Acquire(const std::filesystem::path& file, Mode mode);
  // <store_dir>/gc.lock: kShared for writers of blobs, kExclusive for a collection.
  static absl::StatusOr<StoreLock> ForCollection(const std::filesystem::path& store_dir, Mode mode);

  StoreLock(StoreLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  StoreLock& operator=(StoreLock&& other) noexcept;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();

 private:
  explicit StoreLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_STORE_LOCK_H_
