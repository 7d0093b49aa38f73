// `trainpkg build [-f Dockerfile] [-t REF]... [--build-arg K=V]... [--target STAGE]
//   [--output oci:DIR[:TAG]] [--label K=V]... [--platform OS/ARCH] CONTEXT`
// `trainpkg build --bundle-libs BINARY [-t REF]... [--output oci:DIR[:TAG]]
//   [--env K=V]... [--workdir DIR] [--user USER] [--ca-certificates]
//   [--ld-library-path DIR[:DIR]...] [--label K=V]...` (no CONTEXT)
#ifndef TRAINPKG_SDK_CLI_BUILD_COMMAND_H_
#define TRAINPKG_SDK_CLI_BUILD_COMMAND_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "packager/layer/layer_options.h"
#include "registry/oci/host_platform.h"
#include "sdk/image_builder.h"

namespace trainpkg::cli {

struct BuildFlags {
  std::string context;
  std::string file;
  std::vector<std::string> tags;
  std::vector<std::string> build_args;  // K=V
  std::string target;
  std::string output;
  std::vector<std::string> labels;             // K=V
  std::string platform = oci::HostPlatform();  // the host's, like docker's
  std::string source;
  std::string revision;
  bool lazy_base = false;
  bool quiet = false;
  bool no_cache = false;         // --no-cache
  bool pull = false;             // --pull (registry bases are always resolved anew)
  std::string iidfile;           // --iidfile: the image ID written there
  std::string progress = "auto";  // auto | plain | tty | quiet
  std::string compression;             // gzip | zstd | none; "": ImageBuildOptions' default
  int compression_level = 0;           // 0: the compression's default
  std::string network = "default";     // RUN's: default | none
  std::vector<std::string> add_hosts;  // NAME:IP
  // --bundle-libs and the options only it takes.
  std::string bundle_binary;
  std::vector<std::string> env;  // K=V
  std::string workdir;
  std::string user;
  bool ca_certificates = false;
  std::string ld_library_path;  // DIR[:DIR]
};

CLI::App* AddBuildCommand(CLI::App& app, BuildFlags& flags);

// A --compression value (gzip | zstd | none, as CLI11 checked) as an enum.
packager::LayerCompression CompressionFromFlag(const std::string& value);

// --compression ("" keeps the default) and --compression-level (0 keeps the
// default) into `options`; InvalidArgument naming the valid range when the
// level does not fit the compression.
absl::Status ApplyCompressionFlags(const std::string& compression, int level,
                                   sdk::ImageBuildOptions& options);

// Builds; progress on `out` ("[2/6] COPY ... (cached)"), then a summary and
// the image digest. 0 on success; 2 for bad flags (nothing built); 1 when the
// build fails (the error, with the Dockerfile line, on `err`).
int RunBuildCommand(const BuildFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_BUILD_COMMAND_H_
