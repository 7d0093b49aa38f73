#include "sdk/cli/build_command.h"

#include <chrono>
#include <map>

#include "absl/status/status.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/layer/layer_options.h"
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

packager::LayerCompression CompressionFromFlag(const std::string& value) {
  if (value == "zstd") return packager::LayerCompression::kZstd;
  if (value == "none") return packager::LayerCompression::kNone;
  return packager::LayerCompression::kGzip;
}

absl::Status ApplyCompressionFlags(const std::string& compression, int level,
                                   sdk::ImageBuildOptions& options) {
  if (!compression.empty()) options.compression = CompressionFromFlag(compression);
  if (level == 0) return absl::OkStatus();
  packager::LayerOptions check;
  check.compression = options.compression.value_or(packager::LayerCompression::kGzip);
  TP_RETURN_IF_ERROR(packager::SetCompressionLevel(level, &check));
  options.compression_level = level;
  return absl::OkStatus();
}

CLI::App* AddBuildCommand(CLI::App& app, BuildFlags& flags) {
  CLI::App* build = app.add_subcommand(
      "build", "Build an OCI image from a Dockerfile, or from a native binary, daemonless");
  build->footer(
      "Without a Docker daemon: base images are read as manifest + config only (oci:DIR[:TAG] "
      "layouts or registry references); layers keep the files' mtimes, clamped to "
      "SOURCE_DATE_EPOCH when it is set (then the same sources give the same digests from any "
      "checkout), and are cached under $TRAINPKG_HOME/build-cache. RUN runs the command under runc "
      "(needs "
      "root and overlayfs) over the stage's files: only then are base layers downloaded, and "
      "unpacked under $TRAINPKG_HOME/rootfs; its output is shown unless --quiet. Like docker "
      "build, RUN reaches the network (through slirp4netns, in a network namespace of its own; "
      "not the host's 127.0.0.1) and sees an /etc/hosts (localhost, buildkitsandbox, --add-host) "
      "and an /etc/resolv.conf (slirp4netns's DNS forwarder, the host's search and options), "
      "both read-only and never part of a layer; the proxy build args (HTTP_PROXY, HTTPS_PROXY, "
      "FTP_PROXY, NO_PROXY, ALL_PROXY, lower-case too) reach RUN without an ARG and stay out of "
      "the image and (unless an ARG declares them) of the cache key.\n"
      "--bundle-libs BINARY (no CONTEXT, no Dockerfile): an image with no base holding BINARY "
      "at /usr/local/bin/NAME (the entrypoint), every shared library it loads (found as ld.so "
      "finds them, the loader included) and a minimal /etc. "
      "To add files, build it with --output oci:DIR and use FROM oci:DIR in a "
      "Dockerfile.\n"
      "Exit code: 0 built, 1 the build failed, 2 invalid flags.");
  build->add_option("CONTEXT", flags.context, "Build context directory (not with --bundle-libs)");
  build->add_option("-f,--file", flags.file, "Dockerfile (default CONTEXT/Dockerfile)");
  build->add_option("-t,--tag", flags.tags, "Store the image in the local store as NAME[:TAG]")
      ->allow_extra_args(false);
  build->add_option("--build-arg", flags.build_args, "KEY=VALUE for an ARG")
      ->allow_extra_args(false);
  build->add_option("--target", flags.target, "Build this stage (default: the last)");
  build->add_option("--output", flags.output,
                    "Also write the image to an oci-layout: oci:DIR[:TAG] (TAG default latest)");
  build->add_option("--label", flags.labels, "KEY=VALUE label added to the image config")
      ->allow_extra_args(false);
  build->add_option("--platform", flags.platform, "Target platform OS/ARCH[/VARIANT]")
      ->capture_default_str();
  build->add_option("--source", flags.source, "org.opencontainers.image.source annotation");
  build->add_option("--revision", flags.revision, "org.opencontainers.image.revision annotation");
  build->add_flag("--lazy-base", flags.lazy_base,
                  "With --output: reference the oci: base's layers instead of copying them");
  build->add_flag("-q,--quiet", flags.quiet, "Print only the manifest digest");
  build->add_flag("--no-cache", flags.no_cache,
                  "Build every layer again (RUN steps run) instead of taking it from the layer "
                  "cache; the new layers are still cached for later builds");
  build->add_flag("--pull", flags.pull,
                  "Resolve registry FROM images from the registry: what every build does (the "
                  "store never answers for a registry base's tag), accepted for docker's scripts");
  build->add_option("--iidfile", flags.iidfile,
                    "Write the image ID (the config digest, sha256:...) to this file");
  build
      ->add_option("--progress", flags.progress,
                   "auto, plain and tty print one line per step as it starts and ends (there is "
                   "no redrawn display, so the three are the same); quiet is -q")
      ->check(CLI::IsMember({"auto", "plain", "tty", "quiet"}))
      ->capture_default_str();
  build
      ->add_option("--compression", flags.compression,
                   "Layer compression: gzip, zstd (OCI ...tar+zstd; readers need zstd support) or "
                   "none. Default: gzip with --output or --compression-level; otherwise none, "
                   "and `trainpkg push` compresses the stored layers (like docker build)")
      ->check(CLI::IsMember({"gzip", "zstd", "none"}));
  build->add_option("--compression-level", flags.compression_level,
                    "gzip 1..12 (default 6, gzip -6's size; 1 deflates 1.7-3x faster, 7-13% larger "
                    "on code and text), zstd 1..19 (default 3)");
  build
      ->add_option("--network", flags.network,
                   "RUN's network: default (outbound through slirp4netns) or none (loopback "
                   "only); RUN --network=none|default overrides it for one step")
      ->capture_default_str();
  build
      ->add_option("--add-host", flags.add_hosts,
                   "NAME:IP line added to every RUN's /etc/hosts (repeatable; IPv6 as "
                   "NAME:[ADDR] or NAME:ADDR)")
      ->allow_extra_args(false);
  build->add_option("--bundle-libs", flags.bundle_binary,
                    "Build from this native executable and its shared libraries instead");
  build->add_option("--env", flags.env, "With --bundle-libs: KEY=VALUE in the image's Env")
      ->allow_extra_args(false);
  build->add_option("--workdir", flags.workdir, "With --bundle-libs: the WorkingDir (default /)");
  build->add_option("--user", flags.user, "With --bundle-libs: the User (default root)");
  build->add_flag("--ca-certificates", flags.ca_certificates,
                  "With --bundle-libs: copy the host's /etc/ssl/certs/ca-certificates.crt");
  build->add_option("--ld-library-path", flags.ld_library_path,
                    "With --bundle-libs: DIR[:DIR] searched as LD_LIBRARY_PATH (the "
                    "environment's is ignored)");

  return build;
}

