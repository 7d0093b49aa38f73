// What RUN and COPY/ADD share once they know their layer's cache key: the
// layer from the layer cache, or else built, written to the store and
// recorded there; then appended to the stage.
#ifndef TRAINPKG_PACKAGER_BUILDER_LAYER_STEP_H_
#define TRAINPKG_PACKAGER_BUILDER_LAYER_STEP_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "packager/builder/build_session.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/stage_state.h"
#include "packager/dockerfile/instruction.h"
#include "packager/layer/layer_entry.h"
#include "registry/oci/image_config.h"

namespace trainpkg::packager::builder {

// How a layer step got its layer.
enum class LayerOrigin { kCache, kBuilt };

struct StepLayer {
  CachedLayer layer;
  LayerOrigin origin;
};

// The layer cached under `key` (unless session.no_cache); else `make`'s
// source written to session.store and recorded under `key`. Errors of `make`
// and of the writer are prefixed with `instruction`'s line (AtLine); the
// cache's are not.
absl::StatusOr<StepLayer> CachedOrBuiltLayer(const BuildSession& session,
                                             const dockerfile::Instruction& instruction,
                                             const std::string& key,
                                             absl::FunctionRef<absl::StatusOr<LayerSource>()> make);

// Appends `layer` to `state`: descriptor, diff_id, `history` (its
// created_by marked "# buildkit", as BuildKit marks a layer's) and the
// cache chain extended by `key`.
void AppendLayer(const std::string& key, const CachedLayer& layer, oci::HistoryEntry history,
                 StageState& state);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_LAYER_STEP_H_
