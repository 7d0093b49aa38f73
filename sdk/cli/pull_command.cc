#include "sdk/cli/pull_command.h"

#include "base/log.h"
#include "registry/image_puller.h"
#include "registry/oci/layout.h"
#include "registry/oci/layout_reference.h"
#include "registry/oci/platform.h"
#include "sdk/cli/exit_codes.h"

namespace trainpkg::cli {

CLI::App* AddPullCommand(CLI::App& app, PullFlags& flags) {
  CLI::App* pull = app.add_subcommand("pull", "Pull an image from a registry into an OCI layout");
  pull->footer(
      "Examples:\n"
      "  trainpkg pull 127.0.0.1:5000/trainer:1 --output oci:/tmp/trainer\n"
      "  skopeo inspect oci:/tmp/trainer:1");
  pull->add_option("reference", flags.source, "[REGISTRY/]REPOSITORY[:TAG|@DIGEST]")->required();
  pull->add_option("--output", flags.output,
                   "oci:DIR[:TAG] (the tag defaults to the reference's, else latest)")
      ->required();
  pull->add_option("--platform", flags.platform,
                   "os/arch[/variant] picked from a multi-platform index (default: the "
                   "host's)")
      ->capture_default_str();
  pull->add_option("--format", flags.format, "text (progress) or json (a summary for scripts)")
      ->check(CLI::IsMember({"text", "json"}));
  pull->add_option("--jobs", flags.jobs, "Blobs downloaded at once")->check(CLI::Range(1, 32));
  AddRegistryFlags(pull, flags.registry);
  return pull;
}

int PullCommand(const PullFlags& flags, std::ostream& out, std::ostream& err) {
  absl::StatusOr<registry::Reference> source = registry::ParseReference(flags.source);
  if (!source.ok()) return ReportError(err, source.status(), kExitUsage);
  absl::StatusOr<oci::LayoutReference> output = oci::ParseLayoutReference(flags.output);
  if (!output.ok()) return ReportError(err, output.status(), kExitUsage);
  absl::StatusOr<oci::Platform> platform = oci::ParsePlatform(flags.platform);
  if (!platform.ok()) return ReportError(err, platform.status(), kExitUsage);
  std::string tag = !output->tag.empty()   ? output->tag
                    : !source->tag.empty() ? source->tag
                                           : "latest";
  absl::StatusOr<oci::Layout> layout = oci::Layout::Create(output->dir);
  if (!layout.ok()) return ReportError(err, layout.status(), kExitFailed);

  bool json = flags.format == "json";
  std::unique_ptr<registry::Progress> progress =
      MakeProgress(json ? err : out, registry::TransferDirection::kPull);
  std::unique_ptr<registry::RegistryClient> client = MakeRegistryClient(flags.registry);
  registry::PullOptions options;
  options.platform = *platform;
  options.jobs = flags.jobs;
  options.progress = progress.get();
  std::unique_ptr<registry::BlobLocations> locations = OpenBlobLocations();
  options.locations = locations.get();
  absl::StatusOr<registry::TransferResult> pulled =
      registry::PullImage(*client, *source, *layout, tag, options);
  if (absl::Status saved = locations->Save(); !saved.ok()) {
    TP_LOG(WARNING, "saving the blob location cache: {}", std::string(saved.message()));
  }
  if (!pulled.ok()) return ReportError(err, pulled.status(), kExitFailed);
  if (json) {
    out << registry::TransferResultJson(*pulled) << "\n";
  } else {
    out << tag << ": digest: " << pulled->root.digest.ToString() << " size: " << pulled->root.size
        << "\n";
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
