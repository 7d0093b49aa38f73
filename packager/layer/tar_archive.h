// What Docker's ADD unpacks instead of copying.
#ifndef TRAINPKG_PACKAGER_LAYER_TAR_ARCHIVE_H_
#define TRAINPKG_PACKAGER_LAYER_TAR_ARCHIVE_H_

#include <filesystem>

#include "absl/status/statusor.h"

namespace trainpkg::packager {

// Whether the regular file `path` is a tar archive the way Docker's ADD
// decides it: its bytes, decompressed when they are gzip, bzip2, xz or zstd
// (recognised by content, never by the file name), start with a readable tar
// header. A compressed file that is not a tar, or an empty tar, is not one
// (ADD copies those as files). Errors: the file cannot be read.
absl::StatusOr<bool> IsTarArchive(const std::filesystem::path& path);

}  // namespace trainpkg::packager

#endif  // TRAINPKG_PACKAGER_LAYER_TAR_ARCHIVE_H_
