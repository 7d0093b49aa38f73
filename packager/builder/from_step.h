// FROM: a stage's starting state. FROM an earlier stage copies that stage's
// state (a CMD it set no longer counts as set in this one); FROM an image
// (scratch, oci:, a registry) starts from its config and layers, which are
// referenced, not downloaded, and the layer-cache chain starts from the
// image's content (its config blob), not its manifest: the same image pushed
// elsewhere, under other annotations or compression, keeps the cache.
#ifndef TRAINPKG_PACKAGER_BUILDER_FROM_STEP_H_
#define TRAINPKG_PACKAGER_BUILDER_FROM_STEP_H_

#include "absl/status/statusor.h"
#include "packager/builder/build_session.h"
#include "packager/builder/stage_state.h"
#include "packager/dockerfile/build_plan.h"
#include "packager/dockerfile/dockerfile.h"

namespace trainpkg::packager::builder {

// REQUIRES: a kStage base is in session.stages. Errors: ResolveBase's
// (base_image.h), prefixed with the FROM's line.
absl::StatusOr<StageState> FromStep(const BuildSession& session, const dockerfile::Stage& stage,
                                    const dockerfile::BaseImage& base);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_FROM_STEP_H_
