// Turns a LayerSource into the exact, ordered list of tar entries: resolves
// sources inside the root, walks directories, applies owners, modes and
// mtimes, adds missing parent directories, and turns repeated inodes into
// hardlinks. Reads metadata only, never file contents, except for Extract
// entries: their archives are read and the member contents staged in a
// temporary directory the plan owns.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_LAYER_PLAN_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_LAYER_PLAN_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "base/temp_dir.h"
#include "packager/layer/internal/tar_entry.h"
#include "packager/layer/layer_entry.h"
#include "packager/layer/layer_options.h"

namespace trainpkg::packager::layer_internal {

struct LayerPlan {
  std::vector<TarEntry> entries;    // in ImagePathLess order, each name once
  std::optional<base::TempDir> staging;  // extracted member contents, when any
};

// Errors (each naming the
// path): InvalidArgument for a source or destination escaping its root, a
// ".wh." name in the sources, an unsupported file type (socket, fifo, device),
// or a file where a directory is needed; NotFound for a missing source or
// root; the errno-derived code when metadata cannot be read; for Extract
// entries, what LayerEntry documents.
absl::StatusOr<LayerPlan> PlanLayer(const LayerSource& source, const LayerOptions& options);

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_LAYER_PLAN_H_
