// `trainpkg import SOURCE [-t REF]... [--output oci:DIR[:TAG]] [--push]
//   [-c|--change 'INSTRUCTION']... [--platform OS/ARCH[/VARIANT]]
//   [--compression gzip|zstd|none] [--compression-level N] [-q]`:
// `docker import` without a daemon. SOURCE is a root filesystem directory, a
// tar archive (plain, gzip, bzip2, xz or zstd) or "-" (an archive on
// standard input); it becomes a one-layer image (sdk::ImportOptions).
#ifndef TRAINPKG_SDK_CLI_IMPORT_COMMAND_H_
#define TRAINPKG_SDK_CLI_IMPORT_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "sdk/cli/push_command.h"

namespace trainpkg::cli {

struct ImportFlags {
  std::string source;
  std::vector<std::string> tags;
  std::string output;
  bool push = false;
  std::vector<std::string> changes;
  std::string platform;       // "": the host's
  std::string compression;    // gzip | zstd | none; "": as `trainpkg build`
  int compression_level = 0;  // 0: the compression's default
  bool quiet = false;
  RegistryFlags registry;  // --push
};

CLI::App* AddImportCommand(CLI::App& app, ImportFlags& flags);

// Imports; progress on `out` as `trainpkg build` shows it, then the manifest
// digest, image id, tags and layout written; with --push, each tag is then
// pushed as `trainpkg push REF` pushes it. 0 on success; 2 for bad flags or
// a bad --change (nothing written); 1 when the import or a push fails.
int RunImportCommand(const ImportFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_IMPORT_COMMAND_H_
