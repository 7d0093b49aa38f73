// COPY and ADD: a layer of files from the build context (.dockerignore
// applied), from an earlier stage (--from=<stage>: the context files it
// copied, or, when it ran commands, its whole filesystem mounted read-only),
// and from heredocs; ADD also unpacks local archives. Destinations are
// relative to the stage's WorkingDir. The cache key is the chain so far, the
// instruction and every entry's content digest (context_copy.h,
// layer_key.h), so a COPY of unchanged files takes its layer from the cache.
#ifndef TRAINPKG_PACKAGER_BUILDER_COPY_STEP_H_
#define TRAINPKG_PACKAGER_BUILDER_COPY_STEP_H_

#include "absl/status/statusor.h"
#include "packager/builder/build_session.h"
#include "packager/builder/layer_step.h"
#include "packager/builder/stage_state.h"
#include "packager/dockerfile/build_plan.h"
#include "packager/dockerfile/instruction.h"
#include "registry/oci/image_config.h"

namespace trainpkg::packager::builder {

// `copy` is the body of `instruction` (expanded); `from` what the plan
// resolved its --from to (null: none, or not resolved); `history` its entry,
// whose created_by is the instruction as written (part of the key). Appends
// the layer to `state` and records the context files it copied (for a later
// COPY --from). REQUIRES: a kStage `from` is in session.stages. Errors,
// prefixed with the instruction's line: InvalidArgument / NotFound for
// sources that are missing or leave the context, Unimplemented for --from
// an image, the mount's, the layer writer's.
absl::StatusOr<LayerOrigin> CopyStep(const BuildSession& session,
                                     const dockerfile::Instruction& instruction,
                                     const dockerfile::CopyInstruction& copy,
                                     const dockerfile::CopyFrom* from,
                                     const oci::HistoryEntry& history, StageState& state);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_COPY_STEP_H_
