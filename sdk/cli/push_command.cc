#include "sdk/cli/push_command.h"

#include <unistd.h>

#include <iostream>

#include "base/environment.h"
#include "registry/auth/docker_config.h"
#include "registry/image_pusher.h"
#include "registry/oci/layout.h"
#include "registry/oci/layout_reference.h"
#include "registry/progress_renderer.h"
#include "sdk/cli/exit_codes.h"

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

CLI::App* AddPushCommand(CLI::App& app, PushFlags& flags) {
  CLI::App* push = app.add_subcommand("push", "Push an image from an OCI layout to a registry");
  push->add_option("source", flags.source, "The image: oci:DIR[:TAG]")->required();
  push->add_option("reference", flags.target, "Where to: [REGISTRY/]REPOSITORY[:TAG]")->required();
  push->add_option("--format", flags.format, "text (progress) or json (a summary for scripts)")
      ->check(CLI::IsMember({"text", "json"}));
  push->add_option("--jobs", flags.jobs, "Blobs uploaded at once")->check(CLI::Range(1, 32));
  AddRegistryFlags(push, flags.registry);
  return push;
}

int PushCommand(const PushFlags& flags, std::ostream& out, std::ostream& err) {
  absl::StatusOr<oci::LayoutReference> source = oci::ParseLayoutReference(flags.source);
  if (!source.ok()) return ReportError(err, source.status(), kExitUsage);
  absl::StatusOr<registry::Reference> target = registry::ParseReference(flags.target);
  if (!target.ok()) return ReportError(err, target.status(), kExitUsage);
  absl::StatusOr<oci::Layout> layout = oci::Layout::Open(source->dir);
  if (!layout.ok()) return ReportError(err, layout.status(), kExitFailed);

  bool json = flags.format == "json";
  std::ostream& progress_out = json ? err : out;
  std::unique_ptr<registry::Progress> progress =
      MakeProgress(progress_out, registry::TransferDirection::kPush);
  std::unique_ptr<registry::RegistryClient> client = MakeRegistryClient(flags.registry);
  registry::PushOptions options;
  options.jobs = flags.jobs;
  options.progress = progress.get();
  absl::StatusOr<registry::TransferResult> pushed =
      registry::PushImage(*client, *layout, source->tag, *target, options);
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
