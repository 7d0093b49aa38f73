// How the metadata instructions change a stage's image config, as Docker
// (BuildKit) does: ENV, WORKDIR (relative to the previous one), USER, LABEL,
// EXPOSE (ranges expanded, "/tcp" made explicit), VOLUME, ENTRYPOINT and CMD
// (shell form runs through the stage's SHELL; an ENTRYPOINT resets a CMD
// inherited from the base), SHELL, STOPSIGNAL, HEALTHCHECK, MAINTAINER
// (author), ONBUILD (recorded). ARG changes nothing in the config.
#ifndef TRAINPKG_PACKAGER_BUILDER_STAGE_CONFIG_H_
#define TRAINPKG_PACKAGER_BUILDER_STAGE_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "packager/dockerfile/instruction.h"
#include "registry/oci/image_config.h"

namespace trainpkg::packager::builder {

// The part of a stage's state the metadata instructions touch.
struct StageConfig {
  oci::ImageConfig image;
  std::vector<std::string> shell = {"/bin/sh", "-c"};
  bool cmd_set_in_stage = false;
};

// A stage's starting state from its base's config (Shell read back).
StageConfig StageConfigFromBase(const oci::ImageConfig& base);

// Applies one expanded instruction. REQUIRES: not FROM, RUN, COPY or ADD.
// InvalidArgument (no location) for a bad EXPOSE port spec.
absl::Status ApplyMetadata(const dockerfile::Instruction& instruction, StageConfig* stage);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_STAGE_CONFIG_H_
