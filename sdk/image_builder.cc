#include "sdk/image_builder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

#include "base/file_util.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/temp_dir.h"
#include "fmt/format.h"
#include "packager/builder/image_export.h"
#include "packager/builder/import_image.h"
#include "packager/builder/registry_base_source.h"
#include "packager/builder/store_lock.h"
#include "packager/bundle/bundle_image.h"
#include "packager/bundle/etc_files.h"
#include "packager/layer/source_date_epoch.h"
#include "registry/oci/layout_reference.h"
#include "registry/streamed_upload.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk {

namespace pb = packager::builder;

absl::StatusOr<std::filesystem::path> ImageStoreDir(const base::Environment& environment) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path home, DefaultJobStoreHome(environment));
  return home / "images";
}

namespace {

// Standard input copied to `dir`/stdin.tar.
absl::StatusOr<std::filesystem::path> SpoolStdin(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "stdin.tar";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating {}", path.string()));
  std::vector<char> buffer(size_t{1} << 20);
  absl::Status status;
  while (status.ok()) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = base::ErrnoToStatus(errno, "reading the archive from standard input");
      break;
    }
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(fd, buffer.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        status = base::ErrnoToStatus(errno, fmt::format("writing {}", path.string()));
        break;
      }
      done += w;
    }
  }
  if (::close(fd) != 0 && status.ok()) {
    status = base::ErrnoToStatus(errno, fmt::format("writing {}", path.string()));
  }
  if (!status.ok()) return status;
  return path;
}

}  // namespace

absl::StatusOr<BuiltImage> BuildImage(const ImageBuildOptions& options) {
  const base::Environment& env =
      options.environment != nullptr ? *options.environment : base::ProcessEnvironment();
  std::optional<oci::LayoutReference> output;
  if (!options.output.empty()) {
    auto parsed = oci::ParseLayoutReference(options.output);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(fmt::format("--output {}: {}; expected oci:DIR[:TAG]",
                                                    options.output,
                                                    std::string(parsed.status().message())));
    }
    output = *parsed;
    if (output->tag.empty()) output->tag = "latest";
  }
  TP_ASSIGN_OR_RETURN(std::filesystem::path store_dir, ImageStoreDir(env));
  TP_ASSIGN_OR_RETURN(pb::ImageStore store, pb::ImageStore::Open(store_dir));
  // Blobs written before they are tagged stay out of a prune's reach.
  TP_ASSIGN_OR_RETURN(pb::StoreLock gc_lock,
                      pb::StoreLock::ForCollection(store_dir, pb::StoreLock::Mode::kShared));

  std::optional<int64_t> epoch = options.source_date_epoch;
  if (!epoch) {
    TP_ASSIGN_OR_RETURN(epoch, packager::SourceDateEpochFromEnvironment(env));
  }
  std::shared_ptr<registry::RegistryClient> client = options.registry;
  if (client == nullptr) {
    client = std::make_shared<registry::RegistryClient>(registry::RegistryClientOptions{});
  }
  const packager::LayerCompression compression = options.compression.value_or(
      output || options.compression_level ? packager::LayerCompression::kGzip
                                          : packager::LayerCompression::kNone);
  pb::BuiltImage image;
  if (options.bundle) {
    packager::bundle::BundleRequest request;
    request.binary = options.bundle->binary;
    request.ld_library_path = options.bundle->ld_library_path;
    request.env = options.bundle->env;
    request.workdir = options.bundle->workdir;
    request.user = options.bundle->user;
    request.cmd = options.bundle->cmd;
    if (options.bundle->ca_certificates) request.ca_bundle = packager::bundle::kCaBundlePath;
    request.labels = options.labels;
    request.source_date_epoch = epoch;
    request.source = options.source;
    request.revision = options.revision;
    request.threads = options.threads;
    request.compression = compression;
    request.compression_level = options.compression_level;
    TP_ASSIGN_OR_RETURN(image, packager::bundle::BuildBundle(request, store.layout()));
  } else if (options.import) {
    const std::filesystem::path staging = store_dir.parent_path() / "build-cache" / "tmp";
    std::error_code ec;
    std::filesystem::create_directories(staging, ec);
    if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", staging.string()));
    pb::ImportRequest request;
    request.source = options.import->source;
    std::optional<base::TempDir> spool;
    // The importer reads an archive by path (it sniffs the format, then reads
    // it), so standard input is spooled to the store's disk first.
    if (request.source == "-") {
      TP_ASSIGN_OR_RETURN(base::TempDir dir, base::TempDir::Create("trainpkg-import", staging));
      spool.emplace(std::move(dir));
      TP_ASSIGN_OR_RETURN(request.source, SpoolStdin(spool->path()));
    }
    request.changes = options.import->changes;
    request.platform =
        options.import->platform.empty() ? oci::HostPlatform() : options.import->platform;
    request.source_date_epoch = epoch;
    request.threads = options.threads;
    request.compression = compression;
    request.compression_level = options.compression_level;
    request.staging_dir = staging;
    request.progress = options.progress;
    TP_ASSIGN_OR_RETURN(image, pb::ImportImage(request, store.layout()));
  } else {
    pb::RegistryClientBaseSource registry_source(client.get());
    pb::BuilderOptions builder_options{
        store.layout(),   store_dir.parent_path() / "build-cache", &registry_source,
        options.progress, store_dir.parent_path() / "rootfs",      options.run_output};
    pb::BuildRequest request;
    request.context_dir = options.context_dir;
    request.dockerfile = options.dockerfile;
    request.build_args = options.build_args;
    request.network = options.network;
    request.add_hosts = options.add_hosts;
    request.target = options.target;
    request.platform = options.platform;
    request.labels = options.labels;
    request.source_date_epoch = epoch;
    request.source = options.source;
    request.revision = options.revision;
    request.threads = options.threads;
    request.compression = compression;
    request.compression_level = options.compression_level;
    request.no_cache = options.no_cache;
    pb::Builder builder(std::move(builder_options));
    TP_ASSIGN_OR_RETURN(image, builder.Build(request));
  }

  BuiltImage built;
  built.manifest_digest = image.manifest_descriptor.digest.ToString();
  built.image_id = image.config_descriptor.digest.ToString();
  built.size = image.config_descriptor.size;
  for (const oci::Descriptor& layer : image.manifest.layers) built.size += layer.size;
  built.stats = image.stats;
  built.compression = compression;
  built.warnings = image.warnings;
  if (!options.tags.empty()) {
    // The store keeps oci: base layers too, so stored images stay whole.
    TP_RETURN_IF_ERROR(pb::CopyImageBlobs(image, store.layout(), store.layout(), false));
  }
  for (const std::string& tag : options.tags) {
    TP_ASSIGN_OR_RETURN(std::string name, store.Tag(image.manifest_descriptor, tag));
    built.tags.push_back(std::move(name));
  }
  if (output) {
    TP_ASSIGN_OR_RETURN(oci::Layout layout, oci::Layout::Create(output->dir));
    TP_RETURN_IF_ERROR(
        pb::ExportImage(image, store.layout(), layout, output->tag, options.lazy_base));
    built.output = oci::FormatLayoutReference(*output);
    for (const oci::Descriptor& layer : image.manifest.layers) {
      if (!layout.HasBlob(layer.digest))
        built.missing_base_blobs.push_back(layer.digest.ToString());
    }
  }
  return built;
}

