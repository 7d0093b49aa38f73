// Reading a small file whose path or content someone else may control (a
// path named in a kubeconfig, a metric file a trial wrote): only a regular
// file is read (a FIFO would block, /dev/zero never ends), and only up to a
// cap, so a hostile path ends with a clear error instead of a hang or an
// allocation without bound.
#ifndef TRAINPKG_BASE_BOUNDED_FILE_H_
#define TRAINPKG_BASE_BOUNDED_FILE_H_

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::base {

struct BoundedReadOptions {
  size_t max_bytes = size_t{1} << 20;
  // false: a symbolic link at `path` itself is refused (O_NOFOLLOW), for files
  // in a directory a hostile writer shares with us.
  bool follow_symlinks = true;
  // Says what the file is in errors ("a metric file"); "" for plain "file".
  std::string_view what = "";
};

// The bytes of the regular file at `path`. InvalidArgument naming the path
// for a symlink (when refused), a file that is not regular (a device, a
// FIFO, a directory) or one larger than max_bytes; the errno-mapped error of
// open/read otherwise.
absl::StatusOr<std::string> ReadRegularFile(const std::filesystem::path& path,
                                            const BoundedReadOptions& options = {});

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_BOUNDED_FILE_H_
