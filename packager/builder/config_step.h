// The instructions that change only a stage's config: ENV, ARG, LABEL,
// WORKDIR, USER, EXPOSE, VOLUME, ENTRYPOINT, CMD, SHELL, STOPSIGNAL,
// HEALTHCHECK, MAINTAINER, ONBUILD (stage_config.h says how each does). Each
// but ARG adds an empty-layer history entry, as BuildKit's do.
#ifndef TRAINPKG_PACKAGER_BUILDER_CONFIG_STEP_H_
#define TRAINPKG_PACKAGER_BUILDER_CONFIG_STEP_H_

#include "absl/status/status.h"
#include "packager/builder/build_session.h"
#include "packager/builder/stage_state.h"
#include "packager/dockerfile/instruction.h"
#include "registry/oci/image_config.h"

namespace trainpkg::packager::builder {

// REQUIRES: `instruction` (expanded) is not FROM, RUN, COPY or ADD.
// Errors: ApplyMetadata's, prefixed with the instruction's line.
absl::Status ConfigStep(const BuildSession& session, const dockerfile::Instruction& instruction,
                        const oci::HistoryEntry& history, StageState& state);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_CONFIG_STEP_H_
