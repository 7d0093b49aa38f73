#include "packager/builder/import_image.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/image_blobs.h"
#include "packager/builder/stage_config.h"
#include "packager/dockerfile/change_instruction.h"
#include "packager/dockerfile/expand.h"
#include "packager/dockerfile/var_scope.h"
#include "packager/layer/layer_writer.h"
#include "packager/layer/tar_archive.h"
#include "registry/oci/annotations.h"
#include "registry/oci/media_types.h"
#include "registry/oci/platform.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

// `message` less the Dockerfile parser's "--change:LINE: " prefix.
std::string WithoutLinePrefix(std::string message) {
  if (message.starts_with("--change:")) {
    const size_t colon = message.find(": ");
    if (colon != std::string::npos) message.erase(0, colon + 2);
  }
  return message;
}

// The source as a layer: a directory's tree, or an archive's members.
absl::StatusOr<LayerSource> SourceLayer(const fs::path& source) {
  struct stat st;
  if (::stat(source.c_str(), &st) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("stat {}", source.string()));
  }
  std::error_code ec;
  const fs::path resolved = fs::canonical(source, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("resolving {}", source.string()));
  if (S_ISDIR(st.st_mode)) {
    // As `tar -c` by root archives it: bits and owners as on disk.
    return LayerSource{
        resolved, {LayerEntry::Copy(".", "/", {.owner = {}, .mode = {}, .keep_attributes = true})}};
  }
  if (S_ISREG(st.st_mode)) {
    TP_ASSIGN_OR_RETURN(bool archive, IsTarArchive(resolved));
    if (archive) {
      return LayerSource{resolved.parent_path(), {LayerEntry::Extract(resolved.filename(), "/")}};
    }
  }
  return absl::InvalidArgumentError(
      "not a directory or a tar archive (plain, gzip, bzip2, xz or zstd; an empty archive is "
      "not one)");
}

absl::Status ApplyChange(const std::string& text, StageConfig* stage) {
  TP_ASSIGN_OR_RETURN(dockerfile::Instruction parsed, dockerfile::ParseChangeInstruction(text));
  dockerfile::VarScope scope;
  for (const std::string& kv : stage->image.config.env) {
    const size_t eq = kv.find('=');
    scope.SetEnv(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
  }
  absl::StatusOr<dockerfile::Instruction> expanded =
      dockerfile::ExpandInstruction(parsed, scope, '\\', "--change");
  absl::Status applied = expanded.ok() ? ApplyMetadata(*expanded, stage) : expanded.status();
  if (!applied.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "--change \"{}\": {}", text, WithoutLinePrefix(std::string(applied.message()))));
  }
  return absl::OkStatus();
}

absl::StatusOr<BuiltImage> Import(const ImportRequest& request, const oci::Layout& store) {
  TP_ASSIGN_OR_RETURN(oci::Platform platform, oci::ParsePlatform(request.platform));
  const int total = 1 + static_cast<int>(request.changes.size());
  auto report = [&](int index, const std::string& text, bool done) {
    if (request.progress) request.progress(BuildStep{index, total, text, done, false});
  };
  const std::string created =
      oci::FormatRfc3339(absl::FromUnixSeconds(request.source_date_epoch.value_or(0)));
  StageConfig stage;
  oci::ImageConfig& config = stage.image;
  config.created = created;
  config.os = platform.os;
  config.architecture = platform.architecture;
  config.variant = platform.variant;
  // Changes first: a bad one fails before the layer is written.
  for (const std::string& change : request.changes) TP_RETURN_IF_ERROR(ApplyChange(change, &stage));

  LayerOptions layer_options;
  layer_options.source_date_epoch = request.source_date_epoch;
  layer_options.threads = std::max(1, request.threads);
  layer_options.compression = request.compression;
  layer_options.staging_dir = request.staging_dir;
  layer_options.extract_limits = request.extract_limits;
  if (request.compression_level) {
    TP_RETURN_IF_ERROR(SetCompressionLevel(*request.compression_level, &layer_options));
  }
  const std::string step = "IMPORT " + request.source.string();
  report(1, step, false);
  TP_ASSIGN_OR_RETURN(LayerSource source, SourceLayer(request.source));
  TP_ASSIGN_OR_RETURN(LayerResult written, WriteLayerBlob(source, layer_options, store));
  report(1, step, true);

  BuiltImage built;
  oci::Descriptor layer;
  layer.media_type = std::string(LayerMediaType(request.compression));
  layer.digest = written.digest;
  layer.size = written.size;
  built.manifest.layers.push_back(layer);
  config.rootfs.diff_ids.push_back(written.diff_id);
  config.history.push_back(oci::HistoryEntry{created, "trainpkg import", "", "", false});
  for (size_t i = 0; i < request.changes.size(); ++i) {
    report(static_cast<int>(i) + 2, request.changes[i], false);
    config.history.push_back(oci::HistoryEntry{created, request.changes[i], "", "", true});
  }
  built.stats.layers_written = 1;
  built.config = config;
  oci::ImageProvenance provenance;
  provenance.created = created;
  TP_RETURN_IF_ERROR(WriteConfigAndManifest(provenance, store, &built));
  return built;
}

}  // namespace

absl::StatusOr<BuiltImage> ImportImage(const ImportRequest& request, const oci::Layout& store) {
  absl::StatusOr<BuiltImage> built = Import(request, store);
  if (!built.ok()) {
    return base::WithContext(built.status(), fmt::format("importing {}", request.source.string()));
  }
  return built;
}

}  // namespace trainpkg::packager::builder
