#include "sdk/cli/push_command.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "base/clock.h"
#include "base/environment.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/terminal_size.h"
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
  const int fd = &out == &std::cout ? STDOUT_FILENO : &out == &std::cerr ? STDERR_FILENO : -1;
  // A redrawn display only on a terminal; a pipe or a CI log gets plain lines.
  if (fd >= 0 && ::isatty(fd)) {
    return std::make_unique<registry::TtyProgress>(out, direction, base::RealClock(),
                                                   [fd] { return base::TerminalColumns(fd); });
  }
  return std::make_unique<registry::PlainProgress>(out, direction, base::RealClock());
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
  push->add_flag("-q,--quiet", flags.quiet,
                 "No progress; print only what was pushed, REFERENCE@DIGEST (errors still go to "
                 "stderr)");
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

// `push REF` from the store: the store's tag is the normalised reference,
// ":latest" when it names no tag (what ImageStore::Tag writes). Layers the
// store keeps uncompressed are compressed (and uploaded meanwhile), a line
// each on `progress_out`.
absl::StatusOr<registry::TransferResult> PushFromStore(const PushFlags& flags,
                                                       registry::Reference& target,
                                                       registry::RegistryClient& client,
                                                       const registry::PushOptions& push,
                                                       std::ostream& progress_out) {
  if (!target.digest.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the local image store holds tags, not digests; use NAME[:TAG]", target.String()));
  }
  if (target.tag.empty()) target.tag = "latest";
  const std::string tag = target.String();
  TP_ASSIGN_OR_RETURN(std::filesystem::path dir, sdk::ImageStoreDir(base::ProcessEnvironment()));
  TP_ASSIGN_OR_RETURN(packager::builder::ImageStore store,
                      packager::builder::ImageStore::Open(dir));
  if (!store.layout().Resolve(tag).ok()) {
    return absl::NotFoundError(fmt::format(
        "{} is not in the local image store ({}); build it with `trainpkg build -t {}`, or push "
        "from a layout with `trainpkg push oci:DIR[:TAG] {}`",
        tag, dir.string(), tag, tag));
  }
  sdk::StoredPushOptions options;
  options.compression.compression = CompressionFromFlag(flags.compression);
  if (flags.compression_level != 0) options.compression.level = flags.compression_level;
  options.push = push;
  // Layers compressed by an earlier push pass silently.
  options.on_compress = [&](const packager::builder::LayerCompressionStep& step) {
    if (step.cached) return;
    const std::string layer = step.diff_id.ToString().substr(0, 19);
    if (!step.done) {
      progress_out << fmt::format("{}: compressing {:.1f} MB ({}) and uploading meanwhile\n", layer,
                                  step.uncompressed_size / 1e6, flags.compression)
                   << std::flush;
    } else {
      progress_out << fmt::format("{}: compressed to {:.1f} MB in {:.2f}s\n", layer,
                                  step.compressed.size / 1e6, step.seconds);
    }
  };
  return sdk::PushStoredImage(base::ProcessEnvironment(), tag, client, target, options);
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
  std::optional<oci::Layout> layout;
  std::string layout_tag;
  if (!from_store) {
    absl::StatusOr<oci::LayoutReference> layout_ref = oci::ParseLayoutReference(flags.source);
    if (!layout_ref.ok()) return ReportError(err, layout_ref.status(), kExitUsage);
    absl::StatusOr<oci::Layout> opened = oci::Layout::Open(layout_ref->dir);
    if (!opened.ok()) return ReportError(err, opened.status(), kExitFailed);
    layout = *std::move(opened);
    layout_tag = layout_ref->tag;
  }
  std::unique_ptr<registry::BlobLocations> locations = OpenBlobLocations();

  bool json = flags.format == "json";
  std::ostringstream discarded;
  std::ostream& progress_out = flags.quiet ? discarded : json ? err : out;
  std::unique_ptr<registry::Progress> progress =
      flags.quiet ? nullptr : MakeProgress(progress_out, registry::TransferDirection::kPush);
  std::unique_ptr<registry::RegistryClient> client = MakeRegistryClient(flags.registry);
  registry::PushOptions options;
  options.jobs = flags.jobs;
  options.progress = progress.get();
  options.locations = locations.get();
  absl::StatusOr<registry::TransferResult> pushed =
      from_store ? PushFromStore(flags, *target, *client, options, progress_out)
                 : registry::PushImage(*client, *layout, layout_tag, *target, options);
  if (absl::Status saved = locations->Save(); !saved.ok()) {
    TP_LOG(WARNING, "saving the blob location cache: {}", std::string(saved.message()));
  }
  if (!pushed.ok()) {
    bool usage = from_store && pushed.status().code() == absl::StatusCode::kInvalidArgument;
    return ReportError(err, pushed.status(), usage ? kExitUsage : kExitFailed);
  }
  if (flags.quiet) {
    out << target->repository.Name() << (target->tag.empty() ? "" : ":" + target->tag) << "@"
        << pushed->root.digest.ToString() << "\n";
  } else if (json) {
    out << registry::TransferResultJson(*pushed) << "\n";
  } else {
    out << target->Identifier() << ": digest: " << pushed->root.digest.ToString()
        << " size: " << pushed->root.size << "\n";
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
