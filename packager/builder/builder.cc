#include "packager/builder/builder.h"

#include <map>
#include <optional>
#include <span>
#include <variant>

#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/build_context.h"
#include "packager/builder/config_step.h"
#include "packager/builder/copy_step.h"
#include "packager/builder/file_digest_cache.h"
#include "packager/builder/from_step.h"
#include "packager/builder/image_blobs.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/layer_step.h"
#include "packager/builder/run_instruction_step.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/dockerfile/dockerignore.h"
#include "packager/layer/layer_writer.h"
#include "packager/unpack/rootfs_cache.h"
#include "registry/oci/annotations.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
namespace df = dockerfile;

// The heredocs of an instruction (RUN, COPY, ADD), none for the others.
const std::vector<df::Heredoc>& HeredocsOf(const df::Instruction& instruction) {
  static const std::vector<df::Heredoc> kNone;
  if (const auto* run = std::get_if<df::RunInstruction>(&instruction.body)) return run->heredocs;
  if (const auto* copy = std::get_if<df::CopyInstruction>(&instruction.body)) return copy->heredocs;
  return kNone;
}

// The instruction as written: its lines joined, continuations and comment
// lines inside it dropped, runs of blanks collapsed; then each heredoc's
// body and delimiter lines exactly as written, after a newline.
std::string InstructionText(const std::vector<std::string>& lines, const df::Instruction& instr,
                            char escape) {
  const std::vector<df::Heredoc>& heredocs = HeredocsOf(instr);
  const int first = instr.lines.first_line;
  const int last = heredocs.empty() ? instr.lines.last_line : heredocs[0].lines.first_line - 1;
  const int count = static_cast<int>(lines.size());
  std::string joined;
  for (int n = first; n <= last && n <= count; ++n) {
    std::string line = lines[static_cast<size_t>(n - 1)];
    size_t start = line.find_first_not_of(" \t");
    if (n != first && start != std::string::npos && line[start] == '#') continue;
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
  for (const df::Heredoc& h : heredocs) {
    for (int n = h.lines.first_line; n <= h.lines.last_line && n <= count; ++n) {
      std::string line = lines[static_cast<size_t>(n - 1)];
      if (!line.empty() && line.back() == '\r') line.pop_back();
      out += "\n" + line;
    }
  }
  return out;
}

// What progress shows of a step: its first line, and for a heredoc the
// start of its body, as BuildKit shows `RUN <<EOF (apt-get update...)`.
std::string ProgressText(const std::string& step_text) {
  size_t nl = step_text.find('\n');
  if (nl == std::string::npos) return step_text;
  size_t end = step_text.find('\n', nl + 1);
  std::string body = step_text.substr(nl + 1, end == std::string::npos ? end : end - nl - 1);
  body.erase(0, std::min(body.size(), body.find_first_not_of(" \t")));
  if (body.size() > 40) body = body.substr(0, 40);
  return fmt::format("{} ({}...)", step_text.substr(0, nl), body);
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

// The Dockerfile of a request, read and planned, and the context it reads.
struct BuildInputs {
  std::string text;
  df::Dockerfile file;
  df::BuildOptions plan_options;
  df::BuildPlan plan;
  oci::Platform platform;
  BuildContext context;
};

absl::StatusOr<BuildInputs> LoadInputs(const BuildRequest& request) {
  const fs::path dockerfile_path =
      request.dockerfile.empty() ? request.context_dir / "Dockerfile" : request.dockerfile;
  auto text = base::ReadFile(dockerfile_path);
  if (!text.ok()) {
    return base::WithContext(text.status(), "reading the Dockerfile");
  }
  const std::string display_path =
      request.dockerfile.empty() ? "Dockerfile" : request.dockerfile.string();
  TP_ASSIGN_OR_RETURN(df::Dockerfile file, df::ParseDockerfile(*text, display_path));
  df::BuildOptions plan_options;
  plan_options.build_args = request.build_args;
  plan_options.target = request.target;
  plan_options.platform = request.platform;
  // The epoch is also the SOURCE_DATE_EPOCH build arg, so a stage that
  // declares it hands it to its RUN commands; an explicit --build-arg wins.
  if (request.source_date_epoch && !plan_options.build_args.count("SOURCE_DATE_EPOCH")) {
    plan_options.build_args["SOURCE_DATE_EPOCH"] = std::to_string(*request.source_date_epoch);
  }
  TP_ASSIGN_OR_RETURN(df::BuildPlan plan, df::PlanBuild(file, plan_options));
  TP_ASSIGN_OR_RETURN(oci::Platform platform, oci::ParsePlatform(request.platform));
  TP_ASSIGN_OR_RETURN(df::DockerIgnore ignore,
                      LoadDockerIgnore(request.context_dir, dockerfile_path));
  TP_ASSIGN_OR_RETURN(BuildContext context, BuildContext::Scan(request.context_dir, ignore));
  return BuildInputs{*std::move(text), std::move(file),     std::move(plan_options),
                     std::move(plan),  std::move(platform), std::move(context)};
}

absl::StatusOr<LayerOptions> LayerOptionsFor(const BuildRequest& request,
                                             const fs::path& cache_dir) {
  LayerOptions layer_options;
  layer_options.source_date_epoch = request.source_date_epoch;
  layer_options.threads = std::max(1, request.threads);
  // ADD's archive contents are staged on the cache's disk, not in a /tmp
  // that may be memory-backed.
  layer_options.staging_dir = cache_dir / "tmp";
  layer_options.compression = request.compression;
  if (request.compression_level) {
    TP_RETURN_IF_ERROR(SetCompressionLevel(*request.compression_level, &layer_options));
  }
  return layer_options;
}

const std::vector<std::string>& ValuesAt(const std::map<size_t, std::vector<std::string>>& values,
                                         size_t index) {
  static const std::vector<std::string> kNone;
  auto found = values.find(index);
  return found == values.end() ? kNone : found->second;
}

// The step of instruction `k` of `expanded`: how a RUN or COPY/ADD got its
// layer; nullopt for the config-only instructions, which make none.
absl::StatusOr<std::optional<LayerOrigin>> InstructionStep(const BuildSession& session,
                                                           const df::PlannedStage& planned,
                                                           const df::ExpandedStage& expanded,
                                                           size_t k,
                                                           const oci::HistoryEntry& history,
                                                           StageState& state) {
  const df::Instruction& instruction = expanded.instructions[k];
  if (const auto* run = std::get_if<df::RunInstruction>(&instruction.body)) {
    return RunInstructionStep(session, instruction, *run, ValuesAt(expanded.run_args, k),
                              ValuesAt(expanded.run_proxy_args, k), history, state);
  }
  if (const auto* copy = std::get_if<df::CopyInstruction>(&instruction.body)) {
    auto from = planned.copy_from.find(k);
    return CopyStep(session, instruction, *copy,
                    from == planned.copy_from.end() ? nullptr : &from->second, history, state);
  }
  TP_RETURN_IF_ERROR(ConfigStep(session, instruction, history, state));
  return std::nullopt;
}

// The image of the target stage, the request's labels applied last, its
// config and manifest written to `store`.
absl::Status AssembleImage(const BuildRequest& request, const StageState& target,
                           const std::string& created, const oci::Platform& platform,
                           const oci::Layout& store, BuiltImage* built) {
  oci::ImageConfig config = target.config.image;
  for (const auto& [key, value] : request.labels) config.config.labels[key] = value;
  config.created = created;
  if (config.architecture.empty()) config.architecture = platform.architecture;
  if (config.os.empty()) config.os = platform.os;
  built->config = std::move(config);
  built->manifest.layers = target.layers;
  oci::ImageProvenance provenance;
  provenance.created = created;
  provenance.source = request.source;
  provenance.revision = request.revision;
  provenance.base_name = target.base_name;
  provenance.base_digest = target.base_digest.ToString();
  TP_RETURN_IF_ERROR(WriteConfigAndManifest(provenance, store, built));
  built->base_layout = target.base_layout;
  built->base_layer_count = target.base_layer_count;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<fs::path> Builder::BaseRootfs(const StageBase& base) const {
  if (base.layers.empty()) return fs::path();
  oci::LayoutImage image;
  image.descriptor.digest = base.manifest_digest;
  image.manifest.layers.assign(base.layers.begin(), base.layers.end());
  image.config.emplace();
  image.config->rootfs.diff_ids.assign(base.diff_ids.begin(), base.diff_ids.end());
  const oci::Layout* layout = base.layout;
  // A registry base's layers are fetched here, when a step first needs the
  // rootfs, not at FROM: a build without RUN never downloads them.
  if (layout == nullptr) {
    layout = &options_.store;
    for (const oci::Descriptor& layer : base.layers) {
      if (options_.store.HasBlob(layer.digest)) continue;
      if (options_.registry == nullptr) {
        return absl::FailedPreconditionError(fmt::format(
            "RUN needs the layers of {}, and no registry client is configured", base.name));
      }
      TP_RETURN_IF_ERROR(options_.registry->FetchLayer(base.name, layer, options_.store));
    }
  }
  unpack::RootfsCache rootfs(options_.rootfs_dir.empty() ? options_.cache_dir / "rootfs"
                                                         : options_.rootfs_dir);
  return rootfs.Get(*layout, image);
}

absl::StatusOr<run::OverlayMount> Builder::Mount(const StageBase& base,
                                                 std::span<const RunLayer> layers,
                                                 const fs::path& work_dir) const {
  TP_ASSIGN_OR_RETURN(fs::path base_rootfs, BaseRootfs(base));
  return MountStageRootfs(base_rootfs, layers, work_dir);
}

absl::StatusOr<LayerSource> Builder::Run(const StageBase& base, std::span<const RunLayer> layers,
                                         const RunCommand& command,
                                         const fs::path& work_dir) const {
  TP_ASSIGN_OR_RETURN(fs::path base_rootfs, BaseRootfs(base));
  RunStepOptions run_options;
  run_options.output = options_.run_output;
  return RunStep(base_rootfs, layers, command, work_dir, run_options);
}

absl::StatusOr<BuiltImage> Builder::Build(const BuildRequest& request) {
  TP_ASSIGN_OR_RETURN(BuildInputs in, LoadInputs(request));
  TP_ASSIGN_OR_RETURN(LayerOptions layer_options, LayerOptionsFor(request, options_.cache_dir));
  FileDigestCache digests = FileDigestCache::Load(options_.cache_dir / "file-digests.json");
  LayerCache cache(options_.cache_dir / "layers", options_.store);
  std::map<int, StageState> stages;  // the finished ones
  BuildSession session{.file = &in.file,
                       .context = &in.context,
                       .digests = &digests,
                       .cache = &cache,
                       .store = &options_.store,
                       .runner = this,
                       .registry = options_.registry,
                       .platform = in.platform,
                       .work_root = options_.cache_dir / "run",
                       .layer_options = std::move(layer_options),
                       .no_cache = request.no_cache,
                       .network = request.network,
                       .add_hosts = request.add_hosts,
                       .stages = &stages};
  const std::string created =
      oci::FormatRfc3339(absl::FromUnixSeconds(request.source_date_epoch.value_or(0)));
  const std::vector<std::string> lines = SplitLines(in.text);

  int total = 0;
  for (int i : in.plan.order) {
    total += 1 + static_cast<int>(in.file.stages[static_cast<size_t>(i)].instructions.size());
  }
  int step = 0;
  auto report = [&](const std::string& step_text, bool done, bool cached) {
    if (options_.progress) options_.progress(BuildStep{step, total, step_text, done, cached});
  };

  BuiltImage built;
  built.warnings = in.file.warnings;
  built.warnings.insert(built.warnings.end(), in.plan.warnings.begin(), in.plan.warnings.end());
  for (int i : in.plan.order) {
    const df::Stage& stage = in.file.stages[static_cast<size_t>(i)];
    const df::PlannedStage& planned = in.plan.stages[static_cast<size_t>(i)];
    ++step;
    report(InstructionText(lines, stage.from, in.file.escape), false, false);
    TP_ASSIGN_OR_RETURN(StageState state, FromStep(session, stage, planned.base));
    // With the base's ENV: Docker substitutes variables a base image set.
    auto expanded =
        df::ExpandStage(in.file, in.plan, in.plan_options, i, state.config.image.config.env);
    if (!expanded.ok()) return expanded.status();
    for (size_t k = 0; k < expanded->instructions.size(); ++k) {
      const std::string step_text = InstructionText(lines, expanded->instructions[k], in.file.escape);
      ++step;
      report(ProgressText(step_text), false, false);
      TP_ASSIGN_OR_RETURN(std::optional<LayerOrigin> origin,
                          InstructionStep(session, planned, *expanded, k,
                                          oci::HistoryEntry{created, step_text, "", "", true},
                                          state));
      if (!origin.has_value()) continue;
      const bool cached = *origin == LayerOrigin::kCache;
      ++(cached ? built.stats.layers_cached : built.stats.layers_written);
      report(ProgressText(step_text), true, cached);
    }
    stages[i] = std::move(state);
  }
  TP_RETURN_IF_ERROR(digests.Save());
  built.stats.files_hashed = digests.files_hashed();
  TP_RETURN_IF_ERROR(
      AssembleImage(request, stages.at(in.plan.target), created, in.platform, options_.store, &built));
  return built;
}

}  // namespace trainpkg::packager::builder