absl::StatusOr<registry::TransferResult> PushStoredImage(const base::Environment& environment,
                                                         std::string_view tag,
                                                         registry::RegistryClient& client,
                                                         const registry::Reference& target,
                                                         const StoredPushOptions& options) {
  packager::LayerOptions layer_options;
  layer_options.compression = options.compression.compression;
  layer_options.threads = std::max(1, options.compression.threads);
  if (options.compression.level) {
    TP_RETURN_IF_ERROR(packager::SetCompressionLevel(*options.compression.level, &layer_options));
  }
  TP_ASSIGN_OR_RETURN(std::filesystem::path store_dir, ImageStoreDir(environment));
  TP_ASSIGN_OR_RETURN(pb::ImageStore store, pb::ImageStore::Open(store_dir));
  // The compressed layers and manifest written here stay out of a prune's reach.
  TP_ASSIGN_OR_RETURN(pb::StoreLock gc_lock,
                      pb::StoreLock::ForCollection(store_dir, pb::StoreLock::Mode::kShared));
  absl::StatusOr<oci::Descriptor> manifest = store.layout().Resolve(tag);
  if (!manifest.ok()) {
    return absl::NotFoundError(
        fmt::format("{} is not in the local image store ({})", tag, store_dir.string()));
  }

  // The layer being compressed streams into `upload`; when it is done, the
  // upload is committed under its digest, or left to PushImage.
  std::unique_ptr<registry::StreamedUpload> upload;
  registry::PushOptions push = options.push;
  auto copy_to = [&](const oci::Digest&) -> oci::ByteSink* {
    if (!options.stream) return nullptr;
    upload = std::make_unique<registry::StreamedUpload>(client, target.repository);
    return upload.get();
  };
  auto on_step = [&](const pb::LayerCompressionStep& step) {
    if (step.done && upload != nullptr) {
      absl::Status sent = upload->Commit(step.compressed.digest);
      if (sent.ok()) {
        push.uploaded.insert(step.compressed.digest);
      } else {
        TP_LOG(INFO, "uploading {} while compressing it: {}; uploading the finished blob instead",
               step.compressed.digest.ToString(), std::string(sent.message()));
      }
      upload.reset();
    }
    if (options.on_compress) options.on_compress(step);
  };
  TP_ASSIGN_OR_RETURN(pb::CompressedImage compressed,
                      pb::CompressImage(store.layout(), *manifest, layer_options,
                                        store_dir.parent_path() / "build-cache", on_step, copy_to));
  return registry::PushImage(client, store.layout(), compressed.manifest, target, push);
}

absl::StatusOr<std::vector<packager::builder::StoredImage>> ListImages(
    const base::Environment& environment) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path store_dir, ImageStoreDir(environment));
  TP_ASSIGN_OR_RETURN(pb::ImageStore store, pb::ImageStore::Open(store_dir));
  return store.List();
}

}  // namespace trainpkg::sdk
