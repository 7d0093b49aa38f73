// What `COPY --from=<stage>` can read: the files an earlier stage copied
// from the build context or wrote from a COPY heredoc, by their path in that
// stage's image. Stages here
// never run commands, so every file a stage added is a context file; files
// of its base image's layers are not read (those layers are never
// downloaded or unpacked), and copying one is a NotFound error saying so.
#ifndef TRAINPKG_PACKAGER_BUILDER_STAGE_FILES_H_
#define TRAINPKG_PACKAGER_BUILDER_STAGE_FILES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/build_context.h"
#include "packager/dockerfile/instruction.h"
#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::builder {

struct StageFile {
  std::string image_path;  // absolute, no trailing '/' ("/" for the root)
  LayerEntry entry;        // how the stage's layer copied it
  bool is_dir = false;
};

// Appends what `entries` (a context COPY's, heredoc files included) put into
// a stage.
void AddStageFiles(const BuildContext& ctx, const std::vector<LayerEntry>& entries,
                   std::vector<StageFile>* files);

// Entries for `copy` (expanded, from a stage) reading `files` (`stage_name`
// for messages). Same destination rules as context_copy.h; globs are not
// supported here (InvalidArgument). --chown/--chmod replace the stage's.
absl::StatusOr<std::vector<LayerEntry>> PlanStageCopy(const std::vector<StageFile>& files,
                                                      const BuildContext& ctx,
                                                      const dockerfile::CopyInstruction& copy,
                                                      std::string_view workdir,
                                                      std::string_view stage_name);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_STAGE_FILES_H_
