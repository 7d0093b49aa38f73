#include "packager/bundle/bundle_image.h"

#include <elf.h>
#include <unistd.h>

#include <atomic>

#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "base/temp_dir.h"
#include "fmt/format.h"
#include "packager/builder/image_blobs.h"
#include "packager/bundle/bundle_layers.h"
#include "packager/bundle/etc_files.h"
#include "packager/layer/layer_writer.h"
#include "registry/oci/annotations.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::bundle {
namespace {

namespace fs = std::filesystem;

// The PATH Docker gives Linux containers by default, written into the config
// so that running the bundle does not depend on a runtime's default.
constexpr char kDefaultPath[] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

absl::Status SetEnv(const std::string& pair, std::vector<std::string>* env) {
  size_t eq = pair.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(fmt::format("env \"{}\": expected KEY=VALUE", pair));
  }
  // With the '=': key "A" must not replace "AB=...".
  const std::string key = pair.substr(0, eq + 1);
  for (std::string& existing : *env) {
    if (existing.rfind(key, 0) == 0) {
      existing = pair;
      return absl::OkStatus();
    }
  }
  env->push_back(pair);
  return absl::OkStatus();
}

absl::StatusOr<builder::BuiltImage> Build(const BundleRequest& request, const oci::Layout& store) {
  std::error_code ec;
  const fs::path binary = fs::absolute(request.binary, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), "resolving the binary's path");
  LoaderConfig loader;
  if (request.loader) {
    loader = *request.loader;
  } else {
    TP_ASSIGN_OR_RETURN(ElfFile elf, ReadElfFile(binary));
    TP_ASSIGN_OR_RETURN(loader, DebianLoaderConfig(elf.machine));
    loader.ld_library_path = request.ld_library_path;
  }
  TP_ASSIGN_OR_RETURN(Closure closure, ResolveClosure(binary.string(), loader));
  if (closure.executable.elf.type != ET_EXEC && closure.executable.elf.type != ET_DYN) {
    return absl::InvalidArgumentError("not an executable (ELF type is neither EXEC nor DYN)");
  }
  std::string architecture;
  if (closure.executable.elf.machine == EM_X86_64) {
    architecture = "amd64";
  } else if (closure.executable.elf.machine == EM_AARCH64) {
    architecture = "arm64";
  } else {
    return absl::InvalidArgumentError(
        fmt::format("ELF machine {} is not supported; expected x86-64 or aarch64",
                    closure.executable.elf.machine));
  }

  TP_ASSIGN_OR_RETURN(base::TempDir staging, base::TempDir::Create("trainpkg-bundle"));
  TP_RETURN_IF_ERROR(WriteEtcFiles(staging.path(), request.ca_bundle));
  TP_ASSIGN_OR_RETURN(std::vector<BundleLayer> layers,
                      PlanBundleLayers(closure, loader, staging.path()));

  // Epoch 0 when no SOURCE_DATE_EPOCH is given: the same inputs make the same
  // config digest on every run.
  const std::string created =
      oci::FormatRfc3339(absl::FromUnixSeconds(request.source_date_epoch.value_or(0)));
  LayerOptions layer_options;
  layer_options.source_date_epoch = request.source_date_epoch;
  layer_options.mtime_policy = MtimePolicy::kSet;
  layer_options.threads = std::max(1, request.threads);
  layer_options.compression = request.compression;
  if (request.compression_level) {
    TP_RETURN_IF_ERROR(SetCompressionLevel(*request.compression_level, &layer_options));
  }

  builder::BuiltImage built;
  oci::ImageConfig& config = built.config;
  config.created = created;
  config.architecture = architecture;
  config.os = "linux";
  config.config.entrypoint = {BundleBinaryPath(closure)};
  config.config.cmd = request.cmd;
  config.config.env = {kDefaultPath};
  for (const std::string& pair : request.env) TP_RETURN_IF_ERROR(SetEnv(pair, &config.config.env));
  config.config.working_dir = request.workdir.empty() ? "/" : request.workdir;
  config.config.user = request.user;
  config.config.labels = request.labels;
  for (const BundleLayer& layer : layers) {
    TP_ASSIGN_OR_RETURN(LayerResult written, WriteLayerBlob(layer.source, layer_options, store));
    oci::Descriptor descriptor;
    descriptor.media_type = std::string(LayerMediaType(request.compression));
    descriptor.digest = written.digest;
    descriptor.size = written.size;
    built.manifest.layers.push_back(descriptor);
    config.rootfs.diff_ids.push_back(written.diff_id);
    config.history.push_back(oci::HistoryEntry{
        created,
        fmt::format("trainpkg build --bundle-libs: {} ({} files)", layer.name, layer.files), "", "",
        false});
    ++built.stats.layers_written;
  }
  oci::ImageProvenance provenance;
  provenance.created = created;
  provenance.source = request.source;
  provenance.revision = request.revision;
  TP_RETURN_IF_ERROR(builder::WriteConfigAndManifest(provenance, store, &built));
  return built;
}

}  // namespace

absl::StatusOr<builder::BuiltImage> BuildBundle(const BundleRequest& request,
                                                const oci::Layout& store) {
  absl::StatusOr<builder::BuiltImage> built = Build(request, store);
  if (!built.ok()) {
    return base::WithContext(built.status(), fmt::format("bundling {}", request.binary.string()));
  }
  return built;
}

}  // namespace trainpkg::packager::bundle
