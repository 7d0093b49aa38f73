// What one stage of a build has made so far (its config, layers, files and
// layer-cache chain), and its base image, which RUN unpacks. The build steps
// (build_session.h) read and extend it, one instruction at a time.
#ifndef TRAINPKG_PACKAGER_BUILDER_STAGE_STATE_H_
#define TRAINPKG_PACKAGER_BUILDER_STAGE_STATE_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "packager/builder/run_step.h"
#include "packager/builder/stage_config.h"
#include "packager/builder/stage_files.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

struct StageState {
  StageConfig config;
  std::vector<oci::Descriptor> layers;
  std::vector<StageFile> files;
  std::string chain;  // layer cache chain: base, then each layer's key
  // Files not from the context (RUN output): COPY --from reads its rootfs.
  bool has_rootfs_files = false;
  std::optional<oci::Layout> base_layout;
  size_t base_layer_count = 0;
  std::string base_name;
  oci::Digest base_digest;
};

// The base image of a stage, for RUN: its first layers and their diff_ids.
struct StageBase {
  std::span<const oci::Descriptor> layers;
  std::span<const oci::Digest> diff_ids;
  const oci::Layout* layout;  // oci: bases; null: the store (registry bases)
  oci::Digest manifest_digest;
  std::string name;
};

// `state`'s base, and the layers the build made on it (blobs of `store`).
// The base's spans point into `state`.
std::pair<StageBase, std::vector<RunLayer>> SplitStage(const StageState& state,
                                                       const oci::Layout& store);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_STAGE_STATE_H_
