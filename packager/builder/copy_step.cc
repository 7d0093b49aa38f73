#include "packager/builder/copy_step.h"

#include <optional>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/context_copy.h"
#include "packager/builder/heredoc_copy.h"
#include "packager/builder/layer_key.h"
#include "packager/builder/stage_files.h"
#include "packager/dockerfile/dockerignore.h"

namespace trainpkg::packager::builder {
namespace {

namespace df = dockerfile;

}  // namespace

absl::StatusOr<LayerOrigin> CopyStep(const BuildSession& session, const df::Instruction& instruction,
                                     const df::CopyInstruction& copy, const df::CopyFrom* from,
                                     const oci::HistoryEntry& history, StageState& state) {
  const df::Dockerfile& file = *session.file;
  const BuildContext& ctx = *session.context;
  const std::string workdir = state.config.image.config.working_dir.empty()
                                  ? "/"
                                  : state.config.image.config.working_dir;
  const df::CopyFrom* from_stage =
      !copy.from.empty() && from != nullptr && from->kind == df::CopyFrom::Kind::kStage ? from
                                                                                         : nullptr;
  // COPY --from a stage with RUN output reads that stage's files, mounted;
  // the mount (and its work dir) stays until the layer is written.
  const BuildContext* source_ctx = &ctx;
  FileDigestCache* source_digests = session.digests;
  std::optional<ScopedWorkDir> work;
  std::optional<run::OverlayMount> mounted;
  std::optional<BuildContext> stage_ctx;
  std::optional<FileDigestCache> stage_digests;
  // Heredoc sources first: they also check the destination for all sources.
  absl::StatusOr<std::vector<LayerEntry>> heredoc_entries = std::vector<LayerEntry>();
  if (!copy.heredocs.empty()) heredoc_entries = PlanHeredocCopy(copy, workdir);
  if (!heredoc_entries.ok()) return AtLine(file, instruction, heredoc_entries.status());
  absl::StatusOr<std::vector<LayerEntry>> entries;
  if (copy.sources.empty()) {
    entries = std::vector<LayerEntry>();
  } else if (from_stage != nullptr && session.stages->at(from_stage->stage).has_rootfs_files) {
    const auto [base, built_layers] = SplitStage(session.stages->at(from_stage->stage), *session.store);
    work.emplace(session.work_root);
    auto mount = session.runner->Mount(base, built_layers, work->path());
    if (!mount.ok()) return AtLine(file, instruction, mount.status());
    mounted.emplace(*std::move(mount));
    auto scanned = BuildContext::Scan(mounted->target(), df::DockerIgnore());
    if (!scanned.ok()) return AtLine(file, instruction, scanned.status());
    stage_ctx.emplace(*std::move(scanned));
    stage_digests.emplace(FileDigestCache::Load(""));
    source_ctx = &*stage_ctx;
    source_digests = &*stage_digests;
    df::CopyInstruction copy_of_files = copy;
    copy_of_files.from.clear();
    entries = PlanContextCopy(*stage_ctx, copy_of_files, workdir);
    state.has_rootfs_files = true;
  } else if (copy.from.empty() || from == nullptr) {
    entries = PlanContextCopy(ctx, copy, workdir);
  } else if (from_stage != nullptr) {
    const df::Stage& source = file.stages[static_cast<size_t>(from_stage->stage)];
    entries = PlanStageCopy(session.stages->at(from_stage->stage).files, ctx, copy, workdir,
                            source.name.empty() ? std::to_string(source.index) : source.name);
  } else {
    entries = absl::UnimplementedError(fmt::format(
        "--from={}: copying from an image needs its layers, which trainpkg does not "
        "download; name a stage of this Dockerfile",
        from->image));
  }
  if (!entries.ok()) return AtLine(file, instruction, entries.status());
  entries->insert(entries->end(), heredoc_entries->begin(), heredoc_entries->end());
  absl::StatusOr<std::string> key =
      ComputeLayerKey(state.chain, history.created_by, *entries, session.layer_options,
                      *source_ctx, source_digests);
  if (!key.ok()) return AtLine(file, instruction, key.status());
  auto copy_files = [&]() -> absl::StatusOr<LayerSource> {
    return LayerSource{source_ctx->root(), *entries};
  };
  TP_ASSIGN_OR_RETURN(StepLayer layer, CachedOrBuiltLayer(session, instruction, *key, copy_files));
  if (source_ctx == &ctx) AddStageFiles(ctx, *entries, &state.files);
  AppendLayer(*key, layer.layer, history, state);
  return layer.origin;
}

}  // namespace trainpkg::packager::builder
