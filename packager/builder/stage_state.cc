#include "packager/builder/stage_state.h"

namespace trainpkg::packager::builder {

std::pair<StageBase, std::vector<RunLayer>> SplitStage(const StageState& state,
                                                       const oci::Layout& store) {
  const size_t n = state.base_layer_count;
  const std::vector<oci::Digest>& diff_ids = state.config.image.rootfs.diff_ids;
  StageBase base{std::span(state.layers).first(n), std::span(diff_ids).first(n),
                 state.base_layout ? &*state.base_layout : nullptr, state.base_digest,
                 state.base_name};
  std::vector<RunLayer> built_layers;
  for (size_t j = n; j < state.layers.size(); ++j) {
    built_layers.push_back(
        RunLayer{store.BlobPath(state.layers[j].digest), state.layers[j], diff_ids[j]});
  }
  return {base, built_layers};
}

}  // namespace trainpkg::packager::builder
