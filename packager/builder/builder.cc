#include "packager/builder/builder.h"

#include <map>
#include <variant>

#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/build_context.h"
#include "packager/builder/context_copy.h"
#include "packager/builder/file_digest_cache.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/layer_key.h"
#include "packager/builder/stage_config.h"
#include "packager/builder/stage_files.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/dockerfile/dockerignore.h"
#include "packager/layer/layer_writer.h"
#include "registry/oci/annotations.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
namespace df = dockerfile;

struct StageState {
  StageConfig config;
  std::vector<oci::Descriptor> layers;
  std::vector<StageFile> files;
  std::string chain;  // layer cache chain: base, then each layer's key
  std::optional<oci::Layout> base_layout;
  size_t base_layer_count = 0;
  std::string base_name;
  oci::Digest base_digest;
};

// The instruction as written: its lines joined, continuations and comment
// lines inside it dropped, runs of blanks collapsed.
std::string InstructionText(const std::vector<std::string>& lines, df::SourceRange range,
                            char escape) {
  std::string joined;
  for (int n = range.first_line; n <= range.last_line && n <= static_cast<int>(lines.size()); ++n) {
    std::string line = lines[static_cast<size_t>(n - 1)];
    size_t start = line.find_first_not_of(" \t");
    if (n != range.first_line && start != std::string::npos && line[start] == '#') continue;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    if (!line.empty() && line.back() == escape) line.pop_back();
    joined += line + " ";
  }
  std::string out;
  for (char c : joined) {
    bool blank = c == ' ' || c == '\t';
    if (blank && (out.empty() || out.back() == ' ')) continue;
    out.push_back(blank ? ' ' : c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

absl::Status AtLine(const df::Dockerfile& file, const df::Instruction& instruction,
                    const absl::Status& status) {
  return absl::Status(status.code(),
                      fmt::format("{}:{}: {}: {}", file.path, instruction.lines.first_line,
                                  instruction.keyword, std::string(status.message())));
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

absl::StatusOr<df::DockerIgnore> LoadDockerIgnore(const fs::path& context,
                                                  const fs::path& dockerfile) {
  std::error_code ec;
  df::DockerIgnore ignore;
  if (fs::exists(context / ".dockerignore", ec)) {
    TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(context / ".dockerignore"));
    TP_ASSIGN_OR_RETURN(ignore, df::DockerIgnore::Parse(text, ".dockerignore"));
  }
  ignore.KeepFile(".dockerignore");
  fs::path rel =
      fs::weakly_canonical(dockerfile, ec).lexically_relative(fs::weakly_canonical(context, ec));
  if (!rel.empty() && *rel.begin() != "..") ignore.KeepFile(rel.generic_string());
  return ignore;
}

}  // namespace

absl::StatusOr<BuiltImage> Builder::Build(const BuildRequest& request) {
  const fs::path dockerfile_path =
      request.dockerfile.empty() ? request.context_dir / "Dockerfile" : request.dockerfile;
  auto text = base::ReadFile(dockerfile_path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), fmt::format("reading the Dockerfile: {}",
                                                          std::string(text.status().message())));
  }
  const std::string display_path =
      request.dockerfile.empty() ? "Dockerfile" : request.dockerfile.string();
  TP_ASSIGN_OR_RETURN(df::Dockerfile file, df::ParseDockerfile(*text, display_path));
  df::BuildOptions plan_options;
  plan_options.build_args = request.build_args;
  plan_options.target = request.target;
  plan_options.platform = request.platform;
  if (request.source_date_epoch && !plan_options.build_args.count("SOURCE_DATE_EPOCH")) {
    plan_options.build_args["SOURCE_DATE_EPOCH"] = std::to_string(*request.source_date_epoch);
  }
  TP_ASSIGN_OR_RETURN(df::BuildPlan plan, df::PlanBuild(file, plan_options));
  for (int i : plan.order) {
    for (const df::Instruction& instruction : file.stages[static_cast<size_t>(i)].instructions) {
      if (std::holds_alternative<df::RunInstruction>(instruction.body)) {
        return AtLine(file, instruction,
                      absl::UnimplementedError(
                          "RUN is not supported yet: trainpkg builds images without executing "
                          "commands; COPY prepared files instead, or build this Dockerfile "
                          "with docker or buildah"));
      }
    }
  }
  TP_ASSIGN_OR_RETURN(oci::Platform platform, oci::ParsePlatform(request.platform));
  TP_ASSIGN_OR_RETURN(df::DockerIgnore ignore,
                      LoadDockerIgnore(request.context_dir, dockerfile_path));
  TP_ASSIGN_OR_RETURN(BuildContext ctx, BuildContext::Scan(request.context_dir, ignore));

  FileDigestCache digests = FileDigestCache::Load(options_.cache_dir / "file-digests.json");
  LayerCache cache(options_.cache_dir / "layers", options_.store);
  LayerOptions layer_options;
  layer_options.source_date_epoch = request.source_date_epoch;
  layer_options.threads = std::max(1, request.threads);
  if (request.compression == LayerCompression::kNone) {
    return absl::InvalidArgumentError("layers are compressed: choose gzip or zstd");
  }
  layer_options.compression = request.compression;
  const std::string created =
      oci::FormatRfc3339(absl::FromUnixSeconds(request.source_date_epoch.value_or(0)));
  const std::vector<std::string> lines = SplitLines(*text);

  int total = 0;
  for (int i : plan.order) {
    total += 1 + static_cast<int>(file.stages[static_cast<size_t>(i)].instructions.size());
  }
  int step = 0;
  auto report = [&](const std::string& step_text, bool done, bool cached) {
    if (options_.progress) options_.progress(BuildStep{step, total, step_text, done, cached});
  };

  BuiltImage built;
  built.warnings = file.warnings;
  built.warnings.insert(built.warnings.end(), plan.warnings.begin(), plan.warnings.end());
  std::map<int, StageState> states;
  for (int i : plan.order) {
    const df::Stage& stage = file.stages[static_cast<size_t>(i)];
    const df::PlannedStage& planned = plan.stages[static_cast<size_t>(i)];
    ++step;
    report(InstructionText(lines, stage.from.lines, file.escape), false, false);
    StageState state;
    if (planned.base.kind == df::BaseImage::Kind::kStage) {
      state = states.at(planned.base.stage);
      state.config.cmd_set_in_stage = false;
    } else {
      auto base = ResolveBase(planned.base, platform, options_.registry);
      if (!base.ok()) return AtLine(file, stage.from, base.status());
      state.config = StageConfigFromBase(base->config);
      state.layers = std::move(base->layers);
      state.base_layer_count = state.layers.size();
      state.base_layout = std::move(base->layout);
      state.base_name = std::move(base->name);
      state.base_digest = base->manifest_digest;
      state.chain =
          ChainKey("", base->manifest_digest.empty() ? "scratch " + oci::FormatPlatform(platform)
                                                     : base->manifest_digest.ToString());
    }
    auto expanded = df::ExpandStage(file, plan, plan_options, i, state.config.image.config.env);
    if (!expanded.ok()) return expanded.status();
    for (size_t k = 0; k < expanded->instructions.size(); ++k) {
      const df::Instruction& instruction = expanded->instructions[k];
      const std::string step_text = InstructionText(lines, instruction.lines, file.escape);
      ++step;
      report(step_text, false, false);
      oci::HistoryEntry history{created, step_text, "", "", true};
      const auto* copy = std::get_if<df::CopyInstruction>(&instruction.body);
      if (copy == nullptr) {
        absl::Status applied = ApplyMetadata(instruction, &state.config);
        if (!applied.ok()) return AtLine(file, instruction, applied);
        if (!std::holds_alternative<df::ArgInstruction>(instruction.body)) {
          state.config.image.history.push_back(history);
        }
        continue;
      }
      const std::string workdir = state.config.image.config.working_dir.empty()
                                      ? "/"
                                      : state.config.image.config.working_dir;
      absl::StatusOr<std::vector<LayerEntry>> entries;
      auto from = planned.copy_from.find(k);
      if (copy->from.empty() || from == planned.copy_from.end()) {
        entries = PlanContextCopy(ctx, *copy, workdir);
      } else if (from->second.kind == df::CopyFrom::Kind::kStage) {
        const df::Stage& source = file.stages[static_cast<size_t>(from->second.stage)];
        entries = PlanStageCopy(states.at(from->second.stage).files, ctx, *copy, workdir,
                                source.name.empty() ? std::to_string(source.index) : source.name);
      } else {
        entries = absl::UnimplementedError(fmt::format(
            "--from={}: copying from an image needs its layers, which trainpkg does not "
            "download; name a stage of this Dockerfile",
            from->second.image));
      }
      if (!entries.ok()) return AtLine(file, instruction, entries.status());
      auto key = ComputeLayerKey(state.chain, step_text, *entries, layer_options, ctx, &digests);
      if (!key.ok()) return AtLine(file, instruction, key.status());
      std::optional<CachedLayer> layer = cache.Lookup(*key);
      const bool cached = layer.has_value();
      if (!cached) {
        TP_ASSIGN_OR_RETURN(oci::BlobWriter writer, options_.store.NewBlobWriter());
        auto written = WriteLayer(LayerSource{ctx.root(), *entries}, layer_options, &writer);
        if (!written.ok()) return AtLine(file, instruction, written.status());
        TP_ASSIGN_OR_RETURN(oci::DigestAndSize blob, writer.Commit());
        oci::Descriptor descriptor;
        descriptor.media_type = std::string(request.compression == LayerCompression::kZstd
                                                ? oci::media_types::kOciLayerZstd
                                                : oci::media_types::kOciLayerGzip);
        descriptor.digest = blob.digest;
        descriptor.size = blob.size;
        layer = CachedLayer{descriptor, written->diff_id};
        TP_RETURN_IF_ERROR(cache.Record(*key, *layer));
        ++built.stats.layers_written;
      } else {
        ++built.stats.layers_cached;
      }
      state.layers.push_back(layer->descriptor);
      state.config.image.rootfs.diff_ids.push_back(layer->diff_id);
      history.created_by = step_text + " # buildkit";
      history.empty_layer = false;
      state.config.image.history.push_back(history);
      AddStageFiles(ctx, *entries, &state.files);
      state.chain = ChainKey(state.chain, *key);
      report(step_text, true, cached);
    }
    states[i] = std::move(state);
  }
  TP_RETURN_IF_ERROR(digests.Save());
  built.stats.files_hashed = digests.files_hashed();

  StageState& final_state = states.at(plan.target);
  oci::ImageConfig& config = final_state.config.image;
  for (const auto& [key, value] : request.labels) config.config.labels[key] = value;
  config.created = created;
  if (config.architecture.empty()) config.architecture = platform.architecture;
  if (config.os.empty()) config.os = platform.os;
  TP_RETURN_IF_ERROR(oci::ValidateImageConfig(config));
  const std::string config_bytes = oci::SerializeImageConfig(config);
  TP_ASSIGN_OR_RETURN(built.config_descriptor,
                      options_.store.WriteBlob(config_bytes, oci::media_types::kOciImageConfig));
  built.config = config;

  oci::ImageManifest& manifest = built.manifest;
  manifest.config = built.config_descriptor;
  manifest.layers = final_state.layers;
  oci::ImageProvenance provenance;
  provenance.created = created;
  provenance.source = request.source;
  provenance.revision = request.revision;
  provenance.base_name = final_state.base_name;
  provenance.base_digest = final_state.base_digest.ToString();
  manifest.annotations = oci::ProvenanceAnnotations(provenance);
  TP_RETURN_IF_ERROR(oci::ValidateImageManifest(manifest));
  built.manifest_bytes = oci::SerializeImageManifest(manifest);
  TP_ASSIGN_OR_RETURN(
      built.manifest_descriptor,
      options_.store.WriteBlob(built.manifest_bytes, oci::media_types::kOciImageManifest));
  built.base_layout = final_state.base_layout;
  built.base_layer_count = final_state.base_layer_count;
  return built;
}

}  // namespace trainpkg::packager::builder
