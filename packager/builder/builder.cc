#include "packager/builder/builder.h"

#include <unistd.h>

#include <cctype>
#include <map>
#include <random>
#include <span>
#include <variant>

#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/build_context.h"
#include "packager/builder/context_copy.h"
#include "packager/builder/file_digest_cache.h"
#include "packager/builder/heredoc_copy.h"
#include "packager/builder/image_blobs.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/layer_key.h"
#include "packager/builder/run_step.h"
#include "packager/builder/stage_config.h"
#include "packager/builder/stage_files.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/dockerfile/dockerignore.h"
#include "packager/layer/layer_writer.h"
#include "packager/unpack/rootfs_cache.h"
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
  // Files not from the context (RUN output): COPY --from reads its rootfs.
  bool has_rootfs_files = false;
  std::optional<oci::Layout> base_layout;
  size_t base_layer_count = 0;
  std::string base_name;
  oci::Digest base_digest;
};

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

absl::Status AtLine(const df::Dockerfile& file, const df::Instruction& instruction,
                    const absl::Status& status) {
  return base::WithContext(status, fmt::format("{}:{}: {}", file.path, instruction.lines.first_line,
                                               instruction.keyword));
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

// A file name for a heredoc script: its delimiter when that is a plain name.
std::string ScriptName(const std::string& delimiter) {
  bool plain = !delimiter.empty() && delimiter != "." && delimiter != "..";
  for (char c : delimiter) {
    plain =
        plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  }
  return plain ? delimiter : "script";
}

// The argv of a RUN: exec form as written, shell form through the SHELL. A
// heredoc script that starts with "#!" is run directly from a file mounted
// at /dev/pipes/<delimiter> (as BuildKit does), added to `files`.
std::vector<std::string> RunArgs(const df::RunInstruction& run, const StageConfig& config,
                                 std::vector<RunCommand::File>* files) {
  if (run.command.exec_form) return run.command.args;
  if (run.script && run.heredocs.at(0).body.rfind("#!", 0) == 0) {
    std::string path = "/dev/pipes/" + ScriptName(run.heredocs[0].delimiter);
    files->push_back(RunCommand::File{path, run.heredocs[0].body});
    return {path};
  }
  std::vector<std::string> args = config.shell;
  args.push_back(run.command.args.empty() ? "" : run.command.args.front());
  return args;
}

// A directory removed, with what it holds, when the guard goes.
class ScopedDir {
 public:
  explicit ScopedDir(fs::path path) : path_(std::move(path)) {}
  ~ScopedDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScopedDir(const ScopedDir&) = delete;
  ScopedDir& operator=(const ScopedDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

absl::StatusOr<fs::path> Builder::BaseRootfs(const StageBase& base) const {
  if (base.layers.empty()) return fs::path();
  oci::LayoutImage image;
  image.descriptor.digest = base.manifest_digest;
  image.manifest.layers.assign(base.layers.begin(), base.layers.end());
  image.config.emplace();
  image.config->rootfs.diff_ids.assign(base.diff_ids.begin(), base.diff_ids.end());
  const oci::Layout* layout = base.layout;
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

absl::StatusOr<run::OverlayMount> Builder::MountStage(const StageBase& base,
                                                      std::span<const RunLayer> layers,
                                                      const fs::path& work_dir) const {
  TP_ASSIGN_OR_RETURN(fs::path base_rootfs, BaseRootfs(base));
  return MountStageRootfs(base_rootfs, layers, work_dir);
}

absl::StatusOr<LayerSource> Builder::RunCommandStep(const StageBase& base,
                                                    std::span<const RunLayer> layers,
                                                    const RunCommand& command,
                                                    const fs::path& work_dir) const {
  TP_ASSIGN_OR_RETURN(fs::path base_rootfs, BaseRootfs(base));
  RunStepOptions run_options;
  run_options.output = options_.run_output;
  return RunStep(base_rootfs, layers, command, work_dir, run_options);
}

absl::StatusOr<BuiltImage> Builder::Build(const BuildRequest& request) {
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
  if (request.source_date_epoch && !plan_options.build_args.count("SOURCE_DATE_EPOCH")) {
    plan_options.build_args["SOURCE_DATE_EPOCH"] = std::to_string(*request.source_date_epoch);
  }
  TP_ASSIGN_OR_RETURN(df::BuildPlan plan, df::PlanBuild(file, plan_options));
  TP_ASSIGN_OR_RETURN(oci::Platform platform, oci::ParsePlatform(request.platform));
  TP_ASSIGN_OR_RETURN(df::DockerIgnore ignore,
                      LoadDockerIgnore(request.context_dir, dockerfile_path));
  TP_ASSIGN_OR_RETURN(BuildContext ctx, BuildContext::Scan(request.context_dir, ignore));

  FileDigestCache digests = FileDigestCache::Load(options_.cache_dir / "file-digests.json");
  LayerCache cache(options_.cache_dir / "layers", options_.store);
  LayerOptions layer_options;
  layer_options.source_date_epoch = request.source_date_epoch;
  layer_options.threads = std::max(1, request.threads);
  // ADD's archive contents are staged on the cache's disk, not in a /tmp
  // that may be memory-backed.
  layer_options.staging_dir = options_.cache_dir / "tmp";
  layer_options.compression = request.compression;
  if (request.compression_level) {
    TP_RETURN_IF_ERROR(SetCompressionLevel(*request.compression_level, &layer_options));
  }
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

  // A stage's base (its first layers) and the layers the build made on it.
  auto stage_files = [this](const StageState& s) {
    const size_t n = s.base_layer_count;
    const std::vector<oci::Digest>& diff_ids = s.config.image.rootfs.diff_ids;
    StageBase base{std::span(s.layers).first(n), std::span(diff_ids).first(n),
                   s.base_layout ? &*s.base_layout : nullptr, s.base_digest, s.base_name};
    std::vector<RunLayer> built_layers;
    for (size_t j = n; j < s.layers.size(); ++j) {
      built_layers.push_back(
          RunLayer{options_.store.BlobPath(s.layers[j].digest), s.layers[j], diff_ids[j]});
    }
    return std::make_pair(base, built_layers);
  };
  auto new_work_dir = [this] {
    std::random_device random;
    return options_.cache_dir / "run" / fmt::format("{}-{:08x}", ::getpid(), random());
  };

  BuiltImage built;
  built.warnings = file.warnings;
  built.warnings.insert(built.warnings.end(), plan.warnings.begin(), plan.warnings.end());
  std::map<int, StageState> states;
  for (int i : plan.order) {
    const df::Stage& stage = file.stages[static_cast<size_t>(i)];
    const df::PlannedStage& planned = plan.stages[static_cast<size_t>(i)];
    ++step;
    report(InstructionText(lines, stage.from, file.escape), false, false);
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
      // Keyed by the base's content, not its manifest: the same image
      // pushed elsewhere (another base.name annotation, another
      // compression) gives the same layers on top.
      state.chain =
          ChainKey("", base->config_digest.empty() ? "scratch " + oci::FormatPlatform(platform)
                                                   : "config " + base->config_digest.ToString());
    }
    auto expanded = df::ExpandStage(file, plan, plan_options, i, state.config.image.config.env);
    if (!expanded.ok()) return expanded.status();
    for (size_t k = 0; k < expanded->instructions.size(); ++k) {
      const df::Instruction& instruction = expanded->instructions[k];
      const std::string step_text = InstructionText(lines, instruction, file.escape);
      ++step;
      report(ProgressText(step_text), false, false);
      oci::HistoryEntry history{created, step_text, "", "", true};
      const auto* copy = std::get_if<df::CopyInstruction>(&instruction.body);
      const auto* run = std::get_if<df::RunInstruction>(&instruction.body);
      auto write_layer = [&](const LayerSource& source) -> absl::StatusOr<CachedLayer> {
        auto written = WriteLayerBlob(source, layer_options, options_.store);
        if (!written.ok()) return AtLine(file, instruction, written.status());
        oci::Descriptor descriptor;
        descriptor.media_type = std::string(LayerMediaType(request.compression));
        descriptor.digest = written->digest;
        descriptor.size = written->size;
        return CachedLayer{descriptor, written->diff_id};
      };
      auto add_layer = [&](const std::string& key, const CachedLayer& layer, bool cached) {
        state.layers.push_back(layer.descriptor);
        state.config.image.rootfs.diff_ids.push_back(layer.diff_id);
        history.created_by = step_text + " # buildkit";
        history.empty_layer = false;
        state.config.image.history.push_back(history);
        state.chain = ChainKey(state.chain, key);
        if (cached) {
          ++built.stats.layers_cached;
        } else {
          ++built.stats.layers_written;
        }
        report(ProgressText(step_text), true, cached);
      };
      if (run != nullptr) {
        const std::vector<std::string>& config_env = state.config.image.config.env;
        RunCommand command;
        command.args = RunArgs(*run, state.config, &command.files);
        command.env = config_env;
        auto run_args = expanded->run_args.find(k);
        if (run_args != expanded->run_args.end()) {
          command.env.insert(command.env.end(), run_args->second.begin(), run_args->second.end());
        }
        command.network = run->network.empty()     ? request.network
                          : run->network == "none" ? RunNetwork::kNone
                                                   : RunNetwork::kDefault;
        command.extra_hosts = request.add_hosts;
        command.cwd = state.config.image.config.working_dir.empty()
                          ? "/"
                          : state.config.image.config.working_dir;
        command.user = state.config.image.config.user;
        std::vector<std::string> file_keys;
        for (const RunCommand::File& f : command.files) {
          file_keys.push_back(f.path + "\n" + f.content);
        }
        // Keyed like BuildKit's exec ops: the network mode and the added
        // host names are, the added hosts' addresses and the proxy args
        // are not (they say how to reach things, not what is built).
        std::vector<std::string> sandbox;
        if (command.network == RunNetwork::kNone) sandbox.push_back("network none");
        for (const run::HostEntry& host : command.extra_hosts) {
          sandbox.push_back("add-host " + host.name);
        }
        const std::string key =
            RunLayerKey(state.chain, step_text, command.args, command.env, command.cwd,
                        command.user, layer_options, file_keys, sandbox);
        auto proxy_args = expanded->run_proxy_args.find(k);
        if (proxy_args != expanded->run_proxy_args.end()) {
          command.env.insert(command.env.end(), proxy_args->second.begin(),
                             proxy_args->second.end());
        }
        std::optional<CachedLayer> layer =
            request.no_cache ? std::nullopt : cache.Lookup(key);
        const bool cached = layer.has_value();
        if (!cached) {
          const auto [base, built_layers] = stage_files(state);
          ScopedDir work(new_work_dir());
          auto source = RunCommandStep(base, built_layers, command, work.path());
          if (!source.ok()) return AtLine(file, instruction, source.status());
          TP_ASSIGN_OR_RETURN(layer, write_layer(*source));
          TP_RETURN_IF_ERROR(cache.Record(key, *layer));
        }
        add_layer(key, *layer, cached);
        state.has_rootfs_files = true;
        continue;
      }
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
      // COPY --from a stage with RUN output reads that stage's files, mounted.
      const BuildContext* source_ctx = &ctx;
      FileDigestCache* source_digests = &digests;
      std::optional<ScopedDir> work;
      std::optional<run::OverlayMount> mounted;
      std::optional<BuildContext> stage_ctx;
      std::optional<FileDigestCache> stage_digests;
      // Heredoc sources first: they also check the destination for all sources.
      absl::StatusOr<std::vector<LayerEntry>> heredoc_entries = std::vector<LayerEntry>();
      if (!copy->heredocs.empty()) heredoc_entries = PlanHeredocCopy(*copy, workdir);
      if (!heredoc_entries.ok()) return AtLine(file, instruction, heredoc_entries.status());
      if (copy->sources.empty()) {
        entries = std::vector<LayerEntry>();
      } else if (!copy->from.empty() && from != planned.copy_from.end() &&
                 from->second.kind == df::CopyFrom::Kind::kStage &&
                 states.at(from->second.stage).has_rootfs_files) {
        const auto [base, built_layers] = stage_files(states.at(from->second.stage));
        work.emplace(new_work_dir());
        auto mount = MountStage(base, built_layers, work->path());
        if (!mount.ok()) return AtLine(file, instruction, mount.status());
        mounted.emplace(*std::move(mount));
        auto scanned = BuildContext::Scan(mounted->target(), df::DockerIgnore());
        if (!scanned.ok()) return AtLine(file, instruction, scanned.status());
        stage_ctx.emplace(*std::move(scanned));
        stage_digests.emplace(FileDigestCache::Load(""));
        source_ctx = &*stage_ctx;
        source_digests = &*stage_digests;
        df::CopyInstruction from_stage = *copy;
        from_stage.from.clear();
        entries = PlanContextCopy(*stage_ctx, from_stage, workdir);
        state.has_rootfs_files = true;
      } else if (copy->from.empty() || from == planned.copy_from.end()) {
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
      entries->insert(entries->end(), heredoc_entries->begin(), heredoc_entries->end());
      auto key = ComputeLayerKey(state.chain, step_text, *entries, layer_options, *source_ctx,
                                 source_digests);
      if (!key.ok()) return AtLine(file, instruction, key.status());
      std::optional<CachedLayer> layer =
          request.no_cache ? std::nullopt : cache.Lookup(*key);
      const bool cached = layer.has_value();
      if (!cached) {
        TP_ASSIGN_OR_RETURN(layer, write_layer(LayerSource{source_ctx->root(), *entries}));
        TP_RETURN_IF_ERROR(cache.Record(*key, *layer));
      }
      if (source_ctx == &ctx) AddStageFiles(ctx, *entries, &state.files);
      add_layer(*key, *layer, cached);
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
  built.config = config;
  built.manifest.layers = final_state.layers;
  oci::ImageProvenance provenance;
  provenance.created = created;
  provenance.source = request.source;
  provenance.revision = request.revision;
  provenance.base_name = final_state.base_name;
  provenance.base_digest = final_state.base_digest.ToString();
  TP_RETURN_IF_ERROR(WriteConfigAndManifest(provenance, options_.store, &built));
  built.base_layout = final_state.base_layout;
  built.base_layer_count = final_state.base_layer_count;
  return built;
}

}  // namespace trainpkg::packager::builder