namespace {

// Which flags fit which form; the error says what to drop.
absl::Status CheckForm(const BuildFlags& flags) {
  if (flags.bundle_binary.empty()) {
    if (flags.context.empty()) {
      return absl::InvalidArgumentError("CONTEXT is required (or --bundle-libs BINARY)");
    }
    if (!flags.env.empty() || !flags.workdir.empty() || !flags.user.empty() ||
        flags.ca_certificates || !flags.ld_library_path.empty()) {
      return absl::InvalidArgumentError(
          "--env, --workdir, --user, --ca-certificates, --ld-library-path go with "
          "--bundle-libs; a Dockerfile sets these with ENV, WORKDIR, USER and CMD");
    }
    return absl::OkStatus();
  }
  if (!flags.context.empty() || !flags.file.empty() || !flags.build_args.empty() ||
      !flags.target.empty() || flags.lazy_base || flags.platform != oci::HostPlatform() ||
      flags.network != "default" || !flags.add_hosts.empty()) {
    return absl::InvalidArgumentError(
        "--bundle-libs builds without a Dockerfile: CONTEXT, -f, --build-arg, --target, "
        "--platform (the binary's), --lazy-base, --network and --add-host do not apply (build it "
        "with --output oci:DIR, then FROM oci:DIR)");
  }
  return absl::OkStatus();
}

std::vector<std::string> SplitColons(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// --network: default or none. Not host: a RUN never shares the host's
// network (docs/adr/2026-11-27-container-isolation.md).
absl::StatusOr<packager::builder::RunNetwork> NetworkFromFlag(const std::string& value) {
  if (value == "default") return packager::builder::RunNetwork::kDefault;
  if (value == "none") return packager::builder::RunNetwork::kNone;
  return absl::InvalidArgumentError(fmt::format(
      "--network \"{}\": expected default (outbound through slirp4netns, not the host's "
      "127.0.0.1) or none (loopback only){}",
      value, value == "host" ? "; RUN never shares the host's network" : ""));
}

}  // namespace

int RunBuildCommand(const BuildFlags& flags, std::ostream& out, std::ostream& err) {
  if (absl::Status form = CheckForm(flags); !form.ok()) return ReportError(err, form, kExitUsage);
  sdk::ImageBuildOptions options;
  if (!flags.bundle_binary.empty()) {
    sdk::BundleOptions bundle;
    bundle.binary = flags.bundle_binary;
    bundle.env = flags.env;
    bundle.workdir = flags.workdir;
    bundle.user = flags.user;
    bundle.ca_certificates = flags.ca_certificates;
    bundle.ld_library_path = SplitColons(flags.ld_library_path);
    options.bundle = std::move(bundle);
  }
  if (!ParsePairs(flags.build_args, "--build-arg", &options.build_args, err) ||
      !ParsePairs(flags.labels, "--label", &options.labels, err)) {
    return kExitUsage;
  }
  if (flags.lazy_base && flags.output.empty()) {
    return ReportError(err, absl::InvalidArgumentError("--lazy-base needs --output oci:DIR"),
                       kExitUsage);
  }
  absl::StatusOr<packager::builder::RunNetwork> network = NetworkFromFlag(flags.network);
  if (!network.ok()) return ReportError(err, network.status(), kExitUsage);
  options.network = *network;
  for (const std::string& value : flags.add_hosts) {
    absl::StatusOr<packager::run::HostEntry> host =
        packager::run::ParseHostEntry(value, "--add-host");
    if (!host.ok()) return ReportError(err, host.status(), kExitUsage);
    options.add_hosts.push_back(*std::move(host));
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
  options.no_cache = flags.no_cache;
  const bool quiet = flags.quiet || flags.progress == "quiet";
  if (absl::Status compression =
          ApplyCompressionFlags(flags.compression, flags.compression_level, options);
      !compression.ok()) {
    return ReportError(err, compression, kExitUsage);
  }
  const auto start = std::chrono::steady_clock::now();
  auto step_start = start;
  if (!quiet) {
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
    options.run_output = [&](std::string_view chunk) { out << chunk << std::flush; };
  }
  auto built = sdk::BuildImage(options);
  if (!built.ok()) {
    const bool usage = built.status().code() == absl::StatusCode::kInvalidArgument &&
                       std::string(built.status().message()).rfind("--output", 0) == 0;
    return ReportError(err, built.status(), usage ? kExitUsage : kExitFailed);
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!flags.iidfile.empty()) {
    // As docker writes it: the ID alone, no newline.
    absl::Status written = base::WriteFileAtomic(flags.iidfile, built->image_id);
    if (!written.ok()) {
      return ReportError(
          err, base::WithContext(written, fmt::format("--iidfile {}", flags.iidfile)), kExitFailed);
    }
  }
  if (quiet) {
    out << built->manifest_digest << "\n";
    return kExitOk;
  }
  out << fmt::format("built in {:.2f}s: {} layer(s) written, {} cached, {} file(s) hashed\n", total,
                     built->stats.layers_written, built->stats.layers_cached,
                     built->stats.files_hashed);
  out << "manifest " << built->manifest_digest << "\n";
  out << "image id " << built->image_id << "\n";
  for (const std::string& tag : built->tags) out << "tagged " << tag << "\n";
  if (built->compression == packager::LayerCompression::kNone &&
      built->stats.layers_written + built->stats.layers_cached > 0) {
    out << "layers stored uncompressed; `trainpkg push` compresses them (gzip unless "
           "--compression says otherwise)\n";
  }
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
