#include "sdk/cli/import_command.h"

#include <chrono>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "packager/layer/layer_options.h"
#include "sdk/cli/build_command.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/image_builder.h"

namespace trainpkg::cli {

CLI::App* AddImportCommand(CLI::App& app, ImportFlags& flags) {
  CLI::App* import = app.add_subcommand(
      "import",
      "Make a one-layer image from a root filesystem (a directory or a tar archive), like "
      "docker import");
  import->footer(
      "SOURCE: a directory (archived as root's `tar -C DIR -c .` would: modes, owners, links), "
      "a tar archive (plain, gzip, bzip2, xz or zstd) or - for an archive on standard input. "
      "Members that climb out of the root, pass through a symlink, or are devices, fifos or "
      "sockets are refused (a container gets /dev from its runtime: empty DIR/dev first, e.g. "
      "after debootstrap). Mtimes are kept, or clamped to SOURCE_DATE_EPOCH when it is set "
      "(then the same input gives the same digest). The config holds only the platform and "
      "what --change sets.\n"
      "Exit code: 0 imported, 1 the import or a push failed, 2 invalid flags.");
  import->add_option("SOURCE", flags.source, "Root filesystem directory, tar archive, or -")
      ->required();
  import->add_option("-t,--tag", flags.tags, "Store the image in the local store as NAME[:TAG]")
      ->allow_extra_args(false);
  import->add_option("--output", flags.output,
                     "Also write the image to an oci-layout: oci:DIR[:TAG] (TAG default latest)");
  import->add_flag("--push", flags.push,
                   "Then push every -t NAME[:TAG] to its registry, as `trainpkg push` does");
  import
      ->add_option("-c,--change", flags.changes,
                   "Dockerfile instruction applied to the config: CMD, ENTRYPOINT, ENV, EXPOSE, "
                   "LABEL, ONBUILD, STOPSIGNAL, USER, VOLUME or WORKDIR; repeatable, in order")
      ->allow_extra_args(false);
  import->add_option("--platform", flags.platform,
                     "OS/ARCH[/VARIANT] of the files (default: the host's, linux/<uname -m>)");
  import
      ->add_option("--compression", flags.compression,
                   "Layer compression: gzip, zstd or none. Default: gzip with --output or "
                   "--compression-level; otherwise none, and `trainpkg push` compresses it")
      ->check(CLI::IsMember({"gzip", "zstd", "none"}));
  import->add_option("--compression-level", flags.compression_level,
                     "gzip 1..12 (default 6), zstd 1..19 (default 3)");
  import->add_flag("-q,--quiet", flags.quiet, "Print only the manifest digest");
  AddRegistryFlags(import, flags.registry);
  return import;
}

int RunImportCommand(const ImportFlags& flags, std::ostream& out, std::ostream& err) {
  if (flags.tags.empty() && flags.output.empty()) {
    return ReportError(err,
                       absl::InvalidArgumentError(
                           "nothing to write the image to: give -t NAME[:TAG] (the local store) "
                           "and/or --output oci:DIR[:TAG]"),
                       kExitUsage);
  }
  if (flags.push && flags.tags.empty()) {
    return ReportError(err, absl::InvalidArgumentError("--push pushes the -t tags; give -t"),
                       kExitUsage);
  }
  sdk::ImageBuildOptions options;
  options.import = sdk::ImportOptions{flags.source, flags.changes, flags.platform};
  options.tags = flags.tags;
  options.output = flags.output;
  if (absl::Status compression =
          ApplyCompressionFlags(flags.compression, flags.compression_level, options);
      !compression.ok()) {
    return ReportError(err, compression, kExitUsage);
  }
  const auto start = std::chrono::steady_clock::now();
  auto step_start = start;
  if (!flags.quiet) {
    options.progress = [&](const packager::builder::BuildStep& step) {
      if (!step.done) {
        step_start = std::chrono::steady_clock::now();
        out << fmt::format("[{}/{}] {}\n", step.index, step.total, step.text) << std::flush;
        return;
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
      out << fmt::format("[{}/{}] {} ({:.2f}s)\n", step.index, step.total, step.text, seconds)
          << std::flush;
    };
  }
  auto imported = sdk::BuildImage(options);
  if (!imported.ok()) {
    const std::string message(imported.status().message());
    const bool usage =
        imported.status().code() == absl::StatusCode::kInvalidArgument &&
        (message.rfind("--output", 0) == 0 || message.find(": --change \"") != std::string::npos);
    return ReportError(err, imported.status(), usage ? kExitUsage : kExitFailed);
  }
  if (flags.quiet) {
    out << imported->manifest_digest << "\n";
  } else {
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << fmt::format("imported in {:.2f}s: {:.1f} MB\n", total, imported->size / 1e6);
    out << "manifest " << imported->manifest_digest << "\n";
    out << "image id " << imported->image_id << "\n";
    for (const std::string& tag : imported->tags) out << "tagged " << tag << "\n";
    if (!imported->output.empty()) out << "wrote " << imported->output << "\n";
  }
  if (!flags.push) return kExitOk;
  for (const std::string& tag : imported->tags) {
    PushFlags push;
    push.source = tag;
    push.compression = flags.compression == "zstd" ? "zstd" : "gzip";
    push.compression_level = flags.compression_level;
    push.registry = flags.registry;
    if (const int code = PushCommand(push, out, err); code != kExitOk) return code;
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
