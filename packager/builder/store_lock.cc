#include "packager/builder/store_lock.h"

#include "base/status_macros.h"

namespace trainpkg::packager::builder {

absl::StatusOr<StoreLock> StoreLock::Acquire(const std::filesystem::path& file, Mode mode) {
  TP_ASSIGN_OR_RETURN(base::FileLock lock, base::FileLock::Acquire(file, mode));
  return StoreLock(std::move(lock));
}

absl::StatusOr<StoreLock> StoreLock::ForCollection(const std::filesystem::path& store_dir,
                                                   Mode mode) {
  return Acquire(store_dir / "gc.lock", mode);
}

}  // namespace trainpkg::packager::builder
