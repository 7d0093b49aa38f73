// Turns a LayerSource into the exact, ordered list of tar entries: resolves
// sources inside the root, walks directories, applies owners, modes and
// mtimes, adds missing parent directories, and turns repeated inodes into
// hardlinks. Reads metadata only, never file contents.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_LAYER_PLAN_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_LAYER_PLAN_H_

#include <vector>

#include "absl/status/statusor.h"
#include "packager/layer/internal/tar_entry.h"
#include "packager/layer/layer_entry.h"
#include "packager/layer/layer_options.h"

namespace trainpkg::packager::layer_internal {

// Entries in ImagePathLess order, each name once. Errors (each naming the
// path): InvalidArgument for a source or destination escaping its root, a
// ".wh." name in the sources, an unsupported file type (socket, fifo, device),
// or a file where a directory is needed; NotFound for a missing source or
// root; the errno-derived code when metadata cannot be read.
absl::StatusOr<std::vector<TarEntry>> PlanLayer(const LayerSource& source,
                                                const LayerOptions& options);

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_LAYER_PLAN_H_
