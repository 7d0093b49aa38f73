#include "sdk/cli/push_command.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "base/environment.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/image_store.h"
#include "registry/auth/docker_config.h"
#include "registry/image_pusher.h"
#include "registry/oci/layout.h"
#include "registry/oci/layout_reference.h"
#include "registry/progress_renderer.h"
#include "sdk/cli/build_command.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/image_builder.h"
#include "sdk/job_store.h"

namespace trainpkg::cli {

void AddRegistryFlags(CLI::App* command, RegistryFlags& flags) {
  command->add_option("--insecure-registry", flags.insecure_registries,
                      "Registry (host[:port]) reached over plain HTTP or with an unverified "
                      "certificate; repeatable");
}

std::unique_ptr<registry::RegistryClient> MakeRegistryClient(
    const RegistryFlags& flags, std::shared_ptr<registry::Keychain> keychain) {
  registry::RegistryClientOptions options;
  options.keychain = keychain
                         ? std::move(keychain)
                         : std::make_shared<registry::DockerKeychain>(base::ProcessEnvironment());
  options.insecure_registries = flags.insecure_registries;
  return std::make_unique<registry::RegistryClient>(std::move(options));
}

std::unique_ptr<registry::Progress> MakeProgress(std::ostream& out,
                                                 registry::TransferDirection direction) {
  bool tty = (&out == &std::cout && ::isatty(STDOUT_FILENO)) ||
             (&out == &std::cerr && ::isatty(STDERR_FILENO));
  if (tty) return std::make_unique<registry::TtyProgress>(out, direction, registry::RealClock());
  return std::make_unique<registry::PlainProgress>(out, direction, registry::RealClock());
}

std::unique_ptr<registry::BlobLocations> OpenBlobLocations() {
  absl::StatusOr<std::filesystem::path> home = sdk::DefaultJobStoreHome(base::ProcessEnvironment());
  absl::StatusOr<std::unique_ptr<registry::BlobLocations>> opened =
      home.ok() ? registry::BlobLocations::Open(*home / "blob-locations.json")
                : absl::StatusOr<std::unique_ptr<registry::BlobLocations>>(home.status());
  if (opened.ok()) return *std::move(opened);
  TP_LOG(WARNING, "not using the blob location cache: {}", std::string(opened.status().message()));
  return std::make_unique<registry::BlobLocations>();
}

CLI::App* AddPushCommand(CLI::App& app, PushFlags& flags) {
  CLI::App* push = app.add_subcommand(
      "push",
      "Push an image to a registry: `push REF` pushes what `trainpkg build -t REF` stored "
      "(compressing the layers the store keeps uncompressed); "
      "`push oci:DIR[:TAG] REF` pushes from an OCI layout");
  push->add_option("source", flags.source,
                   "REF (from the local image store) or oci:DIR[:TAG] (then REF follows)")
      ->required();
  push->add_option("reference", flags.target, "Where to: [REGISTRY/]REPOSITORY[:TAG]");
  push->add_option("--format", flags.format, "text (progress) or json (a summary for scripts)")
      ->check(CLI::IsMember({"text", "json"}));
  push->add_option("--jobs", flags.jobs, "Blobs uploaded at once")->check(CLI::Range(1, 32));
  push->add_option("--compression", flags.compression,
                   "How layers the local store keeps uncompressed are compressed: gzip, or zstd "
                   "(OCI ...tar+zstd; readers need zstd support). Layers already compressed, and "
                   "oci: layouts, are pushed as they are")
      ->check(CLI::IsMember({"gzip", "zstd"}))
      ->capture_default_str();
  push->add_option("--compression-level", flags.compression_level,
                   "gzip 1..12 (default 6), zstd 1..19 (default 3); the same bytes as "
                   "`trainpkg build --output oci: --compression-level N`");
  AddRegistryFlags(push, flags.registry);
  return push;
}

namespace {

// Where the image comes from: a layout and the manifest in it.
struct PushSource {
  oci::Layout layout;
  oci::Descriptor manifest;
};

// `push REF`: the store's tag is the normalised reference, ":latest" when
// it names no tag (what ImageStore::Tag writes). Layers the store keeps
// uncompressed are compressed first, a line each on `progress_out`.
absl::StatusOr<PushSource> FromStore(const PushFlags& flags, registry::Reference& target,
                                     std::ostream& progress_out) {
  if (!target.digest.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the local image store holds tags, not digests; use NAME[:TAG]", target.String()));
  }
  if (target.tag.empty()) target.tag = "latest";
  sdk::PushCompression compression;
  compression.compression = CompressionFromFlag(flags.compression);
  if (flags.compression_level != 0) compression.level = flags.compression_level;
  std::string tag = target.String();
  TP_ASSIGN_OR_RETURN(std::filesystem::path dir, sdk::ImageStoreDir(base::ProcessEnvironment()));
  TP_ASSIGN_OR_RETURN(packager::builder::ImageStore store,
                      packager::builder::ImageStore::Open(dir));
  if (!store.layout().Resolve(tag).ok()) {
    return absl::NotFoundError(fmt::format(
        "{} is not in the local image store ({}); build it with `trainpkg build -t {}`, or push "
        "from a layout with `trainpkg push oci:DIR[:TAG] {}`",
        tag, dir.string(), tag, tag));
  }
  // Cached layers (compressed by an earlier push) pass silently.
  auto report = [&](const packager::builder::LayerCompressionStep& step) {
    if (step.cached) return;
    const std::string layer = step.diff_id.ToString().substr(0, 19);
    if (!step.done) {
      progress_out << fmt::format("{}: compressing {:.1f} MB ({})\n", layer,
                                  step.uncompressed_size / 1e6, flags.compression)
                   << std::flush;
    } else {
      progress_out << fmt::format("{}: compressed to {:.1f} MB in {:.2f}s\n", layer,
                                  step.compressed.size / 1e6, step.seconds);
    }
  };
  TP_ASSIGN_OR_RETURN(sdk::ImageToPush image, sdk::StoredImageForPush(base::ProcessEnvironment(),
                                                                      tag, compression, report));
  return PushSource{image.layout, image.manifest};
}

}  // namespace

int PushCommand(const PushFlags& flags, std::ostream& out, std::ostream& err) {
  bool from_store = flags.target.empty();
  if (from_store && flags.source.starts_with("oci:")) {
    return ReportError(err,
                       absl::InvalidArgumentError(fmt::format(
                           "push {}: an oci: source needs the target REF after it", flags.source)),
                       kExitUsage);
  }
  absl::StatusOr<registry::Reference> target =
      registry::ParseReference(from_store ? flags.source : flags.target);
  if (!target.ok()) return ReportError(err, target.status(), kExitUsage);
  bool json = flags.format == "json";
  std::ostream& progress_out = json ? err : out;
  std::optional<PushSource> source;
  if (from_store) {
    absl::StatusOr<PushSource> stored = FromStore(flags, *target, progress_out);
    if (!stored.ok()) {
      bool usage = stored.status().code() == absl::StatusCode::kInvalidArgument;
      return ReportError(err, stored.status(), usage ? kExitUsage : kExitFailed);
    }
    source = *std::move(stored);
  } else {
    absl::StatusOr<oci::LayoutReference> layout_ref = oci::ParseLayoutReference(flags.source);
    if (!layout_ref.ok()) return ReportError(err, layout_ref.status(), kExitUsage);
    absl::StatusOr<oci::Layout> layout = oci::Layout::Open(layout_ref->dir);
    if (!layout.ok()) return ReportError(err, layout.status(), kExitFailed);
    absl::StatusOr<oci::Descriptor> manifest = layout->Resolve(layout_ref->tag);
    if (!manifest.ok()) return ReportError(err, manifest.status(), kExitFailed);
    source = PushSource{*std::move(layout), *manifest};
  }
  std::unique_ptr<registry::BlobLocations> locations = OpenBlobLocations();

  std::unique_ptr<registry::Progress> progress =
      MakeProgress(progress_out, registry::TransferDirection::kPush);
  std::unique_ptr<registry::RegistryClient> client = MakeRegistryClient(flags.registry);
  registry::PushOptions options;
  options.jobs = flags.jobs;
  options.progress = progress.get();
  options.locations = locations.get();
  absl::StatusOr<registry::TransferResult> pushed =
      registry::PushImage(*client, source->layout, source->manifest, *target, options);
  if (absl::Status saved = locations->Save(); !saved.ok()) {
    TP_LOG(WARNING, "saving the blob location cache: {}", std::string(saved.message()));
  }
  if (!pushed.ok()) return ReportError(err, pushed.status(), kExitFailed);
  if (json) {
    out << registry::TransferResultJson(*pushed) << "\n";
  } else {
    out << target->Identifier() << ": digest: " << pushed->root.digest.ToString()
        << " size: " << pushed->root.size << "\n";
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
