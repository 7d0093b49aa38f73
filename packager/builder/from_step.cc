#include "packager/builder/from_step.h"

#include <utility>

#include "packager/builder/base_image.h"
#include "packager/builder/layer_key.h"
#include "registry/oci/platform.h"

namespace trainpkg::packager::builder {

absl::StatusOr<StageState> FromStep(const BuildSession& session, const dockerfile::Stage& stage,
                                    const dockerfile::BaseImage& base) {
  if (base.kind == dockerfile::BaseImage::Kind::kStage) {
    StageState state = session.stages->at(base.stage);
    // The earlier stage's CMD is now inherited: a later ENTRYPOINT resets it.
    state.config.cmd_set_in_stage = false;
    return state;
  }
  auto resolved = ResolveBase(base, session.platform, session.registry);
  if (!resolved.ok()) return AtLine(*session.file, stage.from, resolved.status());
  StageState state;
  state.config = StageConfigFromBase(resolved->config);
  state.layers = std::move(resolved->layers);
  state.base_layer_count = state.layers.size();
  state.base_layout = std::move(resolved->layout);
  state.base_name = std::move(resolved->name);
  state.base_digest = resolved->manifest_digest;
  // The config digest covers the base's diff_ids and settings, so a re-pushed
  // tag with new content starts a new cache chain.
  state.chain = ChainKey("", resolved->config_digest.empty()
                                 ? "scratch " + oci::FormatPlatform(session.platform)
                                 : "config " + resolved->config_digest.ToString());
  return state;
}

}  // namespace trainpkg::packager::builder
