// Directory operations confined to one root: every path is a list of
// components relative to the root, each parent is opened with
// O_NOFOLLOW|O_DIRECTORY from the one before, and nothing ever follows a
// symbolic link, so no write or removal can land outside the root whatever
// the tree holds.
#ifndef TRAINPKG_PACKAGER_UNPACK_INTERNAL_ROOT_DIR_H_
#define TRAINPKG_PACKAGER_UNPACK_INTERNAL_ROOT_DIR_H_

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/unique_fd.h"

namespace trainpkg::packager::unpack::internal {

// A cleaned relative path: no "", "." or ".." components. Empty = the root.
using Components = std::vector<std::string>;

// Splits a tar entry name ("./a/b/", "a//b") into components.
// InvalidArgument for an absolute name or one with a ".." component.
absl::StatusOr<Components> SplitEntryPath(std::string_view name);

// "a/b/c", "." for the root.
std::string JoinComponents(std::span<const std::string> components);

class RootDir {
 public:
  // Opens `root` (which must be a directory).
  static absl::StatusOr<RootDir> Open(const std::filesystem::path& root);

  // The directory `dir`, opened without following links; missing
  // directories are created (0755) when `create` is set. FailedPrecondition
  // naming the component when one is a symlink or not a directory; NotFound
  // when one is missing and `create` is false.
  absl::StatusOr<base::UniqueFd> OpenDir(std::span<const std::string> dir, bool create) const;

  // lstat of `name` in `dir_fd`; nullopt when absent.
  static absl::StatusOr<std::optional<struct stat>> Lstat(int dir_fd, const std::string& name);

  // Removes `name` in `dir_fd` (a whole tree for a directory, never
  // following links). Absent is fine.
  static absl::Status RemoveAll(int dir_fd, const std::string& name);

  // The names of the entries of `dir_fd` ("." and ".." excluded).
  static absl::StatusOr<std::vector<std::string>> ListChildren(int dir_fd);

 private:
  explicit RootDir(base::UniqueFd fd) : fd_(std::move(fd)) {}
  base::UniqueFd fd_;
};

}  // namespace trainpkg::packager::unpack::internal

#endif  // TRAINPKG_PACKAGER_UNPACK_INTERNAL_ROOT_DIR_H_
