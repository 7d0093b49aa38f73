// Writes the entries of one layer into a root (see layer_unpacker.h for the
// rules); remembers what this layer wrote so whiteouts and opaque markers
// only remove what the lower layers hold.
#ifndef TRAINPKG_PACKAGER_UNPACK_INTERNAL_LAYER_APPLIER_H_
#define TRAINPKG_PACKAGER_UNPACK_INTERNAL_LAYER_APPLIER_H_

#include <archive.h>
#include <archive_entry.h>

#include <set>
#include <string>

#include "absl/status/status.h"
#include "packager/unpack/internal/root_dir.h"
#include "packager/unpack/layer_unpacker.h"

namespace trainpkg::packager::unpack::internal {

class LayerApplier {
 public:
  LayerApplier(const RootDir& root, const UnpackOptions& options)
      : root_(root), options_(options) {}

  // Applies `entry`, reading a regular file's data from `tar`. Errors do
  // not name the entry (the caller adds it).
  absl::Status Apply(struct archive* tar, struct archive_entry* entry);

 private:
  absl::Status Whiteout(const Components& parent, const std::string& name);
  absl::Status Opaque(const Components& dir);
  // Removes the children of `dir` (open as `dir_fd`) not written by this
  // layer, recursing into directories this layer wrote.
  absl::Status RemoveLowerChildren(int dir_fd, const std::string& dir_path);
  absl::Status WriteRegular(struct archive* tar, int parent_fd, const std::string& name,
                            struct archive_entry* entry);
  absl::Status WriteDirectory(int parent_fd, const std::string& name, struct archive_entry* entry);
  absl::Status WriteSymlink(int parent_fd, const std::string& name, struct archive_entry* entry);
  absl::Status WriteHardlink(int parent_fd, const std::string& name, const char* target);

  const RootDir& root_;
  const UnpackOptions options_;
  std::set<std::string> written_;  // JoinComponents of every path this layer wrote
};

}  // namespace trainpkg::packager::unpack::internal

#endif  // TRAINPKG_PACKAGER_UNPACK_INTERNAL_LAYER_APPLIER_H_
