// `trainpkg images` and its verbs, as docker's `images` / `image ...`:
//   images [ls] [-q] [--no-trunc] [--format table|json] [--filter KEY=VALUE]
//   images rm [-f] IMAGE...      images tag SOURCE TARGET
//   images inspect IMAGE...      images prune [-a] [-f]
// and `trainpkg system prune [-a] [-f]` (sdk/local_images.h says what each removes).
#ifndef TRAINPKG_SDK_CLI_IMAGES_COMMAND_H_
#define TRAINPKG_SDK_CLI_IMAGES_COMMAND_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

struct ImagesFlags {
  bool no_trunc = false;
  bool quiet = false;
  std::string format = "table";
  std::vector<std::string> filters;
  std::vector<std::string> images;  // rm, inspect; tag: SOURCE TARGET
  bool force = false;               // rm, prune
  bool all = false;                 // prune
};

struct ImagesCommands {
  CLI::App* images = nullptr;
  CLI::App* ls = nullptr;
  CLI::App* rm = nullptr;
  CLI::App* tag = nullptr;
  CLI::App* inspect = nullptr;
  CLI::App* prune = nullptr;
  CLI::App* system = nullptr;
  CLI::App* system_prune = nullptr;
};

ImagesCommands AddImagesCommands(CLI::App& app, ImagesFlags& flags);

// Whichever of `commands` was parsed. 0; 1 after an error (each IMAGE of rm
// and inspect is tried, docker's way); 2 for a bad --filter or --format.
int RunImagesCommand(const ImagesCommands& commands, const ImagesFlags& flags, std::istream& in,
                     std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_IMAGES_COMMAND_H_
