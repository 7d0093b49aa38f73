#include "packager/builder/layer_step.h"

#include <optional>
#include <utility>

#include "base/status_macros.h"
#include "packager/builder/layer_key.h"
#include "packager/layer/layer_writer.h"

namespace trainpkg::packager::builder {

absl::StatusOr<StepLayer> CachedOrBuiltLayer(
    const BuildSession& session, const dockerfile::Instruction& instruction, const std::string& key,
    absl::FunctionRef<absl::StatusOr<LayerSource>()> make) {
  if (!session.no_cache) {
    if (std::optional<CachedLayer> cached = session.cache->Lookup(key)) {
      return StepLayer{*std::move(cached), LayerOrigin::kCache};
    }
  }
  absl::StatusOr<LayerSource> source = make();
  if (!source.ok()) return AtLine(*session.file, instruction, source.status());
  auto written = WriteLayerBlob(*source, session.layer_options, *session.store);
  if (!written.ok()) return AtLine(*session.file, instruction, written.status());
  oci::Descriptor descriptor;
  descriptor.media_type = std::string(LayerMediaType(session.layer_options.compression));
  descriptor.digest = written->digest;
  descriptor.size = written->size;
  CachedLayer layer{descriptor, written->diff_id};
  TP_RETURN_IF_ERROR(session.cache->Record(key, layer));
  return StepLayer{std::move(layer), LayerOrigin::kBuilt};
}

void AppendLayer(const std::string& key, const CachedLayer& layer, oci::HistoryEntry history,
                 StageState& state) {
  state.layers.push_back(layer.descriptor);
  state.config.image.rootfs.diff_ids.push_back(layer.diff_id);
  // BuildKit's suffix on the history of a layer-making step, so tools that
  // read history see the same text as for a docker build.
  history.created_by += " # buildkit";
  history.empty_layer = false;
  state.config.image.history.push_back(std::move(history));
  state.chain = ChainKey(state.chain, key);
}

}  // namespace trainpkg::packager::builder
