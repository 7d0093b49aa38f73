#include "sdk/cli/build_command.h"

#include <chrono>
#include <map>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/image_builder.h"

namespace trainpkg::cli {
namespace {

bool ParsePairs(const std::vector<std::string>& pairs, std::string_view flag,
                std::map<std::string, std::string>* out, std::ostream& err) {
  for (const std::string& pair : pairs) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      err << fmt::format("trainpkg: error: {} \"{}\": expected KEY=VALUE\n", flag, pair);
      return false;
    }
    (*out)[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return true;
}

}  // namespace

CLI::App* AddBuildCommand(CLI::App& app, BuildFlags& flags) {
  CLI::App* build = app.add_subcommand("build", "Build an OCI image from a Dockerfile, daemonless");
  build->footer(
      "Without a Docker daemon: base images are read as manifest + config only (oci:DIR[:TAG] "
      "layouts or registry references); COPY/ADD layers are reproducible (SOURCE_DATE_EPOCH, "
      "else 1970) and cached under $TRAINPKG_HOME/build-cache. RUN is not supported yet.\n"
      "Exit code: 0 built, 1 the build failed, 2 invalid flags.");
  build->add_option("CONTEXT", flags.context, "Build context directory")->required();
  build->add_option("-f,--file", flags.file, "Dockerfile (default CONTEXT/Dockerfile)");
  build->add_option("-t,--tag", flags.tags, "Store the image in the local store as NAME[:TAG]");
  build->add_option("--build-arg", flags.build_args, "KEY=VALUE for an ARG");
  build->add_option("--target", flags.target, "Build this stage (default: the last)");
  build->add_option("--output", flags.output,
                    "Also write the image to an oci-layout: oci:DIR[:TAG] (TAG default latest)");
  build->add_option("--label", flags.labels, "KEY=VALUE label added to the image config");
  build->add_option("--platform", flags.platform, "Target platform OS/ARCH[/VARIANT]")
      ->capture_default_str();
  build->add_option("--source", flags.source, "org.opencontainers.image.source annotation");
  build->add_option("--revision", flags.revision, "org.opencontainers.image.revision annotation");
  build->add_flag("--lazy-base", flags.lazy_base,
                  "With --output: reference the oci: base's layers instead of copying them");
  build->add_flag("-q,--quiet", flags.quiet, "Print only the manifest digest");
  return build;
}

int RunBuildCommand(const BuildFlags& flags, std::ostream& out, std::ostream& err) {
  sdk::ImageBuildOptions options;
  if (!ParsePairs(flags.build_args, "--build-arg", &options.build_args, err) ||
      !ParsePairs(flags.labels, "--label", &options.labels, err)) {
    return kExitUsage;
  }
  if (flags.lazy_base && flags.output.empty()) {
    return ReportError(err, absl::InvalidArgumentError("--lazy-base needs --output oci:DIR"),
                       kExitUsage);
  }
  options.context_dir = flags.context;
  options.dockerfile = flags.file;
  options.tags = flags.tags;
  options.output = flags.output;
  options.target = flags.target;
  options.platform = flags.platform;
  options.source = flags.source;
  options.revision = flags.revision;
  options.lazy_base = flags.lazy_base;
  const auto start = std::chrono::steady_clock::now();
  auto step_start = start;
  if (!flags.quiet) {
    options.progress = [&](const packager::builder::BuildStep& step) {
      if (!step.done) {
        step_start = std::chrono::steady_clock::now();
        if (step.text.rfind("COPY", 0) == 0 || step.text.rfind("ADD", 0) == 0) return;
        out << fmt::format("[{}/{}] {}\n", step.index, step.total, step.text);
        return;
      }
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
      out << fmt::format("[{}/{}] {}{}\n", step.index, step.total, step.text,
                         step.cached ? " (cached)" : fmt::format(" ({:.2f}s)", seconds));
    };
  }
  auto built = sdk::BuildImage(options);
  if (!built.ok()) {
    const bool usage = built.status().code() == absl::StatusCode::kInvalidArgument &&
                       std::string(built.status().message()).rfind("--output", 0) == 0;
    return ReportError(err, built.status(), usage ? kExitUsage : kExitFailed);
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (flags.quiet) {
    out << built->manifest_digest << "\n";
    return kExitOk;
  }
  out << fmt::format("built in {:.2f}s: {} layer(s) written, {} cached, {} file(s) hashed\n", total,
                     built->stats.layers_written, built->stats.layers_cached,
                     built->stats.files_hashed);
  out << "manifest " << built->manifest_digest << "\n";
  out << "image id " << built->image_id << "\n";
  for (const std::string& tag : built->tags) out << "tagged " << tag << "\n";
  if (!built->output.empty()) {
    out << "wrote " << built->output;
    if (!built->missing_base_blobs.empty()) {
      out << fmt::format(" ({} base layer(s) referenced, not copied)",
                         built->missing_base_blobs.size());
    }
    out << "\n";
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
